package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gosbi/gosbi/internal/ipc"
)

// Config configures a kernel front process.
type Config struct {
	// Conn is the connection file's content: where to bind and the signing key.
	Conn *ConnectionInfo
	// Worker is the command line of the interpreter worker. Empty means this executable with
	// the sub-command "worker".
	Worker []string
	// WorkerEnv is added to the worker's environment.
	WorkerEnv []string
	// InterruptGrace is how long a cell may take to stop after an interrupt before the worker
	// is killed and restarted (default 5 s).
	InterruptGrace time.Duration
	// WorkerStartTimeout bounds the wait for a new worker to load (default 2 min).
	WorkerStartTimeout time.Duration
	// Log receives the front's diagnostics and the worker's own output (default os.Stderr).
	Log io.Writer
	// Version is reported as implementation_version in kernel_info_reply.
	Version string
}

// Kernel is a running front process.
type Kernel struct {
	cfg     Config
	key     []byte
	session string

	shell, control, stdin, iopub, hb *zsocket // see zsock.go

	shellQ     chan *Message
	started    time.Time
	subscribed atomic.Bool // an iopub subscription has been seen
	ctx        context.Context
	cancel     context.CancelFunc
	done       chan struct{} // closed by Shutdown
	once       sync.Once

	mu         sync.Mutex
	w          *worker
	execCount  int
	history    history
	reqs       map[string]*request // in flight at the worker, by ipc id
	running    *request            // the execute request the worker is running
	lastExec   *request            // the last execute request (none before the first cell)
	lastShown  *request            // the last execute request that is not silent: output outside a cell goes to it
	inputOwner *request            // the request waiting for an input_reply
	replaced   bool                // a worker died: the next ones start with ipc.RestartedEnv
	notice     string              // stderr text for the next execute request (a worker died between cells)
}

// request is one shell request handed to the worker.
type request struct {
	id         string
	parent     *Message
	w          *worker
	silent     bool
	allowStdin bool
	count      int
	reply      chan ipc.Event // the worker's Reply, or a synthetic "died" event
	errSent    bool           // an error message was published for it
	errEvent   ipc.Event
	result     string // text/plain of execute_result, for history with output
}

// died is the type of the synthetic event delivered when the worker ends mid-request.
const died = "died"

// New binds the sockets of cfg.Conn and returns a kernel ready to Run.
func New(cfg Config) (*Kernel, error) {
	if cfg.Conn == nil {
		return nil, errors.New("kernel: no connection info")
	}
	if err := cfg.Conn.check(); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.InterruptGrace <= 0 {
		cfg.InterruptGrace = 5 * time.Second
	}
	if cfg.WorkerStartTimeout <= 0 {
		cfg.WorkerStartTimeout = 2 * time.Minute
	}
	if len(cfg.Worker) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("kernel: find own executable to start the worker: %w", err)
		}
		cfg.Worker = []string{exe, "worker"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kernel{
		cfg:     cfg,
		key:     []byte(cfg.Conn.Key),
		session: NewID(),
		shellQ:  make(chan *Message, 1024),
		started: time.Now(),
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
		reqs:    map[string]*request{},
	}
	if k.cfg.Conn.Key == "" {
		k.logf("warning: the connection key is empty, so messages are not authenticated: anyone who can reach the kernel's ports can run code as this user")
	}
	k.shell = newZSocket(zmq4.Router, "shell", k.logf)
	k.control = newZSocket(zmq4.Router, "control", k.logf)
	k.stdin = newZSocket(zmq4.Router, "stdin", k.logf)
	k.iopub = newZSocket(zmq4.Pub, "iopub", k.logf)
	k.iopub.shed = &shedding{group: sheddable, note: k.lossNote}
	k.hb = newZSocket(zmq4.Rep, "heartbeat", k.logf)
	ci := cfg.Conn
	for _, s := range []struct {
		listen func(string) error
		name   string
		port   int
	}{{k.shell.listen, "shell", ci.ShellPort}, {k.control.listen, "control", ci.ControlPort}, {k.stdin.listen, "stdin", ci.StdinPort},
		{k.iopub.listen, "iopub", ci.IOPubPort}, {k.hb.listen, "heartbeat", ci.HBPort}} {
		if err := s.listen(ci.endpoint(s.port)); err != nil {
			k.closeSockets()
			cancel()
			return nil, fmt.Errorf("kernel: bind %s socket: %w", s.name, err)
		}
	}
	return k, nil
}

