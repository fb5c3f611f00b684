package interp

import "golang.org/x/sys/unix"

// dup2 on Solaris and illumos comes from golang.org/x/sys/unix: the standard syscall package
// has no Dup2 there.
func dup2(oldfd, newfd int) error { return unix.Dup2(oldfd, newfd) }
