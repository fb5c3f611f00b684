package sbi_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

// trialsCase is a briefly trained estimator of single trials for the tests of Trials: its
// adapter, its own per-trial term (LogLikelihood or LogRatio) and a simulator of single trials.
type trialsCase struct {
	name   string
	trials func(n int) *sbi.AmortizedTrials
	term   func(theta, x *mat.Dense) []float64
	prior  dist.Distribution
	sim    func(rng *rand.Rand, theta *mat.Dense) *mat.Dense
}

func trialsCases(t *testing.T) []trialsCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	gl := sbitest.NewGaussianLinear(1)
	theta := gl.Prior().Sample(rng, 400)
	x := gl.Simulate(rng, theta)
	mixed := task.Mixed()
	mtheta := mixed.Prior().Sample(rng, 400)
	mx := mixed.Simulate(rng, mtheta)
	cfg := sbi.TrainConfig{Epochs: 2, Seed: 1}
	nle := sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 8, Transforms: 2})
	nre := sbi.NewNRE(gl.Prior(), sbi.NREConfig{Hidden: []int{8}})
	mnle := sbi.NewMNLE(mixed.Prior(), sbi.MNLEConfig{Hidden: 8, Transforms: 1, LogTransform: true})
	for _, e := range []sbi.Estimator{nle, nre} {
		if _, err := e.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mnle.Train(mtheta, mx, cfg); err != nil {
		t.Fatal(err)
	}
	return []trialsCase{
		{"NLE", nle.Trials, nle.LogLikelihood, gl.Prior(), gl.Simulate},
		{"NRE", nre.Trials, nre.LogRatio, gl.Prior(), gl.Simulate},
		{"MNLE", mnle.Trials, mnle.LogLikelihood, mixed.Prior(), mixed.Simulate},
	}
}

// trialRows simulates m observations of n trials of theta's rows, the trials side by side.
func trialRows(rng *rand.Rand, sim func(*rand.Rand, *mat.Dense) *mat.Dense, theta *mat.Dense, n int) *mat.Dense {
	m, D := theta.Dims()
	rep := mat.NewDense(m*n, D, nil)
	for i := 0; i < m; i++ {
		for t := 0; t < n; t++ {
			rep.SetRow(i*n+t, theta.RawRowView(i))
		}
	}
	x := sim(rng, rep)
	_, d := x.Dims()
	return mat.NewDense(m, n*d, x.RawMatrix().Data)
}

