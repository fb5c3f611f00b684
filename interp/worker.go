package interp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/ipc"
	"github.com/gosbi/gosbi/runenv"
)

// WorkerMain runs the interpreter worker of a kernel: it reads ipc.Requests from the request
// pipe that the front passed it (file descriptor 3 on Unix, see ipc.InheritedPipe) and writes
// ipc.Events to the event pipe (file descriptor 4) until Shutdown or the end of input.
func WorkerMain(args []string) error {
	in, err := ipc.InheritedPipe(ipc.RequestPipe, "requests")
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	out, err := ipc.InheritedPipe(ipc.EventPipe, "events")
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	return runWorker(in, out)
}

// maxEvent, when positive, replaces ipc.MaxMessage as the largest event the worker sends
// (for tests).
var maxEvent int

// worker serves one front over the ipc protocol.
type worker struct {
	enc      *ipc.Encoder
	sess     *Session
	logger   *log.Logger
	outC     *capture
	errC     *capture
	mu       sync.Mutex
	cur      string             // the ID of the request being executed; "" between cells
	last     string             // the ID of the last execute request that is not silent
	tooLarge *ipc.TooLargeError // a display of the running cell that could not be sent
	silent   bool
	stdin    bool
	inputs   chan ipc.Request // the InputReply to the pending input request
	abort    chan struct{}    // closed when the running cell ends or is interrupted: a pending input read gives up
	stopped  bool             // abort is closed
	progMu   sync.Mutex       // guards progress: library goroutines report concurrently
	progress map[string]*progressDisplay
}

