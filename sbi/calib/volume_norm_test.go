package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// scaledGauss is the unnormalized posterior of a ratio estimator with the uniform prior p on
// [−3, 3]²: log q(θ) = log c + log p(θ) − |θ − μ|²/(2σ²), whose Sample draws from the
// normalized N(μ, σ²I) restricted to the box (by rejection). Its normalizing constant is
// Z = c·p·2πσ²·(mass of the Gaussian in the box) ≈ c·0.0279 for σ = 0.4.
type scaledGauss struct {
	logC  float64
	mu    [2]float64
	sigma float64
}

const boxHalf = 3.0

func (scaledGauss) Dim() int { return 2 }

func (g scaledGauss) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 2, nil)
	for i := 0; i < n; {
		a, b := g.mu[0]+g.sigma*rng.NormFloat64(), g.mu[1]+g.sigma*rng.NormFloat64()
		if math.Abs(a) <= boxHalf && math.Abs(b) <= boxHalf {
			out.Set(i, 0, a)
			out.Set(i, 1, b)
			i++
		}
	}
	return out
}

func (g scaledGauss) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		a, b := theta.At(i, 0), theta.At(i, 1)
		if math.Abs(a) > boxHalf || math.Abs(b) > boxHalf {
			out[i] = math.Inf(-1)
			continue
		}
		r2 := (a-g.mu[0])*(a-g.mu[0]) + (b-g.mu[1])*(b-g.mu[1])
		out[i] = g.logC - math.Log(4*boxHalf*boxHalf) - r2/(2*g.sigma*g.sigma)
	}
	return out
}

// threshold returns τ such that {−log q ≤ τ} is the disk of radius rho around μ.
func (g scaledGauss) threshold(rho float64) float64 {
	return rho*rho/(2*g.sigma*g.sigma) - g.logC + math.Log(4*boxHalf*boxHalf)
}

// replicatedVolume runs Volume reps times with independent streams and returns the mean and
// the standard error of the mean across the runs (which holds every source of error, that of
// Z included).
func replicatedVolume(r *Region, prior sbi.Posterior, cfg VolumeConfig, reps int, seed uint64) (mean, se float64) {
	v := make([]float64, reps)
	for k := range v {
		v[k], _ = r.Volume(rand.New(rand.NewPCG(seed, uint64(k))), prior, cfg)
	}
	m, sd := meanSD(v)
	return m, sd / math.Sqrt(float64(reps))
}

// TestVolumeUnnormalizedClosedForm checks Volume against the closed-form area πρ² of the region
// {−log q ≤ τ}, a disk of radius ρ = 0.6, for posteriors whose density is scaled by c, so that
// Z ≈ 0.028 (c = 1, a ratio estimator's log p + log r̂ with r̂ ≤ 1), 1 and 28. Treating the
// draws as coming from q itself (Z = 1) multiplies the terms of the q draws by about 1/Z. The
// mean of 6 independent estimates must lie within 4 of its standard errors (at most 3% of the
// area) of πρ².
func TestVolumeUnnormalizedClosedForm(t *testing.T) {
	const rho = 0.6
	want := math.Pi * rho * rho
	prior := dist.NewUniformCube(-boxHalf, boxHalf, 2)
	for _, logC := range []float64{0, math.Log(36 / (2 * math.Pi * 0.16)), math.Log(1000)} {
		g := scaledGauss{logC: logC, mu: [2]float64{0.5, -0.3}, sigma: 0.4}
		r := &Region{Posterior: g, Threshold: g.threshold(rho)}
		for _, pooled := range []bool{false, true} {
			name := fmt.Sprintf("c = %.3g, pooled %v", math.Exp(logC), pooled)
			m, se := replicatedVolume(r, prior, VolumeConfig{Samples: 1000, Levels: 10, Pooled: pooled}, 6, 21)
			t.Logf("%s: volume %.4f ± %.4f, closed form %.4f", name, m, se, want)
			if math.Abs(m-want) > 4*se || se > 0.03*want {
				t.Errorf("%s: volume %.4f ± %.4f, want %.4f", name, m, se, want)
			}
		}
	}
	// Z = 1 declared: the same estimate without normalizing.
	g := scaledGauss{logC: math.Log(36 / (2 * math.Pi * 0.16)), mu: [2]float64{0.5, -0.3}, sigma: 0.4}
	m, se := replicatedVolume(&Region{Posterior: g, Threshold: g.threshold(rho)}, prior, VolumeConfig{Normalized: true}, 6, 22)
	if math.Abs(m-want) > 4*se || se > 0.03*want {
		t.Errorf("normalized posterior declared so: volume %.4f ± %.4f, want %.4f", m, se, want)
	}
}

// farSquare is the uniform distribution on [10, 11]², outside the prior's box.
type farSquare struct{}

func (farSquare) Dim() int { return 2 }

func (farSquare) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 2, nil)
	for i := range n {
		out.Set(i, 0, 10+rng.Float64())
		out.Set(i, 1, 10+rng.Float64())
	}
	return out
}

