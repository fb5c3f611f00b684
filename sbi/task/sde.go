package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/sbi/dist"
)

// SDEFunc gives the drift a(t, x) and the diagonal diffusion b(t, x) of the stochastic
// differential equation dX = a(t, X) dt + b(t, X) ⊙ dW, written into drift and diffusion.
type SDEFunc func(t float64, x, drift, diffusion []float64)

// ErrSDE is wrapped by the errors of SolveSDE when the solution leaves the floating-point range.
var ErrSDE = errors.New("SDE solution blew up")

// SolveSDE integrates dX = a dt + b ⊙ dW from X(t0) = x0 by the Euler–Maruyama scheme,
//
//	X ← X + a(t, X)·h + b(t, X) ⊙ √h·Z,  Z ~ N(0, I),
//
// and returns X at each of the increasing times (all ≥ t0), one slice per time. Each interval
// between output times is cut into ⌈Δ/dt⌉ equal steps h ≤ dt, so the path lands exactly on the
// times; the normal draws are taken from rng component by component, step by step. Its strong
// order is ½ (1 for additive noise, b independent of X), its weak order 1. It returns an error
// wrapping ErrSDE when a component exceeds 10⁸ in magnitude or is not finite, and an error for
// dt ≤ 0 or decreasing times.
func SolveSDE(rng *rand.Rand, f SDEFunc, t0 float64, x0 []float64, times []float64, dt float64) ([][]float64, error) {
	if !(dt > 0) {
		return nil, fmt.Errorf("SolveSDE: step dt = %v, want > 0", dt)
	}
	d := len(x0)
	x := append([]float64(nil), x0...)
	a, b := make([]float64, d), make([]float64, d)
	out := make([][]float64, len(times))
	t := t0
	for k, tk := range times {
		if tk < t {
			return nil, fmt.Errorf("SolveSDE: output time %v before %v; times must increase from t0", tk, t)
		}
		m := int(math.Ceil((tk-t)/dt - 1e-9))
		h := 0.0
		if m > 0 {
			h = (tk - t) / float64(m)
		}
		sh := math.Sqrt(h)
		for range m {
			f(t, x, a, b)
			for j := range d {
				x[j] += a[j]*h + b[j]*sh*rng.NormFloat64()
				if !(math.Abs(x[j]) <= 1e8) {
					return nil, fmt.Errorf("SolveSDE: component %d is %v at t = %.4g: %w", j, x[j], t+h, ErrSDE)
				}
			}
			t += h
		}
		t = tk
		out[k] = append([]float64(nil), x...)
	}
	return out, nil
}

// Settings of the stochastic Lotka–Volterra example of Bon et al. (§3.2).
const (
	lvSDESteps   = 101  // observations at t = 0, 0.1, …, 10
	lvObsSpacing = 0.1  // between observations
	lvSDENoise   = 0.1  // σ₁ = σ₂
	lvX0         = 1.0  // X₀ = Y₀ = 1
	lvSDETarget  = 1e-3 // Euler–Maruyama step of the target simulator
	lvSDEApprox  = 1e-2 // Euler–Maruyama step of the approximate model's single path
	lvTauShape   = 2.0  // τ ~ Gamma(shape 2, scale 3), Julia's Gamma(2, 3)
	lvTauScale   = 3.0
	lvBetaLow    = 0.1 // β ~ U(0.1, 5)⁴
	lvBetaHigh   = 5.0
	lvParamDim   = 4
	lvDataDim    = 2 * lvSDESteps
	lvQuasiDim   = lvParamDim + 1 // (β, τ)
)

// LotkaVolterraSDETask is the stochastic Lotka–Volterra example of Bayesian score calibration
// (Bon et al., §3.2), with the paper's approximate model: a quasi-likelihood from one coarse
// Euler–Maruyama path (QuasiLogLikelihood, QuasiPosterior).
type LotkaVolterraSDETask struct {
	*base
	additive bool
}

