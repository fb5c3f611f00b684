package kernel

import (
	"encoding/json"
	"regexp"
	"strings"
)

// historyEntry is one executed cell kept by the front for history_request.
type historyEntry struct {
	line   int
	input  string
	output string // text/plain of the cell's execute_result, if any
}

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
	all := append([]historyEntry(nil), k.history...)
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
			if e.output != "" {
				out = e.output
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
