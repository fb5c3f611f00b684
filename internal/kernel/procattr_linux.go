package kernel

import (
	"os/exec"
	"syscall"
)

// workerProcAttr starts the worker in a process group of its own, so that a signal to the
// front's group (Ctrl-C in a terminal sends SIGINT to the whole foreground group) reaches the
// front alone, which interrupts the cell over the request pipe instead of the worker dying
// of it with the session's state; and makes the worker receive SIGKILL when the front dies,
// even by SIGKILL: a front that cannot clean up must not leave a worker spinning. (The signal
// follows the OS thread that started the worker; the Go runtime keeps its threads for the
// process's life unless a goroutine locked to one exits, which the front never does.)
func workerProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