// LotkaVolterraSDEConfig chooses the noise of the stochastic Lotka–Volterra model.
type LotkaVolterraSDEConfig struct {
	// Additive uses the noise of the paper's text, σ dB, instead of the authors' code's σX dB
	// (the default, which produced the paper's results). With additive noise a population can
	// cross zero, after which the drift drives it away exponentially: a quarter of the prior's
	// draws, and one in fifteen at the truth, blow up (NaN rows).
	Additive bool
}

// LotkaVolterraSDE is the stochastic Lotka–Volterra model of Bon et al. (eq. 14) with the
// noise of the authors' code (NewLotkaVolterraSDE).
func LotkaVolterraSDE() *LotkaVolterraSDETask { return NewLotkaVolterraSDE(LotkaVolterraSDEConfig{}) }

// NewLotkaVolterraSDE is the stochastic Lotka–Volterra model of Bon et al. (§3.2, eq. 14),
//
//	dX = (β₁X − β₂XY) dt + σX dB¹,  dY = (β₄XY − β₃Y) dt + σY dB²,
//
// with σ = 0.1 (σ dB instead of σX dB and σY dB with cfg.Additive, as the paper's text
// writes it), X₀ = Y₀ = 1, observed without error at t = 0, 0.1, …, 10; β ~ U(0.1, 5)⁴ (the
// paper's truth is (1.5, 1, 3, 1)); x = (X at the 101 times, then Y at the 101 times). The
// target model is simulated by Euler–Maruyama with step 10⁻³ (the paper uses the adaptive
// SOSRI scheme). A path that leaves [−10⁸, 10⁸] gives a NaN row.
func NewLotkaVolterraSDE(cfg LotkaVolterraSDEConfig) *LotkaVolterraSDETask {
	t := &LotkaVolterraSDETask{additive: cfg.Additive}
	t.base = &base{
		name:        "lotka_volterra_sde",
		prior:       dist.NewBoxUniform([]float64{lvBetaLow, lvBetaLow, lvBetaLow, lvBetaLow}, []float64{lvBetaHigh, lvBetaHigh, lvBetaHigh, lvBetaHigh}),
		paramLabels: []string{"β₁", "β₂", "β₃", "β₄"}, dataDim: lvDataDim,
		row: func(rng *rand.Rand, theta, x []float64) {
			if err := t.path(rng, theta, lvSDETarget, x); err != nil {
				nanFill(x)
			}
		},
	}
	return t
}

// lvSDETimes are the observation times 0, 0.1, …, 10.
var lvSDETimes = func() []float64 {
	t := make([]float64, lvSDESteps)
	for i := range t {
		t[i] = float64(i) * lvObsSpacing
	}
	return t
}()

// sde is the Lotka–Volterra SDE for β.
func (t *LotkaVolterraSDETask) sde(beta []float64) SDEFunc {
	return func(_ float64, s, a, b []float64) {
		x, y := s[0], s[1]
		a[0] = beta[0]*x - beta[1]*x*y
		a[1] = beta[3]*x*y - beta[2]*y
		if t.additive {
			b[0], b[1] = lvSDENoise, lvSDENoise
		} else {
			b[0], b[1] = lvSDENoise*x, lvSDENoise*y
		}
	}
}

// path writes one Euler–Maruyama path of step dt at the observation times into x (X then Y).
func (t *LotkaVolterraSDETask) path(rng *rand.Rand, beta []float64, dt float64, x []float64) error {
	sol, err := SolveSDE(rng, t.sde(beta), 0, []float64{lvX0, lvX0}, lvSDETimes, dt)
	if err != nil {
		return err
	}
	for i, s := range sol {
		x[i], x[lvSDESteps+i] = s[0], s[1]
	}
	return nil
}

