package nbtest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/cmdflag"
	"github.com/gosbi/gosbi/internal/kernel"
)

// Config configures the execution of a notebook.
type Config struct {
	// Kernel is the command line that starts a kernel, with "{connection_file}" standing for
	// the connection file. Empty means this executable's "kernel -f {connection_file}".
	Kernel []string
	// Env is added to the kernel's environment.
	Env []string
	// Params override the defaults of the cell tagged "parameters" (name → Go expression).
	Params map[string]string
	// Full runs the full version: the parameter quick is set to false (GOSBI_FULL=1).
	Full bool
	// CellTimeout bounds each cell's execution, from its execute_request to its execute_reply
	// (0: no limit). A cell that runs longer is interrupted and counts as failed.
	CellTimeout time.Duration
	// MaxOutput bounds the stream output (stdout and stderr) saved for one cell, in bytes
	// (0: DefaultMaxOutput). Beyond it the first and the last half are kept, with a line that
	// says how much was left out between them.
	MaxOutput int
	// Log receives progress lines and the kernel's own diagnostics (nil: discarded).
	Log io.Writer
	// Stop, when closed, stops the run as a failing cell does: the running cell is interrupted,
	// no later cell runs, and the Result holds the notebook as far as it ran (gosbi run closes
	// it on SIGINT or SIGTERM). Nil never stops.
	Stop <-chan struct{}
}

// Result is an executed notebook.
type Result struct {
	Path     string
	Notebook *Notebook
	// Errors lists the cells that failed (at most one unless cells are tagged
	// "raises-exception", whose expected errors are not listed).
	Errors   []CellError
	Warnings []string
	Duration time.Duration
}

// CellError is a cell that ended with an error.
type CellError struct {
	Index     int // position in the executed notebook
	ID        string
	Source    string
	Ename     string
	Evalue    string
	Traceback []string
}

func (e CellError) Error() string {
	return fmt.Sprintf("cell %d (id %s) failed: %s: %s", e.Index+1, e.ID, e.Ename, e.Evalue)
}

// Report is a human-readable account of the failure: the cell's source and its traceback,
// with terminal colour codes removed.
func (e CellError) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- cell %d (id %s) failed ---\n", e.Index+1, e.ID)
	for i, l := range strings.Split(strings.TrimRight(e.Source, "\n"), "\n") {
		fmt.Fprintf(&b, "%4d | %s\n", i+1, l)
	}
	b.WriteString("---\n")
	if len(e.Traceback) > 0 {
		b.WriteString(StripANSI(strings.Join(e.Traceback, "\n")))
	} else {
		fmt.Fprintf(&b, "%s: %s", e.Ename, e.Evalue)
	}
	b.WriteString("\n")
	return b.String()
}