func (farSquare) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		a, b := theta.At(i, 0), theta.At(i, 1)
		out[i] = math.Inf(-1)
		if a >= 10 && a <= 11 && b >= 10 && b <= 11 {
			out[i] = 0
		}
	}
	return out
}

// TestVolumeNoOverlap checks that a posterior with no density where the prior's draws fall,
// whose Z therefore cannot be estimated, gives NaN rather than a number, and that
// ExpectedVolume turns it into an error.
func TestVolumeNoOverlap(t *testing.T) {
	prior := dist.NewUniformCube(-boxHalf, boxHalf, 2)
	r := &Region{Posterior: farSquare{}, Threshold: 1}
	if v, se := r.Volume(rand.New(rand.NewPCG(1, 1)), prior, VolumeConfig{Samples: 200, Levels: 2}); !math.IsNaN(v) || !math.IsNaN(se) {
		t.Errorf("volume %v ± %v, want NaN when Z cannot be estimated", v, se)
	}
	c := &Conformal{Estimator: farEstimator{}, Alpha: 0.1, Threshold: 1}
	if _, _, err := c.ExpectedVolume(rand.New(rand.NewPCG(1, 2)), prior, mat.NewDense(2, 1, nil), VolumeConfig{Samples: 200, Levels: 2}); err == nil {
		t.Error("ExpectedVolume of regions without an estimable volume: no error")
	}
}

type farEstimator struct{}

func (farEstimator) Posterior([]float64) sbi.Posterior { return farSquare{} }

func (farEstimator) LogProbPairs(theta, _ *mat.Dense) []float64 { return farSquare{}.LogProb(theta) }

// shifted is a posterior whose log density is another's plus a constant: the same
// distribution, unnormalized by a factor e^shift, as the log p + log r̂ of a ratio estimator
// can be. It hides any AcceptanceRate of the posterior it wraps.
type shifted struct {
	sbi.Posterior
	shift float64
}

func (s shifted) LogProb(theta *mat.Dense) []float64 {
	lp := s.Posterior.LogProb(theta)
	for i := range lp {
		lp[i] += s.shift
	}
	return lp
}

// TestVolumeTrainedEstimators checks Volume on the regions of a trained NRE (unnormalized:
// Z(x) = E_prior r̂(θ, x)) and a trained NPE (normalized up to its acceptance rate) against
// the grid count of the same region over the prior's box (200² cells, which the region cannot
// leave: both densities are zero outside it), and checks that scaling the density by e^±4
// (with the threshold moved to keep the region) leaves the estimate unchanged within noise.
// Tolerance: 4 standard errors of the mean of 4 independent estimates plus 2% for the grid.
func TestVolumeTrainedEstimators(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	prior := dist.NewUniformCube(-boxHalf, boxHalf, 2)
	simulate := func(theta *mat.Dense) *mat.Dense {
		n, _ := theta.Dims()
		x := mat.NewDense(n, 2, nil)
		for i := range n {
			for j := range 2 {
				x.Set(i, j, theta.At(i, j)+0.5*rng.NormFloat64())
			}
		}
		return x
	}
	theta := prior.Sample(rng, 3000)
	x := simulate(theta)
	nre := sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}})
	if _, err := nre.Train(theta, x, sbi.TrainConfig{Epochs: 30, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 32, Transforms: 3})
	if _, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 30, BatchSize: 100, LearningRate: 2e-3, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	thC := prior.Sample(rng, 1000)
	xC := simulate(thC)
	obs := []float64{0.4, -1.1}
	for name, est := range map[string]sbi.Amortized{"NRE": nre, "NPE": npe} {
		c, err := NewConformal(est, thC, xC, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Region(obs)
		grid, err := r.GridVolume([]float64{-boxHalf, -boxHalf}, []float64{boxHalf, boxHalf}, 200)
		if err != nil {
			t.Fatal(err)
		}
		cfg := VolumeConfig{Samples: 1000, Levels: 5}
		m, se := replicatedVolume(r, prior, cfg, 4, 41)
		t.Logf("%s: volume %.4f ± %.4f, grid %.4f", name, m, se, grid)
		if math.Abs(m-grid) > 4*se+0.02*grid {
			t.Errorf("%s: volume %.4f ± %.4f, grid %.4f", name, m, se, grid)
		}
		for _, s := range []float64{-4, 4} {
			rs := &Region{Posterior: shifted{r.Posterior, s}, Threshold: r.Threshold - s}
			ms, ses := replicatedVolume(rs, prior, cfg, 4, 43)
			t.Logf("%s scaled by e^%g: volume %.4f ± %.4f", name, s, ms, ses)
			if math.Abs(ms-grid) > 4*ses+0.02*grid {
				t.Errorf("%s scaled by e^%g: volume %.4f ± %.4f, grid %.4f", name, s, ms, ses, grid)
			}
		}
	}
}
