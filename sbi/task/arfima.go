package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

// ARFIMALength is the series length of the ARFIMA example of Bon et al. (App. D.2).
const ARFIMALength = 15000

// ARFIMATask is the ARFIMA(2, d, 1) example of Bayesian score calibration (Bon et al., App.
// D.2), whose approximate posterior uses the Whittle likelihood (Whittle, WhittlePosterior).
type ARFIMATask struct {
	*base
	n int
}

// ARFIMA is the ARFIMA(2, d, 1) model of series length 15,000 (NewARFIMA for other lengths).
func ARFIMA() *ARFIMATask {
	t, err := NewARFIMA(ARFIMALength)
	if err != nil {
		panic(err)
	}
	return t
}

// NewARFIMA is the ARFIMA(2, d, 1) model φ(L)(1 − L)^d X_t = ϑ(L)ε_t, ε_t ~ N(0, 1) i.i.d.,
// with φ(z) = 1 − φ₁z − φ₂z², ϑ(z) = 1 + ϑ₁z and θ = (φ₁, φ₂, ϑ₁, d), observed for n steps
// (the paper: n = 15,000, truth (0.45, 0.1, −0.4, 0.4), innovation variance 1 known). The prior
// is the paper's: uniform partial autocorrelations (r₁, r₂) of the AR part on (−1, 1)²
// (φ₁ = r₁(1 − r₂), φ₂ = r₂: stationary), ϑ₁ uniform on (−1, 1) (invertible), and
// d = tanh(d̃)/2 with d̃ ~ N(0, 1). The series is simulated exactly: the fractionally
// integrated noise (1 − L)^{−d}ε by circulant embedding (Davies and Harte 1987) of its
// autocovariance γ(0) = Γ(1 − 2d)/Γ(1 − d)², γ(k) = γ(k − 1)(k − 1 + d)/(k − d), then the
// ARMA filter, started at zero L steps early with L such that the AR part's transient has
// decayed below 10⁻¹² (at most 10⁵ steps). It returns an error for n < 16.
func NewARFIMA(n int) (*ARFIMATask, error) {
	if n < 16 {
		return nil, fmt.Errorf("task arfima: series length %d, want at least 16", n)
	}
	t := &ARFIMATask{n: n}
	t.base = &base{
		name: "arfima", prior: arfimaPrior{}, paramLabels: []string{"φ₁", "φ₂", "ϑ₁", "d"}, dataDim: n,
		row: func(rng *rand.Rand, theta, x []float64) {
			if err := simulateARFIMA(rng, theta, x); err != nil {
				nanFill(x)
			}
		},
	}
	return t, nil
}

// MustNewARFIMA is NewARFIMA for notebook cells: it panics with the error.
func MustNewARFIMA(n int) *ARFIMATask {
	t, err := NewARFIMA(n)
	if err != nil {
		panic(err)
	}
	return t
}

// arBurnIn is the number of steps after which the impulse response of the AR(2) part has
// fallen below 10⁻¹² (its largest reciprocal root has modulus ρ: ρ^L < 10⁻¹²), in [100, 10⁵].
func arBurnIn(phi1, phi2 float64) int {
	// Reciprocal roots λ of λ² − φ₁λ − φ₂ = 0.
	disc := phi1*phi1 + 4*phi2
	var rho float64
	if disc >= 0 {
		s := math.Sqrt(disc)
		rho = math.Max(math.Abs((phi1+s)/2), math.Abs((phi1-s)/2))
	} else {
		rho = math.Sqrt(-phi2)
	}
	if rho <= 0 {
		return 100
	}
	l := math.Ceil(math.Log(1e-12) / math.Log(rho))
	if math.IsNaN(l) || l > 1e5 {
		return 100000
	}
	return max(100, int(l))
}