// TestAmortizedTrialsAddsTrials checks the arithmetic of Trials exactly, for NLE, MNLE and NRE:
// LogProbPairs of a row of n trials side by side is log p(θ) plus the sum over the trials, in
// their order, of the estimator's own per-trial LogLikelihood (LogRatio for NRE), to the bit;
// it is Posterior(x).LogProb at θ; a θ outside the prior's support and a row holding +Inf give
// −Inf. The many-trials case spans several blocks of LogProbPairs (65,536 trials each).
func TestAmortizedTrialsAddsTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range trialsCases(t) {
		for _, sz := range []struct{ n, m int }{{1, 5}, {7, 20}, {9000, 17}} {
			if sz.n == 9000 && c.name != "NLE" {
				continue
			}
			a := c.trials(sz.n)
			theta := c.prior.Sample(rng, sz.m)
			x := trialRows(rng, c.sim, c.prior.Sample(rng, sz.m), sz.n) // θ and x unrelated: any pair
			_, w := x.Dims()
			d := w / sz.n
			got := a.LogProbPairs(theta, x)
			want := c.prior.LogProb(theta)
			for i := 0; i < sz.m; i++ {
				one := mat.NewDense(sz.n, d, append([]float64(nil), x.RawRowView(i)...))
				rep := mat.NewDense(sz.n, theta.RawMatrix().Cols, nil)
				for k := 0; k < sz.n; k++ {
					rep.SetRow(k, theta.RawRowView(i))
				}
				s := 0.0
				for _, v := range c.term(rep, one) {
					s += v
				}
				want[i] += s
				if got[i] != want[i] {
					t.Fatalf("%s, %d trials: pair %d: LogProbPairs %v, prior + sum of the trials' terms %v", c.name, sz.n, i, got[i], want[i])
				}
				if sz.n > 100 && i > 2 {
					continue // the posterior's LogProb of 9000 trials is checked on the first pairs
				}
				lp := a.Posterior(x.RawRowView(i)).LogProb(mat.NewDense(1, theta.RawMatrix().Cols, theta.RawRowView(i)))[0]
				if math.Abs(lp-got[i]) > 1e-9*math.Max(1, math.Abs(got[i])) {
					t.Errorf("%s, %d trials: pair %d: LogProbPairs %v, Posterior(x).LogProb %v", c.name, sz.n, i, got[i], lp)
				}
			}
		}
		// Outside the support (MNLE's prior is bounded), and +Inf in the last trial.
		a := c.trials(3)
		theta := c.prior.Sample(rng, 2)
		x := trialRows(rng, c.sim, theta, 3)
		_, w := x.Dims()
		x.Set(1, w-1, math.Inf(1))
		if c.name == "MNLE" {
			theta.Set(0, 0, -1) // β of a Gamma prior
		}
		got := a.LogProbPairs(theta, x)
		if !math.IsInf(got[1], -1) {
			t.Errorf("%s: +Inf in the last trial: LogProbPairs %v, expected −Inf", c.name, got[1])
		}
		if c.name == "MNLE" && !math.IsInf(got[0], -1) {
			t.Errorf("%s: θ outside the prior's support: LogProbPairs %v, expected −Inf", c.name, got[0])
		}
	}
}

// TestAmortizedTrialsRefuses checks the errors of Trials: n < 1 and rows that are not n trials
// of the trained width panic with a message that states the expected layout (and, for a whole
// number of trials, the Trials call that reads them); a row holding NaN in the last value only
// makes the posterior refuse to sample with ErrNonFinite naming the trial; an untrained estimator's posterior refuses with ErrUntrained and its
// LogProbPairs panics with it; a diagnostic given rows of the wrong width returns an error that
// states the layout.
func TestAmortizedTrialsRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	gl := sbitest.NewGaussianLinear(1)
	untrained := sbi.NewNLE(gl.Prior(), sbi.NLEConfig{Hidden: 8, Transforms: 1})
	if _, err := untrained.Trials(4).Posterior(make([]float64, 12)).(*sbi.RatioPosterior).SampleChecked(rng, 5); !errors.Is(err, sbi.ErrUntrained) {
		t.Errorf("untrained: sampling error %v, expected ErrUntrained", err)
	}
	if !panicsWith(func() { untrained.Trials(4).LogProbPairs(mat.NewDense(1, 3, nil), mat.NewDense(1, 12, nil)) }, "not trained") {
		t.Errorf("untrained: LogProbPairs does not panic with ErrUntrained")
	}
	for _, c := range trialsCases(t) {
		if !panicsWith(func() { c.trials(0) }, "n = 0, expected at least 1") {
			t.Errorf("%s: Trials(0) does not panic saying what is expected", c.name)
		}
		a := c.trials(4)
		D := c.prior.Dim()
		x := trialRows(rng, c.sim, c.prior.Sample(rng, 1), 4)
		_, w := x.Dims()
		d := w / 4
		for _, b := range []struct {
			width int
			want  string
		}{
			{w - 1, "is not a whole number of trials"},
			{3 * d, "it holds 3 trials: use Trials(3)"},
			{5 * d, "it holds 5 trials: use Trials(5)"},
			{0, "x has 0 values"},
		} {
			layout := "expected " + strconv.Itoa(w)
			if !panicsWith(func() { a.Posterior(make([]float64, b.width)) }, b.want) || !panicsWith(func() { a.Posterior(make([]float64, b.width)) }, layout) {
				t.Errorf("%s: Posterior of %d values: no panic naming %q and %q", c.name, b.width, b.want, layout)
			}
			if b.width > 0 && !panicsWith(func() { a.LogProbPairs(mat.NewDense(1, D, nil), mat.NewDense(1, b.width, nil)) }, b.want) {
				t.Errorf("%s: LogProbPairs of rows of %d values: no panic naming %q", c.name, b.width, b.want)
			}
		}
		_, err := diag.SBC(a, c.prior.Sample(rng, 3), mat.NewDense(3, w-1, nil), diag.RankConfig{Samples: 9})
		if err == nil || !strings.Contains(err.Error(), "expected "+strconv.Itoa(w)+": 4 trials") {
			t.Errorf("%s: SBC of rows of %d values: error %v, expected one naming the layout of 4 trials", c.name, w-1, err)
		}
		if !panicsWith(func() { a.LogProbPairs(mat.NewDense(2, D, nil), mat.NewDense(1, w, nil)) }, "expected n×") {
			t.Errorf("%s: LogProbPairs of 2 θ rows and 1 x row: no panic", c.name)
		}
		x.Set(0, w-1, math.NaN())
		_, err = a.PosteriorAt(x.RawRowView(0)).SampleChecked(rng, 5)
		if !errors.Is(err, sbi.ErrNonFinite) || !strings.Contains(err.Error(), "trial 3 holds NaN in 1 of its") {
			t.Errorf("%s: a NaN in trial 3: error %v, expected ErrNonFinite naming trial 3", c.name, err)
		}
		if s := a.String(); !strings.Contains(s, "4 i.i.d. trials") || !strings.Contains(s, "rows of "+strconv.Itoa(w)+" values") {
			t.Errorf("%s: String %q, expected the number of trials and the width of a row", c.name, s)
		}
	}
}

