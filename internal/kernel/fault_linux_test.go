package kernel_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/kernel/kerneltest"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// theWorker returns the pid of the one child process of the kernel front pid, its worker; the
// test fails unless there is exactly one.
func theWorker(t *testing.T, pid int) int {
	t.Helper()
	out := kerneltest.Children(pid)
	if len(out) != 1 {
		t.Fatalf("the front has children %v, want one worker", out)
	}
	return out[0]
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool { return kerneltest.Alive(pid) }

// TestFrontKilledLeavesNoWorker kills the front process with SIGKILL while a cell runs that
// ignores interrupts: its worker must end too.
func TestFrontKilledLeavesNoWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := nbtest.StartKernel(ctx, kernelCmd(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Send("shell", "execute_request", map[string]any{"code": "print started\nhang"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.IOPub.Next(ctx, func(m *kernel.Message) bool { return m.Header.MsgType == "stream" }); err != nil {
		t.Fatal(err)
	}
	w := theWorker(t, p.Pid())
	t.Cleanup(func() {
		if alive(w) {
			syscall.Kill(w, syscall.SIGKILL)
		}
		p.Kill()
	})
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(w) {
		if time.Now().After(deadline) {
			t.Fatalf("worker %d still runs 3 s after its front was killed", w)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRealWorkerKilled kills the real worker with SIGKILL, as the out-of-memory killer does,
// while a cell runs: the cell ends with an error naming the signal and saying that state was
// reset, and the next cell runs in a fresh worker.
func TestRealWorkerKilled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	setupCell(t, ctx, p, "kept := 1")
	w := theWorker(t, p.Pid())
	m, err := p.Send("shell", "execute_request", map[string]any{"code": "fmt.Println(\"working\")\ntime.Sleep(time.Minute)"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.IOPub.Next(ctx, func(x *kernel.Message) bool {
		return x.Header.MsgType == "stream" && nbtest.ParentIs(m.Header.MsgID)(x)
	}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(w, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Collect(ctx, m, nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r, out := outcome(ex)
	if r["ename"] != "WorkerCrash" || !strings.Contains(out, "killed by SIGKILL") || !strings.Contains(out, "out of memory") || !strings.Contains(out, "was reset") {
		t.Errorf("reply %v, output %q: want a WorkerCrash naming SIGKILL and the reset", r, out)
	}
	if r, out := runCell(t, ctx, p, "kept"); r["status"] != "error" || !strings.Contains(out, "undefined: kept") {
		t.Errorf("after the kill, kept gave %v %q: want undefined in a fresh worker", r, out)
	}
	if r, out := runCell(t, ctx, p, "6 * 7"); r["status"] != "ok" || out != "42" {
		t.Errorf("after the kill: %v %q", r, out)
	}
}
