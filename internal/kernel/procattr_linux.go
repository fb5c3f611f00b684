package kernel

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the worker receive SIGKILL when the front dies, even by SIGKILL: a
// front that cannot clean up must not leave a worker spinning. (The signal follows the OS
// thread that started the worker; the Go runtime keeps its threads for the process's life
// unless a goroutine locked to one exits, which the front never does.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