// fiAutocov fills g with the autocovariances γ(0…len−1) of (1 − L)^{−d}ε, Var ε = 1.
func fiAutocov(d float64, g []float64) {
	lg1, _ := math.Lgamma(1 - 2*d)
	lg2, _ := math.Lgamma(1 - d)
	g[0] = math.Exp(lg1 - 2*lg2)
	for k := 1; k < len(g); k++ {
		g[k] = g[k-1] * (float64(k) - 1 + d) / (float64(k) - d)
	}
}

// simulateARFIMA writes one series of length len(x) for θ = (φ₁, φ₂, ϑ₁, d).
func simulateARFIMA(rng *rand.Rand, theta, x []float64) error {
	phi1, phi2, ma, d := theta[0], theta[1], theta[2], theta[3]
	burn := arBurnIn(phi1, phi2)
	n := len(x) + burn + 1
	w, err := fiNoise(rng, d, n)
	if err != nil {
		return err
	}
	var y1, y2 float64 // X_{t−1}, X_{t−2}
	for t := 1; t < n; t++ {
		y := phi1*y1 + phi2*y2 + w[t] + ma*w[t-1]
		y2, y1 = y1, y
		if k := t - 1 - burn; k >= 0 {
			x[k] = y
		}
	}
	return nil
}

// fiNoise draws n values of fractionally integrated noise with parameter d by circulant
// embedding: with c the first row of the 2n-circulant that extends γ(0…n), λ = DFT(c) ≥ 0 its
// eigenvalues, and w₀ = √(λ₀/M)Z₀, w_n = √(λ_n/M)Z_n, w_k = √(λ_k/(2M))(Z_k + iZ'_k) (M = 2n),
// the series Σ_k w_k e^{2πijk/M} over the Hermitian extension of w has covariance γ exactly.
// The embedding has size M = 2N with N ≥ n the next number whose only prime factors are 2, 3
// and 5 (the FFT is then O(M log M)); the first n values are returned.
func fiNoise(rng *rand.Rand, d float64, n int) ([]float64, error) {
	half := smooth235(n)
	m := 2 * half
	g := make([]float64, half+1)
	fiAutocov(d, g)
	c := make([]float64, m)
	copy(c, g)
	for k := 1; k < half; k++ {
		c[m-k] = g[k]
	}
	fft := fourier.NewFFT(m)
	lam := fft.Coefficients(nil, c)
	w := make([]complex128, half+1)
	for k, l := range lam {
		v := real(l)
		if v < 0 {
			if v < -1e-8*g[0] {
				return nil, fmt.Errorf("task arfima: circulant embedding has a negative eigenvalue %g at d = %g", v, d)
			}
			v = 0
		}
		if k == 0 || k == half {
			w[k] = complex(math.Sqrt(v/float64(m))*rng.NormFloat64(), 0)
		} else {
			s := math.Sqrt(v / float64(2*m))
			w[k] = complex(s*rng.NormFloat64(), s*rng.NormFloat64())
		}
	}
	return fft.Sequence(nil, w)[:n], nil
}

// smooth235 is the smallest integer ≥ n whose prime factors are 2, 3 and 5 only.
func smooth235(n int) int {
	for m := max(n, 1); ; m++ {
		r := m
		for _, p := range [...]int{2, 3, 5} {
			for r%p == 0 {
				r /= p
			}
		}
		if r == 1 {
			return m
		}
	}
}

// Periodogram is I(ω_k) = |Σ_t x_t e^{−iω_k t}|²/(2πn) at the Fourier frequencies ω_k = 2πk/n,
// k = 1, …, ⌊(n−1)/2⌋ (the zero frequency, which the mean of x alone determines, is left out).
func Periodogram(x []float64) []float64 {
	n := len(x)
	c := fourier.NewFFT(n).Coefficients(nil, x)
	out := make([]float64, (n-1)/2)
	for k := range out {
		v := c[k+1]
		out[k] = (real(v)*real(v) + imag(v)*imag(v)) / (2 * math.Pi * float64(n))
	}
	return out
}

