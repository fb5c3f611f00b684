package sbi_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// moments2 are the summaries of a 2-D distribution that the i.i.d.-trials tests compare.
type moments2 struct {
	mean, sd [2]float64
	corr     float64
}

func (m moments2) String() string {
	return fmt.Sprintf("mean (%.4f, %.4f), sd (%.4f, %.4f), corr %.3f", m.mean[0], m.mean[1], m.sd[0], m.sd[1], m.corr)
}

func closedMoments(p *dist.MultivariateNormal) moments2 {
	mu, cov := p.Mean(), p.Covariance()
	m := moments2{mean: [2]float64{mu[0], mu[1]}, sd: [2]float64{math.Sqrt(cov.At(0, 0)), math.Sqrt(cov.At(1, 1))}}
	m.corr = cov.At(0, 1) / (m.sd[0] * m.sd[1])
	return m
}

// quadratureMoments integrates exp(post.LogProb) by the midpoint rule on a G×G grid over ±7
// standard deviations of want around its mean: the moments of the normalized density, without
// Monte Carlo error (for a density near want the rule's error is far below 10⁻⁴ sd at G = 41).
func quadratureMoments(post interface{ LogProb(*mat.Dense) []float64 }, want moments2, G int) moments2 {
	const half = 7.0
	var lo, hi [2]float64
	for j := range lo {
		lo[j], hi[j] = want.mean[j]-half*want.sd[j], want.mean[j]+half*want.sd[j]
	}
	return quadratureBox(post, lo, hi, G)
}

// quadratureBox integrates exp(post.LogProb) by the midpoint rule on a G×G grid over the box
// [lo, hi] and returns the moments of the normalized density there.
func quadratureBox(post interface{ LogProb(*mat.Dense) []float64 }, lo, hi [2]float64, G int) moments2 {
	grid := mat.NewDense(G*G, 2, nil)
	var h [2]float64
	for j := range h {
		h[j] = (hi[j] - lo[j]) / float64(G)
	}
	for a := 0; a < G; a++ {
		for b := 0; b < G; b++ {
			grid.Set(a*G+b, 0, lo[0]+(float64(a)+0.5)*h[0])
			grid.Set(a*G+b, 1, lo[1]+(float64(b)+0.5)*h[1])
		}
	}
	lp := post.LogProb(grid)
	top := math.Inf(-1)
	for _, v := range lp {
		top = math.Max(top, v)
	}
	w := make([]float64, len(lp))
	var sum float64
	for i, v := range lp {
		w[i] = math.Exp(v - top)
		sum += w[i]
	}
	return weightedMoments(grid, w, sum)
}

func weightedMoments(pts *mat.Dense, w []float64, sum float64) moments2 {
	var m moments2
	for i, wi := range w {
		for j := 0; j < 2; j++ {
			m.mean[j] += wi * pts.At(i, j) / sum
		}
	}
	var v [2]float64
	var c float64
	for i, wi := range w {
		d0, d1 := pts.At(i, 0)-m.mean[0], pts.At(i, 1)-m.mean[1]
		v[0] += wi * d0 * d0 / sum
		v[1] += wi * d1 * d1 / sum
		c += wi * d0 * d1 / sum
	}
	m.sd = [2]float64{math.Sqrt(v[0]), math.Sqrt(v[1])}
	m.corr = c / (m.sd[0] * m.sd[1])
	return m
}

// chainStats returns the moments of each chain of chain-interleaved MCMC draws (row k·C + c is
// draw k of chain c, as the slice sampler writes them).
func chainStats(draws *mat.Dense, C int) []moments2 {
	n, _ := draws.Dims()
	per := n / C
	out := make([]moments2, C)
	for c := range out {
		chain := mat.NewDense(per, 2, nil)
		for k := 0; k < per; k++ {
			chain.SetRow(k, draws.RawRowView(k*C+c))
		}
		w := make([]float64, per)
		for i := range w {
			w[i] = 1
		}
		out[c] = weightedMoments(chain, w, float64(per))
		for j := range out[c].sd { // the unbiased variance
			out[c].sd[j] *= math.Sqrt(float64(per) / float64(per-1))
		}
	}
	return out
}

// allowance is the error compareMoments allows each moment: means in posterior standard
// deviations, standard deviations as a fraction, the correlation absolutely.
type allowance struct{ mean, sd, corr float64 }

