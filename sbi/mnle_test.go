package sbi_test

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

func TestConformanceMNLE(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbitest.WithCoin(sbi.NewMNLE(prior, sbi.MNLEConfig{Hidden: 32, Sampler: fewChains}))
	}, sbitest.Config{Unnormalized: true, Load: func(r io.Reader) (sbi.Amortized, error) {
		e, err := sbi.LoadMNLE(r, nil)
		if err != nil {
			return nil, err
		}
		return sbitest.WithCoin(e), nil
	}})
}

// TestMNLEErrors checks that bad data and settings are refused with errors that say what was
// expected.
func TestMNLEErrors(t *testing.T) {
	tk := task.Mixed()
	rng := rand.New(rand.NewPCG(1, 1))
	theta := tk.Prior().Sample(rng, 200)
	x := tk.Simulate(rng, theta)
	train := func(cfg sbi.MNLEConfig, x *mat.Dense) error {
		_, err := sbi.NewMNLE(tk.Prior(), cfg).Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 1})
		return err
	}
	bad := func(edit func(x *mat.Dense)) *mat.Dense {
		y := mat.DenseCopyOf(x)
		edit(y)
		return y
	}
	for _, c := range []struct {
		name string
		cfg  sbi.MNLEConfig
		x    *mat.Dense
		want string
	}{
		{"no continuous column", sbi.MNLEConfig{Discrete: 2}, x, "at least one continuous column"},
		{"categories of another length", sbi.MNLEConfig{Categories: []int{2, 2}}, x, "one per column"},
		{"a choice of 0.5", sbi.MNLEConfig{}, bad(func(y *mat.Dense) { y.Set(3, 1, 0.5) }), "row 3"},
		{"a choice beyond the categories", sbi.MNLEConfig{Categories: []int{2}}, bad(func(y *mat.Dense) { y.Set(4, 1, 2) }), "integer in 0…1"},
		{"a negative time with LogTransform", sbi.MNLEConfig{LogTransform: true}, bad(func(y *mat.Dense) { y.Set(5, 0, -1) }), "LogTransform needs positive values"},
		{"a value beyond MaxCategories", sbi.MNLEConfig{}, bad(func(y *mat.Dense) { y.Set(6, 1, 5000) }), "integer in 0…999"},
	} {
		if err := train(c.cfg, c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	// A NaN row is a failed simulation: dropped and counted, not an error.
	res, err := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{LogTransform: true}).Train(theta, bad(func(y *mat.Dense) { y.Set(7, 1, math.NaN()) }), sbi.TrainConfig{Epochs: 1, Seed: 1})
	if err != nil || res.Dropped != 1 {
		t.Errorf("a NaN choice: error %v, dropped %v, expected the row dropped", err, res)
	}
	// At evaluation, values outside the support have log-likelihood −Inf and a posterior that
	// refuses to sample.
	e := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{LogTransform: true})
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if got := e.Config().Categories; len(got) != 1 || got[0] != 2 {
		t.Errorf("learned categories %v, expected [2]", got)
	}
	th := theta.Slice(0, 3, 0, 2).(*mat.Dense)
	ll := e.LogLikelihood(th, mat.NewDense(3, 2, []float64{1, 2, -1, 0, 1, 0.5}))
	for i, v := range ll {
		if !math.IsInf(v, -1) {
			t.Errorf("row %d outside the support: log-likelihood %v, expected −Inf", i, v)
		}
	}
	for _, xo := range [][]float64{{1, 3}, {0, 1}} {
		if _, err := e.Posterior(xo).(*sbi.RatioPosterior).SampleChecked(rng, 5); err == nil {
			t.Errorf("posterior at %v: no error", xo)
		}
	}
}

// mixedData simulates n pairs of the mixed task (τ, c) with θ from its prior; with
// dependent, τ ~ InverseGamma(2, rate β·(1 + c)), so that the reaction time depends on the
// choice (a drift-diffusion model's correct and error responses differ in speed).
func mixedData(rng *rand.Rand, n int, dependent bool) (theta, x *mat.Dense) {
	tk := task.Mixed()
	theta = tk.Prior().Sample(rng, n)
	x = mixedSimulate(rng, theta, dependent)
	return theta, x
}

// mixedSimulate returns one trial of the mixed task per row of theta (see mixedData).
func mixedSimulate(rng *rand.Rand, theta *mat.Dense, dependent bool) *mat.Dense {
	n, _ := theta.Dims()
	x := task.Mixed().Simulate(rng, theta)
	if dependent {
		for i := 0; i < n; i++ {
			x.Set(i, 0, x.At(i, 0)*(1+x.At(i, 1)))
		}
	}
	return x
}

