package interp

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/ipc"
)

// TestMain lets the test binary act as a worker process for the tests over real pipes.
func TestMain(m *testing.M) {
	// GOSBI_TEST_MAIN makes the test binary play one of the programs: worker, script or repl.
	if main := os.Getenv("GOSBI_TEST_MAIN"); main != "" {
		run := map[string]func([]string) error{"worker": WorkerMain, "script": ScriptMain, "repl": REPLMain}[main]
		if err := run(os.Args[1:]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workerProc is a worker started as a child process, as the kernel front starts it.
type workerProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	enc    *ipc.Encoder
	events chan ipc.Event
	n      int
	logs   *syncBuffer
}

func startWorker(t testing.TB) *workerProc {
	t.Helper()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "GOSBI_TEST_MAIN=worker")
	cmd.ExtraFiles = []*os.File{reqR, evW}
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	evW.Close()
	w := &workerProc{t: t, cmd: cmd, enc: ipc.NewEncoder(reqW), events: make(chan ipc.Event, 100), logs: logs}
	go func() {
		defer close(w.events)
		dec := ipc.NewDecoder(evR)
		for {
			var ev ipc.Event
			if dec.Next(&ev) != nil {
				return
			}
			w.events <- ev
		}
	}()
	t.Cleanup(func() {
		reqW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	if ev := w.next(); ev.Type != ipc.Ready {
		t.Fatalf("first event %+v, want ready", ev)
	}
	return w
}

func (w *workerProc) next() ipc.Event {
	w.t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			w.t.Fatalf("worker ended; its log:\n%s", w.logs.String())
		}
		return ev
	case <-time.After(30 * time.Second):
		w.t.Fatalf("no event from the worker; its log:\n%s", w.logs.String())
	}
	return ipc.Event{}
}

func (w *workerProc) send(r ipc.Request) string {
	w.t.Helper()
	w.n++
	if r.ID == "" {
		r.ID = "req" + string(rune('a'+w.n%26)) + strings.Repeat("x", w.n/26)
	}
	if err := w.enc.Send(r); err != nil {
		w.t.Fatal(err)
	}
	return r.ID
}

// collect returns the events of a request up to and including its reply.
func (w *workerProc) collect(id string) []ipc.Event {
	w.t.Helper()
	var evs []ipc.Event
	for {
		ev := w.next()
		if ev.ID != id {
			w.t.Fatalf("event for %q while waiting for %q: %+v", ev.ID, id, ev)
		}
		evs = append(evs, ev)
		if ev.Type == ipc.Reply {
			return evs
		}
	}
}

func (w *workerProc) execute(code string, count int) []ipc.Event {
	w.t.Helper()
	return w.collect(w.send(ipc.Request{Type: ipc.Execute, Code: code, ExecutionCount: count, StoreHistory: true}))
}

func ofType(evs []ipc.Event, typ string) []ipc.Event {
	var res []ipc.Event
	for _, ev := range evs {
		if ev.Type == typ {
			res = append(res, ev)
		}
	}
	return res
}

func streamText(evs []ipc.Event, name string) string {
	var b strings.Builder
	for _, ev := range ofType(evs, ipc.Stream) {
		if ev.Name == name {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func TestWorkerExecute(t *testing.T) {
	w := startWorker(t)

	evs := w.execute("fmt.Println(\"hello\")\nos.Stdout.WriteString(\"compiled write\\n\")\nfmt.Fprintln(os.Stderr, \"to stderr\")\n40 + 2", 1)
	if got := streamText(evs, "stdout"); got != "hello\ncompiled write\n" {
		t.Errorf("stdout %q", got)
	}
	if got := streamText(evs, "stderr"); !strings.Contains(got, "to stderr\n") {
		t.Errorf("stderr %q", got)
	}
	res := ofType(evs, ipc.ExecuteResult)
	if len(res) != 1 || res[0].Data["text/plain"] != "42" {
		t.Errorf("execute_result %+v", res)
	}
	if r := evs[len(evs)-1]; r.Content["status"] != "ok" {
		t.Errorf("reply %+v", r)
	}

	// exactly one error and nothing on stderr for a failing cell
	evs = w.execute("func boom() { panic(\"bad\") }\nboom()", 2)
	if errs := ofType(evs, ipc.Error); len(errs) != 1 || !strings.Contains(errs[0].Evalue, "bad") {
		t.Errorf("errors %+v", errs)
	}
	if len(evs) != 2 {
		t.Errorf("a failed cell must produce one error and the reply, got %+v", evs)
	}
	if r := evs[len(evs)-1]; r.Content["status"] != "error" || r.Content["ename"] != "panic" {
		t.Errorf("reply %+v", r)
	}

	// rich displays, updated in place
	evs = w.execute("display.Markdown(\"# hi\")\nd := display.New()\nd.Text(\"a\")\nd.Text(\"b\")", 3)
	disp := ofType(evs, ipc.DisplayData)
	upd := ofType(evs, ipc.UpdateDisplay)
	if len(disp) != 2 || disp[0].Data["text/markdown"] != "# hi" || len(upd) != 1 ||
		upd[0].Transient["display_id"] != disp[1].Transient["display_id"] || upd[0].Data["text/plain"] != "b" {
		t.Errorf("displays %+v", evs)
	}

	evs = w.execute("fmt.Println(\"old\")\ndisplay.ClearOutput(true)\nfmt.Println(\"new\")", 4)
	if len(evs) != 4 || evs[0].Text != "old\n" || evs[1].Type != ipc.ClearOutput || !evs[1].Wait || evs[2].Text != "new\n" {
		t.Errorf("clear_output events %+v", evs)
	}
}

func TestWorkerStreamsWhileRunning(t *testing.T) {
	w := startWorker(t)
	// The cell prints, then waits for input: the print must arrive before the cell ends.
	id := w.send(ipc.Request{Type: ipc.Execute, Code: "import \"fmt\"\nfmt.Println(\"before\")\nvar name string\nfmt.Scanln(&name)\nfmt.Println(\"hello \" + name)", ExecutionCount: 1, AllowStdin: true})
	ev := w.next()
	if ev.Type != ipc.Stream || ev.Text != "before\n" {
		t.Fatalf("first event %+v, want the stream printed before the input", ev)
	}
	if ev = w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "gopher"})
	evs := w.collect(id)
	if got := streamText(evs, "stdout"); got != "hello gopher\n" {
		t.Errorf("after input: %q", got)
	}
}

func TestWorkerInterrupt(t *testing.T) {
	w := startWorker(t)
	id := w.send(ipc.Request{Type: ipc.Execute, Code: "fmt.Println(\"looping\")\nfor {\n}", ExecutionCount: 1})
	if ev := w.next(); ev.Type != ipc.Stream {
		t.Fatalf("event %+v", ev)
	}
	w.send(ipc.Request{Type: ipc.Interrupt})
	evs := w.collect(id)
	if errs := ofType(evs, ipc.Error); len(errs) != 1 || errs[0].Ename != "Interrupted" {
		t.Fatalf("events after interrupt %+v", evs)
	}
	evs = w.execute("1 + 1", 2)
	if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "2" {
		t.Fatalf("after interrupt %+v", evs)
	}
}

func TestWorkerRequests(t *testing.T) {
	w := startWorker(t)
	w.execute("import \"strings\"\nfunc greet(name string) string { return \"hi \" + name }", 1)

	r := w.collect(w.send(ipc.Request{Type: ipc.Complete, Code: "strings.Spl", CursorPos: 11}))[0]
	if m, _ := r.Content["matches"].([]any); len(m) < 2 || r.Content["cursor_start"] != float64(8) || r.Content["cursor_end"] != float64(11) {
		t.Errorf("complete reply %+v", r.Content)
	}
	r = w.collect(w.send(ipc.Request{Type: ipc.Inspect, Code: "strings.Split", CursorPos: 10}))[0]
	if d, _ := r.Content["data"].(map[string]any); r.Content["found"] != true || !strings.Contains(d["text/plain"].(string), "func Split(s, sep string) []string") {
		t.Errorf("inspect reply %+v", r.Content)
	}
	r = w.collect(w.send(ipc.Request{Type: ipc.IsComplete, Code: "func f() {"}))[0]
	if r.Content["status"] != "incomplete" {
		t.Errorf("is_complete reply %+v", r.Content)
	}
	id := w.send(ipc.Request{Type: ipc.Shutdown})
	if r = w.collect(id)[0]; r.Content["status"] != "ok" {
		t.Errorf("shutdown reply %+v", r.Content)
	}
}

// BenchmarkColdStart measures a worker's cold start: process start, symbol tables loaded,
// first cell answered (target: under 1 s).
func BenchmarkColdStart(b *testing.B) {
	for b.Loop() {
		w := startWorker(b)
		evs := w.execute("x := 1 + 1\nx", 1)
		if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 {
			b.Fatalf("first cell: %+v", evs)
		}
		w.collect(w.send(ipc.Request{Type: ipc.Shutdown}))
		w.cmd.Wait()
	}
}

func TestWorkerProgressBar(t *testing.T) {
	w := startWorker(t)
	evs := w.execute("p := sbi.NewProgress(\"simulate\", 4)\nfor range 4 {\n\tp.Add(1)\n}\np.Finish()", 1)
	disp, upd := ofType(evs, ipc.DisplayData), ofType(evs, ipc.UpdateDisplay)
	if len(disp) != 1 || len(upd) == 0 {
		t.Fatalf("want one display and its updates, got %+v", evs)
	}
	id := disp[0].Transient["display_id"]
	last := upd[len(upd)-1]
	if id == nil || last.Transient["display_id"] != id {
		t.Errorf("updates do not target the bar: %+v", evs)
	}
	if h, _ := last.Data["text/html"].(string); !strings.Contains(h, "<progress") || !strings.Contains(h, "4/4") {
		t.Errorf("last bar %q", h)
	}
	if txt, _ := last.Data["text/plain"].(string); !strings.Contains(txt, "simulate") || !strings.Contains(txt, "done") {
		t.Errorf("last bar text %q", txt)
	}
}

// TestWorkerDiesOnGoroutinePanic checks that a panic in a goroutine of the user ends the worker
// (the front then restarts it) with the Go trace on the worker's own standard error.
func TestWorkerDiesOnGoroutinePanic(t *testing.T) {
	w := startWorker(t)
	w.send(ipc.Request{Type: ipc.Execute, Code: "go func() { panic(\"lost in a goroutine\") }()\nselect {}", ExecutionCount: 1})
	for ev := range w.events {
		if ev.Type == ipc.Reply {
			t.Fatalf("the cell finished: %+v", ev)
		}
	}
	w.cmd.Wait()
	if !strings.Contains(w.logs.String(), "lost in a goroutine") {
		t.Errorf("the crash trace is not in the worker's log:\n%s", w.logs.String())
	}
}
