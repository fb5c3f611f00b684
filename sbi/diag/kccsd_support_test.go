package diag

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
)

// twoMoonsExact is the exact two_moons posterior as an amortized estimator (sbibm's two_moons:
// θ ~ U(−1,1)², x = (r·cos a + 0.25 − |z₀|, r·sin a + z₁) with z₀ = (θ₁+θ₂)/√2, z₁ = (θ₂−θ₁)/√2,
// a ~ U(−π/2, π/2), r ~ N(0.1, 0.01²)). Its log density is unnormalized (the score needs no
// normalizer): log N(ρ; 0.1, 0.01²) − log ρ at (u, v) = (x₀ + |z₀| − 0.25, x₁ − z₁), ρ = ‖(u, v)‖,
// and −Inf where u ≤ 0 or θ is outside the box. It samples by inverting the simulator with a
// random sign of z₀ and rejecting draws outside the box.
type twoMoonsExact struct{}

func (twoMoonsExact) Prior() dist.Distribution { return dist.NewUniformCube(-1, 1, 2) }

func (twoMoonsExact) Posterior(x []float64) sbi.Posterior { return twoMoonsPost{x[0], x[1]} }

func (e twoMoonsExact) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(e.Posterior, theta, x)
}

type twoMoonsPost struct{ x0, x1 float64 }

func (twoMoonsPost) Dim() int { return 2 }

func (p twoMoonsPost) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		th := theta.RawRowView(i)
		z0, z1 := (th[0]+th[1])/math.Sqrt2, (th[1]-th[0])/math.Sqrt2
		u, v := p.x0+math.Abs(z0)-0.25, p.x1-z1
		rho := math.Hypot(u, v)
		if !(u > 0) || math.Abs(th[0]) > 1 || math.Abs(th[1]) > 1 {
			lp[i] = math.Inf(-1)
			continue
		}
		d := (rho - 0.1) / 0.01
		lp[i] = -0.5*d*d - math.Log(rho)
	}
	return lp
}

func (p twoMoonsPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 2, nil)
	for i := 0; i < n; {
		a := -math.Pi/2 + math.Pi*rng.Float64()
		r := 0.1 + 0.01*rng.NormFloat64()
		z0 := r*math.Cos(a) + 0.25 - p.x0
		z1 := p.x1 - r*math.Sin(a)
		if z0 < 0 {
			continue
		}
		if rng.Float64() < 0.5 {
			z0 = -z0
		}
		t0, t1 := (z0-z1)/math.Sqrt2, (z0+z1)/math.Sqrt2
		if math.Abs(t0) <= 1 && math.Abs(t1) <= 1 {
			out.Set(i, 0, t0)
			out.Set(i, 1, t1)
			i++
		}
	}
	return out
}

// boxGaussEstimator is q(θ | x) = N(x, sd²·I) restricted to the box [−1, 1]^d: for the model
// θ ~ U(−1, 1)^d, x | θ ~ N(θ, σ²I) it is the exact posterior when sd = σ, and over-confident
// when sd < σ. Its log density is unnormalized (−Inf outside the box).
type boxGaussEstimator struct{ sd float64 }

func (boxGaussEstimator) Prior() dist.Distribution { return dist.NewUniformCube(-1, 1, 2) }

func (e boxGaussEstimator) Posterior(x []float64) sbi.Posterior {
	return boxGauss{mean: append([]float64(nil), x...), sd: e.sd}
}

func (e boxGaussEstimator) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(e.Posterior, theta, x)
}

type boxGauss struct {
	mean []float64
	sd   float64
}

func (g boxGauss) Dim() int { return len(g.mean) }

func (g boxGauss) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		for j, v := range theta.RawRowView(i) {
			if math.Abs(v) > 1 {
				lp[i] = math.Inf(-1)
				break
			}
			z := (v - g.mean[j]) / g.sd
			lp[i] -= z * z / 2
		}
	}
	return lp
}