// mixedPosterior is the exact posterior of trials xs of the mixed task: independent
// β ~ Gamma(1 + 2T, 0.5 + Σₜ (1 + cₜ)/τₜ) (dependent) or Gamma(1 + 2T, 0.5 + Σₜ 1/τₜ), and
// ρ ~ Beta(2 + Σₜ cₜ, 2 + T − Σₜ cₜ).
func mixedPosterior(xs *mat.Dense, dependent bool) dist.Distribution {
	T, _ := xs.Dims()
	var rate, ones float64
	for t := 0; t < T; t++ {
		tau, c := xs.At(t, 0), xs.At(t, 1)
		if dependent {
			rate += (1 + c) / tau
		} else {
			rate += 1 / tau
		}
		ones += c
	}
	n := float64(T)
	return dist.NewIndependent(dist.NewGamma([]float64{1 + 2*n}, []float64{0.5 + rate}), dist.NewBeta([]float64{2 + ones}, []float64{2 + n - ones}))
}

func momentsOf(d dist.Distribution) moments2 {
	mean, cov, _ := dist.MeanCov(d)
	return moments2{mean: [2]float64{mean[0], mean[1]}, sd: [2]float64{math.Sqrt(cov.At(0, 0)), math.Sqrt(cov.At(1, 1))},
		corr: cov.At(0, 1) / math.Sqrt(cov.At(0, 0)*cov.At(1, 1))}
}

// supportBox is ±7 standard deviations of m, clipped to β > 0 and 0 < ρ < 1.
func supportBox(m moments2) (lo, hi [2]float64) {
	for j := range lo {
		lo[j], hi[j] = math.Max(1e-9, m.mean[j]-7*m.sd[j]), m.mean[j]+7*m.sd[j]
	}
	hi[1] = math.Min(hi[1], 1-1e-9)
	return lo, hi
}

// mixedAllowance is the error allowed to an MNLE's posterior of T trials of the mixed task,
// in posterior standard deviations (means), as a fraction (standard deviations) and
// absolutely (correlation). Each value is about 1.5 times the largest error of that moment by
// quadrature over training seeds 1 to 5 at the test's budget (5000 simulations, 40 epochs),
// for the task at 1 and 10 trials and for the variant whose reaction time depends on the
// choice at 10 trials:
//
//	task, T = 1:       means 0.091, sds 0.094, correlation 0.022
//	task, T = 10:      means 0.43,  sds 0.115, correlation 0.102
//	dependent, T = 10: means 0.28,  sds 0.132, correlation 0.088
//
// The moments get allowances of their own: the means' (0.65 sd at 10 trials) would let a
// correlation of ±0.65 pass where the exact posterior has none, and any sd up to 1.65 times
// the exact one.
var mixedAllowance = map[int]allowance{1: {0.14, 0.14, 0.035}, 10: {0.65, 0.2, 0.15}}

