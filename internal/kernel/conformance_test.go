package kernel_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// gosbiBinary builds the gosbi command once per test run.
func gosbiBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gosbi-bin-")
		if err != nil {
			buildErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		builtBin, buildErr = nbtest.BuildBinary(ctx, dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// requireWorker checks that the real interpreter worker of bin runs a cell, so that a missing
// or broken worker fails the test with its own message rather than deep inside a client.
func requireWorker(t *testing.T, bin string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := nbtest.StartKernel(ctx, nbtest.KernelCommand(bin), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ex, err := p.Execute(ctx, "1 + 1", nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatalf("the gosbi kernel did not run a cell: %v\nkernel output:\n%s", err, p.Stderr())
	}
	var r map[string]any
	json.Unmarshal(ex.Reply.Content, &r)
	if r["status"] != "ok" {
		t.Fatalf("the interpreter worker (`gosbi worker`, package interp) cannot run the cell \"1 + 1\": %v: %v", r["ename"], r["evalue"])
	}
}

// TestRealWorkerRecovery crashes and interrupts the real interpreter worker: each failing cell
// gets one error that names the cause, and the next cell runs (in a fresh worker after a crash).
func TestRealWorkerRecovery(t *testing.T) {
	requireWorker(t, gosbiBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	run := func(code string) (map[string]any, []string) {
		t.Helper()
		ex, err := p.Execute(ctx, code, nbtest.ExecuteConfig{ContinueOnError: true})
		if err != nil {
			t.Fatalf("%q: %v\nkernel output:\n%s", code, err, p.Stderr())
		}
		var r map[string]any
		json.Unmarshal(ex.Reply.Content, &r)
		var errs []string
		for _, m := range ex.IOPub {
			if m.Header.MsgType == "error" {
				errs = append(errs, string(m.Content))
			}
		}
		return r, errs
	}
	for _, tc := range []struct{ code, ename, evalue string }{
		{"func down(n int) int { return down(n+1) + 1 }\ndown(0)", "WorkerCrash", "fatal error: stack overflow"},
		{"func deep(n int) int { return deep(n+1) + 1 }\ngo func() { deep(0) }()\nselect {}", "WorkerCrash", "fatal error: stack overflow"},
	} {
		r, errs := run(tc.code)
		if r["status"] != "error" || r["ename"] != tc.ename || !strings.HasPrefix(r["evalue"].(string), tc.evalue) || len(errs) != 1 {
			t.Errorf("%q: reply %v with %d error messages; want one %s: %s", tc.code, r, len(errs), tc.ename, tc.evalue)
		}
		if r, _ := run("6 * 7"); r["status"] != "ok" {
			t.Errorf("after %q: %v", tc.code, r)
		}
	}
	// Interrupt an endless loop.
	m, err := p.Send("shell", "execute_request", map[string]any{"code": "for {\n}", "stop_on_error": false})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := interruptUntilDone(ctx, p.Client, m, func() { p.Request(ctx, "control", "interrupt_request", map[string]any{}) })
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	json.Unmarshal(ex.Reply.Content, &r)
	if r["status"] != "error" {
		t.Errorf("interrupted loop replied %v", r)
	}
	if r, _ := run("6 * 7"); r["status"] != "ok" {
		t.Errorf("after the interrupt: %v", r)
	}
}

// TestRealWorkerStdin reads standard input in a cell: the kernel asks the client with an
// input_request on the stdin channel and the cell gets the answer.
func TestRealWorkerStdin(t *testing.T) {
	requireWorker(t, gosbiBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	asked := 0
	ex, err := p.Execute(ctx, "import \"fmt\"\nvar name string\nfmt.Scanln(&name)\nfmt.Println(\"hello\", name)",
		nbtest.ExecuteConfig{AllowStdin: true, Input: func(string, bool) string { asked++; return "gopher" }})
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for _, m := range ex.IOPub {
		if m.Header.MsgType == "stream" {
			var s struct{ Text string }
			json.Unmarshal(m.Content, &s)
			out += s.Text
		}
	}
	if asked != 1 || out != "hello gopher\n" {
		t.Errorf("asked %d times, printed %q; want once and \"hello gopher\\n\"", asked, out)
	}
}

// TestRealWorkerInterruptInput interrupts a cell that waits for standard input: the cell ends
// without restarting the worker, so the session's state survives.
func TestRealWorkerInterruptInput(t *testing.T) {
	requireWorker(t, gosbiBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	if _, err := p.Execute(ctx, "import \"fmt\"\nkept := 41", nbtest.ExecuteConfig{}); err != nil {
		t.Fatal(err)
	}
	m, err := p.Send("shell", "execute_request", map[string]any{"code": "var s string\nfmt.Scanln(&s)\nfor {\n}", "allow_stdin": true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stdin.Next(ctx, nbtest.ParentIs(m.Header.MsgID)); err != nil {
		t.Fatalf("no input_request: %v", err)
	}
	if _, err := p.Request(ctx, "control", "interrupt_request", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Collect(ctx, m, nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	json.Unmarshal(ex.Reply.Content, &r)
	if r["status"] != "error" || r["ename"] == "WorkerCrash" {
		t.Errorf("interrupted input replied %v", r)
	}
	ex, err = p.Execute(ctx, "kept + 1", nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.IOPub) < 2 || !strings.Contains(string(ex.IOPub[len(ex.IOPub)-1].Content), `"42"`) {
		t.Errorf("state was lost after the interrupt: %v", types(ex.IOPub))
	}
}
