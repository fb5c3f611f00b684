//go:build !unix && !windows

package kernel

import "os/exec"

// workerProcAttr does nothing where the system has neither process groups nor a
// parent-death signal of Unix's kind: the worker ends when it reads the end of its request
// pipe.
func workerProcAttr(cmd *exec.Cmd) {}
