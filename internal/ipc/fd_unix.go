//go:build unix

package ipc

import "golang.org/x/sys/unix"

// fdOpen reports whether file descriptor fd is open (fcntl F_GETFD fails with EBADF where it
// is not).
func fdOpen(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err
}