// Err returns the first cell error, or nil when every cell ran.
func (r *Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", r.Path, r.Errors[0])
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// StripANSI removes terminal escape sequences (colours) from s.
func StripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// Execute runs every code cell of the notebook at path, in order, in a fresh kernel and returns
// the notebook with its outputs. Execution stops at the first failing cell, except for cells
// tagged "raises-exception". The error is for failures to run at all (no kernel, a bad
// notebook); cell errors are in the Result.
func Execute(ctx context.Context, path string, o Config) (*Result, error) {
	nb, err := ReadNotebook(path)
	if err != nil {
		return nil, err
	}
	return ExecuteNotebook(ctx, nb, path, o)
}

// ExecuteNotebook is Execute for a notebook already read; path names it in messages.
func ExecuteNotebook(ctx context.Context, nb *Notebook, path string, o Config) (*Result, error) {
	start := time.Now()
	res := &Result{Path: path, Notebook: nb}
	warnings, err := applyParameters(nb, o.Params, o.Full)
	res.Warnings = warnings
	if err != nil {
		return nil, fmt.Errorf("nbtest: %s: %w", path, err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		// the notebook's go.work or go.mod resolves the packages its cells import
		o.Env = append(slices.Clip(o.Env), "GOSBI_NOTEBOOK_DIR="+filepath.Dir(abs))
	}
	argv := o.Kernel
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("nbtest: find the gosbi executable: %w", err)
		}
		argv = []string{exe, "kernel", "-f", "{connection_file}"}
	}
	// Cells that do not run in this execution keep no outputs of an earlier one.
	for _, cell := range nb.Cells {
		if cell.CellType == "code" {
			cell.Outputs = nil
			cell.ExecutionCount = nil
		}
	}
	p, err := StartKernel(ctx, argv, o.Env, o.Log)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	// Waiting for a kernel that has died would last forever: its end cancels every wait.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.Exited():
			cancel()
		case <-ctx.Done():
		}
	}()
	info, err := p.Request(ctx, "shell", "kernel_info_request", map[string]any{})
	if err == nil {
		var c struct {
			LanguageInfo map[string]any `json:"language_info"`
		}
		json.Unmarshal(info.Content, &c)
		if c.LanguageInfo != nil {
			nb.Metadata["language_info"] = c.LanguageInfo
		}
	}
	if _, ok := nb.Metadata["kernelspec"]; !ok {
		nb.Metadata["kernelspec"] = map[string]any{"name": "gosbi", "display_name": "Go (gosbi)", "language": "go"}
	}
	budget := newRunBudget(MaxRunOutput)
	late := newLateOutput()
	for i, cell := range nb.Cells {
		if cell.CellType != "code" {
			continue
		}
		if strings.TrimSpace(cell.Source) == "" {
			continue
		}
		if closed(o.Stop) {
			res.Errors = append(res.Errors, CellError{Index: i, ID: cell.ID, Source: cell.Source, Ename: stoppedName,
				Evalue: "not run: " + stoppedWhy})
			break
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "gosbi run: %s: cell %d/%d\n", filepath.Base(path), i+1, len(nb.Cells))
		}
		cerr, warning, err := runCell(ctx, p.Client, nb, i, o, budget, late)
		if warning != "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("cell %d: %s", i+1, warning))
		}
		if err != nil {
			select {
			case <-p.Exited():
				err = fmt.Errorf("the kernel exited while the cell ran (%v)", p.ExitErr())
				cell.Outputs = append(cell.Outputs, &Output{OutputType: "error", Ename: "KernelDied", Evalue: err.Error(),
					Traceback: []string{"KernelDied: " + err.Error()}})
				res.Duration = time.Since(start)
				return res, fmt.Errorf("nbtest: %s: cell %d: %w\nkernel output:\n%s", path, i+1, err, p.Stderr())
			default:
			}
			res.Duration = time.Since(start)
			return res, fmt.Errorf("nbtest: %s: cell %d: %w", path, i+1, err)
		}
		if closed(o.Stop) {
			if cerr == nil {
				cerr = &CellError{Index: i, ID: cell.ID, Source: cell.Source, Ename: stoppedName, Evalue: "the cell ended, and " + stoppedWhy}
			}
			res.Errors = append(res.Errors, *cerr)
			break
		}
		if cerr != nil && (!cell.HasTag("raises-exception") || cerr.Ename == outputLimit) {
			res.Errors = append(res.Errors, *cerr)
			break
		}
	}
	if !closed(o.Stop) && !closed(budget.over) {
		late.wait(ctx, p.Client, LateOutputWait)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// DefaultMaxOutput is the stream output saved for one cell unless Config.MaxOutput says
// otherwise.
const DefaultMaxOutput = 8 << 20

// MaxRunOutput bounds the outputs one run of a notebook keeps, all its cells together, in
// bytes: every output is held in memory until the notebook is saved. An output that would pass
// it is not kept, its cell is interrupted and fails (OutputLimit), and the run stops there, the
// notebook saved as far as it ran. Outputs replaced by update_display_data or cleared by
// clear_output no longer count. It is a variable so that tests can lower it.
var MaxRunOutput = 1 << 30

// LateOutputWait is how long the runner waits after the last cell of a run for output that
// goroutines of its cells print after their cell has ended (the kernel sends it to the last cell
// that ran): it is appended to that cell's outputs. What comes later is not kept.
const LateOutputWait = 500 * time.Millisecond

// outputLimit is the error name of a cell whose outputs did not fit in MaxRunOutput: the run
// stops there, even where the cell is tagged raises-exception.
const outputLimit = "OutputLimit"

// stoppedName is the error name of the cell at which Config.Stop ended the run, and stoppedWhy
// says why the run ended there.
const (
	stoppedName = "Stopped"
	stoppedWhy  = "gosbi run was stopped (SIGINT or SIGTERM): the run ends here, the notebook saved as far as it ran"
)

// closed reports whether c is closed (false for nil).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// either returns a channel closed once a or b is, and a function that ends the watch (call it
// when the channel is no longer read).
func either(a, b <-chan struct{}) (<-chan struct{}, func()) {
	if b == nil {
		return a, func() {}
	}
	c, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-a:
			close(c)
		case <-b:
			close(c)
		case <-done:
		}
	}()
	return c, func() { close(done) }
}

