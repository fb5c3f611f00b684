package sbi

import (
	"context"
	"errors"
	"testing"

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
