package diag

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/sbi"
)

// cancelAtPosterior is gaussModel that cancels a context at its k-th call of Posterior.
type cancelAtPosterior struct {
	gaussModel
	k      int64
	calls  *atomic.Int64
	cancel func()
}

func (c cancelAtPosterior) Posterior(x []float64) sbi.Posterior {
	if c.calls.Add(1) == c.k {
		c.cancel()
	}
	return c.gaussModel.Posterior(x)
}

// TestInterruptLastProgress: the last progress message of a diagnostic stopped by an interrupt
// says how many of its units finished and that nothing is kept (every one returns only the
// error; a cell whose Must form an interrupt stopped shows this line, not the error, which comes
// after the interrupt has ended the cell). One worker, so that the pairs run in order: the
// probe of the first pair is Posterior's first call, pair i its (i+2)-th, and the pair during
// which the interrupt comes finishes.
func TestInterruptLastProgress(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := m.simulate(9, 40)
	xo := x.RawRowView(0)
	cfg := RankConfig{Samples: 20, Workers: 1}
	cases := []struct {
		name, label, want string
		k                 int64 // Posterior's call that cancels; 0 cancels before the call
		run               func(ctx context.Context, est sbi.Amortized) error
	}{
		{"coverage after 3 pairs", "expected coverage (rank)", "stopped by interrupt after 3 of 40 test pairs; nothing kept", 4,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := RankCoverageContext(ctx, est, theta, x, cfg)
				return err
			}},
		{"SBC", "SBC", "stopped by interrupt before any of 40 test pairs finished; nothing kept", 0,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := SBCContext(ctx, est, theta, x, cfg)
				return err
			}},
		{"TARP", "TARP", "stopped by interrupt before any of 40 test pairs finished; nothing kept", 0,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := TARPContext(ctx, est, theta, x, cfg)
				return err
			}},
		{"report", "calibration report", "stopped by interrupt after 1 of 40 test pairs; nothing kept", 2,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := NewReportContext(ctx, est, theta, x, ReportConfig{Samples: 20, Workers: 1})
				return err
			}},
		{"L-C2ST", "L-C2ST posterior draws", "stopped by interrupt before any of 40 calibration pairs finished; nothing kept", 0,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := LocalC2STContext(ctx, est, theta, x, xo, LC2STConfig{Workers: 1})
				return err
			}},
		{"C2ST", "C2ST", "stopped by interrupt before any of 5 folds finished; nothing kept", 0,
			func(ctx context.Context, est sbi.Amortized) error {
				_, err := C2STContext(ctx, theta, mat.DenseCopyOf(theta), C2STConfig{Folds: 5, Workers: 1})
				return err
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := progresstest.Record(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.k == 0 {
				cancel()
			}
			est := cancelAtPosterior{gaussModel: m, k: c.k, calls: new(atomic.Int64), cancel: cancel}
			if err := c.run(ctx, est); !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if got := rec.LastFinished(c.label); got != c.want {
				t.Errorf("last message of %q: %q, want %q (all finished: %q)", c.label, got, c.want, rec.Finished(""))
			}
		})
	}
}