// runCell executes cell i and records its outputs within what is left of the run's budget; it
// returns the cell's error, if any, and a warning when the kernel's status idle did not come
// after the reply.
func runCell(ctx context.Context, c *Client, nb *Notebook, i int, o Config, budget *runBudget, late *lateOutput) (*CellError, string, error) {
	cell := nb.Cells[i]
	max := o.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	acc := newAccumulator(cell, max)
	acc.budget = budget
	req, err := c.Send("shell", "execute_request", map[string]any{
		"code": cell.Source, "silent": false, "store_history": true, "user_expressions": map[string]any{},
		"allow_stdin": false, "stop_on_error": true,
	})
	if err != nil {
		return nil, "", err
	}
	abort, unwatch := either(budget.over, o.Stop)
	ex, err := c.Collect(ctx, req, ExecuteConfig{OnOutput: acc.add, Discard: true, Timeout: o.CellTimeout, Abort: abort,
		LateFrom: late.has, OnLate: late.add})
	unwatch()
	if ex != nil && ex.Reply != nil {
		acc.addPages(ex.Reply.Content)
	}
	acc.finish()
	late.register(req.Header.MsgID, acc)
	warning := ""
	if errors.Is(err, ErrNoIdle) {
		warning = fmt.Sprintf("%v; output that came later is not saved", err)
		err = nil
	}
	if err != nil {
		return nil, "", err
	}
	var reply struct {
		Status         string   `json:"status"`
		ExecutionCount *int     `json:"execution_count"`
		Ename          string   `json:"ename"`
		Evalue         string   `json:"evalue"`
		Traceback      []string `json:"traceback"`
	}
	json.Unmarshal(ex.Reply.Content, &reply)
	cell.ExecutionCount = reply.ExecutionCount
	switch {
	case acc.over || closed(budget.over): // the late output of the cell before may have spent it
		reply.Status = "error"
		reply.Ename = outputLimit
		interrupted := ""
		if ex.Aborted {
			interrupted = " the cell was interrupted, and"
		}
		reply.Evalue = fmt.Sprintf("the outputs of this notebook's run passed the %s gosbi run keeps of one run, all cells together (they are held "+
			"in memory until the notebook is saved): this cell's later outputs are not saved,%s the run stops here. Display or print less "+
			"(update a display, or clear and redraw it, rather than add one each time), or write large results to files",
			byteSize(int64(budget.max)), interrupted)
		reply.Traceback = []string{reply.Ename + ": " + reply.Evalue}
		acc.addOutput(&Output{OutputType: "error", Ename: reply.Ename, Evalue: reply.Evalue, Traceback: reply.Traceback})
	case ex.Aborted:
		// Config.Stop: the kernel's reply (its interrupt's error, or the cell's own outcome) says
		// how the cell ended; this says why it was interrupted.
		text := "the cell was interrupted: " + stoppedWhy
		if reply.Status == "ok" {
			text = "the cell ended, and " + stoppedWhy
			reply.Status, reply.Ename, reply.Evalue = "error", stoppedName, text
		}
		acc.addOutput(&Output{OutputType: "error", Ename: stoppedName, Evalue: text, Traceback: []string{stoppedName + ": " + text}})
	case ex.TimedOut:
		reply.Status = "error"
		reply.Ename = "Timeout"
		reply.Evalue = fmt.Sprintf("the cell ran longer than the %v of --timeout (measured from its execute_request to its execute_reply) and was interrupted; "+
			"give it more with --timeout", o.CellTimeout)
		reply.Traceback = append(reply.Traceback, reply.Ename+": "+reply.Evalue)
		acc.addOutput(&Output{OutputType: "error", Ename: reply.Ename, Evalue: reply.Evalue, Traceback: reply.Traceback})
	}
	if reply.Status == "ok" {
		return nil, warning, nil
	}
	if reply.Ename == "" {
		reply.Ename, reply.Evalue = reply.Status, "the cell did not run"
	}
	return &CellError{Index: i, ID: cell.ID, Source: cell.Source, Ename: reply.Ename, Evalue: reply.Evalue, Traceback: reply.Traceback}, warning, nil
}

// accumulator turns the iopub messages of a cell into its outputs as a notebook front-end
// does: streams of the same name merge, clear_output (with wait) empties the cell, and
// update_display_data replaces the outputs that carry the same display_id.
//
// It keeps at most max bytes of stream text: the first half as it comes, then the last half
// (a window that moves on as output comes); when output is left out between them, a stderr line
// says how much, where it was. The window is written out before the next output that is not a
// stream, and at the end of the cell.
//
// With a budget, the outputs of all the cells of a run together hold at most budget.max bytes
// (see MaxRunOutput): held counts the cell's, and an output that does not fit is not kept, nor
// is any later one of the cell (over is set and budget.over closed).
type accumulator struct {
	cell      *Cell
	clearNext bool
	displays  map[string][]*Output
	max       int

	budget *runBudget      // nil: no limit
	held   int             // bytes of the cell's outputs: stream text written out, and the others' messages
	sizes  map[*Output]int // of the outputs a display_id can update
	over   bool            // an output did not fit in the budget

	open    *Output         // the last output, a stream whose text is still in text
	text    strings.Builder // of open
	kept    int             // bytes of stream text in the outputs
	tail    []streamChunk   // the window of stream text after the first half
	tailLen int
	omitted int  // bytes dropped from the window since it was last written out
	about   bool // omitted includes output the kernel dropped, counted by its messages' size

	mark streamMark // the stream state before finish wrote the window out, for reopen
}

