//go:build unix

package interp

import (
	"fmt"
	"os"
	"syscall"

	"github.com/gosbi/gosbi/internal/ipc"
)

// redirectStd points file descriptor 1 and the variable os.Stderr at pipes, so that everything
// the process prints (interpreted fmt.Print and compiled code alike) can be streamed to the
// notebook. It returns the read ends and a file on the original standard error for the
// worker's own logs.
//
// File descriptor 2 itself keeps pointing at the original standard error: the Go runtime
// writes there when the process dies, and part of that report is printed before the runtime
// counts as crashing ("runtime: goroutine stack exceeds …" and "fatal error: stack overflow"),
// so debug.SetCrashOutput would not copy it. A pipe read by the dying process would swallow it.
// stderrFD2 is the *os.File of descriptor 2 that os.Stderr was before redirectStd.
var stderrFD2 *os.File

func redirectStd() (outR, errR, logf *os.File, err error) {
	origErr, err := syscall.Dup(2)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dup stderr: %w", err)
	}
	logf = os.NewFile(uintptr(origErr), "worker-log")
	r, w, errR, errW, err := capturePipes()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := dup2(int(w.Fd()), 1); err != nil {
		return nil, nil, nil, fmt.Errorf("redirect stdout: %w", err)
	}
	w.Close()
	outR = r
	stderrFD2 = os.Stderr // kept reachable: its finalizer would close descriptor 2
	os.Stderr = errW
	return outR, errR, logf, nil
}

// keepFromCommands keeps f, one of the front's capture pipes, from the commands a cell runs:
// it is closed on exec.
func keepFromCommands(f *os.File) { syscall.CloseOnExec(int(f.Fd())) }

// captureFDsEnv tells a worker that replaced itself (to link more packages) on which
// descriptors it inherited the write ends of the front's capture pipes: "OUT,ERR".
const captureFDsEnv = "GOSBI_CAPTURE_FDS"

// handCaptureOnExec keeps the write ends of the front's capture pipes open across an exec of
// the worker's own replacement and names them in captureFDsEnv: standard output (descriptor
// 1 now) on a new descriptor, standard error on its own. Without front pipes it does nothing.
// Call it before descriptor 1 is moved; undo takes it back when the exec failed.
func handCaptureOnExec() (undo func(), err error) {
	if os.Getenv(ipc.CaptureEnv) == "" {
		return func() {}, nil
	}
	out, _, e := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_DUPFD, 9) // open across exec
	if e != 0 {
		return nil, fmt.Errorf("hand standard output to the new worker: %w", e)
	}
	errFD := os.Stderr.Fd()
	undo = func() {
		syscall.Close(int(out))
		syscall.CloseOnExec(int(errFD))
		os.Unsetenv(captureFDsEnv)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, errFD, syscall.F_SETFD, 0); e != 0 {
		undo()
		return nil, fmt.Errorf("hand standard error to the new worker: %w", e)
	}
	return undo, os.Setenv(captureFDsEnv, fmt.Sprintf("%d,%d", out, errFD))
}

// inheritedCapture returns the write ends named by captureFDsEnv, if it is set (by the worker
// this one replaced).
func inheritedCapture() (outW, errW *os.File, ok bool, err error) {
	v := os.Getenv(captureFDsEnv)
	if v == "" {
		return nil, nil, false, nil
	}
	os.Unsetenv(captureFDsEnv) // not for the commands cells run, nor a later replacement
	var out, errFD int
	if _, err := fmt.Sscanf(v, "%d,%d", &out, &errFD); err != nil {
		return nil, nil, false, fmt.Errorf("%s=%q: want two descriptors OUT,ERR", captureFDsEnv, v)
	}
	syscall.CloseOnExec(out)
	syscall.CloseOnExec(errFD)
	return os.NewFile(uintptr(out), "stdout-w"), os.NewFile(uintptr(errFD), "stderr-w"), true, nil
}