// TestAmortizedTrialsPadded checks observations of a varying number of trials, padded with whole
// NaN trials at the end of a row, for NLE, NRE and MNLE (Trials(4)): LogProbPairs of a row of k
// trials is log p(θ) plus the sum of the estimator's own per-trial terms over those k trials,
// to the bit, and equals Trials(k).LogProbPairs of the row without its padding and, to 1e−9,
// Posterior(x).LogProb; Unpadded returns the k trials; a row that is all NaN gives −Inf and a
// posterior that refuses to sample. Malformed padding (NaN in some values of a trial only, a
// trial after the padding) makes LogProbPairs panic naming the row and the trial, the posterior
// refuse with ErrNonFinite naming the trial, Unpadded return that error, and a diagnostic
// return it naming the test pair; an all-NaN pair is dropped and counted by the diagnostic.
func TestAmortizedTrialsPadded(t *testing.T) {
	const n = 4
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range trialsCases(t) {
		a := c.trials(n)
		m := n + 1 // rows of 1 … n trials, and one of none
		theta := c.prior.Sample(rng, m)
		x := trialRows(rng, c.sim, c.prior.Sample(rng, m), n)
		_, w := x.Dims()
		d := w / n
		for i := 0; i < m; i++ {
			for j := min(i+1, n) * d; j < w; j++ {
				x.Set(i, j, math.NaN())
			}
		}
		for j := 0; j < w; j++ {
			x.Set(n, j, math.NaN())
		}
		got := a.LogProbPairs(theta, x)
		for i := 0; i < m; i++ {
			k := min(i+1, n)
			row := x.RawRowView(i)
			if i == n {
				k = 0
			}
			if u, err := a.Unpadded(row); err != nil || len(u) != k*d {
				t.Errorf("%s: row of %d trials: Unpadded returned %d values and %v, expected %d", c.name, k, len(u), err, k*d)
			}
			th := mat.NewDense(1, c.prior.Dim(), theta.RawRowView(i))
			if k == 0 {
				if !math.IsInf(got[i], -1) {
					t.Errorf("%s: a row that is all NaN: LogProbPairs %v, expected −Inf", c.name, got[i])
				}
				_, err := a.PosteriorAt(row).SampleChecked(rng, 3)
				if !errors.Is(err, sbi.ErrNonFinite) || !strings.Contains(err.Error(), "every trial is NaN") {
					t.Errorf("%s: a row that is all NaN: sampling error %v, expected ErrNonFinite saying every trial is NaN", c.name, err)
				}
				continue
			}
			rep := mat.NewDense(k, c.prior.Dim(), nil)
			for r := 0; r < k; r++ {
				rep.SetRow(r, theta.RawRowView(i))
			}
			want := c.prior.LogProb(th)[0]
			s := 0.0
			for _, v := range c.term(rep, mat.NewDense(k, d, append([]float64(nil), row[:k*d]...))) {
				s += v
			}
			want += s
			alone := c.trials(k).LogProbPairs(th, mat.NewDense(1, k*d, append([]float64(nil), row[:k*d]...)))[0]
			if got[i] != want || alone != want {
				t.Errorf("%s: row of %d of %d trials: LogProbPairs %v, Trials(%d) of the trials present %v, prior + sum of their terms %v", c.name, k, n, got[i], k, alone, want)
			}
			if lp := a.Posterior(row).LogProb(th)[0]; math.Abs(lp-got[i]) > 1e-9*math.Max(1, math.Abs(got[i])) {
				t.Errorf("%s: row of %d trials: LogProbPairs %v, Posterior(x).LogProb %v", c.name, k, got[i], lp)
			}
		}
		bad := trialRows(rng, c.sim, c.prior.Sample(rng, 1), n).RawRowView(0)
		for _, b := range []struct {
			name, want string
			nan        []int // the values set to NaN
		}{
			{"NaN in one value of trial 1", "trial 1 holds NaN in 1 of its", []int{d}},
			{"a trial after the padding", "trial 2 follows trial 1, which is all NaN", seq(d, 2*d)},
		} {
			row := append([]float64(nil), bad...)
			for _, j := range b.nan {
				row[j] = math.NaN()
			}
			xb := mat.NewDense(2, w, append(append([]float64(nil), x.RawRowView(0)...), row...))
			if !panicsWith(func() { a.LogProbPairs(theta.Slice(0, 2, 0, c.prior.Dim()).(*mat.Dense), xb) }, "row 1 of x: "+b.want) {
				t.Errorf("%s: %s: LogProbPairs does not panic naming row 1 and %q", c.name, b.name, b.want)
			}
			_, err := a.PosteriorAt(row).SampleChecked(rng, 3)
			if !errors.Is(err, sbi.ErrNonFinite) || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s: %s: sampling error %v, expected ErrNonFinite and %q", c.name, b.name, err, b.want)
			}
			if _, err := a.Unpadded(row); err == nil || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s: %s: Unpadded error %v, expected %q", c.name, b.name, err, b.want)
			}
			_, err = diag.SBC(a, theta.Slice(0, 2, 0, c.prior.Dim()).(*mat.Dense), xb, diag.RankConfig{Samples: 9})
			if err == nil || !strings.Contains(err.Error(), "test pair 1: "+b.want) {
				t.Errorf("%s: %s: SBC error %v, expected one naming test pair 1 and %q", c.name, b.name, err, b.want)
			}
		}
		if c.name != "NLE" {
			continue
		}
		r, err := diag.SBC(a, theta, x, diag.RankConfig{Samples: 9, Seed: 1})
		switch {
		case err != nil:
			t.Errorf("%s: SBC of %d padded rows and one all NaN: %v", c.name, n, err)
		case r.Dropped != 1 || len(r.Ranks[0]) != n:
			t.Errorf("%s: SBC of %d padded rows and one all NaN: %d pairs ranked and %d dropped, expected %d and 1", c.name, n, len(r.Ranks[0]), r.Dropped, n)
		}
		_, err = diag.NewLC2ST(a, theta, x, diag.LC2STConfig{})
		if err == nil || !strings.Contains(err.Error(), "padded with NaN") {
			t.Errorf("%s: L-C2ST of padded rows: error %v, expected a refusal of the padding", c.name, err)
		}
	}
}

// seq returns lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}
