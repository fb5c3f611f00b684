package runenv_test

import (
	"context"
	"fmt"

	"github.com/gosbi/gosbi/runenv"
)

// A host, here a command line program, routes the library's progress events to its own
// output, limits compute kernels to two goroutines and gives long calls a context that it
// can cancel. Library code reads the settings; this stands for what sbi's training loop does.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runenv.SetContext(ctx)
	runenv.SetProgress(func(ev runenv.ProgressEvent) {
		fmt.Printf("%s %d/%d %s\n", ev.Label, ev.Done, ev.Total, ev.Message)
	})
	runenv.SetThreads(2)
	defer func() { // a host restores the defaults when it is done
		runenv.SetContext(nil)
		runenv.SetProgress(nil)
		runenv.SetThreads(0)
	}()

	// library side
	for epoch := 1; epoch <= 3; epoch++ {
		if err := runenv.Context().Err(); err != nil {
			fmt.Println("interrupted:", err)
			break
		}
		if report := runenv.Progress(); report != nil {
			report(runenv.ProgressEvent{Label: "train", Done: epoch, Total: 3, Message: fmt.Sprintf("%d threads", runenv.Threads())})
		}
		if epoch == 2 {
			cancel() // the host interrupts, e.g. on Ctrl-C
		}
	}
	// Output:
	// train 1/3 2 threads
	// train 2/3 2 threads
	// interrupted: context canceled
}

// The text form of a progress event, which the REPL's line and a notebook bar's text show.
func ExampleProgressEvent_String() {
	fmt.Println(runenv.ProgressEvent{Label: "train NPE", Done: 16, Total: 40, Message: "epoch 16"})
	fmt.Println(runenv.ProgressEvent{Label: "train NPE", Done: 74, Total: 1000, Finished: true, Stopped: true})
	// Output:
	// train NPE [############..................] 16/40 epoch 16
	// train NPE [##############################] stopped early at 74
}
