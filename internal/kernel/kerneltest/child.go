package kerneltest

import (
	"fmt"
	"os"

	"github.com/gosbi/gosbi/internal/kernel"
)

// Dispatch makes a test binary double as the processes that kernel tests start, and returns
// when it was started as neither (TestMain then runs the tests). With the arguments
// "kernel ARGS…" it runs kernel.Main(ARGS, "test"), a kernel whose default worker is this
// binary with the argument "worker"; with "worker" it runs FakeWorker. It exits after either.
func Dispatch() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case "kernel":
		if err := kernel.Main(os.Args[2:], "test"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "worker":
		FakeWorker()
		os.Exit(0)
	}
}
