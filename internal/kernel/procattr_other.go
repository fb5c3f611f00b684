//go:build !linux

package kernel

import "os/exec"

// dieWithParent does nothing where the system has no parent-death signal: the worker ends
// when it reads the end of its request pipe.
func dieWithParent(cmd *exec.Cmd) {}
