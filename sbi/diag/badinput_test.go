package diag

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// strictModel is gaussModel with the input checks of the library's estimators: its Posterior
// panics on an observation of the wrong width or with NaN/±Inf values (as NPE.Posterior and
// its LogProb do), and, when panicAt is set, its posterior's Sample panics for the observation
// whose first value is panicAt (a bug in a user-made estimator).
type strictModel struct {
	gaussModel
	panicAt float64
}

func (m strictModel) Posterior(x []float64) sbi.Posterior {
	if len(x) != m.dim {
		panic(fmt.Sprintf("strict model: x has %d values, expected %d", len(x), m.dim))
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			panic(fmt.Sprintf("strict model: the observation holds NaN or infinite values: %v", x))
		}
	}
	return strictPost{gaussPost: m.post(x), bad: m.panicAt != 0 && x[0] == m.panicAt}
}

func (m strictModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = m.Posterior(x.RawRowView(i)).LogProb(mat.NewDense(1, m.dim, theta.RawRowView(i)))[0]
	}
	return out
}

type strictPost struct {
	gaussPost
	bad bool
}

func (p strictPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	if p.bad {
		var nilSlice []float64
		_ = nilSlice[n] // an index out of range, as a bug would
	}
	return p.gaussPost.Sample(rng, n)
}

// withNaNRows returns copies of theta and x where the rows in bad hold NaN in x (a failed
// simulation) or +Inf in θ, alternately.
func withNaNRows(theta, x *mat.Dense, bad []int) (*mat.Dense, *mat.Dense) {
	th, xx := mat.DenseCopyOf(theta), mat.DenseCopyOf(x)
	for k, i := range bad {
		if k%2 == 0 {
			xx.Set(i, 0, math.NaN())
		} else {
			th.Set(i, 1, math.Inf(1))
		}
	}
	return th, xx
}

// TestNonFiniteTestPairsDropped checks that test pairs with NaN or ±Inf values (SIR and
// Lotka–Volterra simulate them by design) are dropped and counted, not passed to the
// estimator, and that the result on the other pairs is exactly that of the clean pairs alone
// (pair i of the kept pairs uses stream i either way).
func TestNonFiniteTestPairsDropped(t *testing.T) {
	m := strictModel{gaussModel: gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}}
	clean, cleanX := m.simulate(3, 60)
	// Insert 7 bad rows among the clean ones.
	bad := []int{0, 9, 10, 31, 44, 60, 66}
	n := 60 + len(bad)
	theta, x := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	for i, c := 0, 0; i < n; i++ {
		src := c
		if slices.Contains(bad, i) {
			src = i % 60 // any finite row; it is spoilt below
		} else {
			c++
		}
		theta.SetRow(i, clean.RawRowView(src))
		x.SetRow(i, cleanX.RawRowView(src))
	}
	theta, x = withNaNRows(theta, x, bad)
	opts := RankConfig{Samples: 99, Seed: 5, Levels: Levels(5)}

	got, err := RankCoverage(m, theta, x, opts)
	if err != nil {
		t.Fatalf("RankCoverage with %d non-finite pairs: %v", len(bad), err)
	}
	want, err := RankCoverage(m, clean, cleanX, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dropped != len(bad) || got.N != 60 {
		t.Errorf("RankCoverage: Dropped %d, N %d; want %d and 60", got.Dropped, got.N, len(bad))
	}
	if !slices.Equal(got.Ranks, want.Ranks) {
		t.Errorf("RankCoverage ranks differ from those of the clean pairs alone")
	}
	if !strings.Contains(got.String(), "7 test pairs with NaN or infinite values left out") {
		t.Errorf("String does not report the dropped pairs:\n%s", got)
	}

	grid, err := GridCoverage(m, theta, x, GridConfig{Lower: []float64{-4, -4}, Upper: []float64{4, 4}, Points: 20, Levels: Levels(5)})
	if err != nil {
		t.Fatalf("GridCoverage with %d non-finite pairs: %v", len(bad), err)
	}
	if grid.Dropped != len(bad) || grid.N != 60 {
		t.Errorf("GridCoverage: Dropped %d, N %d; want %d and 60", grid.Dropped, grid.N, len(bad))
	}
	rep, err := NewReport(m, theta, x, ReportConfig{Samples: 99, Seed: 5, Levels: Levels(5)})
	if err != nil {
		t.Fatalf("NewReport: %v", err)
	}
	if rep.Dropped != len(bad) || rep.N != 60 || rep.Coverage.Dropped != len(bad) || rep.LogProb.Dropped != len(bad) || rep.LogProb.N != 60 {
		t.Errorf("NewReport: Dropped %d, N %d, coverage Dropped %d, log density Dropped %d N %d; want %d, 60, %d, %d, 60",
			rep.Dropped, rep.N, rep.Coverage.Dropped, rep.LogProb.Dropped, rep.LogProb.N, len(bad), len(bad), len(bad))
	}
	if !slices.Equal(rep.Coverage.Ranks, want.Ranks) {
		t.Errorf("NewReport ranks differ from those of the clean pairs alone")
	}
}