// QuasiLogLikelihood is the approximate model of Bon et al. (§3.2, from a Turing.jl tutorial):
// with (x', y') one Euler–Maruyama path of step 0.01 for β, drawn from rng,
//
//	log l(β, τ | x, y) = 2n log τ − (τ²/2) Σᵢ [(x'ᵢ − xᵢ)² + (y'ᵢ − yᵢ)²],  n = 101,
//
// a Gaussian kernel of precision τ² between the data and a coarse simulation, so two levels
// of approximation (ABC-like, and a coarse simulator). It is random: every call draws a new
// path. It is −Inf for β outside the prior's support, τ ≤ 0 or a path that blows up, and
// panics unless x has 202 entries.
func (t *LotkaVolterraSDETask) QuasiLogLikelihood(rng *rand.Rand, beta []float64, tau float64, x []float64) float64 {
	if len(beta) != lvParamDim || len(x) != lvDataDim {
		panic(fmt.Sprintf("task lotka_volterra_sde: QuasiLogLikelihood of β with %d entries and x with %d, want %d and %d", len(beta), len(x), lvParamDim, lvDataDim))
	}
	if !t.Prior().InSupport(beta) || !(tau > 0) {
		return math.Inf(-1)
	}
	var path [lvDataDim]float64
	if err := t.path(rng, beta, lvSDEApprox, path[:]); err != nil {
		return math.Inf(-1)
	}
	var ss float64
	for i, v := range x {
		r := path[i] - v
		ss += r * r
	}
	return 2*lvSDESteps*math.Log(tau) - tau*tau*ss/2
}

// lvQuasiMap is the support map of (β, τ): logit for β on (0.1, 5), log for τ.
var lvQuasiMap = dist.NewSupportMap([]float64{lvBetaLow, lvBetaLow, lvBetaLow, lvBetaLow, 0},
	[]float64{lvBetaHigh, lvBetaHigh, lvBetaHigh, lvBetaHigh, math.Inf(1)})