// Run serves requests until a shutdown_request arrives or ctx ends. It starts the worker in the
// background; kernel_info is answered at once, without waiting for it.
func (k *Kernel) Run(ctx context.Context) error {
	go func() {
		select {
		case <-ctx.Done():
			k.Shutdown()
		case <-k.done:
		}
	}()
	go k.heartbeat()
	go k.readLoop(k.shell, "shell", func(m *Message) { k.shellQ <- m })
	go k.readLoop(k.control, "control", k.dispatchControl)
	go k.readLoop(k.stdin, "stdin", k.handleStdin)
	go k.shellLoop()
	k.publish("status", nil, map[string]any{"execution_state": "starting"})
	go k.ensureWorker()
	<-k.done
	k.stopWorker()
	k.closeSockets()
	return nil
}

// Shutdown stops the kernel: Run returns.
func (k *Kernel) Shutdown() {
	k.once.Do(func() {
		close(k.done)
	})
}

func (k *Kernel) closeSockets() {
	k.cancel()
	for _, s := range []*zsocket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		s.close()
	}
}

func (k *Kernel) logf(format string, args ...any) {
	fmt.Fprintf(k.cfg.Log, "gosbi kernel: "+format+"\n", args...)
}

// heartbeat echoes every ping, with its envelope, to the peer that sent it.
func (k *Kernel) heartbeat() {
	for {
		frames, err := k.hb.recv()
		if err != nil {
			return
		}
		k.hb.send(frames)
	}
}

// readLoop receives messages on sock, drops (and logs) those that fail to decode or verify, and
// hands the rest to handle.
func (k *Kernel) readLoop(sock *zsocket, name string, handle func(*Message)) {
	for {
		frames, err := sock.recv()
		if err != nil {
			return
		}
		m, err := DecodeMessage(frames, k.key)
		if err != nil {
			k.logf("%s: dropped a message: %v", name, err)
			continue
		}
		handle(m)
	}
}

// send signs m and queues it on a ROUTER socket; it never blocks (see zsock.go).
func (k *Kernel) send(sock *zsocket, m *Message) {
	frames, err := Encode(m, k.key)
	if err != nil {
		k.logf("%v", err)
		return
	}
	sock.send(frames)
}

// reply sends a reply of type msgType to req on the socket it came from.
func (k *Kernel) reply(sock *zsocket, req *Message, msgType string, content any) {
	m, err := NewMessage(msgType, k.session, req, content)
	if err != nil {
		k.logf("%v", err)
		return
	}
	k.send(sock, m)
}

// publish sends a message on iopub with parent as its parent header.
func (k *Kernel) publish(msgType string, parent *Message, content any) {
	m, err := NewMessage(msgType, k.session, parent, content)
	if err != nil {
		k.logf("%v", err)
		return
	}
	m.Identities = [][]byte{[]byte("kernel." + k.session + "." + msgType)}
	frames, err := Encode(m, k.key)
	if err != nil {
		k.logf("%v", err)
		return
	}
	k.iopub.send(frames)
}

// sheddable reports whether an iopub message may be dropped for a client that reads too slowly:
// output (stream, display_data, update_display_data) may, status, execute_input,
// execute_result, error, clear_output and the rest may not. The key is the parent header, so
// that the note about the gap goes to the cell whose output was lost.
func sheddable(frames [][]byte) (key string, ok bool) {
	if len(frames) < 5 {
		return "", false
	}
	topic := string(frames[0])
	switch topic[strings.LastIndexByte(topic, '.')+1:] {
	case "stream", "display_data", "update_display_data":
	default:
		return "", false
	}
	for i, f := range frames {
		if string(f) == string(delimiter) && i+3 < len(frames) {
			return string(frames[i+3]), true
		}
	}
	return "", false
}

