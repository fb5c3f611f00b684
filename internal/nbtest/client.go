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
		Shell:   newMailbox(),
		Control: newMailbox(),
		Stdin:   newMailbox(),
		IOPub:   newMailbox(),
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
	// IOPub holds the iopub messages between status busy and idle (both excluded).
	IOPub []*kernel.Message
}

// ExecuteConfig are the optional fields of an execute_request.
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
}

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

// Collect gathers the reply and iopub messages of a request already sent.
func (c *Client) Collect(ctx context.Context, req *kernel.Message, cfg ExecuteConfig) (*Execution, error) {
	ex := &Execution{Request: req}
	id := req.Header.MsgID
	inputs := make(chan error, 1)
	if cfg.AllowStdin {
		ictx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { inputs <- c.answerInputs(ictx, id, cfg.Input) }()
	}
	for {
		msg, err := c.IOPub.Next(ctx, ParentIs(id))
		if err != nil {
			return ex, fmt.Errorf("nbtest: waiting for the outputs of the cell: %w", err)
		}
		if msg.Header.MsgType == "status" {
			var s struct {
				State string `json:"execution_state"`
			}
			json.Unmarshal(msg.Content, &s)
			if s.State == "idle" {
				break
			}
			continue
		}
		if cfg.OnOutput != nil {
			cfg.OnOutput(msg)
		}
		ex.IOPub = append(ex.IOPub, msg)
	}
	reply, err := c.Shell.Next(ctx, ParentIs(id))
	if err != nil {
		return ex, fmt.Errorf("nbtest: waiting for execute_reply: %w", err)
	}
	ex.Reply = reply
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

// Mailbox keeps received messages until they are taken.
type Mailbox struct {
	mu     sync.Mutex
	msgs   []*kernel.Message
	signal chan struct{}
	closed bool
}

func newMailbox() *Mailbox { return &Mailbox{signal: make(chan struct{})} }

func (b *Mailbox) put(m *kernel.Message) {
	b.mu.Lock()
	b.msgs = append(b.msgs, m)
	close(b.signal)
	b.signal = make(chan struct{})
	b.mu.Unlock()
}

func (b *Mailbox) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.signal)
		b.signal = make(chan struct{})
	}
	b.mu.Unlock()
}

// ErrClosed is returned when waiting on the mailbox of a closed client.
var ErrClosed = errors.New("nbtest: client closed")

// Next removes and returns the first message that match accepts, waiting for one.
func (b *Mailbox) Next(ctx context.Context, match func(*kernel.Message) bool) (*kernel.Message, error) {
	for {
		b.mu.Lock()
		for i, m := range b.msgs {
			if match(m) {
				b.msgs = append(b.msgs[:i], b.msgs[i+1:]...)
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
	kept := b.msgs[:0]
	for _, m := range b.msgs {
		if !match(m) {
			kept = append(kept, m)
		}
	}
	b.msgs = kept
	b.mu.Unlock()
}

// ParentIs matches messages whose parent header has the given msg_id.
func ParentIs(msgID string) func(*kernel.Message) bool {
	return func(m *kernel.Message) bool {
		var h struct {
			MsgID string `json:"msg_id"`
		}
		json.Unmarshal(m.ParentHeader, &h)
		return h.MsgID == msgID
	}
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
