// Package progresstest records, for a test, the progress events that library calls send to
// the host's progress sink (runenv.SetProgress), so that the test can check the last event or
// what a call's finished bar said: for instance how far an interrupted call got.
//
// A Recorder is the sink from Record until its test ends, or until something else replaces
// the sink. It keeps every event in the order it received them, and is safe for the concurrent
// calls a sink gets.
package progresstest

import (
	"sync"
	"testing"

	"github.com/gosbi/gosbi/runenv"
)

// Recorder holds the progress events received so far.
type Recorder struct {
	mu  sync.Mutex
	evs []runenv.ProgressEvent
}

// Record makes a new Recorder the host's progress sink and turns progress off when t and its
// cleanups end.
func Record(t testing.TB) *Recorder {
	r := &Recorder{}
	runenv.SetProgress(r.add)
	t.Cleanup(func() { runenv.SetProgress(nil) })
	return r
}

func (r *Recorder) add(ev runenv.ProgressEvent) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

// Events returns a copy of the events received so far.
func (r *Recorder) Events() []runenv.ProgressEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]runenv.ProgressEvent(nil), r.evs...)
}

// Last returns the last event received; the zero event when none was.
func (r *Recorder) Last() runenv.ProgressEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.evs) == 0 {
		return runenv.ProgressEvent{}
	}
	return r.evs[len(r.evs)-1]
}

// Finished returns the messages of the finished events (the last of each call's bar), in the
// order they came, of those with the label, or of all when label is "".
func (r *Recorder) Finished(label string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var msgs []string
	for _, ev := range r.evs {
		if ev.Finished && (label == "" || ev.Label == label) {
			msgs = append(msgs, ev.Message)
		}
	}
	return msgs
}

// LastFinished returns the message of the last finished event with the label, or of any
// label when label is ""; "" when there is none.
func (r *Recorder) LastFinished(label string) string {
	msgs := r.Finished(label)
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1]
}