// Sample inverts the CDF of each truncated coordinate.
func (g boxGauss) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, len(g.mean), nil)
	std := distuv.UnitNormal
	for i := range n {
		for j, m := range g.mean {
			lo, hi := std.CDF((-1-m)/g.sd), std.CDF((1-m)/g.sd)
			out.Set(i, j, m+g.sd*std.Quantile(lo+(hi-lo)*rng.Float64()))
		}
	}
	return out
}

// simulateBoxGauss draws n pairs θ ~ U(−1, 1)², x = θ + σ·N(0, I).
func simulateBoxGauss(rng *rand.Rand, n int, sigma float64) (theta, x *mat.Dense) {
	theta = dist.NewUniformCube(-1, 1, 2).Sample(rng, n)
	x = mat.NewDense(n, 2, nil)
	for i := range n {
		for j := range 2 {
			x.Set(i, j, theta.At(i, j)+sigma*rng.NormFloat64())
		}
	}
	return theta, x
}

// pairLogProbs is LogProbPairs for an estimator that gives each x its posterior: row i is
// log q(θᵢ | xᵢ).
func pairLogProbs(post func(x []float64) sbi.Posterior, theta, x *mat.Dense) []float64 {
	n, d := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		lp[i] = post(x.RawRowView(i)).LogProb(mat.NewDense(1, d, theta.RawRowView(i)))[0]
	}
	return lp
}

// levelCheck runs KCCSDAmortized on reps fresh datasets of n pairs from draw and checks that a
// calibrated estimator holds the level: the rejection rate at α = 0.05 is at most α plus three
// binomial standard errors, the p-values are not piled up at 1 (the fraction at or below ½ is
// within three standard errors of ½, as for a uniform p-value), and fewer than half the pairs
// of any run have an underflowing kernel on distributions.
func levelCheck(t *testing.T, name string, est sbi.Amortized, draw func(rng *rand.Rand) (theta, x *mat.Dense), cfg KernelTestConfig, reps int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 42))
	rejected, low := 0, 0
	for r := range reps {
		theta, x := draw(rng)
		res, err := KCCSDAmortized(rng, est, theta, x, 0, cfg)
		if err != nil {
			t.Fatalf("%s, repetition %d: %v", name, r, err)
		}
		if 2*res.Underflow >= res.Pairs {
			t.Fatalf("%s, repetition %d: %d of %d pairs underflowed", name, r, res.Underflow, res.Pairs)
		}
		if res.Reject {
			rejected++
		}
		if res.PValue <= 0.5 {
			low++
		}
	}
	const alpha = 0.05
	m := float64(reps)
	rate, maxRate := float64(rejected)/m, alpha+3*math.Sqrt(alpha*(1-alpha)/m)
	half := float64(low) / m
	t.Logf("%s: type-I error %.3f over %d repetitions (bound %.3f), P(p ≤ ½) = %.2f", name, rate, reps, maxRate, half)
	if rate > maxRate {
		t.Errorf("%s: type-I error %.3f > %.3f", name, rate, maxRate)
	}
	if math.Abs(half-0.5) > 3*0.5/math.Sqrt(m) {
		t.Errorf("%s: a fraction %.2f of p-values ≤ ½, want ½ ± %.2f (uniform under H₀)", name, half, 3*0.5/math.Sqrt(m))
	}
}

// TestKCCSDTwoMoonsNPEOneEpoch: an NPE on two_moons trained for one epoch is far from its
// posterior and must be rejected through the public API on 200 fresh pairs, with most pairs
// contributing (before the test ran in unconstrained coordinates, every score at a base point
// outside the prior box was NaN and every pair was dropped as "underflow", giving p = 1).
func TestKCCSDTwoMoonsNPEOneEpoch(t *testing.T) {
	tk := task.TwoMoons()
	rng := rand.New(rand.NewPCG(1, 2))
	theta := tk.Prior().Sample(rng, 2000)
	x := tk.Simulate(rng, theta)
	npe := sbi.NewNPE(tk.Prior(), sbi.NPEConfig{})
	if _, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	thetaT := tk.Prior().Sample(rng, 200)
	xT := tk.Simulate(rng, thetaT)
	for _, kind := range []DistKernelKind{FisherKernel, MMDKernel} {
		res, err := KCCSDAmortized(rng, npe, thetaT, xT, 0, KernelTestConfig{Dist: DistKernelConfig{Kind: kind}})
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		t.Logf("%v: statistic %.4g, threshold %.4g, p = %.4f, %d of %d pairs underflowed", kind, res.Statistic, res.Threshold, res.PValue, res.Underflow, res.Pairs)
		if res.PValue > 0.05 {
			t.Errorf("%v: one-epoch NPE not rejected, p = %.4f", kind, res.PValue)
		}
		if 2*res.Underflow >= res.Pairs {
			t.Errorf("%v: %d of %d pairs underflowed", kind, res.Underflow, res.Pairs)
		}
	}
}

