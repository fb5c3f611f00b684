package kernel

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// The shell, control, stdin, iopub and heartbeat sockets are served by zsocket rather than by the
// sockets of go-zeromq/zmq4, which write to all their peers from one goroutine under one lock:
// one client that stops reading (an iopub subscriber needs no key) stalls every other one.
// zsocket uses zmq4 for the ZMTP handshake and for reading (zmq4.Open, zmq4.Conn) and gives each
// peer its own writer goroutine and a bounded queue; a peer whose connection accepts nothing for
// writeTimeout is disconnected.
//
// What happens beyond a peer's high-water mark depends on the socket. A ROUTER socket drops the
// new message, as ZeroMQ does. A PUB socket with a shedding policy (iopub) never drops a message
// the policy calls essential (status, execute_input, execute_result, error, …): it drops the
// oldest sheddable messages (output: stream and display traffic) instead, and the peer is told,
// where the gap is, how many messages it lost (the policy writes that note).

const (
	// hwmMessages and hwmBytes bound the queue of one peer (ZeroMQ's default high-water
	// mark is 1000 messages).
	hwmMessages = 1000
	hwmBytes    = 64 << 20
	// writeTimeout is how long a peer may accept nothing of a message (64 KiB of it) before
	// it is disconnected.
	writeTimeout = 30 * time.Second
	// handshakeTimeout bounds the ZMTP greeting of a new connection.
	handshakeTimeout = 10 * time.Second
	// maxMessage bounds a message a peer sends (all its frames, each counted with
	// frameOverhead): a peer that announces a larger one is disconnected before the kernel
	// reads or allocates it.
	maxMessage    = 64 << 20
	frameOverhead = 32
)

// zsocket is a listening PUB, ROUTER or REP socket. A REP socket is served as a ROUTER whose
// peers see a REP: a reply keeps the envelope of its request, which the owner sends back.
type zsocket struct {
	typ  zmq4.SocketType
	name string
	logf func(format string, args ...any)

	mu     sync.Mutex
	ln     net.Listener
	peers  map[*zpeer]struct{}
	byID   map[string]*zpeer // ROUTER, REP: peers by routing identity
	nextID uint32
	closed bool

	in   chan [][]byte // ROUTER, REP: received messages, the peer's identity first
	done chan struct{}

	// shed, when set (PUB only), lets the queue of a slow peer drop output instead of status,
	// results and errors.
	shed *shedding
}

// shedding is the policy of a PUB socket for peers that read more slowly than it publishes.
type shedding struct {
	// group returns, for a message that may be dropped, the key of the gaps it leaves (the
	// request it belongs to); ok is false for a message that must be delivered.
	group func(frames [][]byte) (key string, ok bool)
	// note returns the message that tells a peer it lost msgs messages (bytes in all) of
	// group key; nil sends nothing.
	note func(key string, msgs, bytes int) [][]byte
}

func newZSocket(typ zmq4.SocketType, name string, logf func(string, ...any)) *zsocket {
	return &zsocket{typ: typ, name: name, logf: logf, peers: map[*zpeer]struct{}{}, byID: map[string]*zpeer{},
		in: make(chan [][]byte, 64), done: make(chan struct{})}
}

// listen binds endpoint ("tcp://HOST:PORT" or "ipc://PATH") and accepts peers.
func (s *zsocket) listen(endpoint string) error {
	network, addr, ok := strings.Cut(endpoint, "://")
	if !ok {
		return fmt.Errorf("kernel: endpoint %q has no transport", endpoint)
	}
	switch network {
	case "tcp":
	case "ipc":
		network = "unix"
		os.Remove(addr) // a socket file left by an earlier kernel
	default:
		return fmt.Errorf("kernel: transport %q is not supported", network)
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	go s.accept(ln)
	return nil
}

func (s *zsocket) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if !s.isClosed() && !errors.Is(err, net.ErrClosed) {
				s.logf("%s: accept: %v", s.name, err)
			}
			return
		}
		go s.open(c)
	}
}

