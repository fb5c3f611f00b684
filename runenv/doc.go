// Package runenv is the seam between a host and gosbi's library: the few settings of the
// running process that a host provides and that library code honours.
//
// It holds four settings, each safe for concurrent use:
//
//   - the context that long-running calls honour (SetContext, Context): once it is cancelled
//     they stop within one step and return an error wrapping ctx.Err();
//   - the progress sink (SetProgress, Progress) that receives ProgressEvents of long calls;
//   - the display sink (SetDisplay, Display) that receives the rich Outputs of package
//     display;
//   - the thread limit (SetThreads, Threads): how many goroutines one compute kernel may use.
//
// The rule: hosts set, libraries read. A host is whatever runs library code on someone's
// behalf: the notebook worker (a context per cell, a progress bar, outputs sent to the
// front), the terminal REPL and script runner, a command such as tools/quality, a test.
// Libraries (sbi and its subpackages, display, viz) read the settings and never set them. The
// zero setting means "none" or the default: context.Background(), no progress, display
// as text on standard output, GOMAXPROCS threads; so library code works unchanged in a
// plain Go program that sets nothing.
//
// Progress is shown where the user is. A notebook shows a bar that is updated in place; the
// terminal REPL draws one line on standard error (ProgressLine: redrawn with a carriage return
// on a terminal, only each call's final line in a file or pipe). A plain Go program, or a
// script run by gosbi script, shows nothing unless it opts in: runenv.ProgressToStderr(), or
// the environment variable GOSBI_PROGRESS=stderr when it starts, gives it the same line on
// standard error. ProgressEvent.String is the one text form of an event that they share.
//
// What does not live here: the library's helpers built on these settings (sbi.Canceled,
// sbi.NewProgress, which throttles events), the rendering of outputs (package display), the
// threads of OpenBLAS inside one product in the openblas build (nn.SetBLASThreads, default 1)
// and anything of a particular host (protocols, the notebook's bar). The package imports only
// the standard library, so every package of the module may import it.
package runenv
