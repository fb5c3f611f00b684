package nn

import "github.com/gosbi/gosbi/sbi/internal/par"

// SetThreads sets how many goroutines a kernel (a large matrix product, a spline transform)
// may use at most; n ≤ 0 restores the default, GOMAXPROCS. SetThreads(1) makes every kernel
// run on the calling goroutine. The setting is shared with the flows' transforms.
func SetThreads(n int) { par.SetThreads(n) }

// Threads returns the number of goroutines a kernel may use.
func Threads() int { return par.Threads() }