// open performs the ZMTP handshake with a new peer and starts serving it.
func (s *zsocket) open(raw net.Conn) {
	raw.SetDeadline(time.Now().Add(handshakeTimeout))
	lc := &lockedConn{Conn: raw, guard: frameGuard{greeting: zmtpGreetingLen}}
	c, err := zmq4.Open(lc, null.Security(), s.typ, nil, true, nil)
	if err != nil {
		if lc.guard.err != nil {
			err = lc.guard.err
		}
		s.logf("%s: handshake with %s: %v", s.name, raw.RemoteAddr(), err)
		raw.Close()
		return
	}
	raw.SetDeadline(time.Time{})
	lc.framed = true
	p := &zpeer{s: s, raw: raw, lc: lc, c: c, wake: make(chan struct{}, 1), topics: map[string]int{}, done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		raw.Close()
		return
	}
	if s.routed() {
		p.id = c.Peer.Meta["Identity"]
		if _, taken := s.byID[p.id]; p.id == "" || taken {
			// ZeroMQ names a peer without an identity of its own: 0 and a counter.
			s.nextID++
			var b [5]byte
			binary.BigEndian.PutUint32(b[1:], s.nextID)
			p.id = string(b[:])
		}
		s.byID[p.id] = p
	}
	s.peers[p] = struct{}{}
	s.mu.Unlock()
	go p.write()
	p.read()
}

// routed reports whether messages go to one peer, named by their first frame.
func (s *zsocket) routed() bool { return s.typ == zmq4.Router || s.typ == zmq4.Rep }

func (s *zsocket) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// remove forgets a peer that has disconnected.
func (s *zsocket) remove(p *zpeer) {
	s.mu.Lock()
	delete(s.peers, p)
	if s.byID[p.id] == p {
		delete(s.byID, p.id)
	}
	s.mu.Unlock()
}

// send queues a message: on a ROUTER socket to the peer named by its first frame, on a PUB
// socket to every peer subscribed to its first frame. It never blocks.
func (s *zsocket) send(frames [][]byte) {
	if len(frames) == 0 {
		return
	}
	s.mu.Lock()
	var to []*zpeer
	if s.routed() {
		if p := s.byID[string(frames[0])]; p != nil {
			to = append(to, p)
		}
		frames = frames[1:]
	} else {
		for p := range s.peers {
			to = append(to, p)
		}
	}
	s.mu.Unlock()
	if s.routed() && len(to) == 0 {
		s.logf("%s: no peer with the identity of the message: dropped", s.name)
		return
	}
	for _, p := range to {
		if s.typ == zmq4.Pub && !p.subscribed(frames[0]) {
			continue
		}
		p.enqueue(frames)
	}
}

// recv returns the next message received on a ROUTER or REP socket, its sender's identity
// first.
func (s *zsocket) recv() ([][]byte, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// topics returns the subscriptions of the peers of a PUB socket.
func (s *zsocket) topics() []string {
	s.mu.Lock()
	peers := make([]*zpeer, 0, len(s.peers))
	for p := range s.peers {
		peers = append(peers, p)
	}
	s.mu.Unlock()
	var out []string
	for _, p := range peers {
		p.mu.Lock()
		for t, n := range p.topics {
			if n > 0 {
				out = append(out, t)
			}
		}
		p.mu.Unlock()
	}
	return out
}

// close stops listening and disconnects every peer.
func (s *zsocket) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	ln := s.ln
	peers := s.peers
	s.peers = map[*zpeer]struct{}{}
	s.mu.Unlock()
	close(s.done)
	if ln != nil {
		ln.Close()
	}
	for p := range peers {
		p.close()
	}
}

// zpeer is one connection of a zsocket.
type zpeer struct {
	s   *zsocket
	raw net.Conn
	lc  *lockedConn // raw as zmq4 writes to it (a PONG)
	c   *zmq4.Conn
	id  string

	mu      sync.Mutex
	queue   list.List      // of *outgoing, oldest first
	queued  int            // bytes in queue and being written
	gap     []lost         // messages dropped after the last one queued
	wake    chan struct{}  // signalled when the queue gets a message
	topics  map[string]int // PUB: subscriptions (a topic may be subscribed more than once)
	dropped int

	once sync.Once
	done chan struct{}
}