// compareMoments checks got against want: means within allow.mean·sd (+ slack[0]), standard
// deviations within a fraction allow.sd (+ slack[1]), the correlation within allow.corr
// (+ slack[2]). It returns the failures as sentences.
func compareMoments(got, want moments2, allow allowance, slack [3]float64) []string {
	var bad []string
	for j := 0; j < 2; j++ {
		if d := math.Abs(got.mean[j] - want.mean[j]); d > allow.mean*want.sd[j]+slack[0] {
			bad = append(bad, fmt.Sprintf("mean of θ%d %.4f, closed form %.4f ± %.4f", j, got.mean[j], want.mean[j], allow.mean*want.sd[j]+slack[0]))
		}
		if d := math.Abs(got.sd[j] - want.sd[j]); d > allow.sd*want.sd[j]+slack[1] {
			bad = append(bad, fmt.Sprintf("sd of θ%d %.4f, closed form %.4f ± %.4f", j, got.sd[j], want.sd[j], allow.sd*want.sd[j]+slack[1]))
		}
	}
	if d := math.Abs(got.corr - want.corr); d > allow.corr+slack[2] {
		bad = append(bad, fmt.Sprintf("correlation %.3f, closed form %.3f ± %.3f", got.corr, want.corr, allow.corr+slack[2]))
	}
	return bad
}

// trialsAllowance is the error allowed to a trained estimator's posterior of T trials. An
// estimator's error in log q(x | θ) adds up over the trials, so that its posterior of many
// trials errs by more posterior standard deviations than its posterior of one (√T times as many
// for an error that varies from trial to trial, T times for a constant one). Each value is
// about 1.5 times the largest error of that moment by quadrature over training seeds 1 to 5 at
// the test's budget (10,000 single trials, 40 epochs), at 1, 10 and 100 trials:
//
//	NLE (MAF): means 0.06, 0.19, 0.75; sds 0.043, 0.062, 0.076; correlation 0.032, 0.025, 0.021
//	NRE:       means 0.14, 1.0, 1.0;   sds 0.082, 0.117, 0.127; correlation 0.049, 0.062, 0.053
//
// The moments get allowances of their own: the means' (up to 1.5 sd) would let any correlation
// of the right sign pass (the closed form's is −0.5) and any sd below 2.5 times the true one.
var trialsAllowance = map[string]map[int]allowance{
	"NLE": {1: {0.1, 0.07, 0.05}, 10: {0.3, 0.1, 0.04}, 100: {1.1, 0.12, 0.04}},
	"NRE": {1: {0.22, 0.13, 0.08}, 10: {1.5, 0.18, 0.1}, 100: {1.5, 0.2, 0.08}},
}

// trialsObservation simulates T trials of GaussianLinear at the prior mean θ = (0.5, −0.5),
// where the training simulations are dense (noise seeded by T), and returns them one per row,
// with the closed-form posterior.
func trialsObservation(T int) (*mat.Dense, moments2) {
	task := sbitest.NewGaussianLinear(T)
	rng := rand.New(rand.NewPCG(uint64(T), 77))
	flat := task.Simulate(rng, mat.NewDense(1, 2, []float64{0.5, -0.5})).RawRowView(0)
	return mat.NewDense(T, 3, flat), closedMoments(task.Posterior(flat))
}

// trainedOnTrials returns an NLE and an NRE trained on sims single trials of GaussianLinear.
func trainedOnTrials(t *testing.T, sims int, seed uint64) map[string]interface {
	PosteriorTrialsWith(*mat.Dense, sbi.SamplerConfig) *sbi.RatioPosterior
} {
	task := sbitest.NewGaussianLinear(1)
	rng := rand.New(rand.NewPCG(27, 2))
	theta := task.Prior().Sample(rng, sims)
	x := task.Simulate(rng, theta)
	cfg := sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: seed}
	nle := sbi.NewNLE(task.Prior(), sbi.NLEConfig{Hidden: 32, Transforms: 2})
	nre := sbi.NewNRE(task.Prior(), sbi.NREConfig{Hidden: []int{32, 32}})
	for _, e := range []interface {
		Train(*mat.Dense, *mat.Dense, sbi.TrainConfig) (*sbi.TrainResult, error)
	}{nle, nre} {
		if _, err := e.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]interface {
		PosteriorTrialsWith(*mat.Dense, sbi.SamplerConfig) *sbi.RatioPosterior
	}{"NLE": nle, "NRE": nre}
}

