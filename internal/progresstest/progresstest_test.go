package progresstest

import (
	"reflect"
	"testing"

	"github.com/gosbi/gosbi/runenv"
)

// TestRecorder: the recorder keeps what the host's sink receives, in order, and the queries
// pick the last event and the finished messages by label.
func TestRecorder(t *testing.T) {
	var r *Recorder
	t.Run("record", func(t *testing.T) {
		r = Record(t)
		if ev := r.Last(); ev != (runenv.ProgressEvent{}) {
			t.Errorf("last event before any = %+v, want the zero event", ev)
		}
		send := runenv.Progress()
		send(runenv.ProgressEvent{Label: "a", Done: 1, Message: "a 1"})
		send(runenv.ProgressEvent{Label: "b", Message: "b done", Finished: true})
		send(runenv.ProgressEvent{Label: "a", Done: 2, Message: "a done", Finished: true})
		send(runenv.ProgressEvent{Label: "c", Done: 3, Message: "c 3"})
	})
	if runenv.Progress() != nil {
		t.Error("the sink is still set after the test that recorded ended")
	}
	if got := len(r.Events()); got != 4 {
		t.Errorf("%d events, want 4", got)
	}
	if ev := r.Last(); ev.Label != "c" || ev.Done != 3 {
		t.Errorf("last event %+v, want c's", ev)
	}
	if got, want := r.Finished(""), []string{"b done", "a done"}; !reflect.DeepEqual(got, want) {
		t.Errorf("finished messages %q, want %q", got, want)
	}
	for label, want := range map[string]string{"": "a done", "a": "a done", "b": "b done", "c": ""} {
		if got := r.LastFinished(label); got != want {
			t.Errorf("last finished message of %q = %q, want %q", label, got, want)
		}
	}
}
