// Package ipc defines the messages between the kernel's front process (package kernel), which owns
// the Jupyter sockets, and the interpreter worker (package interp), which runs the cells.
//
// The front starts the worker as `gosbi worker` with two extra pipes (PassPipes): file
// descriptor 3 carries Requests from the front to the worker, file descriptor 4 carries Events
// from the worker to the front; on Windows they are inherited handles named in HandlesEnv.
// Both are streams of newline-delimited JSON. What cells print goes through two more pipes
// that the front reads itself (see CaptureEnv). The worker's own standard output and error
// are not part of the protocol: the front logs them and keeps their tail to explain a crash
// (a Go runtime panic or a stack overflow is printed there before the worker dies).
//
// Every Request except Interrupt and InputReply is answered by exactly one Event of type Reply
// with the same ID; the Events of an execution (streams, displays, results, errors, input
// requests) carry the ID of the execute Request and come before its Reply.
package ipc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Request types, front → worker.
const (
	Execute    = "execute"     // Code, ExecutionCount, Silent, StoreHistory, AllowStdin, UserExpressions
	Complete   = "complete"    // Code, CursorPos (in Unicode code points)
	Inspect    = "inspect"     // Code, CursorPos, DetailLevel
	IsComplete = "is_complete" // Code
	Interrupt  = "interrupt"   // ID: the execute Request to cancel ("" for whatever runs); no reply
	InputReply = "input_reply" // Value: the answer to the last InputRequest, or Error; no reply
	Shutdown   = "shutdown"    // the worker replies, then exits
	Flushed    = "flushed"     // Value: "stdout ID" or "stderr ID": the front has read up to that sync mark; no reply
)

// Event types, worker → front.
const (
	Ready         = "ready"               // sent once when the worker has loaded its symbols
	Stream        = "stream"              // Name ("stdout"|"stderr"), Text
	DisplayData   = "display_data"        // Data, Metadata, Transient
	UpdateDisplay = "update_display_data" // Data, Metadata, Transient (with display_id)
	ClearOutput   = "clear_output"        // Wait
	ExecuteResult = "execute_result"      // Data, Metadata: the value of the cell's last expression
	Error         = "error"               // Ename, Evalue, Traceback: at most one per execution
	InputRequest  = "input_request"       // Prompt, Password: the front answers with an InputReply
	Reply         = "reply"               // Content: the body of the Jupyter *_reply, without execution_count
)

// RestartedEnv is the environment variable that the front sets (to "1") when it starts a worker
// to replace one that died; the worker's errors about undefined names then say that the earlier
// state was lost.
const RestartedEnv = "GOSBI_WORKER_RESTARTED"

// CaptureEnv is the environment variable that the front sets (to the token of the sync marks,
// see SyncMark) when it passes the worker the pipes for its standard output and error: file
// descriptors 5 and 6 are the read and write ends of the stdout pipe, 7 and 8 those of the
// stderr pipe (on Windows, the handles StdoutRead to StderrWrite of HandlesEnv). The front
// reads them itself, publishes the text as the running cell's streams and answers each sync
// mark with a Flushed request, so that nothing a dying worker wrote is lost. Without it the
// worker reads its pipes and sends Stream events.
const CaptureEnv = "GOSBI_WORKER_CAPTURE"

// Request is a message from the front to the worker.
type Request struct {
	// ID identifies the request; its Reply and the Events of an execution carry it back. An
	// Interrupt is the exception: its ID names the execute Request it targets (the running
	// cell), so that an interrupt arriving after that cell has ended cannot stop the next one;
	// an empty ID targets whatever cell runs.
	ID              string            `json:"id"`
	Type            string            `json:"type"`
	Code            string            `json:"code,omitempty"`
	CursorPos       int               `json:"cursor_pos,omitempty"`
	DetailLevel     int               `json:"detail_level,omitempty"`
	ExecutionCount  int               `json:"execution_count,omitempty"`
	Silent          bool              `json:"silent,omitempty"`
	StoreHistory    bool              `json:"store_history,omitempty"`
	AllowStdin      bool              `json:"allow_stdin,omitempty"`
	UserExpressions map[string]string `json:"user_expressions,omitempty"`
	Value           string            `json:"value,omitempty"`
	// Error, in an InputReply, says why the front has no answer to give (the client's answer
	// was too large to pass on): the read that asked fails with it.
	Error string `json:"error,omitempty"`
}

// Event is a message from the worker to the front.
type Event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Name      string         `json:"name,omitempty"`
	Text      string         `json:"text,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Transient map[string]any `json:"transient,omitempty"`
	Wait      bool           `json:"wait,omitempty"`
	Ename     string         `json:"ename,omitempty"`
	Evalue    string         `json:"evalue,omitempty"`
	Traceback []string       `json:"traceback,omitempty"`
	Prompt    string         `json:"prompt,omitempty"`
	Password  bool           `json:"password,omitempty"`
	Content   map[string]any `json:"content,omitempty"`
}

// Encoder writes messages as newline-delimited JSON; it is safe for concurrent use.
type Encoder struct {
	mu sync.Mutex
	w  io.Writer
	// Max is the size of the largest message Send writes (MaxMessage unless changed).
	Max int
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w, Max: MaxMessage} }

// ErrTooLarge is returned by Send for a message larger than the receiver accepts.
var ErrTooLarge = errors.New("ipc: message too large")

// TooLargeError is the error of Send for a message of Size bytes, over the limit Max.
type TooLargeError struct{ Size, Max int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the output is %s, more than the %s one output may have", mib(e.Size), mib(e.Max))
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func mib(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Send writes one message (a Request or an Event). A message larger than Max is not written:
// Send returns a *TooLargeError and the stream stays usable.
func (e *Encoder) Send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("ipc: send: %w", err)
	}
	if len(b)+1 > e.Max { // with its newline
		return &TooLargeError{Size: len(b), Max: e.Max}
	}
	b = append(b, '\n')
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("ipc: send: %w", err)
	}
	return nil
}

// Decoder reads newline-delimited JSON messages.
type Decoder struct{ sc *bufio.Scanner }

// MaxMessage is the largest message accepted (a PNG of a large figure fits with room to spare).
const MaxMessage = 256 << 20

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxMessage)
	return &Decoder{sc: sc}
}

// Next decodes the next message into v; it returns io.EOF when the stream ends.
func (d *Decoder) Next(v any) error {
	if !d.sc.Scan() {
		if err := d.sc.Err(); err != nil {
			return fmt.Errorf("ipc: receive: %w", err)
		}
		return io.EOF
	}
	if err := json.Unmarshal(d.sc.Bytes(), v); err != nil {
		return fmt.Errorf("ipc: malformed message: %w", err)
	}
	return nil
}