// SpectralDensity is the spectral density of the ARFIMA(2, d, 1) process at frequency ω,
//
//	f(ω) = (1/2π)·|ϑ(e^{−iω})|²/|φ(e^{−iω})|²·|2 sin(ω/2)|^{−2d},
//
// with |ϑ(e^{−iω})|² = 1 + ϑ₁² + 2ϑ₁cos ω and |φ(e^{−iω})|² = (1 − φ₁cos ω − φ₂cos 2ω)² +
// (φ₁sin ω + φ₂sin 2ω)².
func (t *ARFIMATask) SpectralDensity(theta []float64, omega float64) float64 {
	c, s := math.Cos(omega), math.Sin(omega)
	c2, s2 := math.Cos(2*omega), math.Sin(2*omega)
	return math.Exp(arfimaLogSpec(theta, c, s, c2, s2, math.Log(2*math.Abs(math.Sin(omega/2)))))
}

func arfimaLogSpec(theta []float64, c, s, c2, s2, logTwoSin float64) float64 {
	phi1, phi2, ma, d := theta[0], theta[1], theta[2], theta[3]
	num := 1 + ma*ma + 2*ma*c
	re := 1 - phi1*c - phi2*c2
	im := phi1*s + phi2*s2
	return math.Log(num) - math.Log(re*re+im*im) - 2*d*logTwoSin - math.Log(2*math.Pi)
}

// Whittle is the Whittle approximation of the ARFIMA likelihood for one series: its
// periodogram, computed once in O(n log n), and the trigonometric values of its Fourier
// frequencies, so that each evaluation costs O(n).
type Whittle struct {
	I                []float64 // periodogram at ω_k, k = 1…⌊(n−1)/2⌋
	cos, sin         []float64
	cos2, sin2, lsin []float64
}

// Whittle prepares the Whittle likelihood of the series x (length n of the task, finite).
func (t *ARFIMATask) Whittle(x []float64) (*Whittle, error) {
	if err := checkObs(t.name, x, t.n); err != nil {
		return nil, err
	}
	w := &Whittle{I: Periodogram(x)}
	k := len(w.I)
	w.cos, w.sin, w.cos2, w.sin2, w.lsin = make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		om := 2 * math.Pi * float64(j+1) / float64(t.n)
		w.cos[j], w.sin[j] = math.Cos(om), math.Sin(om)
		w.cos2[j], w.sin2[j] = math.Cos(2*om), math.Sin(2*om)
		w.lsin[j] = math.Log(2 * math.Sin(om/2))
	}
	return w, nil
}

// MustWhittle is Whittle for notebook cells: it panics with the error.
func (t *ARFIMATask) MustWhittle(x []float64) *Whittle {
	w, err := t.Whittle(x)
	if err != nil {
		panic(err)
	}
	return w
}

// LogLikelihood is the Whittle log-likelihood of Bon et al. (App. D.2),
//
//	ℓ_W(θ) = −Σ_k [log f_θ(ω_k) + I(ω_k)/f_θ(ω_k)],  k = 1, …, ⌊(n−1)/2⌋,
//
// which differs from the exact Gaussian log-likelihood by a constant and O(1) terms (the sum
// over half the frequencies is the whole sum by the symmetry f(−ω) = f(ω)). θ outside the
// stationary, invertible region (|r₁|, |r₂|, |ϑ₁| < 1, |d| < ½) gives −Inf.
func (w *Whittle) LogLikelihood(theta []float64) float64 {
	if !(arfimaPrior{}).InSupport(theta) {
		return math.Inf(-1)
	}
	// log f = log(num/den) − 2d·log(2 sin(ω/2)) − log 2π, with the logarithms and the powers
	// (2 sin(ω/2))^{2d} of all frequencies from one vector call each (kernels.Log, kernels.Exp);
	// arfimaLogSpec is the scalar reference.
	phi1, phi2, ma, d := theta[0], theta[1], theta[2], theta[3]
	k := len(w.I)
	buf := make([]float64, 2*k)
	ratio, pow := buf[:k], buf[k:]
	for j := range k {
		c := w.cos[j]
		re := 1 - phi1*c - phi2*w.cos2[j]
		im := phi1*w.sin[j] + phi2*w.sin2[j]
		ratio[j] = (1 + ma*ma + 2*ma*c) / (re*re + im*im)
		pow[j] = 2 * d * w.lsin[j]
	}
	kernels.Log(ratio, ratio)
	var ll float64
	for j := range k {
		ll -= ratio[j] - pow[j]
		pow[j] = -ratio[j] + pow[j] // −log f − log 2π
	}
	kernels.Exp(pow, pow)
	for j, iv := range w.I {
		ll -= 2 * math.Pi * iv * pow[j]
	}
	return ll + float64(k)*math.Log(2*math.Pi)
}

