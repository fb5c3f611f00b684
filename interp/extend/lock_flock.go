//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package extend

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive lock on the file name (created if need be), waiting for it, so that
// two sessions of one notebook directory do not write its build module at once.
func lock(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("extend: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("extend: lock %s: %w", name, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
