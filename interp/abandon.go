package interp

import (
	"bytes"
	"runtime"
	"strconv"
	"time"
)

// The interpreter's ExecuteWithContext runs the code in a goroutine of its own and returns as
// soon as its context is cancelled, while that goroutine goes on until the code reaches the
// interpreter again: a call into compiled code (time.Sleep, a long library call) runs to its
// end. The interpreter stops interpreted code by a run number that the next evaluation
// resets, so a new evaluation started while the abandoned one is still in compiled code
// would let the rest of the interrupted cell run afterwards. The session therefore waits
// for the abandoned goroutine to end before it answers; the kernel front restarts the worker
// if that takes longer than its grace period. (An interrupt that lands in the instant between
// the goroutine's start and its first step is lost by the interpreter; the front's restart
// covers that case too.)
//
// The goroutine is found by its function in a dump of all goroutine stacks, taken only while
// an interrupted evaluation is being waited for.

// evalFrame is the function of the goroutine that ExecuteWithContext starts for the code, and
// evalCreator the function named in its "created by" line.
var (
	evalFrame   = []byte("github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext.func")
	evalCreator = []byte("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine ")
)

// goroutineID returns the id of the calling goroutine, from the first line of its stack
// ("goroutine 7 [running]:").
func goroutineID() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, err := strconv.Atoi(string(b[:i]))
		if err == nil {
			return id
		}
	}
	return -1
}

// evalRunning reports whether a goroutine that ExecuteWithContext started from goroutine
// parent is still running.
func evalRunning(parent int) bool {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	creator := strconv.AppendInt(append([]byte(nil), evalCreator...), int64(parent), 10)
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, evalFrame) {
			continue
		}
		// the "created by" line ends with the parent's id and possibly " +0x…"
		i := bytes.Index(g, creator)
		if i >= 0 {
			rest := g[i+len(creator):]
			if len(rest) == 0 || rest[0] < '0' || rest[0] > '9' {
				return true
			}
		}
	}
	return false
}

// awaitEval waits until no evaluation started from goroutine parent runs.
func awaitEval(parent int) {
	for d := time.Millisecond; evalRunning(parent); d = min(2*d, 50*time.Millisecond) {
		time.Sleep(d)
	}
}