// whittleInfoPoints is the number of midpoints of the quadrature of WhittleInformation.
const whittleInfoPoints = 1 << 16

// WhittleInformation is the Fisher information per observation of the Whittle likelihood at θ
// (Whittle 1953; Fox and Taqqu 1986 for the long-memory case),
//
//	I(θ) = (1/4π) ∫_{−π}^{π} ∇log f_θ(ω) ∇log f_θ(ω)ᵀ dω,
//
// so that the Whittle estimator and the Whittle posterior of a series of n steps have the
// asymptotic covariance I(θ)⁻¹/n. The gradient of log f is analytic:
//
//	∂/∂φⱼ = 2[Re φ(e^{−iω})·cos jω − Im φ(e^{−iω})·sin jω]/|φ(e^{−iω})|²,
//	∂/∂ϑ₁ = 2(ϑ₁ + cos ω)/|ϑ(e^{−iω})|²,  ∂/∂d = −2 log(2 sin(ω/2)),
//
// and the integral over (0, π) is taken by the midpoint rule in t with ω = πt², which removes
// the logarithmic singularity of ∂/∂d at ω = 0 (relative error below 10⁻⁶). It returns an error
// for θ outside the stationary, invertible region.
func (t *ARFIMATask) WhittleInformation(theta []float64) (*mat.SymDense, error) {
	if !(arfimaPrior{}).InSupport(theta) {
		return nil, fmt.Errorf("task arfima: θ = %v outside the stationary, invertible region (|r₁|, |r₂|, |ϑ₁| < 1, |d| < ½)", theta)
	}
	phi1, phi2, ma := theta[0], theta[1], theta[2] // the gradient of log f does not depend on d
	var acc [4][4]float64
	g := make([]float64, 4)
	const k = whittleInfoPoints
	for i := range k {
		tt := (float64(i) + 0.5) / k
		om := math.Pi * tt * tt
		w := 2 * math.Pi * tt / k // dω = 2πt dt
		c, s := math.Cos(om), math.Sin(om)
		c2, s2 := math.Cos(2*om), math.Sin(2*om)
		re := 1 - phi1*c - phi2*c2
		im := phi1*s + phi2*s2
		den := re*re + im*im
		g[0] = 2 * (re*c - im*s) / den
		g[1] = 2 * (re*c2 - im*s2) / den
		g[2] = 2 * (ma + c) / (1 + ma*ma + 2*ma*c)
		g[3] = -2 * math.Log(2*math.Sin(om/2))
		for a := range 4 {
			for b := 0; b <= a; b++ {
				acc[a][b] += w * g[a] * g[b]
			}
		}
	}
	info := mat.NewSymDense(4, nil)
	for a := range 4 {
		for b := 0; b <= a; b++ {
			info.SetSym(a, b, acc[a][b]/(2*math.Pi)) // (1/4π)∫_{−π}^{π} = (1/2π)∫_0^π
		}
	}
	return info, nil
}

// MustWhittleInformation is WhittleInformation for notebook cells: it panics with the error.
func (t *ARFIMATask) MustWhittleInformation(theta []float64) *mat.SymDense {
	info, err := t.WhittleInformation(theta)
	if err != nil {
		panic(err)
	}
	return info
}

// arfimaPrior is the prior of NewARFIMA on θ = (φ₁, φ₂, ϑ₁, d).
type arfimaPrior struct{}

