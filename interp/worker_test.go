package interp

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// testMains are the programs the test binary plays, by the value of GOSBI_TEST_MAIN; files of
// tests for some systems only add theirs.
var testMains = map[string]func([]string) error{"worker": WorkerMain, "script": ScriptMain, "repl": REPLMain}

// TestMain lets the test binary act as a worker process for the tests over real pipes.
func TestMain(m *testing.M) {
	// GOSBI_TEST_MAIN makes the test binary play one of the programs: worker, script or repl.
	if main := os.Getenv("GOSBI_TEST_MAIN"); main != "" {
		if d, err := time.ParseDuration(os.Getenv("GOSBI_TEST_PROGRESS_DELAY")); err == nil {
			progressDelay = d
		}
		if n, err := strconv.Atoi(os.Getenv("GOSBI_TEST_MAX_EVENT")); err == nil {
			maxEvent = n
		}
		run := testMains[main]
		if run == nil {
			os.Stderr.WriteString("GOSBI_TEST_MAIN=" + main + ": no such program on this system\n")
			os.Exit(2)
		}
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
	reqW   *os.File
	exited chan struct{} // closed when the process has ended
	events chan ipc.Event
	n      int
	logs   *syncbuf.Buffer
}

func startWorker(t testing.TB) *workerProc {
	t.Helper()
	return startWorkerEnv(t, "GOSBI_TEST_PROGRESS_DELAY=0s")
}

// startWorkerEnv starts a worker with more environment variables; GOSBI_TEST_PROGRESS_DELAY
// sets how long a library call runs before its progress bar appears (default 1s).
func startWorkerEnv(t testing.TB, env ...string) *workerProc {
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
	cmd.Env = append(append(os.Environ(), "GOSBI_TEST_MAIN=worker"), env...)
	passed, err := ipc.PassPipes(cmd, []*os.File{reqR, evW})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	err = cmd.Start()
	passed()
	if err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	evW.Close()
	w := &workerProc{t: t, cmd: cmd, enc: ipc.NewEncoder(reqW), reqW: reqW, exited: make(chan struct{}), events: make(chan ipc.Event, 100), logs: logs}
	go func() { cmd.Wait(); close(w.exited) }()
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
		select {
		case <-w.exited:
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
	if r.ID == "" && r.Type != ipc.Interrupt && r.Type != ipc.InputReply {
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

	// An interrupted input read ends the cell; a late answer does not reach the next read.
	id = w.send(ipc.Request{Type: ipc.Execute, Code: "fmt.Scanln(&name)", ExecutionCount: 2, AllowStdin: true})
	if ev = w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.Interrupt})
	if evs = w.collect(id); evs[len(evs)-1].Content["status"] != "error" {
		t.Errorf("interrupted input: %+v", evs)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "late"})
	id = w.send(ipc.Request{Type: ipc.Execute, Code: "fmt.Scanln(&name)\nname", ExecutionCount: 3, AllowStdin: true})
	if ev = w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "fresh"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != `"fresh"` {
		t.Errorf("the second read got %+v", res)
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

// TestWorkerExitsWhenFrontIsGone closes the request pipe while a cell is stuck in compiled
// code, as happens when the front is killed: the worker must exit instead of running on.
func TestWorkerExitsWhenFrontIsGone(t *testing.T) {
	w := startWorker(t)
	w.send(ipc.Request{Type: ipc.Execute, Code: "fmt.Println(\"sleeping\")\ntime.Sleep(time.Minute)", ExecutionCount: 1})
	if ev := w.next(); ev.Type != ipc.Stream {
		t.Fatalf("event %+v", ev)
	}
	w.reqW.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("the worker still runs 5 s after its request pipe closed; its log:\n%s", w.logs)
	}
}

func TestWorkerRequests(t *testing.T) {
	w := startWorker(t)
	w.execute("import \"strings\"\nfunc greet(name string) string { return \"hi \" + name }", 1)

	r := w.collect(w.send(ipc.Request{Type: ipc.Complete, Code: "strings.Spl", CursorPos: 11}))[0]
	if m, _ := r.Content["matches"].([]any); len(m) < 2 || r.Content["cursor_start"] != float64(8) || r.Content["cursor_end"] != float64(11) {
		t.Errorf("complete reply %+v", r.Content)
	}
	// no match is an empty list, never null: JupyterLab's completer iterates over matches
	r = w.collect(w.send(ipc.Request{Type: ipc.Complete, Code: "zzNoSuchName", CursorPos: 12}))[0]
	if m, isList := r.Content["matches"].([]any); !isList || len(m) != 0 {
		t.Errorf("complete reply without a match %+v; want \"matches\": []", r.Content)
	}
	r = w.collect(w.send(ipc.Request{Type: ipc.Inspect, Code: "strings.Split", CursorPos: 10}))[0]
	if d, _ := r.Content["data"].(map[string]any); r.Content["found"] != true || !strings.Contains(d["text/plain"].(string), "func Split(s, sep string) []string") {
		t.Errorf("inspect reply %+v", r.Content)
	}
	r = w.collect(w.send(ipc.Request{Type: ipc.IsComplete, Code: "func f() {"}))[0]
	if r.Content["status"] != "incomplete" {
		t.Errorf("is_complete reply %+v", r.Content)
	}
	// a silent execution shows nothing; user expressions are evaluated after the cell
	evs := w.collect(w.send(ipc.Request{Type: ipc.Execute, Code: "fmt.Println(\"quiet\")\ny := 20\ny", Silent: true,
		UserExpressions: map[string]string{"double": "y * 2", "bad": "nosuch"}}))
	if len(evs) != 1 {
		t.Errorf("silent execution produced %+v", evs)
	}
	ue, _ := evs[0].Content["user_expressions"].(map[string]any)
	double, _ := ue["double"].(map[string]any)
	bad, _ := ue["bad"].(map[string]any)
	if data, _ := double["data"].(map[string]any); double["status"] != "ok" || data["text/plain"] != "40" || bad["status"] != "error" {
		t.Errorf("user_expressions %+v", ue)
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
		<-w.exited
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

// TestWorkerGoroutinePanicKeepsState panics in a goroutine of a cell: the worker reports it
// on the standard error of the cell that runs then and keeps the session's variables. A
// runtime fatal error in a goroutine (a stack overflow), which no recover stops, still ends
// the worker (the front then restarts it) with the Go trace on the worker's own standard error.
func TestWorkerGoroutinePanicKeepsState(t *testing.T) {
	w := startWorker(t)
	w.execute("x := 41", 1)
	// the goroutine panics at once; the cell waits so that the report comes while it runs
	evs := w.execute("go func() {\n\tpanic(\"lost in a goroutine\")\n}()\ntime.Sleep(2 * time.Second)\nx + 1", 2)
	text := ""
	for _, ev := range ofType(evs, ipc.Stream) {
		text += ev.Text
	}
	if !strings.Contains(text, "panic in a goroutine started by cell [2] line 1: lost in a goroutine") {
		t.Errorf("the cell's output %q does not report the goroutine's panic", text)
	}
	if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "42" {
		t.Errorf("the cell after the panic: %+v", evs)
	}

	w.send(ipc.Request{Type: ipc.Execute, Code: "func down(n int) int { return down(n+1) + 1 }\ngo func() { down(0) }()\nselect {}", ExecutionCount: 3})
	for ev := range w.events {
		if ev.Type == ipc.Reply {
			t.Fatalf("the cell finished: %+v", ev)
		}
	}
	<-w.exited // not cmd.Wait: startWorker's goroutine waits, and copies the logs before it returns
	if !strings.Contains(w.logs.String(), "fatal error: stack overflow") {
		t.Errorf("the crash trace is not in the worker's log:\n%.3000s", w.logs.String())
	}
}

// TestWorkerStackOverflowNamed checks that the runtime's own words for a stack overflow reach
// the worker's standard error (which the front reads to explain the crash), although the
// output of cells is redirected.
func TestWorkerStackOverflowNamed(t *testing.T) {
	w := startWorker(t)
	w.send(ipc.Request{Type: ipc.Execute, Code: "func down(n int) int { return down(n+1) + 1 }\ndown(0)", ExecutionCount: 1})
	for ev := range w.events {
		if ev.Type == ipc.Reply {
			t.Fatalf("the cell finished: %+v", ev)
		}
	}
	<-w.exited
	t.Log(w.cmd.ProcessState)
	for _, want := range []string{"goroutine stack exceeds", "fatal error: stack overflow"} {
		if !strings.Contains(w.logs.String(), want) {
			t.Errorf("the worker's log lacks %q:\n%.3000s", want, w.logs.String())
		}
	}
}

// TestWorkerOsStdin reads os.Stdin in cells: each read asks the front for a line, and a client
// that does not allow input gets a clear error instead of an end of file.
func TestWorkerOsStdin(t *testing.T) {
	w := startWorker(t)
	w.execute("import (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)", 0)
	id := w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 1, AllowStdin: true,
		Code: "r := bufio.NewReader(os.Stdin)\nline, err := r.ReadString('\\n')\nfmt.Sprint(strings.TrimSpace(line), \" \", err)"})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "42 gophers"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != `"42 gophers <nil>"` {
		t.Errorf("os.Stdin read %+v", res)
	}
	// fmt.Scan and os.Stdin share one buffer: what one leaves on the line, the other reads
	id = w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 2, AllowStdin: true,
		Code: "var n int\nfmt.Scan(&n)\nrest, _ := r.ReadString('\\n')\nfmt.Sprint(n, \"|\", rest)"})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "7 more"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "`7|more\n`" {
		t.Errorf("mixed reads %+v", res)
	}
	evs := w.execute("_, err = bufio.NewReader(os.Stdin).ReadString('\\n')\nerr.Error()", 3)
	if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 || !strings.Contains(res[0].Data["text/plain"].(string), "does not accept input requests") {
		t.Errorf("read without allow_stdin: %+v", evs)
	}
	if len(ofType(evs, ipc.InputRequest)) != 0 {
		t.Errorf("input requested although the client does not allow it: %+v", evs)
	}
}