func runWorker(in io.Reader, out io.Writer) error {
	outR, errR, logf, err := redirectStd()
	if err != nil {
		return err
	}
	w := &worker{enc: ipc.NewEncoder(out), logger: log.New(logf, "gosbi worker: ", log.LstdFlags), inputs: make(chan ipc.Request, 1)}
	if maxEvent > 0 {
		w.enc.Max = maxEvent
	}
	// the interpreter logs some of its internal failures with the standard logger before
	// panicking; they belong in the worker's log, not in the cell (which gets one error)
	log.SetOutput(logf)
	// When the front passed the pipes, it reads them and acknowledges the sync marks made with
	// its token; otherwise the worker reads them itself.
	token := os.Getenv(ipc.CaptureEnv)
	if token != "" {
		outR.Close()
		errR.Close()
		outR, errR = nil, nil
	} else {
		token = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	w.outC = newCapture("stdout", os.Stdout, outR, token, w.stream)
	w.errC = newCapture("stderr", os.Stderr, errR, token, w.stream)
	w.sess, err = NewSession(Config{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: &inputReader{w: w},
		Display: w.display, Args: []string{"gosbi"}, Restarted: os.Getenv(ipc.RestartedEnv) != ""})
	if err != nil {
		return err
	}
	runenv.SetProgress(w.onProgress)
	// Runaway recursion in a cell ends the worker with a stack overflow (the front restarts
	// it); a smaller limit than Go's 1 GB makes that quick and keeps memory in bounds.
	debug.SetMaxStack(256 << 20)
	if err := w.enc.Send(ipc.Event{Type: ipc.Ready}); err != nil {
		return err
	}

	reqs := make(chan ipc.Request)
	go func() {
		defer close(reqs)
		dec := ipc.NewDecoder(in)
		for {
			var r ipc.Request
			if err := dec.Next(&r); err != nil {
				if !errors.Is(err, io.EOF) {
					w.logger.Print(err)
				}
				if id, _ := w.current(); id != "" {
					// The front is gone (it closes the pipe only after the worker has
					// ended): nobody can see what the running cell does, so stop it now.
					w.logger.Print("the request pipe closed while a cell was running: the kernel is gone, exiting")
					os.Exit(3)
				}
				return
			}
			switch r.Type {
			case ipc.Interrupt:
				w.interrupt(r.ID)
			case ipc.Flushed:
				name, id, _ := strings.Cut(r.Value, " ")
				n, _ := strconv.Atoi(id)
				if name == "stderr" {
					w.errC.ack(n)
				} else {
					w.outC.ack(n)
				}
			case ipc.InputReply:
				select {
				case w.inputs <- r:
				default:
					w.logger.Print("input reply without a pending input request")
				}
			default:
				reqs <- r
			}
		}
	}()
	if err := w.resumeWorker(); err != nil { // extension.go: switching to a worker that links more
		return err
	}
	for r := range reqs {
		if r.Type == ipc.Shutdown {
			return w.reply(r, map[string]any{"status": "ok"})
		}
		if err := w.handle(r); err != nil {
			return err
		}
	}
	return nil
}

// interrupt cancels the running cell if id names it (an empty id names whatever runs), and
// ends a pending read of standard input. An interrupt meant for a cell that has already
// ended is ignored, so that it cannot hit the next one.
//
// The cell's context is cancelled before a pending read gives up, so that the read's error
// finds the cell already interrupted: the cell then ends as interrupted, never with the value
// of the failed read.
func (w *worker) interrupt(id string) {
	w.mu.Lock()
	cur := w.cur
	ok := cur != "" && (id == "" || id == cur)
	w.mu.Unlock()
	if !ok {
		w.logger.Printf("interrupt for %q ignored: the running cell is %q", id, cur)
		return
	}
	w.sess.Interrupt()
	w.mu.Lock()
	if w.cur == cur && !w.stopped {
		w.stopped = true
		close(w.abort)
	}
	w.mu.Unlock()
}

func (w *worker) handle(r ipc.Request) error {
	switch r.Type {
	case ipc.Execute:
		return w.execute(r)
	case ipc.Complete:
		m, start, end := w.sess.Complete(r.Code, r.CursorPos)
		if m == nil {
			m = []string{} // the protocol's matches is a list: JupyterLab iterates over it
		}
		return w.reply(r, map[string]any{"status": "ok", "matches": m, "cursor_start": start, "cursor_end": end, "metadata": map[string]any{}})
	case ipc.Inspect:
		text, found := w.sess.Inspect(r.Code, r.CursorPos)
		data := map[string]any{}
		if found {
			data["text/plain"] = text
			data["text/html"] = "<pre>" + html.EscapeString(text) + "</pre>"
		}
		return w.reply(r, map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
	case ipc.IsComplete:
		status, indent := IsComplete(r.Code)
		c := map[string]any{"status": status}
		if status == "incomplete" {
			c["indent"] = indent
		}
		return w.reply(r, c)
	}
	return w.reply(r, map[string]any{"status": "error", "ename": "UnknownRequest", "evalue": "unknown request " + r.Type, "traceback": []string{}})
}

func (w *worker) reply(r ipc.Request, content map[string]any) error {
	err := w.enc.Send(ipc.Event{ID: r.ID, Type: ipc.Reply, Content: content})
	var tl *ipc.TooLargeError
	if errors.As(err, &tl) {
		e := tooLarge(tl)
		return w.enc.Send(ipc.Event{ID: r.ID, Type: ipc.Reply, Content: map[string]any{"status": "error", "ename": e.Name, "evalue": e.Value, "traceback": e.Traceback}})
	}
	return err
}

// tooLarge is the cell error for an output that cannot be sent to the front.
func tooLarge(err *ipc.TooLargeError) *Error {
	msg := err.Error() + ": show a smaller image or a summary, or write the data to a file"
	return &Error{Name: "OutputTooLarge", Value: msg, Traceback: []string{"OutputTooLarge: " + msg}}
}

// fitError returns e, or, when its text may not fit in an event of max bytes (JSON may write a
// byte as six), its name with the start of its message and a note that says where and why the
// rest was cut, so that the error reaches the cell instead of ending the worker.
func fitError(e *Error, max int) *Error {
	size := len(e.Name) + len(e.Value)
	for _, l := range e.Traceback {
		size += len(l)
	}
	keep := max / 16
	if size <= keep {
		return e
	}
	head := e.Value
	if len(head) > keep {
		head = strings.ToValidUTF8(head[:keep], "")
	}
	msg := fmt.Sprintf("%s… [the error was cut here: its message and trace have %d bytes, more than one output may have (%d MiB)]",
		head, size, max>>20)
	return &Error{Name: e.Name, Value: msg, Traceback: []string{e.Name + ": " + msg}}
}

func (w *worker) execute(r ipc.Request) error {
	abort := make(chan struct{})
	w.mu.Lock()
	w.cur, w.silent, w.stdin, w.abort, w.stopped = r.ID, r.Silent, r.AllowStdin, abort, false
	if !r.Silent {
		w.last = r.ID
	}
	w.mu.Unlock()
	w.progMu.Lock()
	w.progress = map[string]*progressDisplay{}
	w.progMu.Unlock()
	res := w.sess.Execute(context.Background(), r.Code, r.ExecutionCount)
	w.endProgress()
	w.mu.Lock()
	if w.tooLarge != nil && res.Err == nil {
		res = Result{Err: tooLarge(w.tooLarge)}
	}
	w.tooLarge = nil
	w.mu.Unlock()
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(abort)
	}
	w.mu.Unlock()
	w.flush()
	var uexpr map[string]any
	if res.Err == nil && len(r.UserExpressions) > 0 {
		uexpr = w.userExpressions(r.UserExpressions)
	}
	w.mu.Lock()
	w.cur = ""
	w.mu.Unlock()
	if res.Err != nil {
		res.Err = fitError(res.Err, w.enc.Max)
		if !r.Silent {
			if err := w.enc.Send(ipc.Event{ID: r.ID, Type: ipc.Error, Ename: res.Err.Name, Evalue: res.Err.Value, Traceback: res.Err.Traceback}); err != nil {
				return err
			}
		}
		return w.reply(r, map[string]any{"status": "error", "ename": res.Err.Name, "evalue": res.Err.Value, "traceback": res.Err.Traceback})
	}
	if res.Data != nil && !r.Silent {
		err := w.enc.Send(ipc.Event{ID: r.ID, Type: ipc.ExecuteResult, Data: res.Data, Metadata: map[string]any{}})
		var tl *ipc.TooLargeError
		if errors.As(err, &tl) {
			e := tooLarge(tl)
			if err := w.enc.Send(ipc.Event{ID: r.ID, Type: ipc.Error, Ename: e.Name, Evalue: e.Value, Traceback: e.Traceback}); err != nil {
				return err
			}
			return w.reply(r, map[string]any{"status": "error", "ename": e.Name, "evalue": e.Value, "traceback": e.Traceback})
		}
		if err != nil {
			return err
		}
	}
	if uexpr == nil {
		uexpr = map[string]any{}
	}
	payload := []any{}
	if res.Page != nil {
		// Jupyter front-ends show a "page" payload in their pager (help text, documentation)
		payload = append(payload, map[string]any{"source": "page", "data": res.Page, "start": 0})
	}
	return w.reply(r, map[string]any{"status": "ok", "user_expressions": uexpr, "payload": payload})
}

// userExpressions evaluates the execute request's user_expressions after the cell.
func (w *worker) userExpressions(exprs map[string]string) map[string]any {
	res := map[string]any{}
	for name, code := range exprs {
		data, err := w.sess.Evaluate(code)
		if err != nil {
			res[name] = map[string]any{"status": "error", "ename": err.Name, "evalue": err.Value, "traceback": err.Traceback}
			continue
		}
		res[name] = map[string]any{"status": "ok", "data": data, "metadata": map[string]any{}}
	}
	return res
}

// flush makes sure the cell's output so far has been sent.
func (w *worker) flush() {
	w.outC.Flush()
	w.errC.Flush()
}

func (w *worker) current() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur, w.silent
}