func (arfimaPrior) Dim() int { return 4 }

// toPACF returns (r₁, r₂, ϑ₁, d) for θ: r₂ = φ₂, r₁ = φ₁/(1 − φ₂).
func toPACF(theta []float64) (r1, r2 float64) {
	return theta[0] / (1 - theta[1]), theta[1]
}

func (arfimaPrior) InSupport(theta []float64) bool {
	if len(theta) != 4 || !(theta[1] > -1 && theta[1] < 1) {
		return false
	}
	r1, _ := toPACF(theta)
	return r1 > -1 && r1 < 1 && theta[2] > -1 && theta[2] < 1 && theta[3] > -0.5 && theta[3] < 0.5
}

func (arfimaPrior) Support() (low, high []float64) {
	return []float64{-2, -1, -1, -0.5}, []float64{2, 1, 1, 0.5}
}

func (arfimaPrior) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(max(n, 1), 4, nil)
	for i := range n {
		r1, r2 := 2*rng.Float64()-1, 2*rng.Float64()-1
		out.SetRow(i, []float64{r1 * (1 - r2), r2, 2*rng.Float64() - 1, math.Tanh(rng.NormFloat64()) / 2})
	}
	if n == 0 {
		return &mat.Dense{}
	}
	return out
}

// LogProb is the density of θ: (r₁, r₂, ϑ₁) uniform on (−1, 1)³ with the Jacobian 1/(1 − φ₂)
// of (r₁, r₂) ↦ (φ₁, φ₂), and d with density N(atanh 2d; 0, 1)·2/(1 − 4d²).
func (p arfimaPrior) LogProb(theta *mat.Dense) []float64 {
	n, c := theta.Dims()
	if c != 4 {
		panic(fmt.Sprintf("task arfima: prior LogProb of %d-column points, want 4", c))
	}
	lp := make([]float64, n)
	for i := range n {
		th := theta.RawRowView(i)
		if !p.InSupport(th) {
			lp[i] = math.Inf(-1)
			continue
		}
		dt := math.Atanh(2 * th[3])
		lp[i] = 3*math.Log(0.5) - math.Log(1-th[1]) - 0.5*dt*dt - 0.5*math.Log(2*math.Pi) + math.Log(2/(1-4*th[3]*th[3]))
	}
	return lp
}

// ToUnconstrained maps θ = (φ₁, φ₂, ϑ₁, d) to u = (atanh r₁, atanh r₂, atanh ϑ₁, atanh 2d), the
// coordinates in which the paper samples and calibrates, where the prior is a product of
// logistic-like densities and N(0, 1); it reports false outside the support.
func (t *ARFIMATask) ToUnconstrained(theta, u []float64) bool {
	if !(arfimaPrior{}).InSupport(theta) {
		return false
	}
	r1, r2 := toPACF(theta)
	u[0], u[1], u[2], u[3] = math.Atanh(r1), math.Atanh(r2), math.Atanh(theta[2]), math.Atanh(2*theta[3])
	return true
}

// FromUnconstrained is the inverse of ToUnconstrained.
func (t *ARFIMATask) FromUnconstrained(u, theta []float64) {
	r1, r2 := math.Tanh(u[0]), math.Tanh(u[1])
	theta[0], theta[1], theta[2], theta[3] = r1*(1-r2), r2, math.Tanh(u[2]), math.Tanh(u[3])/2
}

// logPriorU is the log prior density of u: log(1 − tanh²uⱼ) − log 2 for the three uniform
// coordinates (d r = (1 − tanh²u) du) and log N(u₄; 0, 1).
func logPriorU(u []float64) float64 {
	var lp float64
	for _, v := range u[:3] {
		th := math.Tanh(v)
		lp += math.Log1p(-th*th) - math.Ln2
	}
	return lp - 0.5*u[3]*u[3] - 0.5*math.Log(2*math.Pi)
}