// TestWorkerInputReplyError: an input reply carrying an error (the front could not pass the
// client's answer on) fails the cell's read with that error; the next read gets its answer.
func TestWorkerInputReplyError(t *testing.T) {
	w := startWorker(t)
	w.execute("import (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n)", 0)
	code := "line, err := bufio.NewReader(os.Stdin).ReadString('\\n')\nfmt.Sprint(line, \"|\", err)"
	id := w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 1, AllowStdin: true, Code: code})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Error: "the answer given is too large"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != `"|reading standard input: the answer given is too large"` {
		t.Errorf("read after an input reply with an error: %+v", res)
	}
	id = w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 2, AllowStdin: true, Code: code})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{Type: ipc.InputReply, Value: "gopher"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "`gopher\n|<nil>`" {
		t.Errorf("the next read got %+v", res)
	}
}

// TestWorkerInterruptTargetsItsCell sends interrupts while a cell waits for input: one meant
// for another cell is ignored, the one naming the cell ends the read and the cell.
func TestWorkerInterruptTargetsItsCell(t *testing.T) {
	w := startWorker(t)
	w.execute("import (\n\t\"bufio\"\n\t\"os\"\n)", 0)
	code := "line, err := bufio.NewReader(os.Stdin).ReadString('\\n')\nline"
	id := w.send(ipc.Request{Type: ipc.Execute, Code: code, ExecutionCount: 1, AllowStdin: true})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{ID: "some-earlier-cell", Type: ipc.Interrupt})
	time.Sleep(100 * time.Millisecond) // the worker reads requests in order: the reply comes after
	w.send(ipc.Request{Type: ipc.InputReply, Value: "still here"})
	if res := ofType(w.collect(id), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "`still here\n`" {
		t.Errorf("a stray interrupt disturbed the cell: %+v", res)
	}

	id = w.send(ipc.Request{Type: ipc.Execute, Code: code, ExecutionCount: 2, AllowStdin: true})
	if ev := w.next(); ev.Type != ipc.InputRequest {
		t.Fatalf("event %+v, want input_request", ev)
	}
	w.send(ipc.Request{ID: id, Type: ipc.Interrupt})
	evs := w.collect(id)
	if errs := ofType(evs, ipc.Error); len(errs) != 1 || errs[0].Ename != "Interrupted" {
		t.Errorf("interrupt of a blocked read: %+v", evs)
	}
}

