package ipc

import (
	"fmt"
	"strconv"
	"strings"
)

// The pipes that the front passes the worker, in their order: on Unix the first is file
// descriptor 3 and the others follow it; on Windows, where a child gets no descriptors of that
// kind, their handles are listed in HandlesEnv.
const (
	RequestPipe = iota // the worker reads Requests from it
	EventPipe          // the worker writes Events to it
	StdoutRead         // the read end of the pipe of the worker's standard output (see CaptureEnv)
	StdoutWrite        // its write end
	StderrRead         // the read end of the pipe of the worker's standard error
	StderrWrite        // its write end
	NumPipes           // how many pipes the front passes
)

// HandlesEnv is the environment variable in which the front names, on Windows, the inherited
// handles of the pipes it passes the worker: decimal handle values separated by commas, in the
// order of RequestPipe to StderrWrite, at most NumPipes (the capture pipes are passed only with
// CaptureEnv).
const HandlesEnv = "GOSBI_WORKER_HANDLES"

// FormatHandles returns the value of HandlesEnv that names handles.
func FormatHandles(handles []uintptr) string {
	s := make([]string, len(handles))
	for i, h := range handles {
		s[i] = strconv.FormatUint(uint64(h), 10)
	}
	return strings.Join(s, ",")
}

// ParseHandles reads the value of HandlesEnv: 1 to NumPipes handles, none of them zero and each
// small enough for a uintptr of this system.
func ParseHandles(v string) ([]uintptr, error) {
	if v == "" {
		return nil, fmt.Errorf("%s is not set: the worker is started by `gosbi kernel`, which names the handles of its pipes there", HandlesEnv)
	}
	fields := strings.Split(v, ",")
	if len(fields) > NumPipes {
		return nil, fmt.Errorf("%s=%q: want at most %d handles separated by commas, got %d", HandlesEnv, v, NumPipes, len(fields))
	}
	handles := make([]uintptr, len(fields))
	for i, f := range fields {
		h, err := strconv.ParseUint(f, 10, strconv.IntSize)
		if err != nil || h == 0 {
			return nil, fmt.Errorf("%s=%q: handle %d, %q, is not a positive decimal number of at most %d bits", HandlesEnv, v, i+1, f, strconv.IntSize)
		}
		handles[i] = uintptr(h)
	}
	return handles, nil
}