// TestMNLEMixed trains an MNLE (sbi's defaults, log-transformed reaction times) on the mixed
// task and on a variant whose reaction time depends on the choice, and compares its posteriors
// of 1 and 10 trials with the exact ones: the moments of LogProb by quadrature within the
// allowance, and at 10 trials the moments of MCMC draws within the allowance plus their Monte
// Carlo error (from the spread of 10 chains' own moments, Student-t at 10⁻⁴). Power: at 10
// trials, the exact posterior of the other model (the reaction time read with the wrong
// dependence on the choice) is outside the allowance, so an MNLE whose flow ignored the
// choice would fail on the variant; and at every T the exact moments with a correlation of
// ±0.3 (the exact posterior's is 0: β and ρ are independent) or with the standard deviations
// scaled by 0.7 or 1.3 fail the check.
func TestMNLEMixed(t *testing.T) {
	const chains, perChain, alpha = 10, 60, 1e-4
	for _, dep := range []bool{false, true} {
		name := "task"
		if dep {
			name = "dependent"
		}
		t.Run(name, func(t *testing.T) {
			theta, x := mixedData(rand.New(rand.NewPCG(27, 2)), 5000, dep)
			e := sbi.NewMNLE(task.Mixed().Prior(), sbi.MNLEConfig{LogTransform: true})
			if _, err := e.Train(theta, x, sbi.TrainConfig{Seed: 1, Epochs: 40, BatchSize: 100, LearningRate: 1e-3}); err != nil {
				t.Fatal(err)
			}
			orng := rand.New(rand.NewPCG(3, 3))
			for _, T := range []int{1, 10} {
				xs := mixedSimulate(orng, repeatRow([]float64{1.5, 0.6}, T), dep)
				if dep && T == 1 {
					continue
				}
				want := momentsOf(mixedPosterior(xs, dep))
				allow := mixedAllowance[T]
				lo, hi := supportBox(want)
				post := e.PosteriorTrialsWith(xs, sbi.SamplerConfig{Method: sbi.SamplerMCMC, Chains: chains, BurnIn: 50, Thin: 1})
				quad := quadratureBox(post, lo, hi, 61)
				for _, b := range compareMoments(quad, want, allow, [3]float64{}) {
					t.Errorf("T=%d, LogProb by quadrature: %s", T, b)
				}
				for _, off := range []struct {
					name string
					m    moments2
				}{{"correlated by 0.3", withCorr(want, 0.3)}, {"correlated by −0.3", withCorr(want, -0.3)}, {"30% too wide", withSDScale(want, 1.3)}, {"30% too narrow", withSDScale(want, 0.7)}} {
					if len(compareMoments(off.m, want, allow, [3]float64{})) == 0 {
						t.Errorf("T=%d: a posterior %s passes the check: it has no power", T, off.name)
					}
				}
				if T == 1 {
					continue
				}
				if wrong := momentsOf(mixedPosterior(xs, !dep)); len(compareMoments(wrong, want, allow, [3]float64{})) == 0 {
					t.Errorf("T=%d: the other model's posterior %v passes the check: it has no power", T, wrong)
				}
				draws, err := post.SampleChecked(rand.New(rand.NewPCG(4, 4)), chains*perChain)
				if err != nil {
					t.Fatal(err)
				}
				got, slack := chainMoments(draws, chains, alpha)
				for _, b := range compareMoments(got, want, allow, slack) {
					t.Errorf("T=%d, MCMC draws: %s", T, b)
				}
				t.Logf("T=%d: exact %v\nquadrature %v\ndraws      %v", T, want, quad, got)
			}
		})
	}
}

func repeatRow(v []float64, n int) *mat.Dense {
	m := mat.NewDense(n, len(v), nil)
	for i := 0; i < n; i++ {
		m.SetRow(i, v)
	}
	return m
}

// TestMNLEFailedTrainKeepsCategories checks that a Train that fails before it rebuilds the
// networks (a bad setting, bad validation pairs, no usable pair) leaves a trained MNLE as it
// was: its categories are those its networks were built for, so that it still evaluates,
// samples and saves as before. The failing calls see data whose choices would make other
// categories ([5], or none at all).
func TestMNLEFailedTrainKeepsCategories(t *testing.T) {
	tk := task.Mixed()
	rng := rand.New(rand.NewPCG(3, 4))
	theta := tk.Prior().Sample(rng, 200)
	x := tk.Simulate(rng, theta)
	e := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{Hidden: 8, LogTransform: true})
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	th, xs := theta.Slice(0, 4, 0, 2).(*mat.Dense), mat.DenseCopyOf(x.Slice(0, 4, 0, 2))
	before := e.LogLikelihood(th, xs)
	wider := mat.DenseCopyOf(x)
	wider.Set(9, 1, 4) // a fifth category
	allNaN := mat.DenseCopyOf(x)
	for i := 0; i < 200; i++ {
		allNaN.Set(i, 0, math.NaN())
	}
	badVal := mat.DenseCopyOf(x.Slice(0, 20, 0, 2))
	badVal.Set(3, 1, 7)
	for _, c := range []struct {
		name string
		x    *mat.Dense
		cfg  sbi.TrainConfig
	}{
		{"a bad setting", wider, sbi.TrainConfig{Epochs: -1}},
		{"bad validation pairs", wider, sbi.TrainConfig{Epochs: 1, ValTheta: theta.Slice(0, 20, 0, 2).(*mat.Dense), ValX: badVal}},
		{"no usable pair", allNaN, sbi.TrainConfig{Epochs: 1}},
		{"too few pairs to split", wider.Slice(0, 2, 0, 2).(*mat.Dense), sbi.TrainConfig{Epochs: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			th0 := theta
			if r, _ := c.x.Dims(); r != 200 {
				th0 = theta.Slice(0, r, 0, 2).(*mat.Dense)
			}
			if _, err := e.Train(th0, c.x, c.cfg); err == nil {
				t.Fatal("Train succeeded, expected an error")
			}
			if !e.Trained() {
				t.Fatal("the MNLE is no longer trained")
			}
			if got := e.Config().Categories; len(got) != 1 || got[0] != 2 {
				t.Errorf("categories after the failed Train %v, expected [2] (those of the networks)", got)
			}
			var after []float64
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("LogLikelihood panicked: %v", r)
					}
				}()
				after = e.LogLikelihood(th, xs)
			}()
			for i := range after {
				if after[i] != before[i] {
					t.Errorf("pair %d: log-likelihood %v after the failed Train, %v before", i, after[i], before[i])
				}
			}
			var buf strings.Builder
			if err := e.Save(&buf); err != nil {
				t.Fatalf("Save: %v", err)
			}
			back, err := sbi.LoadMNLE(strings.NewReader(buf.String()), nil)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := back.LogLikelihood(th, xs); got[0] != before[0] {
				t.Errorf("loaded: log-likelihood %v, expected %v", got[0], before[0])
			}
		})
	}
}