// streamMark is what reopen restores: the outputs and stream window as they were before finish
// wrote the window out, so that late output moves the window on as if it had come in the cell.
type streamMark struct {
	outputs, text             int // number of outputs, and length of the open stream's text
	open                      bool
	tail                      []streamChunk
	tailLen, omitted, kept, n int // n: held
	about                     bool
}

// streamChunk is stream text in the window; lost is set for the kernel's note that this client
// lost output there, and counts those bytes.
type streamChunk struct {
	name, text string
	lost       int
}

// runBudget is what the cells of one run may keep of their outputs together.
type runBudget struct {
	max    int           // bytes
	done   int           // kept by the cells that have run, reopened excepted
	reopen *accumulator  // a cell that ran, taking late output (see lateOutput); nil: none
	over   chan struct{} // closed when an output did not fit
}

func newRunBudget(max int) *runBudget { return &runBudget{max: max, over: make(chan struct{})} }

func newAccumulator(cell *Cell, max int) *accumulator {
	return &accumulator{cell: cell, displays: map[string][]*Output{}, max: max, sizes: map[*Output]int{}}
}

// fits reports whether the cell's outputs may grow by n bytes; when they may not, the budget is
// marked over.
func (a *accumulator) fits(n int) bool {
	if a.budget == nil {
		return true
	}
	used := a.budget.done + a.held + a.tailLen
	if r := a.budget.reopen; r != nil && r != a {
		used += r.held + r.tailLen
	}
	if used+n <= a.budget.max {
		return true
	}
	if !a.over {
		a.over = true
		close(a.budget.over)
	}
	return false
}

// streamGrowth bounds how much stream text of n bytes can add to what the cell holds: the
// stream is kept within max (see addStream), except the kernel's notes of lost output.
func (a *accumulator) streamGrowth(n, lost int) int {
	if lost > 0 {
		return n
	}
	return min(n, max(a.max-a.kept-a.tailLen, 0))
}

// addPages keeps what the cell sent to the pager (%help, ?name), the "page" payloads of its
// execute_reply, as display outputs after the others, within the budget: JupyterLab shows them
// below the cell's outputs and saves them there, and a run has no pager to show them in.
func (a *accumulator) addPages(reply json.RawMessage) {
	var r struct {
		Payload []struct {
			Source string          `json:"source"`
			Data   json.RawMessage `json:"data"`
		} `json:"payload"`
	}
	json.Unmarshal(reply, &r)
	for _, p := range r.Payload {
		var data map[string]any
		if p.Source != "page" || a.over || json.Unmarshal(p.Data, &data) != nil || len(data) == 0 {
			continue
		}
		a.keep(&Output{OutputType: "display_data", Data: data, Metadata: map[string]any{}}, len(p.Data))
	}
}

// keep adds o, of size bytes, to the outputs if it fits in the budget.
func (a *accumulator) keep(o *Output, size int) bool {
	if !a.fits(size) {
		return false
	}
	a.addOutput(o)
	a.held += size
	return true
}

func (a *accumulator) add(m *kernel.Message) {
	if a.over {
		return // the budget is spent: the cell is being interrupted, and nothing more is kept
	}
	switch m.Header.MsgType {
	case "stream", "display_data", "execute_result", "error":
		if a.clearNext {
			a.clear()
		}
	}
	var c struct {
		Name           string         `json:"name"`
		Text           string         `json:"text"`
		Data           map[string]any `json:"data"`
		Metadata       map[string]any `json:"metadata"`
		Transient      map[string]any `json:"transient"`
		ExecutionCount *int           `json:"execution_count"`
		Ename          string         `json:"ename"`
		Evalue         string         `json:"evalue"`
		Traceback      []string       `json:"traceback"`
		Wait           bool           `json:"wait"`
	}
	if err := json.Unmarshal(m.Content, &c); err != nil {
		return
	}
	displayID, _ := c.Transient["display_id"].(string)
	switch m.Header.MsgType {
	case "stream":
		var meta map[string]struct {
			Bytes int `json:"bytes"`
		}
		json.Unmarshal(m.Metadata, &meta)
		lost := meta[kernel.LossMetadata].Bytes
		if a.fits(a.streamGrowth(len(c.Text), lost)) {
			a.addStream(c.Name, c.Text, lost)
		}
	case "display_data":
		o := &Output{OutputType: "display_data", Data: c.Data, Metadata: c.Metadata}
		if a.keep(o, len(m.Content)) && displayID != "" {
			a.displays[displayID] = append(a.displays[displayID], o)
			a.sizes[o] = len(m.Content)
		}
	case "update_display_data":
		growth := 0
		for _, o := range a.displays[displayID] {
			growth += len(m.Content) - a.sizes[o]
		}
		if growth > 0 && !a.fits(growth) {
			return
		}
		for _, o := range a.displays[displayID] {
			o.Data, o.Metadata = c.Data, c.Metadata
			a.sizes[o] = len(m.Content)
		}
		a.held += growth
	case "execute_result":
		a.keep(&Output{OutputType: "execute_result", Data: c.Data, Metadata: c.Metadata, ExecutionCount: c.ExecutionCount}, len(m.Content))
	case "error":
		a.keep(&Output{OutputType: "error", Ename: c.Ename, Evalue: c.Evalue, Traceback: c.Traceback}, len(m.Content))
	case "clear_output":
		if c.Wait {
			a.clearNext = true
		} else {
			a.clear()
		}
	}
}