// TestKCCSDTwoMoonsExact: the exact two_moons posterior is zero on part of the prior box (where
// no noise draw reproduces x), so it has no score at most base points of the Fisher kernel:
// the test must say so instead of returning a verdict. With the MMD kernel on distributions
// (samples, no base-point scores) it must hold its level: 100 repetitions of n = 40 pairs.
func TestKCCSDTwoMoonsExact(t *testing.T) {
	tk := task.TwoMoons()
	draw := func(rng *rand.Rand) (*mat.Dense, *mat.Dense) {
		theta := tk.Prior().Sample(rng, 40)
		return theta, tk.Simulate(rng, theta)
	}
	theta, x := draw(rand.New(rand.NewPCG(5, 6)))
	_, err := KCCSDAmortized(rand.New(rand.NewPCG(7, 8)), twoMoonsExact{}, theta, x, 0, KernelTestConfig{})
	if err == nil || !strings.Contains(err.Error(), "support") {
		t.Errorf("Fisher kernel on the exact two_moons posterior: error %v, want one that names the support", err)
	}
	levelCheck(t, "exact two_moons, MMD kernel", twoMoonsExact{}, draw, KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel}, Bootstrap: 200}, 100)
}

// TestKCCSDBoxGaussian: for θ ~ U(−1, 1)², x = θ + 0.5·N(0, I), the exact posterior N(x, 0.25·I)
// restricted to the box must hold the level with the default (Fisher) kernel over 100
// repetitions of n = 40, and the over-confident N(x, 0.0625·I) restricted to the box must be
// rejected at n = 200.
func TestKCCSDBoxGaussian(t *testing.T) {
	const sigma = 0.5
	draw := func(rng *rand.Rand) (*mat.Dense, *mat.Dense) { return simulateBoxGauss(rng, 40, sigma) }
	levelCheck(t, "box-restricted exact Gaussian", boxGaussEstimator{sd: sigma}, draw, KernelTestConfig{Bootstrap: 200}, 100)

	rng := rand.New(rand.NewPCG(9, 10))
	theta, x := simulateBoxGauss(rng, 200, sigma)
	res, err := KCCSDAmortized(rng, boxGaussEstimator{sd: sigma / 2}, theta, x, 0, KernelTestConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("over-confident: statistic %.4g, threshold %.4g, p = %.4f, %d of %d pairs underflowed", res.Statistic, res.Threshold, res.PValue, res.Underflow, res.Pairs)
	if !res.Reject || 2*res.Underflow >= res.Pairs {
		t.Errorf("over-confident box-restricted Gaussian: rejected %v (p = %.4f), %d of %d pairs underflowed", res.Reject, res.PValue, res.Underflow, res.Pairs)
	}
}

// logNormalEstimator is q(θ | x) = LogNormal(w·x, sd²) in each of two coordinates, for the model
// log θ ~ N(0, 1), x | θ ~ N(log θ, 0.5²): the exact posterior of log θ is N(0.8·x, 0.2), so
// sd = √0.2 is exact and a smaller sd over-confident. The prior's support is (0, ∞)², a
// half-line in each coordinate; the log density is −Inf at θ ≤ 0 (unnormalized inside).
type logNormalEstimator struct{ sd float64 }

func (logNormalEstimator) Prior() dist.Distribution {
	return dist.NewLogNormal([]float64{0, 0}, []float64{1, 1})
}

func (e logNormalEstimator) Posterior(x []float64) sbi.Posterior {
	return logNormalPost{mean: []float64{0.8 * x[0], 0.8 * x[1]}, sd: e.sd}
}

func (e logNormalEstimator) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(e.Posterior, theta, x)
}

