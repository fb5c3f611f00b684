package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
)

// worker is one running interpreter process.
type worker struct {
	cmd    *exec.Cmd
	enc    *ipc.Encoder
	reqW   *os.File
	events chan ipc.Event
	ready  chan struct{} // closed when the worker sent ipc.Ready
	done   chan struct{} // closed when the process has exited and its output is read
	tail   *tailBuffer

	mu       sync.Mutex
	exitErr  error
	killedBy string // why the front killed it, if it did
}

// startWorker starts argv with the request pipe, the event pipe and the pipes of its captured
// stdout and stderr (ipc.RequestPipe to ipc.StderrWrite, passed by ipc.PassPipes; see
// ipc.CaptureEnv): what comes through the last ones is passed to text. The worker's own
// stdout and stderr (its log and the Go runtime's crash report) are copied to log (the front's
// stderr) and their tail is kept.
func startWorker(argv, env []string, log io.Writer, text func(w *worker, name, text string)) (*worker, error) {
	if len(argv) == 0 {
		return nil, errors.New("kernel: no worker command")
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("kernel: worker pipe: %w", err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("kernel: worker pipe: %w", err)
	}
	capture, err := capturePipes()
	if err != nil {
		reqR.Close()
		reqW.Close()
		evR.Close()
		evW.Close()
		return nil, err
	}
	w := &worker{
		reqW:   reqW,
		enc:    ipc.NewEncoder(reqW),
		events: make(chan ipc.Event, 64),
		ready:  make(chan struct{}),
		done:   make(chan struct{}),
		tail:   newTailBuffer(40),
	}
	w.enc.Max = workerMessageMax
	cmd := exec.Command(argv[0], argv[1:]...)
	token := NewID()
	cmd.Env = append(append(os.Environ(), env...), ipc.CaptureEnv+"="+token)
	workerProcAttr(cmd)
	passed, err := ipc.PassPipes(cmd, append([]*os.File{reqR, evW}, capture...))
	if err == nil {
		out := io.MultiWriter(w.tail, newPrefixWriter(log, "worker: "))
		cmd.Stdout = out
		cmd.Stderr = out
		err = cmd.Start()
		passed()
	}
	if err != nil {
		reqR.Close()
		reqW.Close()
		evR.Close()
		evW.Close()
		for _, f := range capture {
			f.Close()
		}
		return nil, fmt.Errorf("kernel: start worker %q: %w", argv[0], err)
	}
	w.cmd = cmd
	reqR.Close()
	evW.Close()
	capture[1].Close() // the write ends belong to the worker
	capture[3].Close()
	var captured sync.WaitGroup
	for _, c := range []struct {
		name string
		r    *os.File
	}{{"stdout", capture[0]}, {"stderr", capture[2]}} {
		captured.Add(1)
		go func() {
			defer captured.Done()
			w.readCapture(c.name, c.r, token, func(s string) { text(w, c.name, s) })
		}()
	}

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(w.events)
		dec := ipc.NewDecoder(evR)
		for {
			var ev ipc.Event
			if err := dec.Next(&ev); err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(log, "kernel: worker events: %v\n", err)
				}
				evR.Close()
				return
			}
			if ev.Type == ipc.Ready {
				select {
				case <-w.ready:
				default:
					close(w.ready)
				}
				continue
			}
			w.events <- ev
		}
	}()
	go func() {
		err := cmd.Wait()
		// What the worker wrote before it ended is read to the end; a process it started may
		// still hold the write ends, so the reading stops captureDrain after.
		stop := endReads([]*os.File{capture[0], capture[2]}, captureDrain)
		captured.Wait()
		stop()
		<-readerDone
		reqW.Close()
		w.mu.Lock()
		w.exitErr = err
		w.mu.Unlock()
		close(w.done)
	}()
	return w, nil
}

// captureDrain is how long the front goes on reading a dead worker's capture pipes, which a
// process the worker started may hold open.
const captureDrain = 200 * time.Millisecond

// endReads makes the reads of rs end after d: with a read deadline, or, for a file that cannot
// have one (os.ErrNoDeadline: pipes on Windows), by closing it then, which cancels a read
// blocked on it there. stop, called once the reads have ended, cancels the closing.
func endReads(rs []*os.File, d time.Duration) (stop func()) {
	deadline := time.Now().Add(d)
	var late []*os.File
	for _, r := range rs {
		if err := r.SetReadDeadline(deadline); errors.Is(err, os.ErrNoDeadline) {
			late = append(late, r)
		}
	}
	if len(late) == 0 {
		return func() {}
	}
	t := time.AfterFunc(d, func() {
		for _, r := range late {
			r.Close()
		}
	})
	return func() { t.Stop() }
}

