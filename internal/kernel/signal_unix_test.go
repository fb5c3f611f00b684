//go:build unix

// The test here sends the kernel process SIGINT with kill(2).

package kernel_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// TestProcessSIGINT runs the kernel as a process: SIGINT interrupts the cell instead of ending
// the kernel.
func TestProcessSIGINT(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := nbtest.StartKernel(ctx, kernelCmd(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m, err := p.Send("shell", "execute_request", map[string]any{"code": "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := interruptUntilDone(ctx, p.Client, m, func() {
		if err := syscall.Kill(p.Pid(), syscall.SIGINT); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatalf("%v\nkernel output:\n%s", err, p.Stderr())
	}
	if rc := replyContent(t, ex); rc["ename"] != "Interrupted" {
		t.Errorf("reply after SIGINT %v", rc)
	}
	if rc := replyContent(t, mustExec(t, ctx, p.Client, "print ok")); rc["status"] != "ok" {
		t.Errorf("after SIGINT: %v", rc)
	}
}
