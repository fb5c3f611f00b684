package sbi

import (
	"context"
	"sync"
	"time"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/nested"
)

// Canceled returns a non-nil error, naming what was interrupted and wrapping the context's
// error, once the context the host set (runenv.Context) is cancelled. A long loop of a cell
// calls it once per step.
func Canceled(what string) error { return cancel.Check(runenv.Context(), what) }

// Progress reports the progress of one call to the host's progress sink (runenv.Progress), at
// most every MinInterval, and always its first and last events. The zero value is not usable;
// use NewProgress. It is safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	hook  runenv.ProgressFunc
	ev    runenv.ProgressEvent
	now   func() time.Time // the clock: time.Now, or a test's
	start time.Time
	last  time.Time
	ended bool
}

// MinInterval is the shortest time between two progress events of one call.
const MinInterval = 100 * time.Millisecond

// NewProgress starts reporting a call labelled label with total units (0 if unknown) to the
// progress sink set when it is called.
func NewProgress(label string, total int) *Progress {
	return newProgressClock(label, total, runenv.Progress(), time.Now)
}

// newProgressClock is NewProgress reporting to hook, with the clock now: events carry the
// time since the call started (Elapsed) by that clock.
func newProgressClock(label string, total int, hook runenv.ProgressFunc, now func() time.Time) *Progress {
	p := &Progress{hook: hook, now: now, start: now(), ev: runenv.ProgressEvent{Label: label, Total: total}}
	p.emit(true)
	return p
}

// newProgressIn is NewProgress, or for a call made under a loop that reports for all its steps
// (nested.In(ctx)) a Progress that reports nothing.
func newProgressIn(ctx context.Context, label string, total int) *Progress {
	if nested.In(ctx) {
		return &Progress{ev: runenv.ProgressEvent{Label: label, Total: total}}
	}
	return NewProgress(label, total)
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

// note sets the status message, keeping the number of finished units.
func (p *Progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Message = msg
	p.emit(false)
}

// done is the number of finished units.
func (p *Progress) done() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ev.Done
}

// estimate says what the call's rate so far tells of its time left (runenv.Estimate): a
// bound for a training with early stopping, nothing for units of unequal times.
func (p *Progress) estimate(e runenv.Estimate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Estimate = e
}

// resume records n units finished before the call started (earlier work it carries on):
// they count as done, and bars estimate the time left from the units done since.
func (p *Progress) resume(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ev.Done, p.ev.Before = n, n
	p.emit(true)
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
	now := p.now()
	if !force && now.Sub(p.last) < MinInterval {
		return
	}
	p.last = now
	p.ev.Elapsed = now.Sub(p.start)
	p.hook(p.ev)
}
