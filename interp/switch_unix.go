//go:build unix

package interp

import (
	"os"
	"syscall"
)

// switchProcess is the kernel worker's switcher: the running request moves to the new
// worker, which keeps this process's id and its request and event pipes (fds 3 and 4).
func (w *worker) switchProcess(bin string, r *resume) error {
	w.mu.Lock()
	r.ID, r.Silent, r.Stdin = w.cur, w.silent, w.stdin
	w.mu.Unlock()
	w.flush()
	// descriptor 1 is a pipe that this process reads (redirectStd): the new program gets the
	// original standard error instead, which the kernel front logs like standard output
	saved, err := syscall.Dup(1)
	if err != nil {
		return err
	}
	defer syscall.Close(saved)
	undo, err := handCaptureOnExec()
	if err != nil {
		return err
	}
	if err := dup2(2, 1); err != nil {
		undo()
		return err
	}
	err = execInto(bin, []string{"worker"}, r)
	undo()
	dup2(saved, 1)
	return err
}

// silenced runs f with file descriptors 1 and 2 pointing at the null device.
func silenced(f func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		f()
		return
	}
	defer null.Close()
	o1, err1 := syscall.Dup(1)
	o2, err2 := syscall.Dup(2)
	if err1 != nil || err2 != nil {
		f()
		return
	}
	dup2(int(null.Fd()), 1)
	dup2(int(null.Fd()), 2)
	defer func() {
		dup2(o1, 1)
		dup2(o2, 2)
		syscall.Close(o1)
		syscall.Close(o2)
	}()
	f()
}
