package variational

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/runenv"
)

// cancelAtCall is linGauss whose simulator cancels a context at its call number at (the first
// call simulates the standardization set, then FAVI simulates once per step).
type cancelAtCall struct {
	linGauss
	at     int
	calls  *int
	cancel context.CancelFunc
}

func (m cancelAtCall) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	*m.calls++
	if *m.calls == m.at {
		m.cancel()
	}
	m.linGauss.SimulateBatch(rng, theta, x)
}

// TestInterruptLastProgress: a training stopped by an interrupt ends its progress bar with
// where it stopped and that nothing is kept (TrainContext returns only the error), the line a
// cell whose MustTrain an interrupt stopped shows.
func TestInterruptLastProgress(t *testing.T) {
	for _, c := range []struct {
		name string
		at   int
		want string
	}{
		{"before the first step", 1, "stopped by interrupt before any of 50 steps finished; nothing kept"},
		{"after two steps", 3, "stopped by interrupt after 2 of 50 steps; nothing kept"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := progresstest.Record(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := cancelAtCall{at: c.at, calls: new(int), cancel: cancel}
			g, err := TrainContext(ctx, m, Config{Steps: 50, BatchSize: 8, Hidden: []int{4}, Seed: 1})
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Fatalf("TrainContext returned %v, %v; want nil and an error wrapping context.Canceled", g, err)
			}
			if last := rec.LastFinished(""); last != c.want {
				t.Errorf("last progress message %q, want %q", last, c.want)
			}
		})
	}
}

// TestTrainContextHonoursCtxAlone: TrainContext stops for its ctx only, not for the host's
// interrupt (two trainings with two contexts stop separately), and Train stops for the host's.
func TestTrainContextHonoursCtxAlone(t *testing.T) {
	host, cancel := context.WithCancel(context.Background())
	cancel()
	runenv.SetContext(host)
	defer runenv.SetContext(nil)
	cfg := Config{Steps: 5, BatchSize: 8, Hidden: []int{4}, Seed: 1}
	if g, err := TrainContext(context.Background(), linGauss{}, cfg); err != nil || g == nil {
		t.Errorf("TrainContext with a live context after the host's interrupt returned %v, %v; want a trained posterior", g, err)
	}
	rec := progresstest.Record(t)
	if g, err := Train(linGauss{}, cfg); !errors.Is(err, context.Canceled) || g != nil {
		t.Errorf("Train after the host's interrupt returned %v, %v; want nil and an error wrapping context.Canceled", g, err)
	}
	if last, want := rec.LastFinished(""), "stopped by interrupt before any of 5 steps finished; nothing kept"; last != want {
		t.Errorf("Train's last progress message %q, want %q", last, want)
	}
}
