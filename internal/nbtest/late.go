package nbtest

import (
	"context"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
)

// lateOutput takes the output that goroutines of a run's cells print after their cell has
// ended, and appends it to the outputs of the cell the kernel sends it to: while no cell runs,
// the kernel sends such output to the last cell that ran (its parent header), as ipykernel
// does, and while one runs, to that one. The runner reads it while it collects the next cell,
// in arrival order with that cell's messages, or in the wait after the last cell
// (LateOutputWait). Since the runner sends the next request only once a cell's status idle is
// in, and the kernel publishes in order, late output is only ever for the cell that ran last:
// that is the one cell kept here. Its outputs stay within the cell's --max-output and the
// run's budget, as if the output had come while the cell ran.
type lateOutput struct {
	mu  sync.Mutex // guards id: has is called on Collect's goroutine
	id  string     // msg_id of the execute_request of the cell that ran last
	acc *accumulator

	reopened bool // acc took output since its last finish
}

func newLateOutput() *lateOutput { return &lateOutput{} }

// has reports whether a message whose parent is the request id is late output of a cell.
func (l *lateOutput) has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return id != "" && id == l.id
}

// register makes the cell of request id, whose outputs acc holds, the one that takes late
// output from now on.
func (l *lateOutput) register(id string, acc *accumulator) {
	l.finish()
	l.mu.Lock()
	l.id, l.acc = id, acc
	l.mu.Unlock()
}

// add appends the output m to the cell it was sent to.
func (l *lateOutput) add(m *kernel.Message) {
	if l.acc == nil || !l.has(parentID(m)) {
		return
	}
	if !l.reopened {
		l.acc.reopen()
		l.reopened = true
	}
	l.acc.add(m)
}

// finish writes out the late output taken since the last finish.
func (l *lateOutput) finish() {
	if l.reopened {
		l.acc.finish()
		l.reopened = false
	}
}

// wait takes late output for d after the last cell.
func (l *lateOutput) wait(ctx context.Context, c *Client, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		m, err := c.IOPub.Next(ctx, func(m *kernel.Message) bool { return l.has(parentID(m)) })
		if err != nil {
			break
		}
		if m.Header.MsgType != "status" {
			l.add(m)
		}
	}
	l.finish()
}