type logNormalPost struct {
	mean []float64
	sd   float64
}

func (logNormalPost) Dim() int { return 2 }

func (p logNormalPost) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		for j, v := range theta.RawRowView(i) {
			if !(v > 0) {
				lp[i] = math.Inf(-1)
				break
			}
			z := (math.Log(v) - p.mean[j]) / p.sd
			lp[i] -= z*z/2 + math.Log(v)
		}
	}
	return lp
}

func (p logNormalPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 2, nil)
	for i := range n {
		for j, m := range p.mean {
			out.Set(i, j, math.Exp(m+p.sd*rng.NormFloat64()))
		}
	}
	return out
}

// simulateLogNormal draws n pairs log θ ~ N(0, I), x = log θ + 0.5·N(0, I).
func simulateLogNormal(rng *rand.Rand, n int) (theta, x *mat.Dense) {
	theta, x = mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	for i := range n {
		for j := range 2 {
			l := rng.NormFloat64()
			theta.Set(i, j, math.Exp(l))
			x.Set(i, j, l+0.5*rng.NormFloat64())
		}
	}
	return theta, x
}

// TestKCCSDHalfLineSupport: on a prior supported on (0, ∞)², the exact log-normal posterior
// must hold the level with the default (Fisher) kernel over 100 repetitions of n = 40 (tested
// in log coordinates), and an over-confident one (sd halved) must be rejected at n = 200.
func TestKCCSDHalfLineSupport(t *testing.T) {
	sd := math.Sqrt(0.2)
	draw := func(rng *rand.Rand) (*mat.Dense, *mat.Dense) { return simulateLogNormal(rng, 40) }
	levelCheck(t, "exact log-normal posterior", logNormalEstimator{sd: sd}, draw, KernelTestConfig{Bootstrap: 200}, 100)

	rng := rand.New(rand.NewPCG(11, 12))
	theta, x := simulateLogNormal(rng, 200)
	res, err := KCCSDAmortized(rng, logNormalEstimator{sd: sd / 2}, theta, x, 0, KernelTestConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("over-confident: statistic %.4g, threshold %.4g, p = %.4f, %d of %d pairs underflowed", res.Statistic, res.Threshold, res.PValue, res.Underflow, res.Pairs)
	if !res.Reject || 2*res.Underflow >= res.Pairs {
		t.Errorf("over-confident log-normal posterior: rejected %v (p = %.4f), %d of %d pairs underflowed", res.Reject, res.PValue, res.Underflow, res.Pairs)
	}
}

// TestPairFuncFailures: the U-statistic never averages over a NaN or infinite kernel value and
// never dies of a panicking kernel, in the complete and in an incomplete design; it counts only
// true underflows.
func TestPairFuncFailures(t *testing.T) {
	const n = 6
	cases := []struct {
		name    string
		h       pairFunc
		wantErr string
		under   int
	}{
		{"NaN", func(i, j int) (float64, bool) {
			if i == 2 && j == 3 {
				return math.NaN(), false
			}
			return 1, false
		}, "(2, 3) is NaN", 0},
		{"panic", func(i, j int) (float64, bool) {
			if i == 2 && j == 3 {
				panic("boom")
			}
			return 1, false
		}, "panicked: boom", 0},
		{"underflow", func(i, j int) (float64, bool) { return 0, i == 0 }, "", n - 1},
	}
	for _, c := range cases {
		for _, design := range []Design{Complete, DisjointPairs} {
			res := &KernelTestResult{}
			_, err := runUTest(context.Background(), rand.New(rand.NewPCG(1, 1)), n, c.h, KernelTestConfig{Design: design}.withDefaults(), res)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("%s, %v: %v", c.name, design, err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("%s, %v: error %v, want one containing %q", c.name, design, err, c.wantErr)
			}
			if c.wantErr == "" && design == Complete && res.Underflow != c.under {
				t.Errorf("%s: %d underflows counted, want %d", c.name, res.Underflow, c.under)
			}
		}
	}
}
