package sbi

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestSequentialInterruptSaysHowToContinue interrupts Sequential in a round's simulation and
// in its training and requires an error that still wraps context.Canceled and says how to
// keep the work and carry on (the result returned with it, SequentialConfig.Continue, and that
// MustSequential loses it), not how to resume the simulation on its own: the simulation
// resumed by hand would no longer be there for the continued run.
func TestSequentialInterruptSaysHowToContinue(t *testing.T) {
	xo := []float64{0.3, -0.2}
	cases := []struct {
		name        string
		cancelChunk int64
		cancelStep  int
	}{
		{"simulation", 2, 0},
		{"training", 0, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withProcs(1, func() {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				res, err := SequentialContext(ctx, newContinueNPE(), newCountingCopy(c.cancelChunk, cancel), xo, continueConfig(2, false, c.cancelStep, cancel))
				if res == nil || !errors.Is(err, context.Canceled) {
					t.Fatalf("result %v, error %v; want a result and an interrupt", res, err)
				}
				msg := err.Error()
				for _, want := range []string{"Continue", "res, err := sbi.Sequential", "MustSequential"} {
					if !strings.Contains(msg, want) {
						t.Errorf("the error does not say %q: %s", want, msg)
					}
				}
				if strings.Contains(msg, "part.Resume") || errors.As(err, new(*PartialSimulationError)) {
					t.Errorf("the error offers the interrupted simulation to resume on its own: %s", msg)
				}
			})
		})
	}
}
