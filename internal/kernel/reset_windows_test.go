//go:build windows

package kernel_test

import (
	"errors"
	"syscall"
)

// isReset reports whether err is a connection reset by the peer: Winsock's own error number.
func isReset(err error) bool { return errors.Is(err, syscall.WSAECONNRESET) }
