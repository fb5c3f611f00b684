package kernel_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// frames returns the wire frames of a kernel_info_request signed with key.
func frames(t *testing.T, session string, key []byte) ([][]byte, *kernel.Message) {
	t.Helper()
	m, err := kernel.NewMessage("kernel_info_request", session, nil, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := kernel.Encode(m, key)
	if err != nil {
		t.Fatal(err)
	}
	return f, m
}

// noReply checks that no shell reply to m arrives within a short while.
func noReply(t *testing.T, c *nbtest.Client, m *kernel.Message, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if r, err := c.Shell.Next(ctx, nbtest.ParentIs(m.Header.MsgID)); err == nil {
		t.Errorf("%s was answered: %s", what, r.Content)
	}
}

func TestSignatures(t *testing.T) {
	h := start(t, setup{key: "right key"})
	bad := func(name string, mutate func([][]byte) [][]byte) {
		f, m := frames(t, h.c.Session, []byte("right key"))
		if err := h.c.SendFrames("shell", mutate(f)); err != nil {
			t.Fatal(err)
		}
		noReply(t, h.c, m, name)
	}
	bad("a message signed with another key", func(f [][]byte) [][]byte {
		g, _ := frames(t, h.c.Session, []byte("wrong key"))
		f[1] = g[1] // keep the header, take a signature made with the wrong key
		return f
	})
	bad("an unsigned message", func(f [][]byte) [][]byte { f[1] = nil; return f })
	bad("a message with a tampered content", func(f [][]byte) [][]byte { f[5] = []byte(`{"x":1}`); return f })
	if !strings.Contains(h.log.String(), "signature") {
		t.Errorf("dropped messages were not logged; log:\n%s", h.log)
	}
	// The kernel stays up and answers a correctly signed request.
	h.request("shell", "kernel_info_request", map[string]any{})
}

func TestUnsigned(t *testing.T) {
	h := start(t, setup{key: ""})
	f, m := frames(t, h.c.Session, nil)
	if len(f[1]) != 0 {
		t.Fatalf("an empty key gave a signature %q", f[1])
	}
	if err := h.c.SendFrames("shell", f); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.Shell.Next(h.ctx, nbtest.ParentIs(m.Header.MsgID)); err != nil {
		t.Fatalf("unsigned message with an empty key: %v", err)
	}
}

func TestMalformedMessages(t *testing.T) {
	h := start(t, setup{key: "k"})
	key := []byte("k")
	sign := func(parts ...string) [][]byte {
		m := &kernel.Message{}
		_ = m
		f := [][]byte{[]byte("<IDS|MSG>"), nil}
		for _, p := range parts {
			f = append(f, []byte(p))
		}
		return resign(f, key)
	}
	header := `{"msg_id":"x1","session":"s","username":"u","date":"2026-01-01T00:00:00Z","msg_type":"kernel_info_request","version":"5.3"}`
	for name, f := range map[string][][]byte{
		"no delimiter":          {[]byte("garbage"), []byte("more")},
		"truncated frames":      sign(header, "{}"),
		"header not JSON":       sign(`{"msg_id":`, "{}", "{}", "{}"),
		"content not an object": sign(header, "{}", "{}", `[1,2]`),
		"header without type":   sign(`{"msg_id":"x2"}`, "{}", "{}", "{}"),
		"empty message":         {[]byte{}},
	} {
		if err := h.c.SendFrames("shell", f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := h.c.SendFrames("control", f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A field of the wrong type in the content of an execute request: the request is answered
	// with an error (TestMalformedRequestContent) and the kernel goes on.
	h.c.SendFrames("shell", sign(strings.Replace(header, "kernel_info_request", "execute_request", 1), "{}", "{}", `{"code": 5}`))
	for _, channel := range []string{"shell", "control"} {
		r := h.request(channel, "kernel_info_request", map[string]any{})
		if r["status"] != "ok" {
			t.Errorf("%s after malformed messages: %v", channel, r)
		}
	}
	if !strings.Contains(h.log.String(), "truncated") {
		t.Errorf("truncated message not logged; log:\n%s", h.log)
	}
}

// resign signs frames laid out as [<IDS|MSG>, sig, parts...] with key.
func resign(f [][]byte, key []byte) [][]byte {
	var h kernel.Header
	if len(f) >= 6 {
		json.Unmarshal(f[2], &h)
	}
	if len(f) < 6 {
		// Too few parts to be a message: sign what there is so that only the length is wrong.
		return f
	}
	m := &kernel.Message{Header: h, ParentHeader: f[3], Metadata: f[4], Content: f[5]}
	enc, err := kernel.Encode(m, key)
	if err != nil {
		return f
	}
	// Keep the original (possibly broken) header bytes but a signature over them.
	enc[2] = f[2]
	sig := signHex(key, f[2], f[3], f[4], f[5])
	enc[1] = []byte(sig)
	return enc
}

func TestInterrupt(t *testing.T) {
	h := start(t, setup{grace: 10 * time.Second})
	m, err := h.c.Send("shell", "execute_request", map[string]any{"code": "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := interruptUntilDone(h.ctx, h.c, m, func() {
		r, err := h.c.Request(h.ctx, "control", "interrupt_request", map[string]any{})
		if err == nil && (r.Header.MsgType != "interrupt_reply" || !strings.Contains(string(r.Content), `"status":"ok"`)) {
			t.Errorf("interrupt_request answered with %s %s", r.Header.MsgType, r.Content)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rc := replyContent(t, ex); rc["status"] != "error" || rc["ename"] != "Interrupted" {
		t.Errorf("interrupted cell replied %v", rc)
	}
	if rc := replyContent(t, h.exec("print still here", nbtest.ExecuteConfig{})); rc["status"] != "ok" {
		t.Errorf("cell after the interrupt: %v", rc)
	}
}

// TestInterruptEscalation interrupts a cell that ignores the interrupt: after the grace period
// the worker is restarted, the cell ends with one error that says so, and the next cell runs.
func TestInterruptEscalation(t *testing.T) {
	h := start(t, setup{grace: 200 * time.Millisecond})
	m, err := h.c.Send("shell", "execute_request", map[string]any{"code": "hang"})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := interruptUntilDone(h.ctx, h.c, m, func() { h.c.Request(h.ctx, "control", "interrupt_request", map[string]any{}) })
	if err != nil {
		t.Fatal(err)
	}
	rc := replyContent(t, ex)
	if rc["status"] != "error" || rc["ename"] != "Interrupted" || !strings.Contains(strings.Join(toStrings(rc["traceback"]), "\n"), "reset") {
		t.Errorf("cell killed after the interrupt replied %v", rc)
	}
	if got := types(ex.IOPub); len(got) != 2 || got[1] != "error" {
		t.Errorf("iopub %v, want [execute_input error]", got)
	}
	if rc := replyContent(t, h.exec("print fresh", nbtest.ExecuteConfig{})); rc["status"] != "ok" {
		t.Errorf("cell after the restart: %v", rc)
	}
}

// interruptUntilDone interrupts the execution of m (with interrupt) until it ends, as a user
// presses the button again when a cell was not yet running at the first press, and returns
// what the cell sent.
func interruptUntilDone(ctx context.Context, c *nbtest.Client, m *kernel.Message, interrupt func()) (*nbtest.Execution, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(done)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(300 * time.Millisecond):
				interrupt()
			}
		}
	}()
	return c.Collect(ctx, m, nbtest.ExecuteConfig{})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestWorkerCrash kills the worker mid-cell in two ways; each time the cell gets one error
// naming the cause and the next cell runs in a fresh worker.
func TestWorkerCrash(t *testing.T) {
	h := start(t, setup{})
	for code, cause := range map[string]string{
		"exit":    "fatal error: stack overflow",
		"gopanic": "panic: boom in a goroutine",
	} {
		ex := h.exec(code, nbtest.ExecuteConfig{})
		rc := replyContent(t, ex)
		if rc["status"] != "error" || rc["ename"] != "WorkerCrash" || rc["evalue"] != cause {
			t.Errorf("%s: reply %v, want WorkerCrash %q", code, rc, cause)
		}
		if got := types(ex.IOPub); len(got) != 2 || got[1] != "error" {
			t.Errorf("%s: iopub %v, want [execute_input error]", code, got)
		} else if tb := strings.Join(toStrings(decode(t, ex.IOPub[1].Content)["traceback"]), "\n"); !strings.Contains(tb, "state") {
			t.Errorf("%s: the error does not say that state was reset:\n%s", code, tb)
		}
		ex = h.exec("print alive", nbtest.ExecuteConfig{})
		if rc := replyContent(t, ex); rc["status"] != "ok" {
			t.Errorf("%s: the next cell replied %v", code, rc)
		}
	}
}

func TestWorkerThatCannotStart(t *testing.T) {
	h := start(t, setup{worker: []string{os.Args[0], "brokenworker"}})
	ex := h.exec("print x", nbtest.ExecuteConfig{})
	rc := replyContent(t, ex)
	if rc["status"] != "error" || !strings.Contains(rc["evalue"].(string), "not built yet") {
		t.Errorf("reply %v, want an error naming the worker's message", rc)
	}
	// The kernel itself keeps answering.
	h.request("shell", "kernel_info_request", map[string]any{})
}

func TestStdin(t *testing.T) {
	h := start(t, setup{key: "k"})
	var prompts []string
	ex := h.exec("input", nbtest.ExecuteConfig{AllowStdin: true, Input: func(p string, _ bool) string {
		prompts = append(prompts, p)
		return "gopher"
	}})
	if len(prompts) != 1 || prompts[0] != "name? " {
		t.Errorf("prompts %q", prompts)
	}
	if got := decode(t, ex.IOPub[len(ex.IOPub)-1].Content)["text"]; got != "hello gopher\n" {
		t.Errorf("output %q", got)
	}
	// Without allow_stdin the worker gets an empty line instead of a prompt.
	ex = h.exec("input", nbtest.ExecuteConfig{})
	if got := decode(t, ex.IOPub[len(ex.IOPub)-1].Content)["text"]; got != "hello \n" {
		t.Errorf("output without stdin %q", got)
	}
}

func TestHeartbeatAndShutdown(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.Ping(h.ctx); err != nil {
		t.Fatal(err)
	}
	r := h.request("control", "shutdown_request", map[string]any{"restart": true})
	if r["status"] != "ok" || r["restart"] != true {
		t.Errorf("shutdown_reply %v", r)
	}
	select {
	case <-h.ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after shutdown_request")
	}
}

func mustExec(t *testing.T, ctx context.Context, c *nbtest.Client, code string) *nbtest.Execution {
	t.Helper()
	ex, err := c.Execute(ctx, code, nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// kernelCmd is the command line of a kernel process with the fake worker.
func kernelCmd() []string {
	return []string{os.Args[0], "kernel", "-f", "{connection_file}", "-worker", os.Args[0] + " worker"}
}

// BenchmarkStartToKernelInfo measures the time from starting a kernel process to its first
// kernel_info_reply (with the iopub subscription confirmed), the wait a Jupyter front-end sees.
func BenchmarkStartToKernelInfo(b *testing.B) {
	if _, err := exec.LookPath(os.Args[0]); err != nil {
		b.Skip("no test binary")
	}
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		p, err := nbtest.StartKernel(ctx, kernelCmd(), []string{"FAKE_WORKER_SLOW=1"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		p.Kill()
		cancel()
		b.StartTimer()
	}
}

// TestReplacedWorkerIsTold checks that a worker started after a crash is told so (it then
// explains names of the lost state), while the first worker is not.
func TestReplacedWorkerIsTold(t *testing.T) {
	h := start(t, setup{})
	stdout := func(ex *nbtest.Execution) string {
		var b strings.Builder
		for _, m := range ex.IOPub {
			if c := decode(t, m.Content); m.Header.MsgType == "stream" && c["name"] == "stdout" {
				b.WriteString(c["text"].(string))
			}
		}
		return b.String()
	}
	if got := stdout(h.exec("getenv GOSBI_WORKER_RESTARTED", nbtest.ExecuteConfig{})); got != "GOSBI_WORKER_RESTARTED=\n" {
		t.Errorf("first worker: %q", got)
	}
	h.exec("exit", nbtest.ExecuteConfig{})
	if got := stdout(h.exec("getenv GOSBI_WORKER_RESTARTED", nbtest.ExecuteConfig{})); got != "GOSBI_WORKER_RESTARTED=1\n" {
		t.Errorf("replacement worker: %q", got)
	}
}

// TestPagePayload checks that a pager payload of the worker reaches the execute reply.
func TestPagePayload(t *testing.T) {
	h := start(t, setup{})
	rc := replyContent(t, h.exec("page the help text", nbtest.ExecuteConfig{}))
	p, _ := rc["payload"].([]any)
	if len(p) != 1 {
		t.Fatalf("payload %v, want one page", rc["payload"])
	}
	page := p[0].(map[string]any)
	if data, _ := page["data"].(map[string]any); page["source"] != "page" || data["text/plain"] != "the help text" || page["start"] != float64(0) {
		t.Errorf("page %v", page)
	}
}

// TestConnectionFileKey refuses a connection file without "key", naming the field, and starts
// a kernel with an empty key after one warning that messages are not authenticated.
func TestConnectionFileKey(t *testing.T) {
	ci, err := nbtest.NewConnectionInfo()
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	b, _ := json.Marshal(ci)
	json.Unmarshal(b, &fields)
	delete(fields, "key")
	path := filepath.Join(t.TempDir(), "kernel.json")
	b, _ = json.Marshal(fields)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 1)
	go func() { refused <- kernel.Main([]string{"-f", path}, "test") }()
	select {
	case err := <-refused:
		if err == nil || !strings.Contains(err.Error(), `no "key" field`) {
			t.Errorf("a connection file without key: error %v, want one naming the field", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("a connection file without key started a kernel that runs unsigned messages")
	}

	ci.Key = ""
	log := &syncbuf.Buffer{}
	k, err := kernel.New(kernel.Config{Conn: ci, Worker: fakeWorkerCmd, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		k.Run(ctx)
		close(ran)
	}()
	cancel()
	<-ran
	if n := strings.Count(log.String(), "not authenticated"); n != 1 {
		t.Errorf("an empty key gave %d warnings that messages are not authenticated, want 1; log:\n%s", n, log)
	}
}

// zmtpGreeting is the 64-byte ZMTP 3.0 greeting of a NULL-security client.
func zmtpGreeting() []byte {
	g := make([]byte, 64)
	g[0], g[9] = 0xFF, 0x7F
	g[10], g[11] = 3, 0
	copy(g[12:], "NULL")
	return g
}

// longFrame is the header of a ZMTP frame of size bytes (flags LONG, plus more).
func longFrame(flags byte, size uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{flags | 0x02}, size)
}

// TestOversizedMessages sends, on each socket, frames whose declared size (or whose sum in one
// message) exceeds what the kernel accepts: the kernel disconnects that peer without reading
// or allocating the message, says why in its log, and goes on answering other clients.
func TestOversizedMessages(t *testing.T) {
	h := start(t, setup{key: "k"})
	dealer := func(port int) net.Conn {
		raw, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		if _, err := zmq4.Open(raw, null.Security(), zmq4.Dealer, zmq4.SocketIdentity("big"), false, nil); err != nil {
			t.Fatal(err)
		}
		return raw
	}
	mib := make([]byte, 1<<20)
	for _, tc := range []struct {
		name string
		port int
		// handshake false: the bytes follow the greeting alone (a command frame in place
		// of READY).
		handshake bool
		send      [][]byte
	}{
		{"a frame of 2^62 bytes on shell", h.ci.ShellPort, true, [][]byte{longFrame(0, 1<<62)}},
		{"a frame of 1 GiB on control", h.ci.ControlPort, true, [][]byte{longFrame(0, 1<<30)}},
		{"a command of 2^62 bytes instead of READY", h.ci.ShellPort, false, [][]byte{zmtpGreeting(), longFrame(0x04, 1<<62)}},
		{"65 frames of 1 MiB in one message on stdin", h.ci.StdinPort, true, func() [][]byte {
			var f [][]byte
			for range 65 {
				f = append(f, longFrame(0x01, 1<<20), mib)
			}
			return f
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.log.Reset()
			var raw net.Conn
			if tc.handshake {
				raw = dealer(tc.port)
			} else {
				var err error
				raw, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", tc.port))
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
			}
			go func() {
				for _, b := range tc.send {
					if _, err := raw.Write(b); err != nil {
						return
					}
				}
			}()
			// The kernel closes the connection: reading ends (a greeting or READY may come
			// first), with a reset when the kernel left bytes of ours unread.
			raw.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.Copy(io.Discard, raw); err != nil && !isReset(err) {
				t.Errorf("the kernel did not close the connection: %v", err)
			}
			if !strings.Contains(h.log.String(), "at most 64 MiB") {
				t.Errorf("the log does not say why the peer was disconnected:\n%s", h.log)
			}
			if r := h.request("shell", "kernel_info_request", map[string]any{}); r["status"] != "ok" {
				t.Errorf("kernel_info after the oversized message: %v", r)
			}
		})
	}
}

// TestRequestTooLargeForWorker sends a cell that fits in a message but not, once encoded for
// the worker (where Go's JSON writes '<' as \u003c), in the worker's pipe: the cell fails with
// an error that says so instead of waiting for ever, and the next cell runs. (The cell is
// silent: its execute_input, 270 MiB, would take the test client long to read.)
func TestRequestTooLargeForWorker(t *testing.T) {
	h := start(t, setup{key: "k"})
	m, err := kernel.NewMessage("execute_request", h.c.Session, nil, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	m.Content = json.RawMessage(`{"code":"` + strings.Repeat("<", 45<<20) + `","silent":true}`)
	f, err := kernel.Encode(m, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.c.SendFrames("shell", f); err != nil {
		t.Fatal(err)
	}
	ex, err := h.c.Collect(h.ctx, m, nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatalf("no reply to a cell too large for the worker: %v", err)
	}
	rc := replyContent(t, ex)
	if rc["status"] != "error" || !strings.Contains(fmt.Sprint(rc["evalue"]), "MiB") {
		t.Errorf("reply %v, want an error that gives the sizes", rc["evalue"])
	}
	if rc := replyContent(t, h.exec("print next", nbtest.ExecuteConfig{})); rc["status"] != "ok" {
		t.Errorf("the next cell replied %v", rc)
	}
}

// TestMalformedRequestContent sends requests whose content has a field of the wrong type: each
// is answered with an error that names the field, not run on an empty cell and answered "ok".
func TestMalformedRequestContent(t *testing.T) {
	h := start(t, setup{})
	for _, tc := range []struct {
		msgType, content string
		status           string
	}{
		{"execute_request", `{"code": 5}`, "error"},
		{"execute_request", `{"code": "1", "silent": "no"}`, "error"},
		{"complete_request", `{"code": ["fmt.Pr"], "cursor_pos": 6}`, "error"},
		{"inspect_request", `{"code": "fmt.Println", "cursor_pos": "5"}`, "error"},
		{"is_complete_request", `{"code": 7}`, "unknown"},
	} {
		m, err := kernel.NewMessage(tc.msgType, h.c.Session, nil, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		m.Content = json.RawMessage(tc.content)
		f, err := kernel.Encode(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.c.SendFrames("shell", f); err != nil {
			t.Fatal(err)
		}
		r, err := h.c.Shell.Next(h.ctx, nbtest.ParentIs(m.Header.MsgID))
		if err != nil {
			t.Fatalf("%s %s: no reply: %v", tc.msgType, tc.content, err)
		}
		rc := decode(t, r.Content)
		if rc["status"] != tc.status {
			t.Errorf("%s %s: reply %v, want status %s", tc.msgType, tc.content, rc, tc.status)
		} else if tc.status == "error" && !strings.Contains(fmt.Sprint(rc["evalue"]), "of type") {
			t.Errorf("%s %s: error %q does not say what was expected", tc.msgType, tc.content, rc["evalue"])
		}
		// Let the idle of the request pass, so that the next one is not aborted behind it.
		if _, err := h.c.IOPub.Next(h.ctx, func(s *kernel.Message) bool {
			return s.Header.MsgType == "status" && strings.Contains(string(s.ParentHeader), m.Header.MsgID) && strings.Contains(string(s.Content), "idle")
		}); err != nil {
			t.Fatal(err)
		}
	}
	if rc := replyContent(t, h.exec("print fine", nbtest.ExecuteConfig{})); rc["status"] != "ok" || rc["execution_count"] != 1.0 {
		t.Errorf("the next cell replied %v, want ok and execution_count 1 (the malformed requests ran nothing)", rc)
	}
}

// TestStdinReplyTooLarge: an input_reply too large to pass to the worker fails the cell's read
// with an error saying so and giving the limit, instead of leaving the cell waiting.
func TestStdinReplyTooLarge(t *testing.T) {
	kernel.SetWorkerMessageMax(t, 4096)
	h := start(t, setup{key: "k"})
	ex := h.exec("input", nbtest.ExecuteConfig{AllowStdin: true, Input: func(string, bool) string {
		return strings.Repeat("<", 5000)
	}})
	r := replyContent(t, ex)
	evalue, _ := r["evalue"].(string)
	if r["status"] != "error" || !strings.Contains(evalue, "too large") || !strings.Contains(evalue, "4.0 KiB a message there may have") {
		t.Errorf("reply %v, want an error saying the answer was too large, and the limit", r)
	}
	// the kernel goes on: a fitting answer reaches the next cell
	ex = h.exec("input", nbtest.ExecuteConfig{AllowStdin: true, Input: func(string, bool) string { return "gopher" }})
	if got := decode(t, ex.IOPub[len(ex.IOPub)-1].Content)["text"]; got != "hello gopher\n" {
		t.Errorf("output %q", got)
	}
}

// TestWorkerCrashReport checks what the error of a crashed worker shows of the Go runtime's
// report: its first lines and the crashing goroutine's frames of compiled code, not the trace
// of whichever goroutine the runtime happened to list last.
func TestWorkerCrashReport(t *testing.T) {
	h := start(t, setup{})
	ex := h.exec("crashreport", nbtest.ExecuteConfig{})
	rc := replyContent(t, ex)
	tb := strings.Join(toStrings(rc["traceback"]), "\n")
	for _, want := range []string{"panic: runtime error: index out of range [7] with length 3", "sbi.simulateChunk", "sbi/simulate.go:88", "kernel's log", "state"} {
		if !strings.Contains(tb, want) {
			t.Errorf("the traceback does not hold %q:\n%s", want, tb)
		}
	}
	for _, not := range []string{"ipc.(*Decoder).Next", "syscall.Syscall", "yaegi"} {
		if strings.Contains(tb, not) {
			t.Errorf("the traceback holds %q, a frame that says nothing of the crash:\n%s", not, tb)
		}
	}
}
