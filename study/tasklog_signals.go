//go:build !plan9

package study

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"
)

// exitSignaled ends this process as the process of ps ended where a signal ended it (see
// exitAs), saying msg on the standard error first; it returns where no signal ended ps.
func exitSignaled(ps *os.ProcessState, msg string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return
	}
	fmt.Fprintln(os.Stderr, msg)
	sg := ws.Signal()
	if slices.Contains(jobEndSignals, sg) {
		signal.Reset(sg)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(sg)
			time.Sleep(time.Second) // the signal is delivered asynchronously
		}
	}
	os.Exit(128 + int(sg))
}
