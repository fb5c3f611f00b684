//go:build !(js || wasip1)

package interp

import "syscall"

// execve replaces the process by the program bin (syscall.Exec).
func execve(bin string, argv, env []string) error { return syscall.Exec(bin, argv, env) }