func (a *accumulator) clear() {
	a.closeStream()
	a.cell.Outputs = nil
	a.displays = map[string][]*Output{}
	a.sizes = map[*Output]int{}
	a.held = 0
	a.clearNext = false
	a.kept, a.tail, a.tailLen, a.omitted, a.about = 0, nil, 0, 0, false
}

// addStream records stream text: into the outputs while the first half of the budget lasts,
// then into the window of the last half. lost is set for the kernel's note that output was
// dropped for this client (kernel.LossMetadata): the note is kept where the gap is, or counted
// in the truncation when it leaves the window.
func (a *accumulator) addStream(name, text string, lost int) {
	if a.clearNext {
		a.clear()
	}
	if name != "stderr" {
		name = "stdout"
	}
	if head := a.max / 2; a.tailLen == 0 && a.omitted == 0 && a.kept < head {
		n := runeCut(text, head-a.kept)
		if lost > 0 {
			n = len(text) // a note is kept whole
		}
		a.appendStream(name, text[:n])
		a.kept += n
		text = text[n:]
	}
	if text == "" {
		return
	}
	a.tail = append(a.tail, streamChunk{name, text, lost})
	a.tailLen += len(text)
	room := max(a.max-a.kept, 0)
	for a.tailLen > room {
		first := &a.tail[0]
		excess := a.tailLen - room
		if excess >= len(first.text) || first.lost > 0 {
			a.omitted += len(first.text)
			if first.lost > 0 {
				a.omitted += first.lost - len(first.text)
				a.about = true
			}
			a.tailLen -= len(first.text)
			a.tail = a.tail[1:]
			continue
		}
		cut := excess
		for cut < len(first.text) && !utf8.RuneStart(first.text[cut]) {
			cut++
		}
		first.text = first.text[cut:]
		a.omitted += cut
		a.tailLen -= cut
	}
}

// runeCut returns the largest n ≤ limit at which s can be cut without splitting a character.
func runeCut(s string, limit int) int {
	if limit >= len(s) {
		return len(s)
	}
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	return limit
}

// flushTail writes the window out, after the line that says what was left out before it.
func (a *accumulator) flushTail() {
	if a.omitted > 0 {
		size := byteSize(int64(a.omitted))
		if a.about {
			size = "about " + size
		}
		a.appendStream("stderr", fmt.Sprintf("\n[output truncated: %s of this cell's output are not saved here. gosbi run keeps %s of a cell's "+
			"stream output, the first and the last half (--max-output %s); raise the limit with --max-output, or write large output to a file.]\n",
			size, byteSize(int64(a.max)), byteSize(int64(a.max))))
		a.omitted, a.about = 0, false
	}
	for _, c := range a.tail {
		a.appendStream(c.name, c.text)
		a.kept += len(c.text)
	}
	a.tail, a.tailLen = nil, 0
}

// appendStream adds text to the last output if it is a stream of the same name, else starts
// a new stream output.
func (a *accumulator) appendStream(name, text string) {
	if a.open == nil || a.open.Name != name {
		a.closeStream()
		a.open = &Output{OutputType: "stream", Name: name}
		a.cell.Outputs = append(a.cell.Outputs, a.open)
	}
	a.text.WriteString(text)
	a.held += len(text)
}

// closeStream stores the text of the open stream output.
func (a *accumulator) closeStream() {
	if a.open != nil {
		a.open.Text = a.text.String()
		a.open = nil
		a.text = strings.Builder{}
	}
}

func (a *accumulator) addOutput(o *Output) {
	if a.clearNext {
		a.clear()
	}
	a.flushTail()
	a.closeStream()
	a.cell.Outputs = append(a.cell.Outputs, o)
}

// finish writes out what is pending at the end of the cell, and counts the cell's outputs in
// the run's budget; it is called once.
func (a *accumulator) finish() {
	a.mark = streamMark{outputs: len(a.cell.Outputs), text: a.text.Len(), open: a.open != nil, tail: a.tail,
		tailLen: a.tailLen, omitted: a.omitted, kept: a.kept, n: a.held, about: a.about}
	a.flushTail()
	a.closeStream()
	if a.budget != nil {
		a.budget.done += a.held
		if a.budget.reopen == a {
			a.budget.reopen = nil
		}
	}
}

