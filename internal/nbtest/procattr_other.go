//go:build !unix

package nbtest

import "os/exec"

// kernelProcAttr does nothing where the system has no process groups of Unix's kind.
func kernelProcAttr(cmd *exec.Cmd) {}