// send writes a request to the worker.
func (w *worker) send(r ipc.Request) error { return w.enc.Send(r) }

// workerMessageMax is the largest request the front writes on a worker's pipe: what the worker
// reads (ipc.MaxMessage); tests lower it.
var workerMessageMax = ipc.MaxMessage

// kill ends the worker process, remembering why.
func (w *worker) kill(why string) {
	w.mu.Lock()
	if w.killedBy == "" {
		w.killedBy = why
	}
	w.mu.Unlock()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
}

// stop asks the worker to shut down and kills it if it has not exited within grace.
func (w *worker) stop(grace time.Duration) {
	w.send(ipc.Request{ID: NewID(), Type: ipc.Shutdown})
	select {
	case <-w.done:
	case <-time.After(grace):
		w.kill("kernel shutdown")
		<-w.done
	}
}

// cause describes why the worker ended, from the exit status and the tail of its output.
// It is only meaningful after done is closed.
func (w *worker) cause() string {
	w.mu.Lock()
	exitErr, killedBy := w.exitErr, w.killedBy
	w.mu.Unlock()
	var b strings.Builder
	if killedBy != "" {
		b.WriteString(killedBy)
	} else if sig := signalDeath(exitErr); sig != "" {
		b.WriteString(sig)
	} else if exitErr != nil {
		fmt.Fprintf(&b, "the worker process ended (%v)", exitErr)
	} else {
		b.WriteString("the worker process exited")
	}
	if t := w.tail.String(); t != "" && killedBy == "" {
		b.WriteString(":\n")
		b.WriteString(t)
	}
	return b.String()
}

// reason returns the most telling line about the worker's end: the Go runtime's "fatal error"
// or "panic" line if there is one, otherwise the signal that killed it, otherwise the last
// line of its output.
func (w *worker) reason() string {
	if h := w.tail.Headline(); h != "" {
		return h
	}
	w.mu.Lock()
	exitErr := w.exitErr
	w.mu.Unlock()
	if sig := signalDeath(exitErr); sig != "" {
		return sig
	}
	lines := w.tail.Lines()
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

// tailBuffer keeps the last n lines written to it.
type tailBuffer struct {
	mu       sync.Mutex
	n        int
	lines    []string
	partial  bytes.Buffer
	headline string
	deduced  string
	report   crashReport
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial.Write(p)
	for {
		b := t.partial.Bytes()
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		t.addLine(string(b[:i]))
		t.partial.Next(i + 1)
	}
	if t.partial.Len() > 4096 {
		t.addLine(t.partial.String())
		t.partial.Reset()
	}
	if len(t.lines) > t.n {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-t.n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) addLine(l string) {
	if isHeadline(l) {
		t.headline = l
	}
	// A stack overflow's trace starts with runtime.throw called from runtime.newstack. When the
	// "fatal error" line itself was lost (a worker that redirects its fd 2 into a pipe during a
	// cell loses it), this signature still names the cause.
	if strings.HasPrefix(l, "runtime.newstack(") && len(t.lines) >= 2 && strings.HasPrefix(t.lines[len(t.lines)-2], "runtime.throw(") {
		t.deduced = "fatal error: stack overflow"
	}
	t.report.add(l)
	t.lines = append(t.lines, l)
}

// isHeadline reports whether l is the line in which the Go runtime names why a process died.
func isHeadline(l string) bool {
	for _, p := range []string{"fatal error:", "panic:", "runtime: goroutine stack exceeds", "runtime: out of memory"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// Headline returns the last line that said why the process died, or "".
func (t *tailBuffer) Headline() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.headline == "" {
		return t.deduced
	}
	return t.headline
}

// Lines returns the kept lines, with an unterminated last line included.
func (t *tailBuffer) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if t.partial.Len() > 0 {
		out = append(out, t.partial.String())
	}
	return out
}

func (t *tailBuffer) String() string { return strings.Join(t.Lines(), "\n") }

// Report returns the beginning of the Go runtime's crash report, if the process printed one:
// from the line that says why it died to the end of the first goroutine's trace.
func (t *tailBuffer) Report() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.report.lines...)
}

// reportMax bounds the lines of a crash report that are kept: the first goroutine's trace of a
// stack overflow alone has 200 lines.
const reportMax = 400

// crashReport keeps the beginning of a Go crash report. The runtime prints the crashing
// goroutine first and then every other one: the last lines of its output belong to a
// goroutine that has nothing to do with the crash.
type crashReport struct {
	lines     []string
	inTrace   bool // the first goroutine's trace has begun
	completed bool
}