// TestMNLEObservationErrors: an observation an MNLE cannot read is refused with an error that
// names the value and the rule it breaks: CheckObservation of a non-positive value under
// LogTransform (the log transform would make it NaN, and the error named a NaN the caller
// never gave), and training data whose discrete columns are not the last ones of x (the
// error says where MNLE looks for them).
func TestMNLEObservationErrors(t *testing.T) {
	tk := task.Mixed()
	rng := rand.New(rand.NewPCG(5, 6))
	theta := tk.Prior().Sample(rng, 200)
	x := tk.Simulate(rng, theta)
	e := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{Hidden: 8, LogTransform: true})
	if _, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, xo := range [][]float64{{-1, 0}, {0, 1}} {
		_, err := e.CheckObservation(xo)
		if err == nil || !strings.Contains(err.Error(), "LogTransform") || strings.Contains(err.Error(), "NaN") {
			t.Errorf("CheckObservation(%v): %v, expected an error naming LogTransform and the value, not NaN", xo, err)
		}
	}
	untrained := sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{LogTransform: true})
	for _, xo := range [][]float64{nil, {-1, 0}} {
		if !panicsWith(func() { untrained.CheckObservation(xo) }, "not trained") {
			t.Errorf("CheckObservation(%v) of an untrained MNLE did not panic saying it is not trained", xo)
		}
	}
	swapped := mat.NewDense(200, 2, nil)
	for i := 0; i < 200; i++ {
		swapped.Set(i, 0, x.At(i, 1))
		swapped.Set(i, 1, x.At(i, 0))
	}
	for _, c := range []struct {
		name string
		cfg  sbi.MNLEConfig
		want string
	}{
		{"choice first", sbi.MNLEConfig{}, "the last 1 columns of x"},
		{"Discrete = 0 on continuous data", sbi.MNLEConfig{Discrete: 0}, "use NLE"},
	} {
		_, err := sbi.NewMNLE(tk.Prior(), c.cfg).Train(theta, swapped, sbi.TrainConfig{Epochs: 1, Seed: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, expected an error containing %q", c.name, err, c.want)
		}
	}
}

// TestMNLENarrowValX: validation observations narrower than the discrete columns are an
// error of Train naming the widths, not a slice-bounds panic in the check of their discrete
// (or, with LogTransform, continuous) columns.
func TestMNLENarrowValX(t *testing.T) {
	tk := task.Mixed()
	rng := rand.New(rand.NewPCG(7, 8))
	theta := tk.Prior().Sample(rng, 200)
	x := tk.Simulate(rng, theta)
	x3 := mat.NewDense(200, 3, nil) // a reaction time and two choices
	for i := 0; i < 200; i++ {
		x3.SetRow(i, []float64{x.At(i, 0), x.At(i, 1), x.At(i, 1)})
	}
	for _, logT := range []bool{false, true} {
		cfg := sbi.TrainConfig{Epochs: 1, Seed: 1, ValTheta: theta.Slice(0, 10, 0, 2).(*mat.Dense), ValX: mat.NewDense(10, 1, nil)}
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			_, err = sbi.NewMNLE(tk.Prior(), sbi.MNLEConfig{Discrete: 2, LogTransform: logT}).Train(theta, x3, cfg)
			return err
		}()
		if err == nil || !strings.Contains(err.Error(), "ValX has 1 columns, the training x 3") {
			t.Errorf("LogTransform %v: %v, expected an error naming the widths of ValX and x", logT, err)
		}
	}
}