// read receives the peer's messages until it disconnects: subscriptions on a PUB socket,
// requests on a ROUTER socket.
func (p *zpeer) read() {
	defer p.close()
	for {
		m, err := p.c.RecvMsg()
		if err != nil {
			var big *tooLargeError
			if errors.As(err, &big) {
				p.s.logf("%s: peer %s disconnected: %v", p.s.name, p.raw.RemoteAddr(), big)
			}
			return
		}
		if m.Type == zmq4.CmdMsg || len(m.Frames) == 0 {
			continue // a command (zmq4 answers a PING itself)
		}
		if p.s.typ == zmq4.Pub {
			p.subscription(m.Frames)
			continue
		}
		frames := append([][]byte{[]byte(p.id)}, m.Frames...)
		select {
		case p.s.in <- frames:
		case <-p.done:
			return
		case <-p.s.done:
			return
		}
	}
}

// subscription applies a ZMTP 3.0 subscription message: 1 or 0, then the topic.
func (p *zpeer) subscription(frames [][]byte) {
	if len(frames) != 1 || len(frames[0]) == 0 {
		return
	}
	topic := string(frames[0][1:])
	p.mu.Lock()
	defer p.mu.Unlock()
	switch frames[0][0] {
	case 1:
		p.topics[topic]++
	case 0:
		if p.topics[topic] > 0 {
			p.topics[topic]--
		}
	}
}

func (p *zpeer) subscribed(topic []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for t, n := range p.topics {
		if n > 0 && bytes.HasPrefix(topic, []byte(t)) {
			return true
		}
	}
	return false
}

// outgoing is a message in a peer's queue.
type outgoing struct {
	frames [][]byte
	size   int
	group  string // for a message that may be dropped: the key of its gap
	shed   bool   // it may be dropped
	gap    []lost // messages dropped just before it, in order
}

// lost counts consecutive dropped messages of one group.
type lost struct {
	group       string
	msgs, bytes int
}

// addLost appends the losses b to a, merging neighbours of the same group.
func addLost(a []lost, b ...lost) []lost {
	for _, l := range b {
		if n := len(a); n > 0 && a[n-1].group == l.group {
			a[n-1].msgs += l.msgs
			a[n-1].bytes += l.bytes
			continue
		}
		a = append(a, l)
	}
	return a
}

// full reports whether a message of size bytes exceeds the high-water mark.
func (p *zpeer) full(size int) bool {
	return p.queue.Len() >= hwmMessages || p.queued+size > hwmBytes && p.queued > 0
}

