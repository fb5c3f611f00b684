package nbtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gosbi/gosbi/internal/kernel"
)

// Client is a Jupyter client: it connects to a kernel's five sockets and speaks the messaging
// protocol. Replies and iopub messages are kept in mailboxes until read.
type Client struct {
	Conn    *kernel.ConnectionInfo
	Session string
	key     []byte

	shell, control, stdin, iopub, hb zmq4.Socket
	sendMu                           sync.Mutex
	ctx                              context.Context
	cancel                           context.CancelFunc

	Shell, Control, Stdin, IOPub *Mailbox
}

// Dial connects to the kernel described by ci.
func Dial(ci *kernel.ConnectionInfo) (*Client, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		Conn:    ci,
		Session: kernel.NewID(),
		key:     []byte(ci.Key),
		ctx:     ctx,
		cancel:  cancel,
		Shell:   newMailbox(0),
		Control: newMailbox(0),
		Stdin:   newMailbox(0),
		IOPub:   newMailbox(IOPubHold),
	}
	// A kernel that was just started may not listen yet: retry connecting often.
	opts := []zmq4.Option{zmq4.WithLogger(log.New(discard{}, "", 0)), zmq4.WithDialerRetry(10 * time.Millisecond), zmq4.WithDialerMaxRetries(1000)}
	with := func(more ...zmq4.Option) []zmq4.Option { return append(more, opts...) }
	id := zmq4.WithID(zmq4.SocketIdentity(c.Session))
	c.shell = zmq4.NewDealer(ctx, with(id)...)
	c.control = zmq4.NewDealer(ctx, with(zmq4.WithID(zmq4.SocketIdentity("control-"+c.Session)))...)
	c.stdin = zmq4.NewDealer(ctx, with(id)...)
	c.iopub = zmq4.NewSub(ctx, opts...)
	c.hb = zmq4.NewReq(ctx, opts...)
	for _, s := range []struct {
		sock zmq4.Socket
		name string
		port int
	}{{c.shell, "shell", ci.ShellPort}, {c.control, "control", ci.ControlPort}, {c.stdin, "stdin", ci.StdinPort}, {c.iopub, "iopub", ci.IOPubPort}, {c.hb, "heartbeat", ci.HBPort}} {
		if err := s.sock.Dial(endpoint(ci, s.port)); err != nil {
			c.Close()
			return nil, fmt.Errorf("nbtest: connect to the kernel's %s socket: %w", s.name, err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		c.Close()
		return nil, fmt.Errorf("nbtest: subscribe to iopub: %w", err)
	}
	go c.read(c.shell, c.Shell)
	go c.read(c.control, c.Control)
	go c.read(c.stdin, c.Stdin)
	go c.read(c.iopub, c.IOPub)
	return c, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func endpoint(ci *kernel.ConnectionInfo, port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return "tcp://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}

// Close disconnects from the kernel.
func (c *Client) Close() {
	c.cancel()
	for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub, c.hb} {
		if s != nil {
			s.Close()
		}
	}
	for _, b := range []*Mailbox{c.Shell, c.Control, c.Stdin, c.IOPub} {
		b.close()
	}
}

func (c *Client) read(sock zmq4.Socket, box *Mailbox) {
	defer box.close()
	for {
		raw, err := sock.Recv()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			continue
		}
		m, err := kernel.DecodeMessage(raw.Frames, c.key)
		if err != nil {
			continue
		}
		box.put(m)
	}
}

func (c *Client) socket(channel string) (zmq4.Socket, error) {
	switch channel {
	case "shell":
		return c.shell, nil
	case "control":
		return c.control, nil
	case "stdin":
		return c.stdin, nil
	}
	return nil, fmt.Errorf("nbtest: no channel %q: use shell, control or stdin", channel)
}

// Send sends a request of type msgType with the given content on channel (shell, control or
// stdin) and returns the message sent.
func (c *Client) Send(channel, msgType string, content any) (*kernel.Message, error) {
	m, err := kernel.NewMessage(msgType, c.Session, nil, content)
	if err != nil {
		return nil, err
	}
	m.Header.Username = "nbtest"
	frames, err := kernel.Encode(m, c.key)
	if err != nil {
		return nil, err
	}
	return m, c.SendFrames(channel, frames)
}

// SendFrames sends raw frames on channel, for tests of malformed messages.
func (c *Client) SendFrames(channel string, frames [][]byte) error {
	sock, err := c.socket(channel)
	if err != nil {
		return err
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("nbtest: send on %s: %w", channel, err)
	}
	return nil
}

// Request sends a request on channel and waits for the reply to it.
func (c *Client) Request(ctx context.Context, channel, msgType string, content any) (*kernel.Message, error) {
	m, err := c.Send(channel, msgType, content)
	if err != nil {
		return nil, err
	}
	box := map[string]*Mailbox{"shell": c.Shell, "control": c.Control, "stdin": c.Stdin}[channel]
	return box.Next(ctx, ParentIs(m.Header.MsgID))
}

// Ping sends one heartbeat and waits for its echo.
func (c *Client) Ping(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
			done <- err
			return
		}
		m, err := c.hb.Recv()
		if err == nil && string(m.Bytes()) != "ping" {
			err = fmt.Errorf("nbtest: heartbeat echoed %q, want %q", m.Bytes(), "ping")
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("nbtest: heartbeat: %w", ctx.Err())
	}
}