// QuasiPosterior draws n samples of the approximate posterior of Bon et al.'s Lotka–Volterra
// example, π(β)π(τ)·l(β, τ | x, y) with β ~ U(0.1, 5)⁴ and τ ~ Gamma(shape 2, scale 3), in the
// unconstrained coordinates u = (logit of (βⱼ − 0.1)/4.9, log τ) (one per row, 5 columns; map
// them back with dist.NewSupportMap of the boxes (0.1, 5)⁴ × (0, ∞)).
//
// The paper samples this model with NUTS while the coarse path is redrawn at every
// evaluation, a target that is random itself (the authors note that the approximation does
// not recover the posterior). Here the Brownian increments of the coarse path are drawn once
// per call (common random numbers), so that l is a deterministic function of (β, τ) and the
// approximate posterior a proper distribution, sampled by adaptive random-walk Metropolis
// (MCMCConfig; its LikelihoodPower p targets π·l^p). The quasi-likelihood is multimodal (a
// slow cycle that matches only the mean levels is a local mode), so the chain starts at the
// best of 2000 prior draws of β refined by Nelder–Mead (where the authors start NUTS at β = (1, 1, 1, 1)), with τ at its conditional
// maximum √(2n/S) there. It returns an error for a bad observation or a chain that
// never moves.
func (t *LotkaVolterraSDETask) QuasiPosterior(rng *rand.Rand, x []float64, n int, cfg MCMCConfig) (*mat.Dense, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := checkObs(t.name, x, lvDataDim); err != nil {
		return nil, err
	}
	s1, s2 := rng.Uint64(), rng.Uint64()
	var src rand.PCG
	noise := rand.New(&src)
	theta := make([]float64, lvQuasiDim)
	redraw := false // the start search always uses common random numbers
	logLik := func(beta []float64, tau float64) float64 {
		if !redraw {
			src.Seed(s1, s2) // the same Brownian increments at every evaluation
		}
		return t.QuasiLogLikelihood(noise, beta, tau, x)
	}
	logTarget := func(u []float64) float64 {
		lvQuasiMap.Forward(u, theta)
		tau := theta[lvParamDim]
		// log Gamma(τ; shape 2, scale 3) up to a constant: (k − 1) log τ − τ/s.
		lp := (lvTauShape-1)*math.Log(tau) - tau/lvTauScale
		return cfg.LikelihoodPower*logLik(theta[:lvParamDim], tau) + lp + lvQuasiMap.LogAbsDetJacobian(u)
	}
	// Start at the β of smallest S among 2000 prior draws (τ profiled out: at τ̂² = 2n/S the
	// quasi log-likelihood is n log(2n/S) − n), refined by Nelder–Mead on log S in u.
	sumSq := func(beta []float64) float64 { return -2 * logLik(beta, 1) } // S at τ = 1
	prior := t.Prior()
	best, bestS := []float64{1, 1, 1, 1}, sumSq([]float64{1, 1, 1, 1})
	draws := prior.Sample(rng, 2000)
	for i := range 2000 {
		if v := sumSq(draws.RawRowView(i)); v < bestS {
			best, bestS = draws.RawRowView(i), v
		}
	}
	bmap := dist.Unconstrain(prior)
	ub := make([]float64, lvParamDim)
	bmap.Inverse(best, ub)
	beta := make([]float64, lvParamDim)
	res, _ := optimize.Minimize(optimize.Problem{Func: func(u []float64) float64 {
		bmap.Forward(u, beta)
		return math.Log(sumSq(beta))
	}}, ub, &optimize.Settings{MajorIterations: 1000}, &optimize.NelderMead{})
	if res != nil && res.F < math.Log(bestS) {
		bmap.Forward(res.X, best)
		bestS = math.Exp(res.F)
	}
	if math.IsInf(bestS, 0) || math.IsNaN(bestS) {
		return nil, errors.New("task lotka_volterra_sde: every coarse path of the starting search blew up")
	}
	start := append(append([]float64(nil), best...), math.Sqrt(2*lvSDESteps/math.Max(bestS, 1e-12)))
	u0 := make([]float64, lvQuasiDim)
	lvQuasiMap.Inverse(start, u0)
	if cfg.RedrawPath {
		redraw = true
		src.Seed(rng.Uint64(), rng.Uint64())
	}
	return metropolis(rng, logTarget, u0, n, cfg, cfg.RedrawPath)
}

// MustQuasiPosterior is QuasiPosterior for notebook cells: it panics with the error.
func (t *LotkaVolterraSDETask) MustQuasiPosterior(rng *rand.Rand, x []float64, n int, cfg MCMCConfig) *mat.Dense {
	u, err := t.QuasiPosterior(rng, x, n, cfg)
	if err != nil {
		panic(err)
	}
	return u
}

// QuasiRefit is the approximate method as Bayesian score calibration calls it (a calib.Refit):
// n draws of β from QuasiPosterior, in the unconstrained coordinates of the prior
// (dist.Unconstrain(t.Prior()): logit of (βⱼ − 0.1)/4.9); τ, which the paper does not
// calibrate, is left out.
func (t *LotkaVolterraSDETask) QuasiRefit(cfg MCMCConfig) func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
	return func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		u, err := t.QuasiPosterior(rng, x, n, cfg)
		if err != nil {
			return nil, err
		}
		return mat.DenseCopyOf(u.Slice(0, n, 0, lvParamDim)), nil
	}
}