// progressBars follows the progress bars in a cell's events: the display ids in the order the
// bars were first shown, and the last text of each. An update of a bar never shown fails the
// test.
func progressBars(t *testing.T, evs []ipc.Event) (ids []any, bars map[any]string) {
	t.Helper()
	bars = map[any]string{}
	for _, ev := range evs {
		if ev.Type != ipc.DisplayData && ev.Type != ipc.UpdateDisplay {
			continue
		}
		id := ev.Transient["display_id"]
		if _, ok := bars[id]; !ok {
			if ev.Type != ipc.DisplayData {
				t.Errorf("update of a bar never shown: %+v", ev)
			}
			ids = append(ids, id)
		}
		bars[id], _ = ev.Data["text/plain"].(string)
	}
	return ids, bars
}

// TestWorkerNestedProgress reports two calls at once (a training that simulates): each keeps
// one bar, updated in place, and both end saying done.
func TestWorkerNestedProgress(t *testing.T) {
	w := startWorker(t)
	evs := w.execute("tr := sbi.NewProgress(\"train\", 3)\nfor range 3 {\n\tsim := sbi.NewProgress(\"simulate\", 2)\n"+
		"\tsim.Add(2)\n\tsim.Finish()\n\ttr.Add(1)\n}\ntr.Finish()", 1)
	ids, bars := progressBars(t, evs)
	// one bar for the training, one per simulation (each started after the last finished)
	if len(ids) != 4 {
		t.Fatalf("%d bars, want 4: %v", len(ids), bars)
	}
	if !strings.HasPrefix(bars[ids[0]], "train") || !strings.Contains(bars[ids[0]], "3/3 done") {
		t.Errorf("training bar ends as %q", bars[ids[0]])
	}
	for _, id := range ids[1:] {
		if !strings.HasPrefix(bars[id], "simulate") || !strings.Contains(bars[id], "2/2 done") {
			t.Errorf("simulation bar ends as %q", bars[id])
		}
	}
}