func (r *crashReport) add(l string) {
	switch {
	case r.completed:
	case len(r.lines) == 0 && !isHeadline(l):
	case len(r.lines) >= reportMax, r.inTrace && strings.TrimSpace(l) == "":
		r.completed = true
	default:
		r.lines = append(r.lines, l)
		r.inTrace = r.inTrace || strings.HasPrefix(l, "goroutine ")
	}
}

// machinery holds the prefixes of the frames of a crash trace that belong to the Go runtime,
// reflection, the interpreter and the worker: they say nothing about where a cell went wrong.
// Go's own internal packages ("internal/runtime/maps") have no dot in their path, unlike a
// module's.
var machinery = []string{"runtime.", "reflect.", "panic(", "internal/", "github.com/traefik/yaegi/", "github.com/gosbi/gosbi/interp.", "github.com/gosbi/gosbi/internal/"}

// crashSummary is the part of a crash report that an error shows: the lines before the first
// trace other than headline (which the error states already), and the frames of compiled code
// outside the machinery in the crashing goroutine, at most 10 with their files. It returns nil
// when report is empty.
func crashSummary(report []string, headline string) []string {
	if len(report) == 0 {
		return nil
	}
	var out []string
	i := 0
	for ; i < len(report) && strings.TrimSpace(report[i]) != ""; i++ {
		if report[i] != headline && !stackRegisters(report[i]) {
			out = append(out, report[i])
		}
	}
	var frames []string
	for ; i < len(report) && len(frames) < 20; i++ {
		fn, created := strings.CutPrefix(report[i], "created by ")
		// a frame is a call, "f(args)", or the "created by f" line that ends a goroutine's trace
		frame := created || (strings.Contains(fn, "(") && !strings.HasPrefix(fn, "\t") && !strings.HasPrefix(fn, "goroutine "))
		if !frame || isMachinery(fn) {
			continue
		}
		frames = append(frames, report[i])
		if i+1 < len(report) && strings.HasPrefix(report[i+1], "\t") {
			frames = append(frames, report[i+1])
		}
	}
	if len(frames) > 0 {
		out = append(out, "The crashing goroutine was in this compiled code (the innermost call first):")
		out = append(out, frames...)
	}
	return out
}

// stackRegisters reports whether l is one of the runtime's lines about a goroutine's stack
// bounds and registers before a stack overflow ("runtime: sp=… stack=[…]", "\tmorebuf={…}",
// "\tsched={…}"), which say nothing to a user.
func stackRegisters(l string) bool {
	return strings.HasPrefix(l, "runtime: sp=") || strings.HasPrefix(l, "\tmorebuf=") || strings.HasPrefix(l, "\tsched=")
}

func isMachinery(fn string) bool {
	for _, p := range machinery {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// prefixWriter copies whole lines to w, each prefixed, for the front's log. The Go runtime
// writes a crash trace in small pieces: partial lines wait for their end.
type prefixWriter struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte
}

func newPrefixWriter(w io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{w: w, prefix: prefix}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return len(b), nil
	}
	p.partial = append(p.partial, b...)
	var buf bytes.Buffer
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		buf.WriteString(p.prefix)
		buf.Write(p.partial[:i+1])
		p.partial = p.partial[i+1:]
	}
	if len(p.partial) > 4096 {
		buf.WriteString(p.prefix)
		buf.Write(p.partial)
		buf.WriteByte('\n')
		p.partial = nil
	}
	if buf.Len() > 0 {
		p.w.Write(buf.Bytes())
	}
	return len(b), nil
}

// capturePipes returns the stdout and stderr pipes of a worker: read end, write end, read end,
// write end (see ipc.CaptureEnv).
func capturePipes() ([]*os.File, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("kernel: worker pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("kernel: worker pipe: %w", err)
	}
	return []*os.File{outR, outW, errR, errW}, nil
}

// readCapture passes what the worker writes to one of its captured descriptors to text, and
// acknowledges its sync marks, until the pipe ends.
func (w *worker) readCapture(name string, r *os.File, token string, text func(string)) {
	defer r.Close()
	sp := ipc.NewSplitter(token)
	emit := func(b []byte) {
		if len(b) > 0 {
			text(string(b))
		}
	}
	ack := func(id int) { w.send(ipc.Request{Type: ipc.Flushed, Value: fmt.Sprintf("%s %d", name, id)}) }
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		sp.Write(buf[:n], emit, ack)
		if err != nil {
			emit(sp.Rest())
			return
		}
	}
}