// TestPosteriorTrialsGaussianLinear checks the posteriors of 1, 10 and 100 i.i.d. trials of
// an NLE and an NRE trained on single trials against the closed form: the moments of LogProb
// by quadrature (no Monte Carlo error: within the allowance) and of MCMC draws (within the
// allowance plus the Monte Carlo error, estimated from the spread of the chains' own means and
// standard deviations: 10 chains of 60 draws after 50 sweeps of burn-in, Student-t at a
// false-alarm rate of 10⁻⁴ per comparison). Power: the posterior of the first tenth of the
// trials fails the quadrature check at 10 and 100 trials, and the closed form's moments with
// the correlation set to 0 or the standard deviations scaled by 0.7 or 1.3 fail it at every T.
func TestPosteriorTrialsGaussianLinear(t *testing.T) {
	const chains, perChain, alpha = 10, 60, 1e-4
	ests := trainedOnTrials(t, 10_000, 1)
	for _, name := range []string{"NLE", "NRE"} {
		est := ests[name]
		for _, T := range []int{1, 10, 100} {
			t.Run(fmt.Sprintf("%s/T=%d", name, T), func(t *testing.T) {
				xs, want := trialsObservation(T)
				allow := trialsAllowance[name][T]
				post := est.PosteriorTrialsWith(xs, sbi.SamplerConfig{Method: sbi.SamplerMCMC, Chains: chains, BurnIn: 50, Thin: 1})
				quad := quadratureMoments(post, want, 41)
				for _, b := range compareMoments(quad, want, allow, [3]float64{}) {
					t.Errorf("LogProb by quadrature: %s", b)
				}
				if T > 1 {
					few := est.PosteriorTrialsWith(xs.Slice(0, T/10, 0, 3).(*mat.Dense), sbi.SamplerConfig{})
					if len(compareMoments(quadratureMoments(few, want, 41), want, allow, [3]float64{})) == 0 {
						t.Errorf("the posterior of the first %d trials passes the check of %d trials: the check has no power", T/10, T)
					}
				}
				for _, off := range []struct {
					name string
					m    moments2
				}{{"uncorrelated", withCorr(want, 0)}, {"30% too wide", withSDScale(want, 1.3)}, {"30% too narrow", withSDScale(want, 0.7)}} {
					if len(compareMoments(off.m, want, allow, [3]float64{})) == 0 {
						t.Errorf("a posterior %s passes the check: it has no power", off.name)
					}
				}
				draws, err := post.SampleChecked(rand.New(rand.NewPCG(3, uint64(T))), chains*perChain)
				if err != nil {
					t.Fatal(err)
				}
				got, slack := chainMoments(draws, chains, alpha)
				for _, b := range compareMoments(got, want, allow, slack) {
					t.Errorf("MCMC draws: %s", b)
				}
				if h := post.MCMCHealth(); h == nil || h.Chains != chains || h.Draws != perChain || len(h.Rhat) != 2 || len(h.ESSBulk) != 2 {
					t.Errorf("MCMC health %v, expected split R̂ and bulk ESS of 2 parameters over %d chains of %d draws", h, chains, perChain)
				} else {
					t.Logf("%v", h)
				}
				t.Logf("closed form %v\nquadrature  %v\ndraws       %v", want, quad, got)
			})
		}
	}
}

// withCorr returns m with correlation r.
func withCorr(m moments2, r float64) moments2 {
	m.corr = r
	return m
}

// withSDScale returns m with its standard deviations scaled by f.
func withSDScale(m moments2, f float64) moments2 {
	m.sd[0] *= f
	m.sd[1] *= f
	return m
}

