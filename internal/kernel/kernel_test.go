package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/kernel/kerneltest"
	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// The test binary doubles as the fake worker and as a kernel process, and as a worker that
// fails to start (brokenworker).
func TestMain(m *testing.M) {
	kerneltest.Dispatch()
	if len(os.Args) > 1 && os.Args[1] == "brokenworker" {
		fmt.Fprintln(os.Stderr, "worker: not built yet")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

var fakeWorkerCmd = []string{os.Args[0], "worker"}

type harness struct {
	t      *testing.T
	ci     *kernel.ConnectionInfo
	k      *kernel.Kernel
	c      *nbtest.Client
	log    *syncbuf.Buffer
	ctx    context.Context
	ran    chan struct{}
	cancel context.CancelFunc
}

type setup struct {
	key    string // "" means unsigned
	grace  time.Duration
	worker []string
	env    []string
}

// start runs a kernel in this process (with the fake worker unless s.worker says otherwise)
// and a client connected to it.
func start(t *testing.T, s setup) *harness {
	t.Helper()
	ci, err := nbtest.NewConnectionInfo()
	if err != nil {
		t.Fatal(err)
	}
	ci.Key = s.key
	if s.worker == nil {
		s.worker = fakeWorkerCmd
	}
	h := &harness{t: t, ci: ci, log: &syncbuf.Buffer{}, ran: make(chan struct{})}
	h.k, err = kernel.New(kernel.Config{Conn: ci, Worker: s.worker, WorkerEnv: s.env, InterruptGrace: s.grace, Log: h.log, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h.ctx, h.cancel = ctx, cancel
	go func() {
		h.k.Run(context.Background())
		close(h.ran)
	}()
	h.c, err = nbtest.Dial(ci)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.WaitReady(ctx); err != nil {
		t.Fatalf("%v\nkernel log:\n%s", err, h.log)
	}
	t.Cleanup(func() {
		h.k.Shutdown()
		<-h.ran
		h.c.Close()
		cancel()
		if t.Failed() {
			t.Logf("kernel log:\n%s", h.log)
		}
	})
	return h
}

// TestNewStartsWorker checks that New gives a kernel whose worker runs a cell on every system:
// on Windows too, where the worker gets its pipes as inherited handles (ipc.PassPipes).
func TestNewStartsWorker(t *testing.T) {
	h := start(t, setup{})
	ex := h.exec("print hi", nbtest.ExecuteConfig{})
	if r := replyContent(t, ex); r["status"] != "ok" {
		t.Fatalf("reply %v", r)
	}
	if got := types(ex.IOPub); len(got) != 2 || got[1] != "stream" || decode(t, ex.IOPub[1].Content)["text"] != "hi\n" {
		t.Errorf("iopub messages %v, want [execute_input stream] with the stream \"hi\\n\"", got)
	}
}

func (h *harness) exec(code string, o nbtest.ExecuteConfig) *nbtest.Execution {
	h.t.Helper()
	ex, err := h.c.Execute(h.ctx, code, o)
	if err != nil {
		h.t.Fatalf("execute %q: %v", code, err)
	}
	return ex
}

func (h *harness) request(channel, msgType string, content any) map[string]any {
	h.t.Helper()
	r, err := h.c.Request(h.ctx, channel, msgType, content)
	if err != nil {
		h.t.Fatalf("%s: %v", msgType, err)
	}
	want := strings.TrimSuffix(msgType, "_request") + "_reply"
	if r.Header.MsgType != want {
		h.t.Fatalf("reply type %q, want %q", r.Header.MsgType, want)
	}
	return decode(h.t, r.Content)
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("content %s: %v", raw, err)
	}
	return m
}

func replyContent(t *testing.T, ex *nbtest.Execution) map[string]any {
	t.Helper()
	if ex.Reply.Header.MsgType != "execute_reply" {
		t.Fatalf("reply type %q", ex.Reply.Header.MsgType)
	}
	return decode(t, ex.Reply.Content)
}

func types(msgs []*kernel.Message) []string {
	var s []string
	for _, m := range msgs {
		s = append(s, m.Header.MsgType)
	}
	return s
}

func TestKernelInfo(t *testing.T) {
	h := start(t, setup{key: "secret"})
	for _, channel := range []string{"shell", "control"} {
		r := h.request(channel, "kernel_info_request", map[string]any{})
		li, _ := r["language_info"].(map[string]any)
		if r["status"] != "ok" || r["protocol_version"] != "5.3" || r["implementation"] != "gosbi" || li["name"] != "go" || li["file_extension"] != ".go" {
			t.Errorf("%s: kernel_info_reply %v", channel, r)
		}
		if b, _ := r["banner"].(string); b == "" {
			t.Errorf("%s: empty banner", channel)
		}
	}
}

// TestKernelInfoWithoutWorker checks that kernel_info is answered while the worker is not ready
// (here it never becomes ready).
func TestKernelInfoWithoutWorker(t *testing.T) {
	h := start(t, setup{worker: []string{"/bin/sleep", "60"}})
	r := h.request("shell", "kernel_info_request", map[string]any{})
	if r["status"] != "ok" {
		t.Errorf("kernel_info_reply %v", r)
	}
}

func TestExecuteOutputs(t *testing.T) {
	h := start(t, setup{key: "k"})
	for _, tc := range []struct {
		code, msgType, field, want string
	}{
		{"print hello, world", "stream", "text", "hello, world\n"},
		{"eprint oops", "stream", "name", "stderr"},
		{"result 42", "execute_result", "data", "42"},
		{"display d1", "display_data", "transient", "d1"},
		{"update d1 new", "update_display_data", "transient", "d1"},
		{"clear wait", "clear_output", "wait", "true"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			ex := h.exec(tc.code, nbtest.ExecuteConfig{})
			r := replyContent(t, ex)
			if r["status"] != "ok" {
				t.Fatalf("reply %v", r)
			}
			if got := types(ex.IOPub); len(got) != 2 || got[0] != "execute_input" || got[1] != tc.msgType {
				t.Fatalf("iopub messages %v, want [execute_input %s]", got, tc.msgType)
			}
			in := decode(t, ex.IOPub[0].Content)
			if in["code"] != tc.code || in["execution_count"] != r["execution_count"] {
				t.Errorf("execute_input %v for reply %v", in, r)
			}
			out := decode(t, ex.IOPub[1].Content)
			var got string
			switch v := out[tc.field].(type) {
			case string:
				got = v
			case bool:
				got = fmt.Sprint(v)
			case map[string]any:
				if s, ok := v["text/plain"].(string); ok {
					got = s
				} else {
					got = fmt.Sprint(v["display_id"])
				}
			}
			if got != tc.want {
				t.Errorf("%s.%s = %q, want %q (message %v)", tc.msgType, tc.field, got, tc.want, out)
			}
			if tc.msgType == "execute_result" && out["execution_count"] != r["execution_count"] {
				t.Errorf("execute_result count %v, reply count %v", out["execution_count"], r["execution_count"])
			}
		})
	}
}

func TestExecutionCount(t *testing.T) {
	h := start(t, setup{})
	count := func(ex *nbtest.Execution) float64 { return replyContent(t, ex)["execution_count"].(float64) }
	a := count(h.exec("nop", nbtest.ExecuteConfig{}))
	b := count(h.exec("nop", nbtest.ExecuteConfig{}))
	if b != a+1 {
		t.Errorf("counts %v then %v, want consecutive", a, b)
	}
	silent := h.exec("print hidden", nbtest.ExecuteConfig{Silent: true})
	if len(silent.IOPub) != 0 {
		t.Errorf("silent execution published %v", types(silent.IOPub))
	}
	if c := count(silent); c != b {
		t.Errorf("silent execution count %v, want %v (unchanged)", c, b)
	}
	noStore := h.exec("count", nbtest.ExecuteConfig{NoStoreHistory: true})
	if c := count(noStore); c != b {
		t.Errorf("store_history=false count %v, want %v", c, b)
	}
	if c := count(h.exec("error", nbtest.ExecuteConfig{})); c != b+1 {
		t.Errorf("failed cell count %v, want %v", c, b+1)
	}
	ex := h.exec("count", nbtest.ExecuteConfig{})
	want := fmt.Sprintf("%v true\n", b+2)
	if got := decode(t, ex.IOPub[1].Content)["text"]; got != want {
		t.Errorf("worker saw count %q, want %q", got, want)
	}
}

// TestErrors checks that a failed cell publishes exactly one error message, whichever way the
// worker reports it.
func TestErrors(t *testing.T) {
	h := start(t, setup{})
	for _, code := range []string{"error", "errorreply", "twoerrors", "unknowncommand"} {
		ex := h.exec(code, nbtest.ExecuteConfig{ContinueOnError: true})
		r := replyContent(t, ex)
		if r["status"] != "error" || r["ename"] == nil || r["execution_count"] == nil {
			t.Errorf("%s: reply %v", code, r)
		}
		got := types(ex.IOPub)
		if len(got) != 2 || got[1] != "error" {
			t.Errorf("%s: iopub %v, want [execute_input error]", code, got)
			continue
		}
		e := decode(t, ex.IOPub[1].Content)
		if e["ename"] != r["ename"] {
			t.Errorf("%s: error message %v, reply %v", code, e, r)
		}
	}
}

func TestStopOnError(t *testing.T) {
	h := start(t, setup{})
	for _, stop := range []bool{true, false} {
		o := nbtest.ExecuteConfig{ContinueOnError: !stop}
		first, err := h.c.Send("shell", "execute_request", map[string]any{"code": "error", "stop_on_error": stop})
		if err != nil {
			t.Fatal(err)
		}
		second, err := h.c.Send("shell", "execute_request", map[string]any{"code": "print after"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.c.Collect(h.ctx, first, o); err != nil {
			t.Fatal(err)
		}
		ex, err := h.c.Collect(h.ctx, second, o)
		if err != nil {
			t.Fatal(err)
		}
		r := replyContent(t, ex)
		want := "ok"
		if stop {
			want = "aborted"
		}
		if r["status"] != want || r["execution_count"] == nil {
			t.Errorf("stop_on_error=%v: queued cell replied %v, want status %s", stop, r, want)
		}
	}
}

func TestUserExpressions(t *testing.T) {
	h := start(t, setup{})
	r := replyContent(t, h.exec("expr", nbtest.ExecuteConfig{UserExpressions: map[string]string{"a": "1+1"}}))
	ue, _ := r["user_expressions"].(map[string]any)
	a, _ := ue["a"].(map[string]any)
	if a["status"] != "ok" {
		t.Errorf("user_expressions %v", r["user_expressions"])
	}
	r = replyContent(t, h.exec("nop", nbtest.ExecuteConfig{}))
	if _, ok := r["user_expressions"].(map[string]any); !ok {
		t.Errorf("reply without user_expressions: %v", r)
	}
	if _, ok := r["payload"].([]any); !ok {
		t.Errorf("reply without payload: %v", r)
	}
}

func TestCompleteInspectIsComplete(t *testing.T) {
	h := start(t, setup{})
	r := h.request("shell", "complete_request", map[string]any{"code": "fmt.Pr", "cursor_pos": 6})
	if r["status"] != "ok" || r["cursor_start"] != 4.0 || r["cursor_end"] != 6.0 || len(r["matches"].([]any)) != 2 {
		t.Errorf("complete_reply %v", r)
	}
	// "😀" is one code point but two UTF-16 units: a cursor at the end counted in UTF-16 (as
	// JupyterLab sends it) lies beyond the code points and is converted, and converted back.
	code := "x := \"😀\"; fmt.Pr"
	r = h.request("shell", "complete_request", map[string]any{"code": code, "cursor_pos": 17})
	if md := r["metadata"].(map[string]any); md["cursor_pos"] != 16.0 || r["cursor_end"] != 17.0 {
		t.Errorf("UTF-16 cursor: worker saw %v, reply cursor_end %v; want 16 and 17", md["cursor_pos"], r["cursor_end"])
	}
	r = h.request("shell", "inspect_request", map[string]any{"code": "fmt.Println", "cursor_pos": 5, "detail_level": 0})
	if r["status"] != "ok" || r["found"] != true {
		t.Errorf("inspect_reply %v", r)
	}
	for code, want := range map[string]string{"x := 1": "complete", "func f() {": "incomplete", "}}": "invalid"} {
		r = h.request("shell", "is_complete_request", map[string]any{"code": code})
		if r["status"] != want {
			t.Errorf("is_complete(%q) = %v, want %s", code, r, want)
		}
	}
}

func TestHistory(t *testing.T) {
	h := start(t, setup{})
	codes := []string{"result 1", "print a", "result 1", "nop"}
	for _, c := range codes {
		h.exec(c, nbtest.ExecuteConfig{})
	}
	hist := func(content map[string]any) []any {
		return h.request("shell", "history_request", content)["history"].([]any)
	}
	tail := hist(map[string]any{"hist_access_type": "tail", "n": 2, "output": false, "raw": true})
	if len(tail) != 2 || tail[0].([]any)[2] != "result 1" || tail[1].([]any)[2] != "nop" {
		t.Errorf("tail 2: %v", tail)
	}
	withOut := hist(map[string]any{"hist_access_type": "tail", "n": 4, "output": true, "raw": true})
	if out := withOut[0].([]any)[2].([]any); len(out) != 2 || out[1] != "1" {
		t.Errorf("tail with output: %v", withOut)
	}
	first := tail[0].([]any)
	rng := hist(map[string]any{"hist_access_type": "range", "session": first[0], "start": first[1], "stop": first[1].(float64) + 1})
	if len(rng) != 1 || rng[0].([]any)[2] != "result 1" {
		t.Errorf("range: %v", rng)
	}
	if s := hist(map[string]any{"hist_access_type": "search", "pattern": "result*"}); len(s) != 2 {
		t.Errorf("search: %v", s)
	}
	if s := hist(map[string]any{"hist_access_type": "search", "pattern": "result*", "unique": true}); len(s) != 1 {
		t.Errorf("search unique: %v", s)
	}
	if s := hist(map[string]any{"hist_access_type": "search", "pattern": "*", "n": 3}); len(s) != 3 {
		t.Errorf("search n=3: %v", s)
	}
}

// TestHistorySessions: a range of session 0 (the current one, as IPython counts) or of the
// session's own number gives the kernel's cells; a negative session counts back to earlier
// sessions, which a kernel process does not have: none of its cells are theirs.
func TestHistorySessions(t *testing.T) {
	h := start(t, setup{})
	h.exec("result 1", nbtest.ExecuteConfig{})
	for _, tc := range []struct {
		session float64
		want    int
	}{{0, 1}, {1, 1}, {-1, 0}, {-3, 0}, {2, 0}} {
		r := h.request("shell", "history_request", map[string]any{"hist_access_type": "range", "session": tc.session, "start": 1, "stop": 0})
		if got := len(r["history"].([]any)); got != tc.want {
			t.Errorf("session %v: %d entries (%v), want %d", tc.session, got, r["history"], tc.want)
		}
	}
}

func TestComms(t *testing.T) {
	h := start(t, setup{key: "k"})
	r := h.request("shell", "comm_info_request", map[string]any{})
	if r["status"] != "ok" || r["comms"] == nil {
		t.Errorf("comm_info_reply %v", r)
	}
	for _, msgType := range []string{"comm_open", "comm_msg", "comm_close"} {
		m, err := h.c.Send("shell", msgType, map[string]any{"comm_id": "c1", "target_name": "jupyter.widget", "data": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		got := types(h.iopubUntilIdle(m))
		want := "[]"
		if msgType == "comm_open" {
			want = "[comm_close]" // no comm targets: the comm is closed at once
		}
		if fmt.Sprint(got) != want {
			t.Errorf("%s: iopub %v, want %s", msgType, got, want)
		}
	}
}

// iopubUntilIdle returns the iopub messages of request m between busy and idle.
func (h *harness) iopubUntilIdle(m *kernel.Message) []*kernel.Message {
	h.t.Helper()
	var out []*kernel.Message
	busy := false
	for {
		msg, err := h.c.IOPub.Next(h.ctx, nbtest.ParentIs(m.Header.MsgID))
		if err != nil {
			h.t.Fatalf("waiting for idle after %s: %v", m.Header.MsgType, err)
		}
		if msg.Header.MsgType == "status" {
			state := decode(h.t, msg.Content)["execution_state"]
			if state == "busy" {
				busy = true
				continue
			}
			if !busy {
				h.t.Errorf("%s: idle before busy", m.Header.MsgType)
			}
			return out
		}
		out = append(out, msg)
	}
}

// TestOutputAfterCellGoesToLastCell prints from a goroutine after its cell has ended: the
// text is published on iopub as a stream of that cell (its parent header), as ipykernel does,
// and the next cell's output stays with the next cell.
func TestOutputAfterCellGoesToLastCell(t *testing.T) {
	h := start(t, setup{key: "k"})
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	first := h.exec("printlater bg 0", nbtest.ExecuteConfig{})
	if r := replyContent(t, first); r["status"] != "ok" {
		t.Fatalf("reply %v", r)
	}
	late, err := h.c.IOPub.Next(ctx, nbtest.ParentIs(first.Request.Header.MsgID))
	if err != nil {
		t.Fatalf("no message for the first cell after its end: %v", err)
	}
	if c := decode(t, late.Content); late.Header.MsgType != "stream" || c["name"] != "stdout" || c["text"] != "bg 0\n" {
		t.Errorf("late message %s %v, want a stdout stream \"bg 0\\n\"", late.Header.MsgType, c)
	}
	second := h.exec("print second", nbtest.ExecuteConfig{})
	var texts []string
	for _, m := range second.IOPub {
		if m.Header.MsgType == "stream" {
			texts = append(texts, fmt.Sprint(decode(t, m.Content)["text"]))
		}
	}
	if len(texts) != 1 || texts[0] != "second\n" {
		t.Errorf("the second cell's streams %q, want only \"second\\n\"", texts)
	}
}
