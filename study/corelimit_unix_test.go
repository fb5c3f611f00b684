//go:build unix

package study_test

import "syscall"

// noCoreFiles keeps a crash of this process from writing a core file.
func noCoreFiles() { syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{}) }