// WaitReady sends kernel_info requests until one is answered and its status messages arrive on
// iopub, so that no output of later requests can be missed (a subscription takes effect only
// some time after connecting).
func (c *Client) WaitReady(ctx context.Context) (*kernel.Message, error) {
	for {
		m, err := c.Send("shell", "kernel_info_request", map[string]any{})
		if err != nil {
			return nil, err
		}
		try, cancel := context.WithTimeout(ctx, 2*time.Second)
		reply, err := c.Shell.Next(try, ParentIs(m.Header.MsgID))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("nbtest: the kernel did not answer kernel_info: %w", ctx.Err())
			}
			continue
		}
		try, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
		_, err = c.IOPub.Next(try, ParentIs(m.Header.MsgID))
		cancel()
		if err == nil {
			// Drop the rest of this request's status messages.
			c.IOPub.Drop(ParentIs(m.Header.MsgID))
			return reply, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("nbtest: no iopub messages from the kernel: %w", ctx.Err())
		}
	}
}

// Execution is everything a kernel sent for one execute_request.
type Execution struct {
	Request *kernel.Message
	Reply   *kernel.Message
	// IOPub holds the iopub messages between status busy and idle (both excluded), unless
	// ExecuteConfig.Discard is set.
	IOPub []*kernel.Message
	// TimedOut is set when the reply did not come within ExecuteConfig.Timeout: the request
	// was interrupted.
	TimedOut bool
	// Aborted is set when ExecuteConfig.Abort was closed before the reply came: the request
	// was interrupted.
	Aborted bool
}

// ExecuteConfig are the optional fields of an execute_request and the bounds of the wait for
// its outcome.
type ExecuteConfig struct {
	Silent          bool
	NoStoreHistory  bool
	AllowStdin      bool
	ContinueOnError bool // stop_on_error = false
	UserExpressions map[string]string
	// Input answers input_request messages (allow_stdin must be set); nil answers "".
	Input func(prompt string, password bool) string
	// OnOutput is called with each iopub output as it arrives.
	OnOutput func(*kernel.Message)
	// LateFrom, when set, makes Collect take as well the iopub messages whose parent is a
	// request it accepts (by msg_id), in arrival order with the request's own, and pass them to
	// OnLate (status messages excepted): output that goroutines of earlier cells printed while
	// no cell ran, which the kernel sends to the last cell that showed output. LateFrom is
	// called on another goroutine.
	LateFrom func(msgID string) bool
	// OnLate is called with each message taken for LateFrom.
	OnLate func(*kernel.Message)
	// Discard keeps the iopub messages out of Execution.IOPub (OnOutput still sees them), so
	// that a cell with a lot of output holds no memory.
	Discard bool
	// Timeout bounds the execution, from the request to its execute_reply (0: no limit).
	// When it passes, the request is interrupted (interrupt_request on the control channel)
	// and Execution.TimedOut is set; the kernel then has InterruptWait to reply.
	Timeout time.Duration
	// Abort, when closed before the reply (by OnOutput, say), interrupts the request as a
	// timeout does and sets Execution.Aborted. nil: never.
	Abort <-chan struct{}
	// IdleWait bounds the wait for status idle once the reply is in: when no iopub message of
	// the request comes for this long, Collect returns the execution with ErrNoIdle
	// (default DefaultIdleWait).
	IdleWait time.Duration
}