// MCMCConfig sets the random-walk Metropolis sampler of the approximate posteriors. The zero
// value is the default.
type MCMCConfig struct {
	Burn  int // iterations discarded while the proposal adapts; default 2000
	Thin  int // iterations between kept draws; default 5
	Scale float64
	// Scale multiplies the adapted proposal covariance (2.38²/d times the sample covariance of
	// the chain, Haario et al. 2001); default 1.

	// LikelihoodPower raises the approximate likelihood to this power, π(θ)·L(θ)^p (a
	// tempered posterior, p > 1 narrower); default 1. Bon et al.'s Whittle formula (App. D.2)
	// sums over all Fourier frequencies −n/2 < k ≤ n/2, where each pair ±ω_k gives the same
	// term: read as printed it is the Whittle likelihood squared, p = 2.
	LikelihoodPower float64

	// RedrawPath applies to approximate likelihoods computed from a simulation
	// (LotkaVolterraSDETask.QuasiPosterior): a fresh coarse path at every evaluation, and the
	// current state re-evaluated before every acceptance test (Monte Carlo within Metropolis),
	// so the target is random itself, as in Bon et al.'s NUTS runs. By default the path's
	// noise is drawn once per call (common random numbers) and the target is a proper
	// density. Samplers of deterministic likelihoods (WhittlePosterior) refuse it.
	RedrawPath bool
}

func (c MCMCConfig) withDefaults() MCMCConfig {
	if c.Burn <= 0 {
		c.Burn = 2000
	}
	if c.Thin <= 0 {
		c.Thin = 5
	}
	if c.Scale <= 0 {
		c.Scale = 1
	}
	if c.LikelihoodPower == 0 {
		c.LikelihoodPower = 1
	}
	return c
}

func (c MCMCConfig) check() error {
	if c.LikelihoodPower < 0 || math.IsNaN(c.LikelihoodPower) || math.IsInf(c.LikelihoodPower, 0) {
		return fmt.Errorf("task: MCMCConfig.LikelihoodPower %g, want a finite power > 0 (0 means 1)", c.LikelihoodPower)
	}
	return nil
}

// WhittlePosterior draws n samples of the Whittle posterior of x, π(θ)·exp ℓ_W(θ) — the
// approximate posterior of Bon et al.'s ARFIMA example (they use an SMC sampler) — in the
// unconstrained coordinates u of ToUnconstrained (one per row), by adaptive random-walk
// Metropolis (see MCMCConfig) started at the mode found by Nelder–Mead from u = 0; with
// cfg.LikelihoodPower p the target is π(θ)·exp(p·ℓ_W(θ)). It returns an error for a bad
// series, a bad power or a chain that never moves.
func (t *ARFIMATask) WhittlePosterior(rng *rand.Rand, x []float64, n int, cfg MCMCConfig) (*mat.Dense, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.RedrawPath {
		return nil, errors.New("task arfima: MCMCConfig.RedrawPath is set, but the Whittle likelihood is deterministic; leave it false")
	}
	cfg = cfg.withDefaults()
	w, err := t.Whittle(x)
	if err != nil {
		return nil, err
	}
	theta := make([]float64, 4)
	logTarget := func(u []float64) float64 {
		t.FromUnconstrained(u, theta)
		return cfg.LikelihoodPower*w.LogLikelihood(theta) + logPriorU(u)
	}
	res, err := optimize.Minimize(optimize.Problem{Func: func(u []float64) float64 { return -logTarget(u) }},
		make([]float64, 4), &optimize.Settings{MajorIterations: 4000}, &optimize.NelderMead{})
	if res == nil {
		return nil, fmt.Errorf("task arfima: finding the Whittle posterior's mode: %w", err)
	}
	return metropolis(rng, logTarget, res.X, n, cfg, false)
}

// MustWhittlePosterior is WhittlePosterior for notebook cells: it panics with the error.
func (t *ARFIMATask) MustWhittlePosterior(rng *rand.Rand, x []float64, n int, cfg MCMCConfig) *mat.Dense {
	u, err := t.WhittlePosterior(rng, x, n, cfg)
	if err != nil {
		panic(err)
	}
	return u
}