// LossMetadata is the key, in the metadata of the stream message that tells a client it lost
// output, of the count of what it lost: {"messages": N, "bytes": B} (B counts the messages'
// frames, so it is a little more than the text they held).
const LossMetadata = "gosbi_dropped"

// lossNote is the stderr line that tells an iopub client, where the gap is, how much output it
// did not get; its metadata carry the counts (LossMetadata).
func (k *Kernel) lossNote(parentHeader string, msgs, bytes int) [][]byte {
	text := fmt.Sprintf("\n[gosbi: %d output messages (%s) of this cell were not sent to this client: it read them more slowly than they came, "+
		"and the kernel holds at most %d messages or %d MiB for each client. The output goes on after the gap.]\n",
		msgs, byteSize(bytes), hwmMessages, hwmBytes>>20)
	m, err := NewMessage("stream", k.session, nil, map[string]any{"name": "stderr", "text": text})
	if err != nil {
		return nil
	}
	m.ParentHeader = json.RawMessage(parentHeader)
	m.Metadata, _ = json.Marshal(map[string]any{LossMetadata: map[string]int{"messages": msgs, "bytes": bytes}})
	m.Identities = [][]byte{[]byte("kernel." + k.session + ".stream")}
	frames, err := Encode(m, k.key)
	if err != nil {
		return nil
	}
	return frames
}

// byteSize formats n bytes for a reader: "812 B", "64.0 KiB", "1.5 GiB".
func byteSize(n int) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}

func (k *Kernel) status(state string, parent *Message) {
	if state == "busy" {
		k.awaitSubscriber()
	}
	k.publish("status", parent, map[string]any{"execution_state": state})
}