// lastShown returns the ID of the last execute request that is not silent, "" when none.
func (w *worker) lastShown() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// stream sends text that the process printed as output of the running cell, or while none
// runs (a goroutine of an earlier cell), of the last cell that showed its output: the front
// shows it under that cell, as ipykernel does.
func (w *worker) stream(name, text string) {
	id, silent := w.current()
	if id == "" {
		id, silent = w.lastShown(), false
	}
	if id == "" {
		w.logger.Printf("output outside a cell (%s): %s", name, strings.TrimRight(text, "\n"))
		return
	}
	if silent {
		return
	}
	if err := w.enc.Send(ipc.Event{ID: id, Type: ipc.Stream, Name: name, Text: text}); err != nil {
		w.logger.Print(err)
	}
}

// display sends rich output of the running cell, after the text printed before it.
func (w *worker) display(o runenv.Output) {
	id, silent := w.current()
	if id == "" || silent {
		return
	}
	w.flush()
	if o.Clear {
		if err := w.enc.Send(ipc.Event{ID: id, Type: ipc.ClearOutput, Wait: o.Wait}); err != nil {
			w.logger.Print(err)
		}
		return
	}
	ev := ipc.Event{ID: id, Type: ipc.DisplayData, Data: o.Data, Metadata: o.Metadata}
	if ev.Metadata == nil {
		ev.Metadata = map[string]any{}
	}
	if o.DisplayID != "" {
		ev.Transient = map[string]any{"display_id": o.DisplayID}
		if o.Update {
			ev.Type = ipc.UpdateDisplay
		}
	}
	if err := w.enc.Send(ev); err != nil {
		var tl *ipc.TooLargeError
		if errors.As(err, &tl) {
			// The cell fails with an error that says why once it has run.
			w.mu.Lock()
			w.tooLarge = tl
			w.mu.Unlock()
			return
		}
		w.logger.Print(err)
	}
}

// ErrStdinNotAllowed is what reading standard input in a cell returns when the client does
// not accept input requests (allow_stdin false, e.g. nbconvert or papermill).
var ErrStdinNotAllowed = errors.New("standard input is not available: this notebook client does not accept input requests " +
	"(allow_stdin is false, as when a notebook runs unattended); pass the value in the cell instead")

var errInputInterrupted = errors.New("reading standard input: interrupted")