// TestAllTestPairsNonFinite checks the error when nothing is left.
func TestAllTestPairsNonFinite(t *testing.T) {
	m := strictModel{gaussModel: gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}}
	theta, x := m.simulate(3, 4)
	theta, x = withNaNRows(theta, x, []int{0, 1, 2, 3})
	_, err := RankCoverage(m, theta, x, RankConfig{Samples: 9})
	if err == nil || !strings.Contains(err.Error(), "all 4 test pairs hold NaN") {
		t.Fatalf("RankCoverage with only non-finite pairs: error %v, want one saying all 4 hold NaN", err)
	}
}

// TestWrongWidthTestPairs checks that x or θ of the wrong width, or mismatched rows, give a
// clear error from every estimator instead of a panic in a worker goroutine.
func TestWrongWidthTestPairs(t *testing.T) {
	m := strictModel{gaussModel: gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}}
	theta, x := m.simulate(3, 10)
	wideX := mat.NewDense(10, 3, nil)
	wideTheta := mat.NewDense(10, 3, nil)
	box := GridConfig{Lower: []float64{-4, -4}, Upper: []float64{4, 4}, Points: 10}
	cases := []struct {
		name     string
		theta, x *mat.Dense
		want     string
	}{
		{"x too wide", theta, wideX, "x has 3 values, expected 2"},
		{"theta too wide", wideTheta, x, "theta has 3 columns but the estimator's posterior has 2 parameters"},
		{"rows differ", theta, mat.NewDense(9, 2, nil), "theta has 10 rows but x has 9"},
	}
	for _, c := range cases {
		runs := map[string]func() error{
			"RankCoverage": func() error { _, err := RankCoverage(m, c.theta, c.x, RankConfig{Samples: 9}); return err },
			"SBC":          func() error { _, err := SBC(m, c.theta, c.x, RankConfig{Samples: 9}); return err },
			"ExpectedLogProb": func() error {
				_, err := ExpectedLogProb(m, nil, c.theta, c.x)
				return err
			},
			"GridCoverage": func() error {
				b := box
				if c.name == "theta too wide" {
					b.Lower, b.Upper = []float64{-4, -4, -4}, []float64{4, 4, 4}
				}
				_, err := GridCoverage(m, c.theta, c.x, b)
				return err
			},
		}
		for name, run := range runs {
			err := safe.Call("test", run)
			var pe *safe.PanicError
			switch {
			case errors.As(err, &pe) && pe.What == "test":
				t.Errorf("%s, %s: panicked: %v", c.name, name, pe.Value)
			case err == nil || !strings.Contains(err.Error(), c.want):
				t.Errorf("%s, %s: error %v, want one containing %q", c.name, name, err, c.want)
			}
		}
	}
}

// TestWorkerPanicIsError checks that a panic of the estimator inside a worker goroutine (here
// an index out of range in the posterior of test pair 17) is returned as an error naming the
// pair, and that the process survives to run the diagnostic again.
func TestWorkerPanicIsError(t *testing.T) {
	base := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := base.simulate(3, 40)
	m := strictModel{gaussModel: base, panicAt: x.At(17, 0)}
	for _, workers := range []int{1, 4} {
		_, err := RankCoverage(m, theta, x, RankConfig{Samples: 9, Workers: workers})
		var pe *safe.PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("workers %d: error %v, want a *safe.PanicError", workers, err)
		}
		if !strings.Contains(err.Error(), "test pair 17") || !strings.Contains(err.Error(), "index out of range") {
			t.Errorf("workers %d: error %q, want it to name test pair 17 and the panic", workers, err)
		}
	}
	if _, err := RankCoverage(base, theta, x, RankConfig{Samples: 9}); err != nil {
		t.Errorf("after the panic, a clean run failed: %v", err)
	}
}

// TestTestPairErrorSaysPrefixOnce: when the estimator cannot evaluate the first test pair, the
// error names the diagnostic once, not again inside the panic it wraps.
func TestTestPairErrorSaysPrefixOnce(t *testing.T) {
	m := strictModel{gaussModel: gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}}
	theta, _ := m.simulate(3, 10)
	wideX := mat.NewDense(10, 3, nil)
	const tail = ": the estimator cannot evaluate the test pairs (θ 2 columns, x 3 columns): first test pair panicked: strict model: x has 3 values, expected 2"
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"SBC", func() error { _, err := SBC(m, theta, wideX, RankConfig{Samples: 9}); return err }, "diag: SBC" + tail},
		{"RankCoverage", func() error { _, err := RankCoverage(m, theta, wideX, RankConfig{Samples: 9}); return err }, "diag: expected coverage (rank)" + tail},
		{"ExpectedLogProb", func() error { _, err := ExpectedLogProb(m, nil, theta, wideX); return err }, "diag: expected log density" + tail},
	} {
		if err := c.run(); err == nil || err.Error() != c.want {
			t.Errorf("%s: error\n %v\nwant\n %s", c.name, err, c.want)
		}
	}
}