// WhittleRefit is the approximate method as Bayesian score calibration calls it (a
// calib.Refit): n draws of the Whittle posterior of a series, in the unconstrained coordinates
// u (map them back with FromUnconstrained).
func (t *ARFIMATask) WhittleRefit(cfg MCMCConfig) func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
	return func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return t.WhittlePosterior(rng, x, n, cfg)
	}
}

// metropolis runs adaptive random-walk Metropolis on logTarget from start: during the burn-in
// the Gaussian proposal's covariance is 2.38²/d times the running covariance of the chain
// (plus 10⁻⁶·I; the first 200 steps use 10⁻⁴·I), then it is frozen and every thin-th state is
// kept. It stops with an error when the host cancels (sbi.Canceled).
//
// With noisy set the target is re-evaluated at the current state before every acceptance test
// ("Monte Carlo within Metropolis"), for targets that are random themselves (a likelihood
// computed from a fresh simulation at every call), so that one lucky value does not hold the
// chain.
func metropolis(rng *rand.Rand, logTarget func([]float64) float64, start []float64, n int, cfg MCMCConfig, noisy bool) (*mat.Dense, error) {
	d := len(start)
	cur := append([]float64(nil), start...)
	lcur := logTarget(cur)
	for try := 1; noisy && try < 10 && !(lcur > math.Inf(-1)); try++ {
		lcur = logTarget(cur) // a random target may be −Inf at a fine start by chance
	}
	if math.IsInf(lcur, -1) || math.IsNaN(lcur) {
		return nil, errors.New("task: the sampler's starting point has zero posterior density")
	}
	mean := append([]float64(nil), cur...)
	cov := mat.NewSymDense(d, nil)
	var chol mat.Cholesky
	var L mat.TriDense
	setProposal := func(scale float64, c *mat.SymDense) bool {
		p := mat.NewSymDense(d, nil)
		p.ScaleSym(scale, c)
		for j := range d {
			p.SetSym(j, j, p.At(j, j)+1e-6)
		}
		if !chol.Factorize(p) {
			return false
		}
		chol.LTo(&L)
		return true
	}
	ident := mat.NewSymDense(d, nil)
	for j := range d {
		ident.SetSym(j, j, 1e-4)
	}
	setProposal(1, ident)
	out := mat.NewDense(max(n, 1), d, nil)
	prop, z := make([]float64, d), make([]float64, d)
	accepted, kept := 0, 0
	total := cfg.Burn + n*cfg.Thin
	for it := 0; it < total; it++ {
		if it%1000 == 0 {
			if err := sbi.Canceled("posterior sampling"); err != nil {
				return nil, err
			}
		}
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for j := range d {
			s := cur[j]
			for k := 0; k <= j; k++ {
				s += L.At(j, k) * z[k]
			}
			prop[j] = s
		}
		lp := logTarget(prop)
		if noisy {
			lcur = logTarget(cur)
		}
		if math.Log(rng.Float64()) < lp-lcur {
			copy(cur, prop)
			lcur = lp
			accepted++
		}
		if it < cfg.Burn {
			// Running mean and covariance (Welford).
			k := float64(it + 2)
			for a := range d {
				delta := cur[a] - mean[a]
				mean[a] += delta / k
				for b := 0; b <= a; b++ {
					cov.SetSym(a, b, cov.At(a, b)+(delta*(cur[b]-mean[b])-cov.At(a, b))/k)
				}
			}
			if it >= 200 && it%50 == 0 {
				setProposal(cfg.Scale*2.38*2.38/float64(d), cov)
			}
			continue
		}
		if (it-cfg.Burn)%cfg.Thin == cfg.Thin-1 {
			out.SetRow(kept, cur)
			kept++
		}
	}
	if accepted == 0 {
		return nil, errors.New("task: the sampler accepted no proposal; the posterior may be degenerate")
	}
	if n == 0 {
		return &mat.Dense{}, nil
	}
	return out, nil
}

var _ dist.Distribution = arfimaPrior{}