// inputReader is the standard input of interpreted code: each read asks the front for a
// line (Jupyter input_request) when the request allows it.
type inputReader struct {
	w   *worker
	buf []byte
}

func (r *inputReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		w := r.w
		w.mu.Lock()
		id, allowed, abort := w.cur, w.stdin, w.abort
		w.mu.Unlock()
		if id == "" {
			return 0, io.EOF
		}
		if !allowed {
			return 0, ErrStdinNotAllowed
		}
		w.flush()
		select {
		case <-w.inputs: // a late answer to an earlier request (e.g. sent after an interrupt)
		default:
		}
		if err := w.enc.Send(ipc.Event{ID: id, Type: ipc.InputRequest, Prompt: ""}); err != nil {
			return 0, err
		}
		select {
		case v := <-w.inputs:
			if v.Error != "" {
				return 0, fmt.Errorf("reading standard input: %s", v.Error)
			}
			r.buf = []byte(v.Value + "\n")
		case <-abort:
			return 0, errInputInterrupted
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// progressDelay is how long a library call runs before its progress bar appears: quicker
// calls, such as the thousands of short ones in a loop over datasets, leave no bar.
var progressDelay = time.Second

// progressDisplay is the progress bar of one library call: it is shown once the call has run
// for progressDelay and is then updated in place.
type progressDisplay struct {
	d     *display.Display // nil until shown
	ev    runenv.ProgressEvent
	start time.Time
	timer *time.Timer // shows the bar of a call that reports nothing after starting
	done  bool
}

func (w *worker) onProgress(ev runenv.ProgressEvent) {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	if w.progress == nil {
		w.progress = map[string]*progressDisplay{}
	}
	// One bar per label and cell, replaced in place: calls that report under different labels
	// at once (a training that simulates) keep one bar each; a call that starts after the
	// last one of its label finished gets a new bar, if it runs long enough to show one.
	p := w.progress[ev.Label]
	if p == nil || p.done {
		p = &progressDisplay{start: time.Now()}
		w.progress[ev.Label] = p
		progress := w.progress
		p.timer = time.AfterFunc(progressDelay, func() {
			w.progMu.Lock()
			defer w.progMu.Unlock()
			if progress[p.ev.Label] == p && !p.done && p.d == nil {
				p.show()
			}
		})
	}
	p.ev, p.done = ev, ev.Finished
	if p.d != nil || time.Since(p.start) >= progressDelay {
		p.show()
	}
	if p.done {
		p.timer.Stop()
		if p.d != nil {
			// A console client (jupyter console) shows the bar as it was first displayed
			// and ignores its updates: the final state also goes to the cell's output.
			fmt.Fprintln(os.Stdout, progressSummary(ev, time.Since(p.start)))
		}
	}
}

// progressSummary is the line that ends a progress bar in the cell's output, e.g.
// "train NPE: 40/40 done in 12.3s (epoch 40  val loss 1.234)", or "certify: ended in 0.1s
// (stopped by interrupt …)" for a call that counted nothing.
func progressSummary(ev runenv.ProgressEvent, took time.Duration) string {
	count := ev.Count()
	if count == "" {
		count = "ended"
	}
	line := fmt.Sprintf("%s: %s in %s", ev.Label, count, took.Round(100*time.Millisecond))
	if ev.Message != "" {
		line += " (" + ev.Message + ")"
	}
	return line
}

// show creates the bar if need be and draws the last event on it.
func (p *progressDisplay) show() {
	if p.d == nil {
		p.d = display.New()
	}
	p.d.Update(progressBundle(p.ev))
}

// endProgress stops the bars of the cell that has ended: a call still pending shows nothing.
func (w *worker) endProgress() {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	for _, p := range w.progress {
		p.timer.Stop()
		p.done = true // a timer that fired already finds the bar done
	}
	w.progress = map[string]*progressDisplay{}
}

type progressBundle runenv.ProgressEvent

// MIMEBundle renders a progress event as an HTML bar and a text line.
func (ev progressBundle) MIMEBundle() map[string]any {
	e := runenv.ProgressEvent(ev)
	htm := fmt.Sprintf(`<div style="font-family:monospace">%s <progress value="%g" max="1" style="width:20em"></progress> %s</div>`,
		html.EscapeString(e.Label), e.Fraction(), html.EscapeString(e.Status()))
	return map[string]any{"text/plain": e.String(), "text/html": htm}
}

// ScriptMain runs a Go file (or standard input for "-") with the notebook's packages.
func ScriptMain(args []string) error { return runScript(args, os.Stdin, os.Stdout, os.Stderr) }

// REPLMain runs an interactive terminal session.
func REPLMain(args []string) error { return runREPL(args) }
