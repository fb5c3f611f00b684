//go:build unix || windows

package interp

import (
	"fmt"
	"os"

	"github.com/gosbi/gosbi/internal/ipc"
)

// capturePipes returns the read and write ends of the stdout and stderr pipes: those the front
// passed (see ipc.CaptureEnv), or new ones. Each system keeps the front's pipes from the
// commands a cell runs (keepFromCommands); a worker that replaced itself has the write ends
// alone (inheritedCapture), as the front reads the pipes.
func capturePipes() (outR, outW, errR, errW *os.File, err error) {
	if os.Getenv(ipc.CaptureEnv) == "" {
		return newCapturePipes()
	}
	if outW, errW, ok, err := inheritedCapture(); ok || err != nil {
		return nil, outW, nil, errW, err
	}
	var f [4]*os.File
	for i, name := range []string{"stdout-r", "stdout-w", "stderr-r", "stderr-w"} {
		if f[i], err = ipc.InheritedPipe(ipc.StdoutRead+i, name); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s is set but the capture pipes are missing: %w", ipc.CaptureEnv, err)
		}
		keepFromCommands(f[i])
	}
	return f[0], f[1], f[2], f[3], nil
}

// newCapturePipes returns two new pipes for standard output and standard error.
func newCapturePipes() (outR, outW, errR, errW *os.File, err error) {
	if outR, outW, err = os.Pipe(); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("redirect stdout: %w", err)
	}
	if errR, errW, err = os.Pipe(); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("redirect stderr: %w", err)
	}
	return outR, outW, errR, errW, nil
}
