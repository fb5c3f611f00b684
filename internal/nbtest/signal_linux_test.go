package nbtest_test

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel/kerneltest"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// TestRunKilledLeavesNoKernel checks that the kernel `gosbi run` starts and the kernel's worker
// run each in a process group of its own (so that Ctrl-C in a terminal, which signals the
// foreground group, reaches gosbi run alone), and that they still end when gosbi run is killed
// with SIGKILL while a cell runs that ignores interrupts, rather than be left running.
func TestRunKilledLeavesNoKernel(t *testing.T) {
	path, out, flag := flaggedNotebook(t, func(flag string) []*nbtest.Cell {
		return []*nbtest.Cell{{CellType: "code", ID: "a", Source: "touch " + flag + "\nhang", Metadata: map[string]any{}}}
	})
	cmd := exec.Command(os.Args[0], "run", "--quiet", path, "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		if st, err := os.Stat(flag); err == nil && st.Size() > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("gosbi run ended before its cell ran: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	var procs []int // the kernel, then its worker
	for _, k := range kerneltest.Children(cmd.Process.Pid) {
		procs = append(procs, k)
		procs = append(procs, kerneltest.Children(k)...)
	}
	if len(procs) != 2 {
		t.Fatalf("gosbi run has the processes %v below it, want a kernel and its worker", procs)
	}
	run, _ := syscall.Getpgid(cmd.Process.Pid)
	for _, p := range procs {
		if g, err := syscall.Getpgid(p); err != nil || g == run || g != p {
			t.Errorf("process %d is in process group %d (%v), gosbi run in %d: want a group of its own, which Ctrl-C to gosbi run's does not reach", p, g, err, run)
		}
	}
	t.Cleanup(func() {
		for _, p := range procs {
			if kerneltest.Alive(p) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	cmd.Process.Kill()
	<-done
	deadline := time.Now().Add(20 * time.Second)
	for _, p := range procs {
		for kerneltest.Alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d (of kernel %d and worker %d) still runs 20 s after gosbi run was killed", p, procs[0], procs[1])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
