package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// realKernel starts the gosbi kernel with the real interpreter worker and extra flags.
func realKernel(t *testing.T, ctx context.Context, flags ...string) *nbtest.Process {
	t.Helper()
	bin := gosbiBinary(t)
	p, err := nbtest.StartKernel(ctx, append(nbtest.KernelCommand(bin), flags...), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// runCell executes code and returns the reply content and the cell's output text (streams,
// results and errors).
func runCell(t *testing.T, ctx context.Context, p *nbtest.Process, code string) (map[string]any, string) {
	t.Helper()
	ex, err := p.Execute(ctx, code, nbtest.ExecuteConfig{ContinueOnError: true})
	if err != nil {
		t.Fatalf("%q: %v\nkernel output:\n%s", code, err, p.Stderr())
	}
	return outcome(ex)
}

// setupCell runs code that the rest of a test needs; the test fails unless it succeeds.
func setupCell(t *testing.T, ctx context.Context, p *nbtest.Process, code string) {
	t.Helper()
	if r, out := runCell(t, ctx, p, code); r["status"] != "ok" {
		t.Fatalf("setup: %v %s", r, out)
	}
}

func outcome(ex *nbtest.Execution) (map[string]any, string) {
	var r map[string]any
	json.Unmarshal(ex.Reply.Content, &r)
	var out strings.Builder
	for _, m := range ex.IOPub {
		var c struct {
			Text      string
			Data      map[string]any
			Evalue    string
			Traceback []string
		}
		json.Unmarshal(m.Content, &c)
		out.WriteString(c.Text)
		if s, ok := c.Data["text/plain"].(string); ok {
			out.WriteString(s)
		}
		if m.Header.MsgType == "error" {
			out.WriteString(strings.Join(c.Traceback, "\n"))
		}
	}
	return r, out.String()
}

// interruptAt sends the cell code, interrupts it once after delay, and returns what it
// produced and how long after the interrupt its reply came.
func interruptAt(t *testing.T, ctx context.Context, p *nbtest.Process, code string, delay time.Duration) (map[string]any, string, time.Duration) {
	t.Helper()
	m, err := p.Send("shell", "execute_request", map[string]any{"code": code, "stop_on_error": false})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.IOPub.Next(ctx, func(x *kernel.Message) bool {
		return x.Header.MsgType == "execute_input" && nbtest.ParentIs(m.Header.MsgID)(x)
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	sent := time.Now()
	if _, err := p.Request(ctx, "control", "interrupt_request", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Collect(ctx, m, nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatalf("%v\nkernel output:\n%s", err, p.Stderr())
	}
	r, out := outcome(ex)
	return r, out, time.Since(sent)
}

// TestRealWorkerInterruptCompiledCall interrupts cells stuck in a compiled call. A call that
// returns within the grace period ends the cell with "Interrupted" once it has returned, and
// the rest of the cell never runs; a call that does not is ended by restarting the worker
// within the grace period, and the cell says that the state was reset.
func TestRealWorkerInterruptCompiledCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const grace = 2 * time.Second
	p := realKernel(t, ctx, "-interrupt-grace", grace.String())
	setupCell(t, ctx, p, "import \"time\"\ncounter := 1")

	const sleep = time.Second
	r, out, took := interruptAt(t, ctx, p, "time.Sleep(time.Second)\ncounter = 99", 100*time.Millisecond)
	if r["ename"] != "Interrupted" || strings.Contains(out, "reset") {
		t.Errorf("interrupted short call: reply %v, output %q; want Interrupted without a reset", r, out)
	}
	if took < sleep-200*time.Millisecond {
		t.Errorf("\"Interrupted\" came %v after the interrupt, while the compiled call (%v) was still running", took, sleep)
	}
	for i := 0; i < 2; i++ {
		if _, out := runCell(t, ctx, p, "counter"); out != "1" {
			t.Fatalf("counter is %q after the interrupt (check %d), want 1", out, i)
		}
		time.Sleep(sleep)
	}

	r, out, took = interruptAt(t, ctx, p, "time.Sleep(time.Minute)\ncounter = 99", 100*time.Millisecond)
	if r["ename"] != "Interrupted" || !strings.Contains(out, "state (variables, functions, imports) was reset") {
		t.Errorf("interrupted endless call: reply %v, output %q; want Interrupted and the reset announced", r, out)
	}
	if took > grace+time.Second {
		t.Errorf("the worker was restarted %v after the interrupt, grace period %v", took, grace)
	}
	if r, out := runCell(t, ctx, p, "counter"); r["status"] != "error" || !strings.Contains(out, "undefined: counter") {
		t.Errorf("after the restart counter gave %v %q, want undefined (a fresh worker)", r, out)
	}
}

// TestRealWorkerCrashKeepsOutput crashes the worker right after a cell printed (4 KB three
// times, 200 KB twice): everything printed reaches the client, before the crash error and the
// idle status of the cell. The crash is a stack overflow in a goroutine (a fatal error of the
// runtime, which no recover stops; a goroutine's panic no longer ends the worker), made quick
// by a small maximum stack.
func TestRealWorkerCrashKeepsOutput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	for _, n := range []int{4 << 10, 4 << 10, 4 << 10, 200 << 10, 200 << 10} {
		code := fmt.Sprintf("fmt.Print(strings.Repeat(\"x\", %d))\nfmt.Println(\"LAST\")\ndebug.SetMaxStack(1 << 20)\nvar deep func(int) int\ndeep = func(n int) int { return deep(n+1) + 1 }\ngo func() { deep(0) }()\ntime.Sleep(time.Second)", n)
		crashAfterOutput(t, ctx, p, code, n)
	}
}

func crashAfterOutput(t *testing.T, ctx context.Context, p *nbtest.Process, code string, n int) {
	t.Helper()
	ex, err := p.Execute(ctx, code, nbtest.ExecuteConfig{ContinueOnError: true})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var order []string
	for _, m := range ex.IOPub {
		order = append(order, m.Header.MsgType)
		if m.Header.MsgType == "stream" {
			var c struct{ Name, Text string }
			json.Unmarshal(m.Content, &c)
			if c.Name == "stdout" {
				out.WriteString(c.Text)
			}
		}
	}
	if got := out.String(); len(got) != n+len("LAST\n") || !strings.HasSuffix(got, "LAST\n") {
		t.Errorf("the client got %d bytes of stdout ending %q, want %d ending \"LAST\\n\"", len(got), got[max(0, len(got)-20):], n+5)
	}
	if len(order) == 0 || order[len(order)-1] != "error" {
		t.Errorf("iopub %v, want the crash error last", order)
	}
}
