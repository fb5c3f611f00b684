//go:build unix

package kerneltest

import "syscall"

func killSelf(sig int) { syscall.Kill(syscall.Getpid(), syscall.Signal(sig)) }