// reopen takes the cell's outputs back to where they were before finish, for output that came
// after the cell ended; finish ends it again.
func (a *accumulator) reopen() {
	if a.budget != nil {
		a.budget.done -= a.held
		a.budget.reopen = a
	}
	m := a.mark
	a.cell.Outputs = a.cell.Outputs[:m.outputs]
	if m.open {
		a.open = a.cell.Outputs[m.outputs-1]
		a.text.WriteString(a.open.Text[:m.text])
	}
	a.tail, a.tailLen, a.omitted, a.kept, a.held, a.about = m.tail, m.tailLen, m.omitted, m.kept, m.n, m.about
	a.mark = streamMark{}
}

// byteSize formats n bytes as --max-output takes them: "512B", "64KiB", "1.5MiB".
func byteSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == float64(int(v)) {
		return fmt.Sprintf("%d%s", int(v), units[i])
	}
	return fmt.Sprintf("%.1f%s", v, units[i])
}

// sizeFlag is a flag that takes a number of bytes: 8MiB, 512KiB, 1GiB, 16MB (decimal units
// too) or a plain number.
type sizeFlag int

func (s *sizeFlag) String() string { return byteSize(int64(*s)) }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// maxMaxOutput bounds --max-output: the saved output is held in memory and in the notebook.
const maxMaxOutput = 1 << 30

func parseSize(v string) (int, error) {
	units := []struct {
		suffix string
		scale  float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}}
	s := strings.ToLower(strings.TrimSpace(v))
	scale := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.scale
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f*scale < 1 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a size such as 8MiB, 512KiB or 1GiB, got %q", v)
	}
	if f*scale > maxMaxOutput {
		return 0, fmt.Errorf("%s is more than the %s the runner can hold for one cell", v, byteSize(maxMaxOutput))
	}
	return int(f * scale), nil
}

// paramFlag collects --param name=value flags.
type paramFlag map[string]string

func (p paramFlag) String() string { return fmt.Sprint(map[string]string(p)) }

func (p paramFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	p[name] = value
	return nil
}

// runUsage is the synopsis and the limits of `gosbi run`.
const runUsage = `usage: gosbi run NOTEBOOK.ipynb... [--out DIR] [--html] [--param name=value] [--timeout D] [--max-output SIZE]

Runs every code cell of each notebook in a fresh kernel and saves the notebook with its outputs:
in place (keeping the file's permissions, and writing through a symbolic link to its target), or
into DIR with --out (created when missing; a run that writes nothing into it, refused before
its first cell, leaves none behind). A notebook changed on disk while it ran (saved from an editor) is not
saved over: the run fails, and the executed notebook goes to a new NAME.run-*.ipynb beside it.
GOSBI_FULL=1 runs the full version: it is --param quick=false.

The run stops at the first cell that fails, and the notebook is saved as far as it ran (the
command exits non-zero). A cell tagged "raises-exception" (cell metadata "tags", as Jupyter's
nbconvert reads it) is expected to fail: its error is kept in its outputs and the run goes on.
Ctrl-C (SIGINT) or SIGTERM stops the run the same way: the running cell is interrupted, the
notebook is saved as far as it ran, and no later notebook runs; a second signal ends the command
at once, saving nothing.

--html also writes NAME.html beside the saved notebook: one page with the images inline. The
notebook's text (sources, printed output, errors) is shown as text and raw HTML in Markdown is
left out; HTML and SVG outputs (display.HTML, plots) are kept as they are, scripts included, as
Jupyter trusts a notebook it has run: open the page only as you would run the notebook. The
page is streamed to the file: beyond the outputs, memory holds one output's rendering at a time
(up to six times its size for text that HTML escapes).

Output that a goroutine prints after its cell has ended goes, as in Jupyter, to the last cell
that ran (while a cell runs, it is that cell's output): it is appended to that cell's outputs in
the order it came, within the limits below. After the last cell the run waits 500ms for such
output; what comes later is not kept.

Limits: --timeout bounds a cell's execution, from its execute_request to its reply (the first
cell's includes the start of the interpreter); a cell that runs longer is interrupted and fails.
A cell's saved stream output (stdout and stderr) is at most --max-output: past it the first and
the last half are kept, with a line saying how much was left out between them. One display
output (a figure, a table) is at most 256MiB: a larger one fails its cell (OutputTooLarge). The
outputs a run keeps, every cell's together, are at most 1GiB (they are held in memory until the
notebook is saved; displays replaced or cleared no longer count): the output that would pass it
is not kept, its cell is interrupted and fails (OutputLimit), and the run stops there, the
notebook saved as far as it ran. A notebook file is at most 2GiB: it is read whole into memory,
and a larger one is refused before anything runs.
`

