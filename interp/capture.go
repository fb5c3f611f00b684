package interp

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// capture reads what the process writes to one of its standard file descriptors (which
// point to a pipe during the worker's life) and passes it on as text while cells run.
type capture struct {
	name string   // "stdout" or "stderr"
	fd   *os.File // the descriptor that code writes to (os.Stdout or os.Stderr)
	r    *os.File // the read end of the pipe
	send func(name, text string)
	mu   sync.Mutex
	seq  int
	acks map[int]chan struct{}
}

var markPrefix = []byte("\x00gosbi-sync-")

func newCapture(name string, fd, r *os.File, send func(name, text string)) *capture {
	c := &capture{name: name, fd: fd, r: r, send: send, acks: map[int]chan struct{}{}}
	go c.pump()
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
	if _, err := fmt.Fprintf(c.fd, "%s%d\x00", markPrefix, id); err != nil {
		return // the descriptor was closed by the user's code: nothing more will come
	}
	select {
	case <-ack:
	case <-time.After(flushTimeout):
	}
}

// flushTimeout bounds the wait for output to drain (the front may be slow to read events).
const flushTimeout = 10 * time.Second

func (c *capture) pump() {
	buf := make([]byte, 64<<10)
	var pending []byte
	for {
		n, err := c.r.Read(buf)
		pending = append(pending, buf[:n]...)
		pending = c.deliver(pending)
		if err != nil {
			if len(pending) > 0 {
				c.send(c.name, string(pending))
			}
			return
		}
	}
}

// deliver sends the text in p up to any incomplete sync mark or rune and answers complete
// marks; it returns what must wait for more input.
func (c *capture) deliver(p []byte) []byte {
	for {
		i := bytes.Index(p, markPrefix)
		if i < 0 {
			break
		}
		j := bytes.IndexByte(p[i+len(markPrefix):], 0)
		if j < 0 {
			c.emit(p[:i])
			return append([]byte(nil), p[i:]...)
		}
		c.emit(p[:i])
		var id int
		fmt.Sscan(string(p[i+len(markPrefix):i+len(markPrefix)+j]), &id)
		c.mu.Lock()
		if ack, ok := c.acks[id]; ok {
			close(ack)
			delete(c.acks, id)
		}
		c.mu.Unlock()
		p = p[i+len(markPrefix)+j+1:]
	}
	keep := len(p)
	if k := bytes.LastIndexByte(p, 0); k >= 0 && bytes.HasPrefix(markPrefix, p[k:]) {
		keep = k
	}
	// hold back an incomplete UTF-8 sequence at the end
	for back := 1; back <= 3 && back <= keep; back++ {
		r := p[keep-back]
		if r < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(r) {
			if !utf8.FullRune(p[keep-back : keep]) {
				keep -= back
			}
			break
		}
	}
	c.emit(p[:keep])
	return append([]byte(nil), p[keep:]...)
}

func (c *capture) emit(b []byte) {
	if len(b) > 0 {
		c.send(c.name, string(b))
	}
}
