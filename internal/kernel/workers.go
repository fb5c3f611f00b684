package kernel

import (
	"errors"
	"fmt"
)

// errNoWorkers is what New and Install return on Windows. The kernel runs cells in a worker
// process that gets its request, event and capture pipes as inherited file descriptors 3 to 8,
// and Windows does not pass such descriptors to a child (os/exec's ExtraFiles): rather than a
// kernel whose every cell fails, none starts.
var errNoWorkers = fmt.Errorf("kernel: the gosbi kernel does not run on Windows yet (its worker process gets its pipes as inherited file descriptors, which Windows does not pass): run Jupyter and gosbi under WSL, or on Linux or macOS: %w", errors.ErrUnsupported)

// workersOn returns nil where the kernel's worker process can be given its pipes on the
// system goos (a runtime.GOOS value), and errNoWorkers on Windows.
func workersOn(goos string) error {
	if goos == "windows" {
		return errNoWorkers
	}
	return nil
}
