package sbi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gosbi/gosbi/runenv"
)

func TestCanceled(t *testing.T) {
	defer runenv.SetContext(nil)
	if err := Canceled("training"); err != nil {
		t.Fatalf("no context set: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runenv.SetContext(ctx)
	if err := Canceled("training"); err != nil {
		t.Fatalf("before cancel: got %v", err)
	}
	cancel()
	err := Canceled("training")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: got %v, want context.Canceled", err)
	}
}

func TestProgressThrottlesButKeepsFirstAndLast(t *testing.T) {
	defer runenv.SetProgress(nil)
	var got []runenv.ProgressEvent
	runenv.SetProgress(func(e runenv.ProgressEvent) { got = append(got, e) })
	p := NewProgress("simulate", 1000)
	for i := 0; i < 1000; i++ {
		p.Add(1)
	}
	p.Finish()
	p.Finish()
	if len(got) < 2 || len(got) > 5 {
		t.Fatalf("got %d events for a fast loop, want the first, the last and few between", len(got))
	}
	last := got[len(got)-1]
	if !last.Finished || last.Done != 1000 || last.Total != 1000 {
		t.Errorf("last event %+v, want Finished with Done=Total=1000", last)
	}
	if got[0].Done != 0 || got[0].Finished {
		t.Errorf("first event %+v, want Done=0 not finished", got[0])
	}
}

// TestProgressElapsedByClock: each event carries the time since the call started by the
// Progress's clock, so that a bar can say how long is left; the last line keeps its wording.
func TestProgressElapsedByClock(t *testing.T) {
	start := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	var got []runenv.ProgressEvent
	p := newProgressClock("SBC", 200, func(e runenv.ProgressEvent) { got = append(got, e) }, func() time.Time { return clock })
	for _, c := range []struct {
		at   time.Duration // clock time of the Add
		want string
	}{
		{20 * time.Second, "SBC [..............................] 1/200 · 20s elapsed"},
		{19 * time.Minute, "SBC [..............................] 2/200 · 19m elapsed"},
		{29 * time.Minute, "SBC [..............................] 3/200 · 29m elapsed"},
		{30 * time.Minute, "SBC [#.............................] 4/200 · 30m elapsed"},
		{40 * time.Minute, "SBC [#.............................] 5/200 · 40m elapsed"},
		{48 * time.Minute, "SBC [#.............................] 6/200 · 48m, ~25h52m left"},
	} {
		clock = start.Add(c.at)
		p.Add(1)
		if ev := got[len(got)-1]; ev.Elapsed != c.at || ev.String() != c.want {
			t.Errorf("at %v: event %+v, line %q; want Elapsed %v, line %q", c.at, ev, ev.String(), c.at, c.want)
		}
	}
	clock = start.Add(time.Hour)
	p.Finish()
	if ev := got[len(got)-1]; ev.Elapsed != time.Hour || ev.String() != "SBC [#.............................] 6/200 ended" {
		t.Errorf("last event %+v, line %q", ev, ev.String())
	}
}

// TestProgressResumedByClock: a call that resumes earlier work counts it as done before its
// clock started, so that the time left is estimated from the units it did itself.
func TestProgressResumedByClock(t *testing.T) {
	start := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	var got []runenv.ProgressEvent
	p := newProgressClock("simulate", 1000, func(e runenv.ProgressEvent) { got = append(got, e) }, func() time.Time { return clock })
	p.resume(900)
	if ev := got[len(got)-1]; ev.Done != 900 || ev.Before != 900 {
		t.Fatalf("after resume(900): event with Done %d, Before %d; want 900, 900", ev.Done, ev.Before)
	}
	clock = start.Add(50 * time.Second)
	p.Add(50)
	if ev, want := got[len(got)-1], "simulate [#############################.] 950/1000 · 50s, ~50s left"; ev.String() != want {
		t.Errorf("50 rows in 50s after 900 resumed: %q, want %q", ev.String(), want)
	}
}
