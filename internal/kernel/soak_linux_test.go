package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// rss returns the resident set size of process pid in bytes, from /proc.
func rss(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// Soak bounds: between execution soakWarm and soakN, the front's resident memory may grow by
// at most frontPerExec bytes per execution (it keeps the input history) and the worker's by at
// most workerPerExec: the interpreter keeps a record of every source it compiled in its
// position table (3.6 KB of heap per cell of this test, about twice that resident). Measured on
// the development machine: front +2 MiB, worker +68 MiB over 9,000 executions.
const (
	soakN         = 10000
	soakWarm      = 1000
	soakWindow    = 64
	frontPerExec  = 1 << 10
	workerPerExec = 10 << 10
)

// TestSoak runs 10,000 cells in one kernel with the real worker, up to 64 in flight: every
// reply comes in order with its execution count, the cells' state is right at the end, and
// neither process grows beyond the bounds above. It takes about 20 s.
func TestSoak(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p := realKernel(t, ctx)
	setupCell(t, ctx, p, "n := 0")
	worker := theWorker(t, p.Pid())
	var sent []*kernel.Message
	next := 0 // index in sent of the next reply expected
	var front0, worker0 int
	receive := func() {
		t.Helper()
		r, err := p.Shell.Next(ctx, func(*kernel.Message) bool { return true })
		if err != nil {
			t.Fatalf("reply %d: %v\nkernel output:\n%s", next+1, err, p.Stderr())
		}
		var c struct {
			Status         string `json:"status"`
			ExecutionCount int    `json:"execution_count"`
		}
		json.Unmarshal(r.Content, &c)
		if !nbtest.ParentIs(sent[next].Header.MsgID)(r) || c.Status != "ok" || c.ExecutionCount != next+2 {
			t.Fatalf("reply %d: %s %s to %s, want an ok reply with count %d to %s", next+1, r.Header.MsgType, r.Content, r.ParentHeader, next+2, sent[next].Header.MsgID)
		}
		next++
		if next%soakWindow == 0 {
			p.IOPub.Drop(func(*kernel.Message) bool { return true })
		}
		if next == soakWarm {
			front0, worker0 = rss(t, p.Pid()), rss(t, worker)
		}
	}
	start := time.Now()
	for i := 0; i < soakN; i++ {
		m, err := p.Send("shell", "execute_request", map[string]any{"code": "n++\nn", "silent": false, "store_history": true,
			"user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, m)
		if len(sent)-next >= soakWindow {
			receive()
		}
	}
	for next < len(sent) {
		receive()
	}
	took := time.Since(start)
	p.IOPub.Drop(func(*kernel.Message) bool { return true })
	front1, worker1 := rss(t, p.Pid()), rss(t, worker)
	t.Logf("%d executions in %v (%.2f ms each); RSS from execution %d to %d: front %.1f → %.1f MiB, worker %.1f → %.1f MiB",
		soakN, took, took.Seconds()*1000/soakN, soakWarm, soakN, mb(front0), mb(front1), mb(worker0), mb(worker1))
	if _, out := runCell(t, ctx, p, "n"); out != strconv.Itoa(soakN) {
		t.Errorf("n = %s after %d increments", out, soakN)
	}
	if g, limit := front1-front0, frontPerExec*(soakN-soakWarm); g > limit {
		t.Errorf("the front grew by %.1f MiB, more than %.1f MiB", mb(g), mb(limit))
	}
	if g, limit := worker1-worker0, workerPerExec*(soakN-soakWarm); g > limit {
		t.Errorf("the worker grew by %.1f MiB, more than %.1f MiB", mb(g), mb(limit))
	}
}

func mb(n int) float64 { return float64(n) / (1 << 20) }
