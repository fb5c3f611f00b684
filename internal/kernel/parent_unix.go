//go:build unix

package kernel

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// watchParent shuts the kernel down when the process that started it (the Jupyter server)
// is gone, so that a killed server leaves no kernels behind. Jupyter names its pid in
// JPY_PARENT_PID; otherwise the parent at start is watched.
func watchParent(k *Kernel) {
	parent := os.Getppid()
	if p, err := strconv.Atoi(os.Getenv("JPY_PARENT_PID")); err == nil && p > 1 {
		parent = p
	}
	if parent <= 1 {
		return
	}
	for range time.Tick(time.Second) {
		// Signal 0 checks that the process exists; after the parent exits, the kernel is
		// re-parented and Getppid changes.
		if os.Getppid() != parent && syscall.Kill(parent, 0) != nil {
			k.logf("the parent process %d is gone: shutting down", parent)
			k.Shutdown()
			return
		}
	}
}