// TestWorkerProgressOnlyForLongCalls runs many quick library calls, which must leave no bar,
// and two slow ones: one reporting often, one silent between its start and end. Each slow
// call gets one bar, shown once it has run for the delay and ending saying done.
func TestWorkerProgressOnlyForLongCalls(t *testing.T) {
	w := startWorkerEnv(t, "GOSBI_TEST_PROGRESS_DELAY=200ms")
	w.execute("import \"time\"", 0)
	evs := w.execute("for range 500 {\n\tp := sbi.NewProgress(\"quick\", 3)\n\tp.Add(3)\n\tp.Finish()\n}", 1)
	if bars := append(ofType(evs, ipc.DisplayData), ofType(evs, ipc.UpdateDisplay)...); len(bars) != 0 {
		t.Errorf("quick calls left %d bar events: %+v", len(bars), bars[0])
	}
	evs = w.execute("for range 2 {\n\tp := sbi.NewProgress(\"quick\", 1)\n\tp.Finish()\n}\n"+
		"busy := sbi.NewProgress(\"busy\", 40)\nfor range 40 {\n\ttime.Sleep(10 * time.Millisecond)\n\tbusy.Add(1)\n}\nbusy.Finish()\n"+
		"silent := sbi.NewProgress(\"silent\", 0)\ntime.Sleep(400 * time.Millisecond)\nsilent.Finish()", 2)
	ids, bars := progressBars(t, evs)
	if len(ids) != 2 {
		t.Fatalf("%d bars, want one for each slow call: %v", len(ids), bars)
	}
	if !strings.HasPrefix(bars[ids[0]], "busy") || !strings.Contains(bars[ids[0]], "40/40 done") {
		t.Errorf("bar of the reporting call ends as %q", bars[ids[0]])
	}
	if !strings.HasPrefix(bars[ids[1]], "silent") || !strings.Contains(bars[ids[1]], "done") {
		t.Errorf("bar of the silent call ends as %q", bars[ids[1]])
	}
}

// TestWorkerHelpNotFound checks the replies a Jupyter front-end gets for a name without
// documentation: the cell's status is ok and it prints "no documentation found", and for a
// name of Python's sbi the execute reply pages the hint that the inspect reply (Shift-Tab)
// shows as found.
func TestWorkerHelpNotFound(t *testing.T) {
	w := startWorker(t)
	evs := w.execute("?nosuchname", 1)
	reply := evs[len(evs)-1].Content
	if reply["status"] != "ok" || len(ofType(evs, ipc.Error)) != 0 {
		t.Errorf("?nosuchname: reply %+v, events %+v; want status ok", reply, evs)
	}
	if out := streamText(evs, "stdout"); !strings.Contains(out, "no documentation found for nosuchname") {
		t.Errorf("?nosuchname printed %q", out)
	}
	r := w.collect(w.send(ipc.Request{Type: ipc.Inspect, Code: "nosuchname", CursorPos: 10}))[0]
	if r.Content["status"] != "ok" || r.Content["found"] != false {
		t.Errorf("inspect reply of nosuchname %+v", r.Content)
	}

	const hint = "Python sbi's snpe_c is sbi.Sequential here"
	evs = w.execute("?SNPE_C", 2)
	reply = evs[len(evs)-1].Content
	p, _ := reply["payload"].([]any)
	if reply["status"] != "ok" || len(p) != 1 || !strings.Contains(fmt.Sprint(p[0]), hint) {
		t.Errorf("?SNPE_C: reply %+v, want status ok and a page with %q", reply, hint)
	}
	r = w.collect(w.send(ipc.Request{Type: ipc.Inspect, Code: "SNPE_C", CursorPos: 6}))[0]
	if d, _ := r.Content["data"].(map[string]any); r.Content["found"] != true || !strings.Contains(fmt.Sprint(d["text/plain"]), hint) {
		t.Errorf("inspect reply of SNPE_C %+v, want found with %q", r.Content, hint)
	}
}

