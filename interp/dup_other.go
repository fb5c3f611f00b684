//go:build unix && !linux && !solaris

package interp

import "syscall"

func dup2(oldfd, newfd int) error { return syscall.Dup2(oldfd, newfd) }
