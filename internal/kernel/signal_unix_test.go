//go:build unix

// The tests here send the kernel process SIGINT with kill(2), and have the worker killed by
// signals, which Windows has not.

package kernel_test

import (
	"context"
	"fmt"
	"strings"
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

// TestWorkerKilledBySignal kills the worker with a signal mid-cell (SIGKILL is what the
// out-of-memory killer sends): the cell's error names the signal, and the next cell runs in a
// fresh worker.
func TestWorkerKilledBySignal(t *testing.T) {
	h := start(t, setup{})
	for _, tc := range []struct {
		sig       int
		want, not string
	}{
		{9, "killed by SIGKILL (killed), probably out of memory", ""},
		{15, "killed by SIGTERM (terminated)", "out of memory"},
	} {
		ex := h.exec(fmt.Sprintf("print before\nkillself %d", tc.sig), nbtest.ExecuteConfig{})
		rc := replyContent(t, ex)
		evalue, _ := rc["evalue"].(string)
		if rc["ename"] != "WorkerCrash" || !strings.Contains(evalue, tc.want) || (tc.not != "" && strings.Contains(evalue, tc.not)) {
			t.Errorf("signal %d: reply %v, want WorkerCrash saying %q", tc.sig, rc, tc.want)
		}
		if got := types(ex.IOPub); len(got) != 3 || got[1] != "stream" || got[2] != "error" {
			t.Errorf("signal %d: iopub %v, want [execute_input stream error]", tc.sig, got)
		}
		if rc := replyContent(t, h.exec("print alive", nbtest.ExecuteConfig{})); rc["status"] != "ok" {
			t.Errorf("signal %d: the next cell replied %v", tc.sig, rc)
		}
	}
}