// LogSeries returns the logarithm of the populations in x (one simulation per row, as Simulate
// returns them: X at the 101 times, then Y) as series stored channels-last, the layout of
// sbi.CNN1DEmbedding: column 2i holds log X(tᵢ) and column 2i+1 log Y(tᵢ). The noise is
// multiplicative, so on the logarithm it is close to additive. A failed simulation (a NaN
// row) stays NaN, so that training drops it. It panics unless x has 202 columns.
func (t *LotkaVolterraSDETask) LogSeries(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	if c != lvDataDim {
		panic(fmt.Sprintf("task lotka_volterra_sde: LogSeries of x with %d columns, want %d (X at %d times, then Y)", c, lvDataDim, lvSDESteps))
	}
	out := mat.NewDense(n, lvDataDim, nil)
	for i := 0; i < n; i++ {
		in, s := x.RawRowView(i), out.RawRowView(i)
		for k := 0; k < lvSDESteps; k++ {
			s[2*k], s[2*k+1] = math.Log(in[k]), math.Log(in[lvSDESteps+k])
		}
	}
	return out
}

// SummaryStatistics returns, for each row of series (LogSeries' layout, a and b the two
// channels), the nine statistics that Papamakarios, Sterratt and Murray (2019, "Sequential
// neural likelihood", appendix of the Lotka–Volterra model) keep of a predator–prey series:
//
//	mean(a), mean(b), log var(a), log var(b), ρ₁(a), ρ₂(a), ρ₁(b), ρ₂(b), corr(a, b),
//
// with var the sample variance (divisor n − 1), ρₖ(s) = Σₜ₌ₖ (sₜ − s̄)(sₜ₋ₖ − s̄) / Σₜ (sₜ − s̄)²
// the autocorrelation at lag k and corr Pearson's correlation. The paper computes them on the
// populations; here they are taken of what LogSeries returns. A constant channel has no
// autocorrelation, and its row is NaN. It panics unless series has 202 columns.
func (t *LotkaVolterraSDETask) SummaryStatistics(series *mat.Dense) *mat.Dense {
	n, c := series.Dims()
	if c != lvDataDim {
		panic(fmt.Sprintf("task lotka_volterra_sde: SummaryStatistics of series with %d columns, want %d (%d steps × 2 channels)", c, lvDataDim, lvSDESteps))
	}
	out := mat.NewDense(n, 9, nil)
	a, b := make([]float64, lvSDESteps), make([]float64, lvSDESteps)
	for i := 0; i < n; i++ {
		s := series.RawRowView(i)
		for k := range a {
			a[k], b[k] = s[2*k], s[2*k+1]
		}
		ma, va := seriesMoments(a)
		mb, vb := seriesMoments(b)
		out.SetRow(i, []float64{ma, mb, math.Log(va), math.Log(vb),
			autocorrelation(a, ma, 1), autocorrelation(a, ma, 2), autocorrelation(b, mb, 1), autocorrelation(b, mb, 2),
			crossCorrelation(a, b, ma, mb)})
	}
	return out
}

// seriesMoments returns the mean and the sample variance (divisor n − 1) of s. It and
// crossCorrelation do what gonum's stat.MeanVariance and stat.Correlation do, in another order
// of operations: the saved full run of tutorial 06 was made with these, and a training run
// follows differences of 10⁻¹³ in its inputs to different weights, so changing them changes
// that run's numbers (by about 0.3 nats per seed for the summary method of section 7).
// Replace them when that run is made again.
func seriesMoments(s []float64) (mean, variance float64) {
	for _, v := range s {
		mean += v
	}
	mean /= float64(len(s))
	for _, v := range s {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(s)-1)
}

// autocorrelation is ρₖ(s) = Σₜ₌ₖ (sₜ − m)(sₜ₋ₖ − m) / Σₜ (sₜ − m)², NaN for a constant s.
func autocorrelation(s []float64, m float64, k int) float64 {
	var num, den float64
	for i, v := range s {
		den += (v - m) * (v - m)
		if i >= k {
			num += (v - m) * (s[i-k] - m)
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// crossCorrelation is Pearson's correlation of a and b with means ma and mb.
func crossCorrelation(a, b []float64, ma, mb float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += (a[i] - ma) * (b[i] - mb)
		aa += (a[i] - ma) * (a[i] - ma)
		bb += (b[i] - mb) * (b[i] - mb)
	}
	return ab / math.Sqrt(aa*bb)
}