const (
	// DefaultIdleWait is how long Collect waits, after the reply, for a request's next iopub
	// message before it gives up waiting for status idle.
	DefaultIdleWait = 30 * time.Second
	// InterruptWait is how long a request that timed out may take to reply after the
	// interrupt.
	InterruptWait = 30 * time.Second
	// IOPubHold is how many bytes of iopub messages a Client keeps unread; beyond it the client
	// stops reading, and the kernel drops output for it (telling it so) rather than status,
	// results and errors.
	IOPubHold = 64 << 20
)

// ErrNoIdle is returned (wrapped) by Collect when the reply came but status idle did not.
var ErrNoIdle = errors.New("nbtest: the kernel sent no status idle")

// Execute runs code and collects the reply and the iopub messages up to status idle.
func (c *Client) Execute(ctx context.Context, code string, cfg ExecuteConfig) (*Execution, error) {
	ue := cfg.UserExpressions
	if ue == nil {
		ue = map[string]string{}
	}
	m, err := c.Send("shell", "execute_request", map[string]any{
		"code": code, "silent": cfg.Silent, "store_history": !cfg.NoStoreHistory, "user_expressions": ue,
		"allow_stdin": cfg.AllowStdin, "stop_on_error": !cfg.ContinueOnError,
	})
	if err != nil {
		return nil, err
	}
	return c.Collect(ctx, m, cfg)
}