// awaitSubscriber waits, shortly after start only, until a client has subscribed to iopub, so
// that the status messages of the first request reach it. A subscription takes effect some
// time after a client connects; without this wait the first kernel_info_request of every
// Jupyter client loses its busy/idle, and the client asks again after 200 ms.
func (k *Kernel) awaitSubscriber() {
	if k.subscribed.Load() {
		return
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Since(k.started) < 3*time.Second && time.Now().Before(deadline) {
		if len(k.iopub.topics()) > 0 {
			k.subscribed.Store(true)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// shellLoop handles shell requests one at a time, in order.
func (k *Kernel) shellLoop() {
	for {
		select {
		case m := <-k.shellQ:
			k.dispatchShell(m)
		case <-k.done:
			return
		}
	}
}

func (k *Kernel) dispatchShell(m *Message) {
	k.status("busy", m)
	defer k.status("idle", m)
	r := func(msgType string, content any) { k.reply(k.shell, m, msgType, content) }
	switch m.Header.MsgType {
	case "kernel_info_request":
		r("kernel_info_reply", k.kernelInfo())
	case "execute_request":
		k.execute(m)
	case "complete_request", "inspect_request", "is_complete_request":
		k.forward(m)
	case "history_request":
		r("history_reply", k.historyReply(m))
	case "comm_info_request":
		r("comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		// No comm targets are registered: close the comm at once, as the protocol asks.
		var c struct {
			CommID     string `json:"comm_id"`
			TargetName string `json:"target_name"`
		}
		json.Unmarshal(m.Content, &c)
		k.logf("comm_open for unknown target %q: closing comm %s", c.TargetName, c.CommID)
		k.publish("comm_close", m, map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
	case "comm_msg", "comm_close":
		// Messages for comms the kernel has closed: nothing to do.
	case "connect_request":
		ci := k.cfg.Conn
		r("connect_reply", map[string]any{"status": "ok", "shell_port": ci.ShellPort, "iopub_port": ci.IOPubPort,
			"stdin_port": ci.StdinPort, "hb_port": ci.HBPort, "control_port": ci.ControlPort})
	case "shutdown_request":
		k.shutdown(k.shell, m)
	default:
		k.logf("shell: ignoring unknown message type %q", m.Header.MsgType)
	}
}

// dispatchControl handles control requests on the control reader's goroutine, so that they are
// not queued behind a running cell.
func (k *Kernel) dispatchControl(m *Message) {
	k.status("busy", m)
	defer k.status("idle", m)
	switch m.Header.MsgType {
	case "kernel_info_request":
		k.reply(k.control, m, "kernel_info_reply", k.kernelInfo())
	case "interrupt_request":
		k.Interrupt()
		k.reply(k.control, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		k.shutdown(k.control, m)
	default:
		k.logf("control: ignoring unknown message type %q", m.Header.MsgType)
	}
}

func (k *Kernel) kernelInfo() map[string]any {
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "gosbi",
		"implementation_version": k.cfg.Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            goVersion,
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "script",
		},
		"banner": fmt.Sprintf("gosbi %s: Go %s notebooks for calibrated simulation-based inference", k.cfg.Version, goVersion),
		"help_links": []map[string]string{
			{"text": "gosbi", "url": "https://github.com/gosbi/gosbi"},
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
		},
		"debugger": false,
	}
}

func (k *Kernel) shutdown(sock *zsocket, m *Message) {
	var c struct {
		Restart bool `json:"restart"`
	}
	json.Unmarshal(m.Content, &c)
	content := map[string]any{"status": "ok", "restart": c.Restart}
	k.reply(sock, m, "shutdown_reply", content)
	k.publish("shutdown_reply", m, content)
	k.Shutdown()
}

// handleStdin passes an input_reply on to the worker that asked for it.
func (k *Kernel) handleStdin(m *Message) {
	if m.Header.MsgType != "input_reply" {
		k.logf("stdin: ignoring message type %q", m.Header.MsgType)
		return
	}
	var c struct {
		Value string `json:"value"`
	}
	json.Unmarshal(m.Content, &c)
	k.mu.Lock()
	owner := k.inputOwner
	k.inputOwner = nil
	k.mu.Unlock()
	if owner == nil {
		k.logf("stdin: input_reply without an input_request: dropped")
		return
	}
	err := owner.w.send(ipc.Request{ID: owner.id, Type: ipc.InputReply, Value: c.Value})
	var tooLarge *ipc.TooLargeError
	if errors.As(err, &tooLarge) {
		// the cell's read fails with why, instead of waiting for an answer that cannot come
		why := fmt.Sprintf("the answer given (%s) is too large to pass to the worker: it takes %s on the worker's pipe, "+
			"more than the %s a message there may have", byteSize(len(c.Value)), byteSize(tooLarge.Size), byteSize(tooLarge.Max))
		k.logf("stdin: input_reply refused: %s", why)
		err = owner.w.send(ipc.Request{ID: owner.id, Type: ipc.InputReply, Error: why})
	}
	if err != nil {
		k.logf("stdin: %v", err)
	}
}

// Interrupt cancels the running cell. If it has not returned after the grace period, the worker
// is killed; the cell then ends with an error and a fresh worker is started.
func (k *Kernel) Interrupt() {
	k.mu.Lock()
	req, waiting := k.running, k.inputOwner
	k.inputOwner = nil
	k.mu.Unlock()
	if req == nil {
		return
	}
	// The interrupt carries the id of the cell it is meant for, so that a worker can ignore
	// one that arrives after that cell has finished.
	if err := req.w.send(ipc.Request{ID: req.id, Type: ipc.Interrupt}); err != nil {
		k.logf("interrupt: %v", err)
	}
	if waiting != nil {
		// A cell blocked reading standard input gets an empty line, so that it can notice the
		// interrupt.
		waiting.w.send(ipc.Request{ID: waiting.id, Type: ipc.InputReply})
	}
	go func() {
		select {
		case <-req.w.done:
			return
		case <-time.After(k.cfg.InterruptGrace):
		}
		k.mu.Lock()
		still := k.running == req
		k.mu.Unlock()
		if still {
			req.w.kill(fmt.Sprintf("the cell did not stop within %v of the interrupt, so its worker process was stopped", k.cfg.InterruptGrace))
		}
	}()
}