// TestWorkerHelpPage checks that %help answers with a pager payload in the reply.
func TestWorkerHelpPage(t *testing.T) {
	w := startWorker(t)
	evs := w.execute("%help", 1)
	p, _ := evs[len(evs)-1].Content["payload"].([]any)
	if len(p) != 1 {
		t.Fatalf("payload %+v, want one page", evs[len(evs)-1].Content)
	}
	page, _ := p[0].(map[string]any)
	data, _ := page["data"].(map[string]any)
	if page["source"] != "page" || page["start"] != float64(0) || !strings.Contains(fmt.Sprint(data["text/plain"]), "%reset") {
		t.Errorf("page %+v", page)
	}
	if len(ofType(evs, ipc.Stream)) != 0 {
		t.Errorf("help also printed in the cell: %+v", evs)
	}
}

// TestWorkerRestartedNote starts a worker as the front does after a crash: a name of the lost
// state is reported as undefined, with a note that the state was reset.
func TestWorkerRestartedNote(t *testing.T) {
	t.Setenv(ipc.RestartedEnv, "1")
	w := startWorker(t)
	for i, code := range []string{"x[0]", "x + 1", "x()"} {
		evs := w.execute(code, i+1)
		errs := ofType(evs, ipc.Error)
		if len(errs) != 1 || !strings.Contains(errs[0].Evalue, "undefined: x") || strings.Contains(errs[0].Evalue, "CFG") {
			t.Errorf("%s: errors %+v, want undefined: x", code, errs)
			continue
		}
		if tb := strings.Join(errs[0].Traceback, "\n"); !strings.Contains(tb, "restarted") || !strings.Contains(tb, "reset") {
			t.Errorf("%s: traceback %q does not say that state was reset", code, tb)
		}
	}
}

// TestWorkerPlots shows plots in every way a cell can: as its last expression, with Show, as
// a live loss plot replaced in place, and a coverage result of package diag.
func TestWorkerPlots(t *testing.T) {
	w := startWorker(t)
	w.execute("import (\n\t\"github.com/gosbi/gosbi/sbi/diag\"\n\t\"github.com/gosbi/gosbi/viz\"\n)\n"+
		"cov, err := diag.CoverageFromRanks([]float64{0.1, 0.5, 0.9, 0.3, 0.7}, diag.Levels(4))", 1)
	isPlot := func(data map[string]any) bool {
		png, _ := data["image/png"].(string) // base64 after the JSON of the pipe
		return strings.HasPrefix(png, "iVBORw0KGgo") && data["image/svg+xml"] != nil
	}

	evs := w.execute("viz.LossCurves([]float64{3, 2, 1}, nil)", 2)
	if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 || !isPlot(res[0].Data) {
		t.Errorf("plot as the last expression: %+v", evs)
	}
	evs = w.execute("viz.Coverage(cov).Show()", 3)
	if disp := ofType(evs, ipc.DisplayData); len(disp) != 1 || !isPlot(disp[0].Data) || len(ofType(evs, ipc.ExecuteResult)) != 0 {
		t.Errorf("Show: %d displays, %d results: %.300v", len(ofType(evs, ipc.DisplayData)), len(ofType(evs, ipc.ExecuteResult)), evs)
	}
	evs = w.execute("cov", 4)
	if res := ofType(evs, ipc.ExecuteResult); len(res) != 1 || !strings.Contains(fmt.Sprint(res[0].Data["text/html"]), "<table") {
		t.Errorf("coverage result as the last expression: %+v", evs)
	}
	evs = w.execute("l := viz.NewLoss()\nfor e := range 5 {\n\tl.Add(float64(5-e), float64(6-e))\n}\nl.Finish()", 5)
	disp, upd := ofType(evs, ipc.DisplayData), ofType(evs, ipc.UpdateDisplay)
	if len(disp) != 1 || len(upd) == 0 || !isPlot(disp[0].Data) || !isPlot(upd[len(upd)-1].Data) ||
		upd[len(upd)-1].Transient["display_id"] != disp[0].Transient["display_id"] {
		t.Errorf("live loss: %d displays, %d updates: %+v", len(disp), len(upd), evs)
	}
}