// RunMain is `gosbi run NOTEBOOK.ipynb... [--out DIR] [--html] [--param name=value] [--timeout D] [--max-output SIZE]`.
func RunMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "write the executed notebooks into `DIR`, created when missing (default: update them in place)")
	html := fs.Bool("html", false, "also write a standalone HTML page next to each executed notebook")
	timeout := fs.Duration("timeout", 0, "fail a cell whose execution (request to reply) takes longer than `D` (e.g. 10m; default no limit)")
	maxOutput := sizeFlag(DefaultMaxOutput)
	fs.Var(&maxOutput, "max-output", "save at most `SIZE` of a cell's stream output, its first and last half (e.g. 16MiB; at most 1GiB)")
	params := paramFlag{}
	fs.Var(params, "param", "set a parameter of the cell tagged \"parameters\": `name=value` (repeatable; a variable of its top level, and a value of its type)")
	quiet := fs.Bool("quiet", false, "do not print progress")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage+"\n")
		fs.PrintDefaults()
	}
	// Accept flags after the notebook names too.
	var paths []string
	rest := args
	for {
		if err := cmdflag.Parse(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(paths) == 0 {
		fs.Usage()
		return errors.New("no notebook given")
	}
	var log io.Writer = os.Stderr
	if *quiet {
		log = nil
	}
	full, err := FullFromEnv()
	if err != nil {
		return err
	}
	o := Config{Params: params, Full: full, CellTimeout: *timeout, MaxOutput: int(maxOutput), Log: log}
	jobs, created, err := planRun(paths, *out, *html, o)
	if err != nil {
		return err
	}
	// a --out directory this run created goes again if the run writes nothing into it
	defer removeEmpty(created)
	stop, unwatch := stopOnSignal()
	defer unwatch()
	o.Stop = stop
	failed, ran := 0, 0
	for _, j := range jobs {
		if closed(stop) {
			break
		}
		ran++
		res, err := ExecuteNotebook(context.Background(), j.nb, j.path, o)
		if err != nil && res == nil {
			return err
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(os.Stderr, "gosbi run: %s: warning: %s\n", j.path, w)
		}
		dest, changed, err2 := j.saveTo()
		if err2 != nil {
			return err2
		}
		if err := WriteNotebook(dest, res.Notebook); err != nil {
			return err
		}
		written := dest
		if j.html != "" {
			if err := WriteHTML(j.html, res.Notebook, filepath.Base(j.path)); err != nil {
				return err
			}
			written += ", " + j.html
		}
		if changed {
			failed++
			fmt.Fprintf(os.Stderr, "gosbi run: %s FAILED: the notebook changed on disk while it ran (saved from an editor?): "+
				"it is left as it is, and the executed notebook was written to %s instead\n", j.path, written)
			continue
		}
		if err != nil {
			// The notebook could not run to its end (its kernel died): what ran is saved.
			failed++
			fmt.Fprintf(os.Stderr, "gosbi run: %s FAILED (wrote %s)\n%v\n", j.path, written, err)
			continue
		}
		if len(res.Errors) > 0 {
			failed++
			fmt.Fprintf(os.Stderr, "gosbi run: %s FAILED (wrote %s)\n%s", j.path, written, res.Errors[0].Report())
			continue
		}
		fmt.Fprintf(os.Stderr, "gosbi run: %s ok in %.1fs (wrote %s)\n", j.path, res.Duration.Seconds(), written)
	}
	if ran < len(jobs) {
		return fmt.Errorf("%d of %d notebooks failed, and the run was stopped before the other %d", failed, len(paths), len(jobs)-ran)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d notebooks failed", failed, len(paths))
	}
	return nil
}

// stopOnSignal returns a channel closed at the first SIGINT (Ctrl-C) or SIGTERM, which stops
// the run with the notebook saved as far as it ran (Config.Stop); a second signal ends the
// process at once, as without it. The function it returns ends the watch.
func stopOnSignal() (<-chan struct{}, func()) {
	stop, done := make(chan struct{}), make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			fmt.Fprintf(os.Stderr, "gosbi run: %v: interrupting the running cell; the notebook is saved as far as it ran (a second signal ends gosbi run at once, saving nothing)\n", s)
			close(stop)
		case <-done:
		}
	}()
	var once sync.Once
	return stop, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
		})
	}
}

// FullFromEnv reads GOSBI_FULL: 1 or true runs notebooks in full mode, 0, false or unset in
// quick mode; anything else is an error.
func FullFromEnv() (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv("GOSBI_FULL"))); v {
	case "", "0", "false", "no":
		return false, nil
	case "1", "true", "yes":
		return true, nil
	default:
		return false, fmt.Errorf("GOSBI_FULL=%q: use 1 for the full run or 0 (or leave it unset) for the quick one", os.Getenv("GOSBI_FULL"))
	}
}

