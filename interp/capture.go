package interp

import (
	"os"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
)

// capture passes on as text what the process writes to one of its standard file descriptors
// (which point to a pipe during the worker's life) while cells run. The pipe is read either
// by the worker itself (pump) or, when the front passed the pipes (ipc.CaptureEnv), by the
// front, so that nothing written is lost when the worker dies; the front then acknowledges
// the sync marks (ipc.Flushed).
type capture struct {
	name  string   // "stdout" or "stderr"
	fd    *os.File // the descriptor that code writes to (os.Stdout or os.Stderr)
	r     *os.File // the read end of the pipe; nil when the front reads it
	token string   // of the sync marks (ipc.SyncMark)
	send  func(name, text string)
	mu    sync.Mutex
	seq   int
	acks  map[int]chan struct{}
}

func newCapture(name string, fd, r *os.File, token string, send func(name, text string)) *capture {
	c := &capture{name: name, fd: fd, r: r, token: token, send: send, acks: map[int]chan struct{}{}}
	if r != nil {
		go c.pump()
	}
	return c
}

// Flush returns once everything written to the descriptor before the call has been sent.
func (c *capture) Flush() {
	c.mu.Lock()
	c.seq++
	id := c.seq
	ack := make(chan struct{})
	c.acks[id] = ack
	c.mu.Unlock()
	if _, err := c.fd.Write(ipc.SyncMark(c.token, id)); err != nil {
		return // the descriptor was closed by the user's code: nothing more will come
	}
	select {
	case <-ack:
	case <-time.After(flushTimeout):
	}
	c.mu.Lock()
	delete(c.acks, id)
	c.mu.Unlock()
}

// flushTimeout bounds the wait for output to drain (the front may be slow to read events).
const flushTimeout = 10 * time.Second

// ack records that the reader has passed mark id.
func (c *capture) ack(id int) {
	c.mu.Lock()
	if ch, ok := c.acks[id]; ok {
		close(ch)
		delete(c.acks, id)
	}
	c.mu.Unlock()
}

func (c *capture) pump() {
	buf := make([]byte, 64<<10)
	sp := ipc.NewSplitter(c.token)
	emit := func(b []byte) {
		if len(b) > 0 {
			c.send(c.name, string(b))
		}
	}
	for {
		n, err := c.r.Read(buf)
		sp.Write(buf[:n], emit, c.ack)
		if err != nil {
			emit(sp.Rest())
			return
		}
	}
}