// TestWorkerOutputTooLarge makes outputs larger than the largest event (lowered to 1 MiB for
// the test; 256 MiB in use): each cell fails with an error that names the limit, and the worker
// goes on.
func TestWorkerOutputTooLarge(t *testing.T) {
	w := startWorkerEnv(t, "GOSBI_TEST_PROGRESS_DELAY=0s", "GOSBI_TEST_MAX_EVENT="+strconv.Itoa(1<<20))
	for i, code := range []string{
		`display.Text(strings.Repeat("x", 2<<20))`,
		`strings.Repeat("y", 2<<20)`,
	} {
		evs := w.execute(code, i+1)
		errs := ofType(evs, ipc.Error)
		if len(errs) != 1 || errs[0].Ename != "OutputTooLarge" || !strings.Contains(errs[0].Evalue, "more than the 1 MiB one output may have") {
			t.Errorf("%s: events %+v, want one OutputTooLarge error naming the limit", code, errs)
		}
		if r := evs[len(evs)-1]; r.Content["status"] != "error" {
			t.Errorf("%s: reply %v", code, r.Content)
		}
	}
	if res := ofType(w.execute("1 + 1", 3), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "2" {
		t.Fatalf("after the large outputs: %+v", res)
	}
}

// TestWorkerErrorTooLarge makes a cell fail with an error larger than the largest event
// (lowered to 1 MiB for the test): the cell gets the start of the error with a note that the
// rest was cut, and the worker goes on with its state.
func TestWorkerErrorTooLarge(t *testing.T) {
	w := startWorkerEnv(t, "GOSBI_TEST_PROGRESS_DELAY=0s", "GOSBI_TEST_MAX_EVENT="+strconv.Itoa(1<<20))
	w.execute("kept := 41", 1)
	evs := w.execute(`panic(strings.Repeat("z", 2<<20))`, 2)
	errs := ofType(evs, ipc.Error)
	if len(errs) != 1 || !strings.Contains(errs[0].Evalue, "zzzz") || !strings.Contains(errs[0].Evalue, "cut") {
		t.Errorf("events %.300v, want one error with the start of the panic's value and a note that it was cut", errs)
	}
	if r := evs[len(evs)-1]; r.Type != ipc.Reply || r.Content["status"] != "error" {
		t.Errorf("reply %.300v", r)
	}
	if res := ofType(w.execute("kept + 1", 3), ipc.ExecuteResult); len(res) != 1 || res[0].Data["text/plain"] != "42" {
		t.Fatalf("after the large error: %+v", res)
	}
}

// TestWorkerOutputAfterCell prints from a goroutine after its cell has ended: the worker sends
// the text as a stream of that cell, for the front to show under it, rather than only log it.
func TestWorkerOutputAfterCell(t *testing.T) {
	w := startWorker(t)
	id := w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 1,
		Code: "go func() {\n\ttime.Sleep(200 * time.Millisecond)\n\tfmt.Println(\"bg 0\")\n}()"})
	w.collect(id)
	ev := w.next()
	if ev.Type != ipc.Stream || ev.ID != id || ev.Text != "bg 0\n" {
		t.Errorf("after the cell: %+v, want a stream \"bg 0\\n\" of the cell %q", ev, id)
	}
}

// TestWorkerOutputAfterSilentCell prints from a goroutine after a silent request has run
// (as a front's completion probe): the text still goes to the last cell that shows its
// output, not dropped because the silent request was the last to run.
func TestWorkerOutputAfterSilentCell(t *testing.T) {
	w := startWorker(t)
	id := w.send(ipc.Request{Type: ipc.Execute, ExecutionCount: 1,
		Code: "release := make(chan bool)\ngo func() {\n\t<-release\n\ttime.Sleep(200 * time.Millisecond)\n\tfmt.Println(\"bg 1\")\n}()"})
	w.collect(id)
	w.collect(w.send(ipc.Request{Type: ipc.Execute, Code: "1", Silent: true}))
	w.collect(w.send(ipc.Request{Type: ipc.Execute, Code: "close(release)", Silent: true}))
	ev := w.next()
	if ev.Type != ipc.Stream || ev.ID != id || ev.Text != "bg 1\n" {
		t.Errorf("after a silent request: %+v, want a stream \"bg 1\\n\" of the cell %q", ev, id)
	}
}