// TestPosteriorTrialsAddsTrials checks the arithmetic of PosteriorTrials exactly: its LogProb
// is log p(θ) + Σₜ log q(xₜ | θ) (NLE) or log p(θ) + Σₜ log r̂(θ, xₜ) (NRE) with the terms
// computed pair by pair, for every θ row (so that no θ is paired with another's trials), and
// one trial gives Posterior(x) to the bit.
func TestPosteriorTrialsAddsTrials(t *testing.T) {
	task := sbitest.NewGaussianLinear(1)
	rng := rand.New(rand.NewPCG(1, 1))
	theta := task.Prior().Sample(rng, 500)
	x := task.Simulate(rng, theta)
	nle := sbi.NewNLE(task.Prior(), sbi.NLEConfig{Hidden: 8, Transforms: 2})
	nre := sbi.NewNRE(task.Prior(), sbi.NREConfig{Hidden: []int{8}})
	cfg := sbi.TrainConfig{Epochs: 2, Seed: 1}
	if _, err := nle.Train(theta, x, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := nre.Train(theta, x, cfg); err != nil {
		t.Fatal(err)
	}
	const T, n = 7, 600 // n·T pairs span several evaluation chunks
	xs := x.Slice(0, T, 0, 3).(*mat.Dense)
	th := task.Prior().Sample(rng, n)
	for _, c := range []struct {
		name  string
		post  func(*mat.Dense) *sbi.RatioPosterior
		term  func(theta, x *mat.Dense) []float64
		alone sbi.Posterior
	}{
		{"NLE", nle.PosteriorTrials, nle.LogLikelihood, nle.Posterior(xs.RawRowView(0))},
		{"NRE", nre.PosteriorTrials, nre.LogRatio, nre.Posterior(xs.RawRowView(0))},
	} {
		want := task.Prior().LogProb(th)
		for k := 0; k < T; k++ {
			rep := mat.NewDense(n, 3, nil)
			for i := 0; i < n; i++ {
				rep.SetRow(i, xs.RawRowView(k))
			}
			for i, v := range c.term(th, rep) {
				want[i] += v
			}
		}
		got := c.post(xs).LogProb(th)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("%s: θ row %d: PosteriorTrials LogProb %v, prior + sum of %d trials %v", c.name, i, got[i], T, want[i])
			}
		}
		one := c.post(xs.Slice(0, 1, 0, 3).(*mat.Dense)).LogProb(th)
		if alone := c.alone.LogProb(th); !slicesEqual(one, alone) {
			t.Errorf("%s: PosteriorTrials of one trial differs from Posterior(x)", c.name)
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPosteriorTrialsRefuses checks the errors of PosteriorTrials: an untrained estimator and a
// trial holding NaN make the posterior refuse to sample with an error that says so; a width
// other than the trained one or no trial at all panics.
func TestPosteriorTrialsRefuses(t *testing.T) {
	task := sbitest.NewGaussianLinear(1)
	rng := rand.New(rand.NewPCG(1, 1))
	theta := task.Prior().Sample(rng, 300)
	x := task.Simulate(rng, theta)
	nle := sbi.NewNLE(task.Prior(), sbi.NLEConfig{Hidden: 8, Transforms: 1})
	xs := x.Slice(0, 4, 0, 3).(*mat.Dense)
	if _, err := nle.PosteriorTrials(xs).SampleChecked(rng, 10); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("untrained NLE: error %v, expected one saying it is not trained", err)
	}
	if _, err := nle.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	bad := mat.DenseCopyOf(xs)
	bad.Set(2, 1, math.NaN())
	if _, err := nle.PosteriorTrials(bad).SampleChecked(rng, 10); err == nil || !strings.Contains(err.Error(), "trial 2") {
		t.Errorf("a NaN in trial 2: error %v, expected one naming trial 2", err)
	}
	for _, m := range []*mat.Dense{x.Slice(0, 4, 0, 2).(*mat.Dense), mat.NewDense(4, 6, nil)} {
		if !panics(func() { nle.PosteriorTrials(m) }) {
			r, c := m.Dims()
			t.Errorf("trials of %d×%d (trained on 3 values): no panic", r, c)
		}
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

// chainMoments returns the average over chains of the chains' own moments (see chainStats) and
// their Monte Carlo error at a false-alarm rate alpha per comparison: the Student-t quantile
// (chains − 1 degrees of freedom) times the standard error from the spread across chains,
// the largest over the two means, over the two standard deviations, and for the correlation.
func chainMoments(draws *mat.Dense, chains int, alpha float64) (moments2, [3]float64) {
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(chains - 1)}.Quantile(1 - alpha/2)
	per := chainStats(draws, chains)
	stat := func(f func(moments2) float64) (avg, se float64) {
		for _, m := range per {
			avg += f(m) / float64(chains)
		}
		var v float64
		for _, m := range per {
			v += (f(m) - avg) * (f(m) - avg) / float64(chains-1)
		}
		return avg, math.Sqrt(v / float64(chains))
	}
	var got moments2
	var slack [3]float64
	for j := 0; j < 2; j++ {
		var se float64
		got.mean[j], se = stat(func(m moments2) float64 { return m.mean[j] })
		slack[0] = math.Max(slack[0], tq*se)
		got.sd[j], se = stat(func(m moments2) float64 { return m.sd[j] })
		slack[1] = math.Max(slack[1], tq*se)
	}
	var se float64
	got.corr, se = stat(func(m moments2) float64 { return m.corr })
	slack[2] = tq * se
	return got, slack
}