// enqueue adds a message to the peer's queue. When the queue is full, the oldest messages that
// may be dropped make room (a PUB socket with a shedding policy); a message that finds no room
// is dropped unless the policy calls it essential, in which case it is queued beyond the mark.
func (p *zpeer) enqueue(frames [][]byte) {
	o := &outgoing{frames: frames}
	for _, f := range frames {
		o.size += len(f)
	}
	shed := p.s.shed
	if shed != nil {
		o.group, o.shed = shed.group(frames)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for shed != nil && p.full(o.size) && p.dropOldest() {
	}
	if p.full(o.size) && (shed == nil || o.shed) {
		if o.shed {
			p.gap = addLost(p.gap, lost{o.group, 1, o.size})
		}
		p.dropped++
		if p.dropped == 1 || p.dropped%1000 == 0 {
			p.s.logf("%s: peer %s reads more slowly than messages come: %d dropped so far", p.s.name, p.raw.RemoteAddr(), p.dropped)
		}
		return
	}
	o.gap, p.gap = p.gap, nil
	p.queue.PushBack(o)
	p.queued += o.size
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// dropOldest removes the oldest queued message that may be dropped and records the gap it
// leaves before the message that follows it. It reports false when there is none.
func (p *zpeer) dropOldest() bool {
	for e := p.queue.Front(); e != nil; e = e.Next() {
		o := e.Value.(*outgoing)
		if !o.shed {
			continue
		}
		gap := addLost(o.gap, lost{o.group, 1, o.size})
		if next := e.Next(); next != nil {
			n := next.Value.(*outgoing)
			n.gap = addLost(gap, n.gap...)
		} else {
			p.gap = addLost(gap, p.gap...)
		}
		p.queue.Remove(e)
		p.queued -= o.size
		p.dropped++
		if p.dropped == 1 || p.dropped%1000 == 0 {
			p.s.logf("%s: peer %s reads more slowly than messages come: %d dropped so far", p.s.name, p.raw.RemoteAddr(), p.dropped)
		}
		return true
	}
	return false
}

// next waits for the oldest queued message and takes it out of the queue (its bytes stay
// counted until written); it returns nil when the peer is closed.
func (p *zpeer) next() *outgoing {
	for {
		p.mu.Lock()
		if e := p.queue.Front(); e != nil {
			p.queue.Remove(e)
			p.mu.Unlock()
			return e.Value.(*outgoing)
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-p.done:
			return nil
		}
	}
}

// write sends the queued messages to the peer, each preceded by the notes of the gap before
// it; a message that cannot be written within writeTimeout disconnects the peer.
func (p *zpeer) write() {
	defer p.close()
	for {
		o := p.next()
		if o == nil {
			return
		}
		err := p.writeGap(o.gap)
		if err == nil {
			err = p.lc.writeMessage(o.frames, writeTimeout)
		}
		p.mu.Lock()
		p.queued -= o.size
		p.mu.Unlock()
		if err != nil {
			if !p.isClosed() {
				p.s.logf("%s: peer %s disconnected: %v", p.s.name, p.raw.RemoteAddr(), err)
			}
			return
		}
	}
}

// writeGap tells the peer what it lost before the next message.
func (p *zpeer) writeGap(gap []lost) error {
	if p.s.shed == nil || p.s.shed.note == nil {
		return nil
	}
	for _, l := range gap {
		if note := p.s.shed.note(l.group, l.msgs, l.bytes); note != nil {
			if err := p.lc.writeMessage(note, writeTimeout); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *zpeer) isClosed() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *zpeer) close() {
	p.once.Do(func() {
		close(p.done)
		p.raw.Close()
		p.s.remove(p)
	})
}

// lockedConn is a peer's connection with its writes serialized by message: the writer
// goroutine writes whole messages (writeMessage), and the frames zmq4 writes on its own (the
// PONG that answers a PING, from the reader goroutine) are gathered and written whole, so
// that they never land inside a message.
type lockedConn struct {
	net.Conn
	framed bool // the handshake is over: writes through Write are ZMTP frames

	guard frameGuard // of Read: the sizes of the frames the peer sends

	mu      sync.Mutex // held while a whole message or frame is written
	pending []byte     // of Write, until a frame is complete
}

// Read reads what the peer sent, and fails, without passing them on, at the header of a frame
// that would make its message larger than maxMessage: zmq4 allocates a frame's whole size as
// soon as it has read its header.
func (c *lockedConn) Read(p []byte) (int, error) {
	if c.guard.err != nil {
		return 0, c.guard.err
	}
	n, err := c.Conn.Read(p)
	if gerr := c.guard.scan(p[:n]); gerr != nil {
		return 0, gerr
	}
	return n, err
}

// Write takes what zmq4 writes: during the handshake it goes straight through; afterwards it
// is written frame by frame. Only the reader goroutine writes through it then.
func (c *lockedConn) Write(p []byte) (int, error) {
	if !c.framed {
		return c.Conn.Write(p)
	}
	c.pending = append(c.pending, p...)
	for {
		n := frameLen(c.pending)
		if n == 0 || n > len(c.pending) {
			return len(p), nil
		}
		c.mu.Lock()
		_, err := c.Conn.Write(c.pending[:n])
		c.mu.Unlock()
		c.pending = c.pending[n:]
		if err != nil {
			return 0, err
		}
	}
}

// frameLen returns the length of the ZMTP frame at the start of b (flags, then a size of one
// byte, or of eight when the flags say long), or 0 when b does not hold its header yet.
func frameLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	if b[0]&0x02 == 0 {
		return 2 + int(b[1])
	}
	if len(b) < 9 {
		return 0
	}
	return 9 + int(binary.BigEndian.Uint64(b[1:9]))
}

// writeMessage writes frames as one ZMTP message (all frames but the last flagged MORE); it
// fails when a piece of 64 KiB takes longer than timeout.
func (c *lockedConn) writeMessage(frames [][]byte, timeout time.Duration) error {
	size := 0
	for _, f := range frames {
		size += 9 + len(f)
	}
	buf := make([]byte, 0, size)
	for i, f := range frames {
		var flags byte
		if i < len(frames)-1 {
			flags |= 0x01 // MORE
		}
		if len(f) > 255 {
			buf = append(buf, flags|0x02) // LONG
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
		} else {
			buf = append(buf, flags, byte(len(f)))
		}
		buf = append(buf, f...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// A slow peer that reads is not a stuck one: the timeout is for a piece of the message.
	for len(buf) > 0 {
		n := min(len(buf), 64<<10)
		c.Conn.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := c.Conn.Write(buf[:n]); err != nil {
			return err
		}
		buf = buf[n:]
	}
	return nil
}

// zmtpGreetingLen is the size of the ZMTP 3 greeting, which precedes the first frame.
const zmtpGreetingLen = 64

// frameGuard follows the frames of a ZMTP stream as it is read and refuses a message larger
// than maxMessage as soon as the header of the frame that makes it so has arrived.
type frameGuard struct {
	greeting int     // bytes of the greeting still to come
	hdr      [9]byte // the header of the next frame, as far as it has come
	hdrN     int
	body     uint64 // bytes of the current frame's body still to come
	last     bool   // the current frame is the last of its message
	msg      uint64 // size of the current message so far
	err      error
}

// scan follows b, the next bytes of the stream.
func (g *frameGuard) scan(b []byte) error {
	for len(b) > 0 && g.err == nil {
		switch {
		case g.greeting > 0:
			n := min(g.greeting, len(b))
			g.greeting -= n
			b = b[n:]
		case g.body > 0:
			n := min(g.body, uint64(len(b)))
			g.body -= n
			b = b[n:]
			if g.body == 0 && g.last {
				g.msg = 0
			}
		default:
			g.hdr[g.hdrN] = b[0]
			g.hdrN++
			b = b[1:]
			g.header()
		}
	}
	return g.err
}

// header takes a frame header once it is complete: flags (MORE 0x01, LONG 0x02), then a size
// of one byte, or of eight when LONG.
func (g *frameGuard) header() {
	flags := g.hdr[0]
	var size uint64
	switch {
	case g.hdrN == 2 && flags&0x02 == 0:
		size = uint64(g.hdr[1])
	case g.hdrN == 9:
		size = binary.BigEndian.Uint64(g.hdr[1:9])
	default:
		return
	}
	g.hdrN = 0
	g.last = flags&0x01 == 0
	if size > maxMessage || g.msg+frameOverhead+size > maxMessage {
		g.err = &tooLargeError{size: size, msg: g.msg}
		return
	}
	g.msg += frameOverhead + size
	g.body = size
	if size == 0 && g.last {
		g.msg = 0
	}
}

// tooLargeError is the error of a peer that sent a message larger than maxMessage.
type tooLargeError struct {
	size, msg uint64 // the frame's size, and what its message held before it
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("it sent a message larger than the kernel accepts (a frame of %s after %s of the same message): a message may have at most %d MiB",
		byteSize64(e.size), byteSize64(e.msg), maxMessage>>20)
}

// byteSize64 is byteSize for a size that may exceed an int.
func byteSize64(n uint64) string {
	if n > 1<<50 {
		return fmt.Sprintf("%d bytes", n)
	}
	return byteSize(int(n))
}
