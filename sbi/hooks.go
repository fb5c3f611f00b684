package sbi

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ProgressEvent reports the state of one long-running call (simulation, training, coverage).
type ProgressEvent struct {
	Label    string // what is running, e.g. "simulate" or "train NPE"
	Done     int    // units finished so far
	Total    int    // units in all; 0 when unknown
	Message  string // a short status, e.g. "epoch 12  val loss 1.234"
	Finished bool   // true on the last event of the call
	Stopped  bool   // with Finished: the call ended early by design, after Done of Total units (early stopping)
}

// ProgressFunc receives progress events. It is called from the goroutine running the call and
// must return quickly.
type ProgressFunc func(ProgressEvent)

var hooks struct {
	mu       sync.RWMutex
	ctx      context.Context
	progress ProgressFunc
}

// SetContext sets the context that long-running calls of the library honour: once it is
// cancelled they stop within one step and return an error wrapping ctx.Err(). A notebook worker
// sets one per cell. A nil ctx restores context.Background().
func SetContext(ctx context.Context) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.ctx = ctx
}

// Context returns the context set by SetContext, or context.Background().
func Context() context.Context {
	hooks.mu.RLock()
	defer hooks.mu.RUnlock()
	if hooks.ctx == nil {
		return context.Background()
	}
	return hooks.ctx
}

// Canceled returns a non-nil error, naming what was interrupted, once the library's context is
// cancelled. Long loops call it once per step.
func Canceled(what string) error {
	if err := Context().Err(); err != nil {
		return fmt.Errorf("%s interrupted: %w", what, err)
	}
	return nil
}

// SetProgressHook sets the function that receives progress events; nil turns progress off.
func SetProgressHook(f ProgressFunc) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.progress = f
}

func progressHook() ProgressFunc {
	hooks.mu.RLock()
	defer hooks.mu.RUnlock()
	return hooks.progress
}

// Progress reports the progress of one call to the hook, at most every MinInterval, and always
// its last event. The zero value is not usable; use NewProgress. It is safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	hook  ProgressFunc
	ev    ProgressEvent
	last  time.Time
	ended bool
}

// MinInterval is the shortest time between two progress events of one call.
const MinInterval = 100 * time.Millisecond

// NewProgress starts reporting a call labelled label with total units (0 if unknown).
func NewProgress(label string, total int) *Progress {
	p := &Progress{hook: progressHook(), ev: ProgressEvent{Label: label, Total: total}}
	p.emit(true)
	return p
}

// Add records n more finished units.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Done += n
	p.emit(false)
}

// Set records the number of finished units and a status message.
func (p *Progress) Set(done int, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Done, p.ev.Message = done, msg
	p.emit(false)
}

// stopEarly marks the call as ended early by design: its last event has Stopped set.
func (p *Progress) stopEarly() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Stopped = true
}

// Finish sends the last event; later calls do nothing.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	p.ev.Finished = true
	p.emit(true)
}

func (p *Progress) emit(force bool) {
	if p.hook == nil || p.ended && !p.ev.Finished {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < MinInterval {
		return
	}
	p.last = now
	p.hook(p.ev)
}
