package certify

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// failingAfter simulates like gaussSimulator for its first n rows and gives NaN for every row
// after them, so that the sets drawn after the training set all fail; with panicOver set it
// panics instead on the rows after them whose θ₀ exceeds panicOver, and simulates the others.
type failingAfter struct {
	n         int64
	done      *atomic.Int64
	panicOver float64
}

func (failingAfter) DataDim() int { return 1 }

func (s failingAfter) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	rows, _ := theta.Dims()
	if s.done.Add(int64(rows))-int64(rows) >= s.n {
		for i := range rows {
			switch {
			case s.panicOver == 0:
				x.Set(i, 0, math.NaN())
			case theta.At(i, 0) > s.panicOver:
				panic("broken simulator")
			}
		}
		if s.panicOver == 0 {
			return
		}
	}
	gaussSimulator{}.SimulateBatch(rng, theta, x)
}

// TestLateErrorKeepsTheEstimator: an error after the estimator was trained (here every
// simulation of the check or final test set fails) returned only the error, and the trained
// estimator was lost with it. The error is now an *IncompleteError holding the estimator,
// trained and not certified, and the steps done; it wraps the cause.
func TestLateErrorKeepsTheEstimator(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		name     string
		remedies []Remedy
		steps    int // steps finished before the error
	}{
		{"final test set fails", NoRemedies(), 1},
		{"check set fails", []Remedy{RemedyConformal}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim := failingAfter{n: 1300, done: new(atomic.Int64)}
			if c.steps == 0 {
				sim.n = 1100 // the training set of the plan with a check set and a conformal set
			}
			_, err := Certify(prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: func() sbi.Estimator {
					return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
				},
				Train: sbi.TrainConfig{Epochs: 2}, Remedies: c.remedies, ConformalSimulations: 100, Samples: 20, SBCSamples: -1, Seed: 1})
			if err == nil {
				t.Fatal("no error, want the failed simulations' (the test's premise)")
			}
			var inc *IncompleteError
			if !errors.As(err, &inc) {
				t.Fatalf("error %v (%T) does not hold the trained estimator", err, err)
			}
			if !errors.Is(err, sbi.ErrNonFinite) || !strings.Contains(err.Error(), "kept") {
				t.Errorf("error %q, want it to wrap the cause (sbi.ErrNonFinite) and say the estimator is kept", err)
			}
			est, ok := inc.Estimator.(interface{ Trained() bool })
			if !ok || !est.Trained() {
				t.Fatalf("kept estimator %v, want the trained NPE", inc.Estimator)
			}
			if len(inc.Steps) != c.steps {
				t.Errorf("%d steps kept, want %d: %+v", len(inc.Steps), c.steps, inc.Steps)
			}
		})
	}
}

// TestIncompleteAfterConformalNamesTheBase: an error after the conformal remedy was chosen
// (here every simulation of the final test set fails) said the error kept the "initial
// estimator + conformal regions", though it holds the estimator alone: the regions'
// thresholds are lost with the run. It now names the estimator the regions were built on and
// says their thresholds are not kept.
func TestIncompleteAfterConformalNamesTheBase(t *testing.T) {
	prior := gaussPrior()
	// 1100 training pairs, 100 check, 100 conformal: the final test set fails.
	sim := failingAfter{n: 1300, done: new(atomic.Int64)}
	_, err := Certify(prior, sim, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
		New: func() sbi.Estimator {
			return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
		},
		// A tolerance no check set of 100 pairs can meet: the conformal remedy runs and is chosen.
		Target: Target{Tolerance: 1e-6},
		Train:  sbi.TrainConfig{Epochs: 2}, Remedies: []Remedy{RemedyConformal}, ConformalSimulations: 100, Samples: 20, SBCSamples: -1, Seed: 1})
	var inc *IncompleteError
	if !errors.As(err, &inc) {
		t.Fatalf("error %v (%T), want an *IncompleteError (the test's premise)", err, err)
	}
	if len(inc.Steps) != 2 || !strings.Contains(inc.Steps[1].Name, "conformal") {
		t.Fatalf("steps %+v, want the initial estimator and the conformal remedy (the test's premise)", inc.Steps)
	}
	msg := err.Error()
	if strings.Contains(msg, "+ conformal regions") {
		t.Errorf("error %q claims the conformal regions are kept", msg)
	}
	for _, w := range []string{"initial estimator", "conformal", "not kept"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}
