package kernel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The bounds of the history the front keeps (see the package doc).
const (
	maxHistoryOutput  = 1 << 20  // bytes of one cell's output, its note included
	maxHistoryOutputs = 64 << 20 // bytes of the outputs of all the entries kept
	maxHistoryInputs  = 64 << 20 // bytes of the inputs kept, historyOverhead more per entry
	historyOverhead   = 64       // bytes an entry counts besides its input
)

// historyEntry is one executed cell kept by the front for history_request.
type historyEntry struct {
	line    int
	input   string
	output  string // text/plain of the cell's execute_result, if any, cut to maxHistoryOutput
	dropped bool   // its output was dropped to keep the outputs within maxHistoryOutputs
}

// history is the input history with the bounds of the package doc: an entry's output is cut to
// maxHistoryOutput; past maxHistoryOutputs the oldest outputs are dropped, their inputs kept;
// past maxHistoryInputs the oldest entries are dropped whole (the newest one is always kept).
type history struct {
	entries     []historyEntry
	inputBytes  int // the inputs of entries, with historyOverhead each
	outputBytes int // the outputs of entries
	oldest      int // entries before it have no output
}

// add keeps the entry of one executed cell, cutting its output and dropping what the bounds
// leave no room for.
func (h *history) add(line int, input, output string) {
	e := historyEntry{line: line, input: input, output: cutHistoryOutput(output)}
	h.entries = append(h.entries, e)
	h.inputBytes += len(e.input) + historyOverhead
	h.outputBytes += len(e.output)
	for h.outputBytes > maxHistoryOutputs {
		o := &h.entries[h.oldest]
		if o.output != "" {
			h.outputBytes -= len(o.output)
			o.output, o.dropped = "", true
		}
		h.oldest++
	}
	for h.inputBytes > maxHistoryInputs && len(h.entries) > 1 {
		o := h.entries[0]
		h.inputBytes -= len(o.input) + historyOverhead
		h.outputBytes -= len(o.output)
		h.entries[0] = historyEntry{} // let the strings go: the array keeps its first slot
		h.entries = h.entries[1:]
		h.oldest = max(h.oldest-1, 0)
	}
}

// all returns a copy of the entries kept.
func (h *history) all() []historyEntry { return append([]historyEntry(nil), h.entries...) }

// cutHistoryOutput returns s when it fits in maxHistoryOutput, else a copy of its beginning
// (cut at a character boundary) with a note saying how much was cut, maxHistoryOutput bytes in
// all. The copy lets the whole text go.
func cutHistoryOutput(s string) string {
	if len(s) <= maxHistoryOutput {
		return s
	}
	note := fmt.Sprintf("\n[history keeps the first %d MiB of an output: %d bytes more were cut]", maxHistoryOutput>>20, len(s))
	n := maxHistoryOutput - len(note)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	note = fmt.Sprintf("\n[history keeps the first %d MiB of an output: %d bytes more were cut]", maxHistoryOutput>>20, len(s)-n)
	return strings.Clone(s[:n]) + note
}

// droppedOutput stands for an output dropped from the history in a reply with output.
const droppedOutput = "[output dropped: the history keeps the outputs of the latest cells, 64 MiB of them]"

// historySession is the session number the front reports: history lives as long as the kernel
// process, so there is only the current session.
const historySession = 1

type historyRequest struct {
	Output         bool   `json:"output"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	N              int    `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

// historyReply answers a history_request (tail, range or search) from the kept inputs.
func (k *Kernel) historyReply(m *Message) map[string]any {
	var c historyRequest
	json.Unmarshal(m.Content, &c)
	k.mu.Lock()
	all := k.history.all()
	k.mu.Unlock()
	var sel []historyEntry
	switch c.HistAccessType {
	case "tail":
		sel = all
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	case "range":
		if c.Session == historySession || c.Session == 0 { // 0: the current session; negative ones are earlier
			for _, e := range all {
				if e.line >= c.Start && (c.Stop <= 0 || e.line < c.Stop) {
					sel = append(sel, e)
				}
			}
		}
	case "search":
		re := globRegexp(c.Pattern)
		seen := map[string]bool{}
		// Search from the newest entry backwards so that unique keeps the latest occurrence
		// and n the latest matches, then restore chronological order.
		for i := len(all) - 1; i >= 0; i-- {
			e := all[i]
			if !re.MatchString(e.input) || (c.Unique && seen[e.input]) {
				continue
			}
			seen[e.input] = true
			sel = append(sel, e)
			if c.N > 0 && len(sel) == c.N {
				break
			}
		}
		for i, j := 0, len(sel)-1; i < j; i, j = i+1, j-1 {
			sel[i], sel[j] = sel[j], sel[i]
		}
	}
	hist := make([]any, 0, len(sel))
	for _, e := range sel {
		if c.Output {
			var out any
			switch {
			case e.output != "":
				out = e.output
			case e.dropped:
				out = droppedOutput
			}
			hist = append(hist, []any{historySession, e.line, []any{e.input, out}})
		} else {
			hist = append(hist, []any{historySession, e.line, e.input})
		}
	}
	return map[string]any{"status": "ok", "history": hist}
}

// globRegexp turns a shell glob (* and ?, as IPython's history search uses) into an anchored
// regular expression. An empty pattern matches everything.
func globRegexp(glob string) *regexp.Regexp {
	if glob == "" {
		glob = "*"
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}