// Collect gathers the reply and the iopub messages of a request just sent, until both the
// reply and status idle are in. Every wait is bounded: by ctx, by cfg.Timeout until the reply
// (then by InterruptWait), and by cfg.IdleWait for idle after the reply.
func (c *Client) Collect(ctx context.Context, req *kernel.Message, cfg ExecuteConfig) (*Execution, error) {
	ex := &Execution{Request: req}
	id := req.Header.MsgID
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.AllowStdin {
		go c.answerInputs(ctx, id, cfg.Input)
	}
	replies := make(chan *kernel.Message, 1)
	outputs := make(chan *kernel.Message)
	failed := make(chan error, 2)
	go func() {
		m, err := c.Shell.Next(ctx, ParentIs(id))
		if err != nil {
			failed <- fmt.Errorf("nbtest: waiting for execute_reply: %w", err)
			return
		}
		replies <- m
	}()
	match := ParentIs(id)
	if cfg.LateFrom != nil {
		match = func(m *kernel.Message) bool {
			p := parentID(m)
			return p == id || cfg.LateFrom(p)
		}
	}
	go func() {
		for {
			m, err := c.IOPub.Next(ctx, match)
			if err != nil {
				failed <- fmt.Errorf("nbtest: waiting for the outputs of the cell: %w", err)
				return
			}
			select {
			case outputs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	idleWait := cfg.IdleWait
	if idleWait <= 0 {
		idleWait = DefaultIdleWait
	}
	// deadline is the timeout of the execution, then of the interrupt; quiet bounds the
	// wait for idle after the reply (or for the reply after idle).
	var deadline, quiet <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	quietTimer := time.NewTimer(idleWait)
	quietTimer.Stop()
	defer quietTimer.Stop()
	idle := false
	var interrupt *kernel.Message
	interrupted := "" // why interrupt was sent
	abort := cfg.Abort
	var interruptTimer *time.Timer
	defer func() {
		if interruptTimer != nil {
			interruptTimer.Stop()
		}
	}()
	// interruptNow interrupts the request and gives the kernel InterruptWait to reply.
	interruptNow := func(why string) error {
		var err error
		if interrupt, err = c.Send("control", "interrupt_request", map[string]any{}); err != nil {
			return err
		}
		interrupted = why
		interruptTimer = time.NewTimer(InterruptWait)
		deadline = interruptTimer.C
		return nil
	}
	for ex.Reply == nil || !idle {
		select {
		case m := <-outputs:
			if cfg.LateFrom != nil && parentID(m) != id {
				if m.Header.MsgType != "status" && cfg.OnLate != nil {
					cfg.OnLate(m)
				}
				continue
			}
			if ex.Reply != nil {
				quietTimer.Reset(idleWait)
			}
			if m.Header.MsgType == "status" {
				var s struct {
					State string `json:"execution_state"`
				}
				json.Unmarshal(m.Content, &s)
				if s.State == "idle" {
					idle = true
					if ex.Reply == nil {
						quietTimer.Reset(idleWait)
						quiet = quietTimer.C
					}
				}
				continue
			}
			if cfg.OnOutput != nil {
				cfg.OnOutput(m)
			}
			if !cfg.Discard {
				ex.IOPub = append(ex.IOPub, m)
			}
		case m := <-replies:
			ex.Reply = m
			deadline = nil
			quietTimer.Reset(idleWait)
			quiet = quietTimer.C
		case err := <-failed:
			return ex, err
		case <-deadline:
			if interrupt != nil {
				return ex, fmt.Errorf("nbtest: the kernel did not reply within %v of the interrupt sent when %s", InterruptWait, interrupted)
			}
			ex.TimedOut = true
			if err := interruptNow(fmt.Sprintf("the cell ran past its timeout of %v", cfg.Timeout)); err != nil {
				return ex, err
			}
		case <-abort:
			abort = nil
			if ex.Reply != nil || interrupt != nil {
				continue
			}
			ex.Aborted = true
			if err := interruptNow("the execution was aborted"); err != nil {
				return ex, err
			}
		case <-quiet:
			if ex.Reply == nil {
				return ex, fmt.Errorf("nbtest: the kernel sent status idle but no execute_reply within %v", idleWait)
			}
			return ex, fmt.Errorf("%w within %v of its execute_reply (no message of the request came meanwhile)", ErrNoIdle, idleWait)
		case <-ctx.Done():
			return ex, fmt.Errorf("nbtest: waiting for the outcome of the cell: %w", ctx.Err())
		}
	}
	if interrupt != nil {
		// Its reply is of no use here.
		dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		c.Control.Next(dctx, ParentIs(interrupt.Header.MsgID))
		cancel()
	}
	return ex, nil
}

func (c *Client) answerInputs(ctx context.Context, parent string, answer func(string, bool) string) error {
	for {
		m, err := c.Stdin.Next(ctx, ParentIs(parent))
		if err != nil {
			return err
		}
		var r struct {
			Prompt   string `json:"prompt"`
			Password bool   `json:"password"`
		}
		json.Unmarshal(m.Content, &r)
		v := ""
		if answer != nil {
			v = answer(r.Prompt, r.Password)
		}
		if _, err := c.Send("stdin", "input_reply", map[string]any{"value": v}); err != nil {
			return err
		}
	}
}

// Shutdown asks the kernel to shut down on the control channel and waits for the reply.
func (c *Client) Shutdown(ctx context.Context, restart bool) error {
	_, err := c.Request(ctx, "control", "shutdown_request", map[string]any{"restart": restart})
	return err
}

// Mailbox keeps received messages until they are taken. A mailbox with a limit holds at most
// that many bytes: the reader that fills it waits for room.
type Mailbox struct {
	mu     sync.Mutex
	msgs   []*kernel.Message // msgs[head:] are kept
	head   int
	bytes  int
	limit  int
	signal chan struct{} // closed and replaced at every change
	closed bool
}

func newMailbox(limit int) *Mailbox { return &Mailbox{signal: make(chan struct{}), limit: limit} }

func msgSize(m *kernel.Message) int {
	n := len(m.RawHeader) + len(m.ParentHeader) + len(m.Metadata) + len(m.Content)
	for _, b := range m.Buffers {
		n += len(b)
	}
	return n
}

// changed wakes every waiter; b.mu is held.
func (b *Mailbox) changed() {
	close(b.signal)
	b.signal = make(chan struct{})
}

// put adds m, first waiting while the mailbox is over its limit.
func (b *Mailbox) put(m *kernel.Message) {
	b.mu.Lock()
	for b.limit > 0 && b.bytes >= b.limit && !b.closed {
		sig := b.signal
		b.mu.Unlock()
		<-sig
		b.mu.Lock()
	}
	b.msgs = append(b.msgs, m)
	b.bytes += msgSize(m)
	b.changed()
	b.mu.Unlock()
}

func (b *Mailbox) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.changed()
	}
	b.mu.Unlock()
}

// remove takes out the message at index i; b.mu is held.
func (b *Mailbox) remove(i int) {
	b.bytes -= msgSize(b.msgs[i])
	if i == b.head {
		b.msgs[i] = nil
		b.head++
	} else {
		copy(b.msgs[i:], b.msgs[i+1:])
		b.msgs[len(b.msgs)-1] = nil
		b.msgs = b.msgs[:len(b.msgs)-1]
	}
	if b.head == len(b.msgs) {
		b.msgs, b.head = b.msgs[:0], 0
	} else if b.head > 1024 && b.head > len(b.msgs)/2 {
		n := copy(b.msgs, b.msgs[b.head:])
		clear(b.msgs[n:])
		b.msgs, b.head = b.msgs[:n], 0
	}
	b.changed()
}

// ErrClosed is returned when waiting on the mailbox of a closed client.
var ErrClosed = errors.New("nbtest: client closed")

// Next removes and returns the first message that match accepts, waiting for one.
func (b *Mailbox) Next(ctx context.Context, match func(*kernel.Message) bool) (*kernel.Message, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.mu.Lock()
		for i := b.head; i < len(b.msgs); i++ {
			if m := b.msgs[i]; match(m) {
				b.remove(i)
				b.mu.Unlock()
				return m, nil
			}
		}
		if b.closed {
			b.mu.Unlock()
			return nil, ErrClosed
		}
		sig := b.signal
		b.mu.Unlock()
		select {
		case <-sig:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Drop removes the messages that match accepts.
func (b *Mailbox) Drop(match func(*kernel.Message) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.msgs[:0]
	for _, m := range b.msgs[b.head:] {
		if match(m) {
			b.bytes -= msgSize(m)
		} else {
			kept = append(kept, m)
		}
	}
	clear(b.msgs[len(kept):])
	b.msgs, b.head = kept, 0
	b.changed()
}

// ParentIs matches messages whose parent header has the given msg_id.
func ParentIs(msgID string) func(*kernel.Message) bool {
	return func(m *kernel.Message) bool { return parentID(m) == msgID }
}

// parentID returns the msg_id of m's parent header, "" when it has none.
func parentID(m *kernel.Message) string {
	var h struct {
		MsgID string `json:"msg_id"`
	}
	json.Unmarshal(m.ParentHeader, &h)
	return h.MsgID
}

// freePorts returns n distinct free TCP ports on the loopback interface.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("nbtest: find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// NewConnectionInfo returns connection info with free loopback ports and a fresh signing key.
func NewConnectionInfo() (*kernel.ConnectionInfo, error) {
	p, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	return &kernel.ConnectionInfo{
		Transport: "tcp", IP: "127.0.0.1",
		ShellPort: p[0], ControlPort: p[1], StdinPort: p[2], IOPubPort: p[3], HBPort: p[4],
		Key: kernel.NewID(), SignatureScheme: "hmac-sha256", KernelName: "gosbi",
	}, nil
}
