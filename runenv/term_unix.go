//go:build linux || darwin

package runenv

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth returns the columns of the terminal f, and whether f is a terminal.
func terminalWidth(f *os.File) (int, bool) {
	var ws struct{ Row, Col, X, Y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0, false
	}
	return int(ws.Col), true
}