// runJob is one notebook of a `gosbi run`, read and checked.
type runJob struct {
	path, dest, html string
	nb               *Notebook
	inPlace          bool              // dest is the notebook's own file
	sum              [sha256.Size]byte // of the file as it was read
}

// saveTo returns the file the executed notebook goes to: dest, unless the run is in place and
// the notebook's file no longer holds what was read (it was saved from an editor while the
// notebook ran): then its changes are kept, and the executed notebook goes to a new file
// beside it, NAME.run-*.ipynb (changed is set).
func (j runJob) saveTo() (dest string, changed bool, err error) {
	if !j.inPlace {
		return j.dest, false, nil
	}
	if sum, err := fileSum(j.path); err == nil && sum == j.sum {
		return j.dest, false, nil
	}
	target, err := atomicfile.Target(j.dest)
	if err != nil {
		return "", false, err
	}
	f, err := os.CreateTemp(filepath.Dir(target), strings.TrimSuffix(filepath.Base(target), ".ipynb")+".run-*.ipynb")
	if err != nil {
		return "", false, fmt.Errorf("%s changed on disk while it ran, and the executed notebook cannot be written beside it: %w", j.path, err)
	}
	f.Close()
	return f.Name(), true, nil
}

// planRun reads the notebooks and checks, before the first cell runs, what would otherwise fail
// after all of them ran: their parameters, and that each result can be written where it goes.
// It creates the directory out when missing, and returns the directories it created, deepest
// first, for removeEmpty; when it fails it removes them itself.
func planRun(paths []string, out string, html bool, o Config) (jobs []runJob, created []string, err error) {
	if out != "" {
		st, err := os.Stat(out)
		switch {
		case err == nil && !st.IsDir():
			return nil, nil, fmt.Errorf("--out %s is a file: --out names the directory the executed notebooks are written into (without --out they are updated in place)", out)
		case errors.Is(err, fs.ErrNotExist):
			if created, err = mkdirAll(out); err != nil {
				return nil, nil, fmt.Errorf("--out: %w", err)
			}
		case err != nil:
			return nil, nil, fmt.Errorf("--out: %w", err)
		}
	}
	jobs, err = planJobs(paths, out, html, o)
	if err != nil {
		removeEmpty(created)
		return nil, nil, err
	}
	return jobs, created, nil
}

// mkdirAll creates dir and its missing parents, returning those it created, deepest first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeEmpty(missing)
		return nil, err
	}
	return missing, nil
}

// removeEmpty removes the directories dirs, deepest first, while they are empty: those that a
// run created and then wrote nothing into.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// planJobs reads the notebooks and checks their parameters and destinations (see planRun).
func planJobs(paths []string, out string, html bool, o Config) ([]runJob, error) {
	var jobs []runJob
	seen := map[string]string{}
	for _, path := range paths {
		nb, sum, err := readNotebook(path)
		if err != nil {
			return nil, err
		}
		if _, _, err := resolveParameters(nb, o.Params, o.Full); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		j := runJob{path: path, dest: path, nb: nb, inPlace: true, sum: sum}
		if out != "" {
			j.dest = filepath.Join(out, filepath.Base(path))
			a, aerr := os.Stat(path)
			b, berr := os.Stat(j.dest)
			j.inPlace = aerr == nil && berr == nil && os.SameFile(a, b)
		}
		if prev, dup := seen[j.dest]; dup {
			return nil, fmt.Errorf("%s and %s would both be written to %s: run them with different --out directories", prev, path, j.dest)
		}
		seen[j.dest] = path
		if html {
			j.html = strings.TrimSuffix(j.dest, filepath.Ext(j.dest)) + ".html"
		}
		for _, dest := range []string{j.dest, j.html} {
			if dest == "" {
				continue
			}
			if err := checkWritable(dest); err != nil {
				if out == "" && errors.Is(err, fs.ErrPermission) {
					return nil, fmt.Errorf("%s: cannot save the result: %w, or write the executed notebook elsewhere with --out DIR", path, err)
				}
				return nil, fmt.Errorf("%s: cannot save the result: %w", path, err)
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// checkWritable checks that a file can be written at path as atomicfile writes it (see
// atomicfile.Writable): the file, or the target of the symbolic link it is, is a regular file
// this user may write, or absent, and its directory takes a new file.
func checkWritable(path string) error {
	return atomicfile.Writable(path)
}

// WriteNotebook writes nb to path atomically (internal/atomicfile): a failed write leaves the
// old file whole and no temporary file; an existing file keeps its permissions, and a symbolic
// link is written through to its target.
func WriteNotebook(path string, nb *Notebook) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("nbtest: write notebook: %w", err)
	}
	return nil
}
