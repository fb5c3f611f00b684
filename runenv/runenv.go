package runenv

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// The settings are read on hot paths (Threads once per kernel call, Context once per step),
// so each is one atomic value.
var (
	ctxVal      setting[context.Context]
	progressVal setting[ProgressFunc]
	displayVal  setting[DisplayFunc]
	threadsVal  atomic.Int32 // 0: runtime.GOMAXPROCS
)

// setting is one value shared by goroutines; the zero setting holds T's zero value.
type setting[T any] struct{ p atomic.Pointer[T] }

func (s *setting[T]) store(v T) { s.p.Store(&v) }

func (s *setting[T]) load() (v T) {
	if p := s.p.Load(); p != nil {
		v = *p
	}
	return v
}

// SetContext sets the context that long-running library calls honour; a notebook worker sets
// one per cell. A nil ctx restores context.Background().
func SetContext(ctx context.Context) { ctxVal.store(ctx) }

// Context returns the context set by SetContext, or context.Background().
func Context() context.Context {
	if ctx := ctxVal.load(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// ProgressEvent reports the state of one long-running call (simulation, training, coverage).
type ProgressEvent struct {
	Label    string // what is running, e.g. "simulate" or "train NPE"
	Done     int    // units finished so far
	Total    int    // units in all; 0 when unknown
	Message  string // a short status, e.g. "epoch 12  val loss 1.234"; see Count for the last event's
	Finished bool   // true on the last event of the call
	Stopped  bool   // with Finished: the call ended early by design, after Done of Total units (early stopping)

	// Elapsed is the time since the call started, measured when the event was sent; 0 when
	// the sender does not measure it. Bars show it, and from it an estimate of the time left.
	Elapsed time.Duration
	// Before is how many of the Done units were finished before Elapsed started: a call that
	// resumes earlier work (the rows an interrupted simulation kept) starts with them done.
	// The time left is estimated from the units done since, Done − Before.
	Before int
	// Estimate says what the rate so far tells of the time left: about how long it is (the
	// zero value), a bound on it, or nothing.
	Estimate Estimate
}

// Estimate says what the mean time per unit so far tells of the time a call has left.
type Estimate int

const (
	// EstimateAbout: the units take about equal time, so the time left is about the mean
	// time per unit so far times the units left.
	EstimateAbout Estimate = iota
	// EstimateAtMost: Total is a most, the call may end sooner by design (a training with
	// early stopping), so that product is a bound on the time left.
	EstimateAtMost
	// EstimateNone: the units take unequal times (rounds that each train on more pairs than
	// the last), so the rate so far says nothing honest of the time left; bars show only the
	// time elapsed.
	EstimateNone
)

// ProgressFunc receives progress events. It is called from the goroutine running the call,
// possibly from several goroutines at once, and must return quickly.
type ProgressFunc func(ProgressEvent)

// SetProgress sets the function that receives progress events; nil turns progress off.
func SetProgress(f ProgressFunc) { progressVal.store(f) }

// Progress returns the function set by SetProgress; nil when progress is off.
func Progress() ProgressFunc { return progressVal.load() }

// Output is one rich output for the display sink: a MIME bundle, its metadata, and the display
// id when it belongs to an updatable display (Update is true for the second and later versions
// of it). When Clear is set it is instead a request to clear the output of the running cell
// (at once, or when the next output arrives if Wait is set).
type Output struct {
	Data      map[string]any
	Metadata  map[string]any
	DisplayID string
	Update    bool
	Clear     bool
	Wait      bool
}

// DisplayFunc receives the outputs of package display. Like a ProgressFunc it may be called
// from several goroutines at once.
type DisplayFunc func(Output)

// SetDisplay routes outputs to f; nil restores the default of package display, which prints
// their text to standard output.
func SetDisplay(f DisplayFunc) { displayVal.store(f) }

// Display returns the function set by SetDisplay; nil when none is set.
func Display() DisplayFunc { return displayVal.load() }

// SetThreads sets how many goroutines one compute kernel (a matrix product, a batch of spline
// transforms) may use at most; n ≤ 0 restores the default, GOMAXPROCS. SetThreads(1) makes
// every kernel run on the goroutine that calls it.
func SetThreads(n int) { threadsVal.Store(int32(max(min(n, 1<<30), 0))) }

// Threads returns the number of goroutines a compute kernel may use: the limit set by
// SetThreads, or GOMAXPROCS.
func Threads() int {
	if n := int(threadsVal.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
