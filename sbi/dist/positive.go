package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// LogNormal has independent coordinates with log x_j ~ N(loc_j, scale_j²).
type LogNormal struct {
	loc, scale []float64
}

// NewLogNormal returns the product of log-normals with the given location and scale of log x.
func NewLogNormal(loc, scale []float64) *LogNormal {
	checkLen("NewLogNormal", "scale", len(scale), len(loc))
	if len(loc) == 0 {
		panic("dist: NewLogNormal: loc is empty, expected at least one dimension")
	}
	checkFinite("NewLogNormal", "loc", loc)
	checkPositive("NewLogNormal", "scale", scale)
	return &LogNormal{loc: append([]float64(nil), loc...), scale: append([]float64(nil), scale...)}
}

// Dim is the number of coordinates.
func (d *LogNormal) Dim() int { return len(d.loc) }

// Sample draws n points as exp(loc + scale·z).
func (d *LogNormal) Sample(rng *rand.Rand, n int) *mat.Dense {
	return sampleCoords("LogNormal", n, d.Dim(), func(j int) float64 { return math.Exp(d.loc[j] + d.scale[j]*rng.NormFloat64()) })
}

// LogProb is Σ_j [log N(log x_j; loc_j, scale_j²) − log x_j].
func (d *LogNormal) LogProb(x *mat.Dense) []float64 {
	return logProbRows("LogNormal", d, x, func(row []float64) float64 {
		s := 0.0
		for j, v := range row {
			l := mathx.Log(v)
			z := (l - d.loc[j]) / d.scale[j]
			s += -0.5*z*z - mathx.Log(d.scale[j]) - logSqrt2Pi - l
		}
		return s
	})
}

// InSupport reports whether every coordinate is positive and finite.
func (d *LogNormal) InSupport(x []float64) bool {
	for _, v := range x {
		if !(v > 0) || math.IsInf(v, 1) {
			return false
		}
	}
	return len(x) == d.Dim()
}

// Support is (0, ∞)^d.
func (d *LogNormal) Support() (low, high []float64) {
	return make([]float64, d.Dim()), fill(d.Dim(), math.Inf(1))
}

// Mean is exp(loc + scale²/2).
func (d *LogNormal) Mean() []float64 {
	return coords(d.Dim(), func(j int) float64 { return math.Exp(d.loc[j] + d.scale[j]*d.scale[j]/2) })
}

// Covariance is diagonal with (exp(scale²)−1)·exp(2·loc + scale²).
func (d *LogNormal) Covariance() *mat.SymDense {
	return diagSym(coords(d.Dim(), func(j int) float64 {
		s2 := d.scale[j] * d.scale[j]
		return math.Expm1(s2) * math.Exp(2*d.loc[j]+s2)
	}))
}

// Gamma has independent coordinates x_j ~ Gamma(shape_j, rate_j), with density
// rate^shape·x^(shape−1)·e^(−rate·x)/Γ(shape) on x ≥ 0.
type Gamma struct {
	shape, rate []float64
}

// NewGamma returns the product of Gamma distributions with the given shapes and rates.
func NewGamma(shape, rate []float64) *Gamma {
	checkLen("NewGamma", "rate", len(rate), len(shape))
	if len(shape) == 0 {
		panic("dist: NewGamma: shape is empty, expected at least one dimension")
	}
	checkPositive("NewGamma", "shape", shape)
	checkPositive("NewGamma", "rate", rate)
	return &Gamma{shape: append([]float64(nil), shape...), rate: append([]float64(nil), rate...)}
}

// Dim is the number of coordinates.
func (d *Gamma) Dim() int { return len(d.shape) }

// Sample draws n points.
func (d *Gamma) Sample(rng *rand.Rand, n int) *mat.Dense {
	return sampleCoords("Gamma", n, d.Dim(), func(j int) float64 { return sampleGamma(rng, d.shape[j]) / d.rate[j] })
}

// sampleGamma draws from Gamma(k, 1) with the method of Marsaglia and Tsang (2000), "A simple
// method for generating gamma variables", ACM TOMS 26(3): for k ≥ 1, with d = k − 1/3 and
// c = 1/√(9d), v = (1 + c·z)³ is accepted when log u < z²/2 + d − d·v + d·log v; for k < 1
// it uses Gamma(k) = Gamma(k+1)·u^(1/k).
func sampleGamma(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return sampleGamma(rng, k+1) * math.Pow(u, 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := rng.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*z*z*z*z {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*z*z+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// xlogy returns a·log(x) with 0·log(0) = 0, so that densities at the edge of the support are
// never NaN.
func xlogy(a, x float64) float64 {
	if a == 0 {
		return 0
	}
	return a * mathx.Log(x)
}

// LogProb is Σ_j [shape·log rate − log Γ(shape) + (shape−1)·log x − rate·x].
func (d *Gamma) LogProb(x *mat.Dense) []float64 {
	return logProbRows("Gamma", d, x, func(row []float64) float64 {
		s := 0.0
		for j, v := range row {
			s += gammaLogDensity(d.shape[j], d.rate[j], v)
		}
		return s
	})
}

// largeShape is the shape above which the Gamma and Beta log-densities are evaluated in the
// saddle-point form of gammaLogDensity and betaLogDensity. Below it the direct form is kept
// unchanged; at 1e6 the two agree to about 1e−10 (the direct form's rounding of terms of size
// a·log a), and beyond it the direct form loses about one more digit per decade of shape.
const largeShape = 1e6

// gammaLogDensity is log of the Gamma(a, rate) density at x ≥ 0. For a ≤ largeShape it is
// a·log rate − log Γ(a) + (a−1)·log x − rate·x. For larger a those terms are of size a·log a and
// cancel to O(log a), so it uses instead, with y = rate·x and Stirling's series
// log Γ(a) = (a−½)·log a − a + ½·log 2π + S(a),
//
//	log p = −bd0(a, y) + ½·log a − log x − ½·log 2π − S(a),
//
// in which bd0(a, y) = a·log(a/y) + y − a ≥ 0 is evaluated without cancellation (see bd0). This
// is the form of C. Loader (2000), "Fast and accurate computation of binomial probabilities".
func gammaLogDensity(a, rate, x float64) float64 {
	y := rate * x
	if a <= largeShape || y == 0 || math.IsInf(y, 1) {
		lg, _ := mathx.Lgamma(a)
		return a*mathx.Log(rate) - lg + xlogy(a-1, x) - rate*x
	}
	return -bd0(a, y) + 0.5*math.Log(a) - mathx.Log(x) - lnSqrt2Pi - stirlingTail(a)
}

// lnSqrt2Pi is ½·log 2π.
const lnSqrt2Pi = 0.91893853320467274178032973640561764

// stirlingTail is S(a) = log Γ(a) − (a−½)·log a + a − ½·log 2π for a > largeShape, from the
// asymptotic series S(a) = 1/(12a) − 1/(360a³) + 1/(1260a⁵) − … (Abramowitz and Stegun
// 6.1.41); the first omitted term is below 1e−33 for a > 1e6.
func stirlingTail(a float64) float64 {
	return (1 - 1/(30*a*a)) / (12 * a)
}

// bd0 returns a·log(a/y) + y − a for a, y > 0 (Loader 2000). Near y = a the two parts cancel;
// there, with v = (a−y)/(a+y), a·log(a/y) = a·log((1+v)/(1−v)) = 2a·(v + v³/3 + v⁵/5 + …) and
// y − a = −v·(a+y), so that
//
//	bd0 = v·(a−y) + 2a·Σ_{j≥1} v^(2j+1)/(2j+1),
//
// whose terms all have the sign of v·(a−y) ≥ 0. The series is used for |a−y| < 0.1·(a+y),
// where |v| < 0.1 and it converges by at least two digits a term.
func bd0(a, y float64) float64 {
	if math.Abs(a-y) >= 0.1*(a+y) {
		r := a / y
		if math.IsInf(r, 1) { // the quotient overflows (a tiny y): log a − log y
			return a*(math.Log(a)-mathx.Log(y)) + y - a
		}
		return a*math.Log(r) + y - a
	}
	v := (a - y) / (a + y)
	s := (a - y) * v
	v2 := v * v
	ej := 2 * a * v
	for j := 1; j < 1000; j++ {
		ej *= v2
		s1 := s + ej/float64(2*j+1)
		if s1 == s {
			return s1
		}
		s = s1
	}
	return s
}

// InSupport reports whether every coordinate is ≥ 0 and finite.
func (d *Gamma) InSupport(x []float64) bool {
	for _, v := range x {
		if !(v >= 0) || math.IsInf(v, 1) {
			return false
		}
	}
	return len(x) == d.Dim()
}

// Support is [0, ∞)^d.
func (d *Gamma) Support() (low, high []float64) {
	return make([]float64, d.Dim()), fill(d.Dim(), math.Inf(1))
}

// Mean is shape/rate.
func (d *Gamma) Mean() []float64 {
	return coords(d.Dim(), func(j int) float64 { return d.shape[j] / d.rate[j] })
}

// Covariance is diagonal with shape/rate².
func (d *Gamma) Covariance() *mat.SymDense {
	return diagSym(coords(d.Dim(), func(j int) float64 { return d.shape[j] / (d.rate[j] * d.rate[j]) }))
}

// Beta has independent coordinates x_j ~ Beta(alpha_j, beta_j) on [0, 1].
type Beta struct {
	alpha, beta []float64
}

// NewBeta returns the product of Beta distributions.
func NewBeta(alpha, beta []float64) *Beta {
	checkLen("NewBeta", "beta", len(beta), len(alpha))
	if len(alpha) == 0 {
		panic("dist: NewBeta: alpha is empty, expected at least one dimension")
	}
	checkPositive("NewBeta", "alpha", alpha)
	checkPositive("NewBeta", "beta", beta)
	return &Beta{alpha: append([]float64(nil), alpha...), beta: append([]float64(nil), beta...)}
}

// Dim is the number of coordinates.
func (d *Beta) Dim() int { return len(d.alpha) }

// Sample draws n points as G_a/(G_a + G_b) with independent Gamma(alpha,1) and Gamma(beta,1),
// as σ(log G_a − log G_b) (σ the logistic function) where G_a or G_b underflows float64's
// normal range (alpha, beta ≪ 1), so that the draw is never 0/0.
func (d *Beta) Sample(rng *rand.Rand, n int) *mat.Dense {
	return sampleCoords("Beta", n, d.Dim(), func(j int) float64 {
		a, la := sampleGammaLog(rng, d.alpha[j])
		b, lb := sampleGammaLog(rng, d.beta[j])
		if a < mathx.MinNormal || b < mathx.MinNormal {
			return logistic(la - lb)
		}
		return a / (a + b)
	})
}

// sampleGammaLog is sampleGamma, with the same draws, returning the value and its logarithm:
// for k < 1 the value G(k+1)·u^(1/k) underflows to 0 for most u when k is small (u^(1/k) <
// 1e−308 for u < 0.49 at k = 10⁻³), its logarithm log G(k+1) + log(u)/k does not.
func sampleGammaLog(rng *rand.Rand, k float64) (g, logG float64) {
	if k < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		g1 := sampleGamma(rng, k+1)
		return g1 * math.Pow(u, 1/k), math.Log(g1) + math.Log(u)/k
	}
	g = sampleGamma(rng, k)
	return g, math.Log(g)
}

func lbeta(a, b float64) float64 {
	la, _ := mathx.Lgamma(a)
	lb, _ := mathx.Lgamma(b)
	lab, _ := mathx.Lgamma(a + b)
	return la + lb - lab
}

// betaLogDensity is log of the Beta(a, b) density at 0 ≤ x ≤ 1. Unless a or b exceeds
// largeShape (or a + b overflows) it is (a−1)·log x + (b−1)·log(1−x) − log B(a, b). For a and b
// both above it those terms are of size a·log a and cancel to O(log a), so it uses instead,
// with n = a + b and Stirling's series
// for the three log Γ of log B(a, b) (the −a − b + n from them cancel exactly),
//
//	log p = −bd0(a, n·x) − bd0(b, n·(1−x)) − log x − log(1−x) + ½·(log a + log b − log n)
//	        − ½·log 2π − S(a) − S(b) + S(n),
//
// where the linear parts n·x − a and n·(1−x) − b of the two bd0 sum to zero (Loader 2000).
//
// With only one parameter above largeShape, log B(a, b) still cancels; see betaLogDensityOneLarge.
func betaLogDensity(a, b, x float64) float64 {
	// at x = 0 with a large a, or x = 1 with a large b, the density is 0 and nothing cancels
	if math.IsInf(a+b, 1) || (a <= largeShape && b <= largeShape) ||
		(x == 0 && a > largeShape) || (x == 1 && b > largeShape) {
		return xlogy(a-1, x) + xlogy(b-1, 1-x) - lbeta(a, b)
	}
	if b <= largeShape {
		return betaLogDensityOneLarge(a, b, x, mathx.Log(x), 1-x)
	}
	if a <= largeShape {
		return betaLogDensityOneLarge(b, a, 1-x, math.Log1p(-x), x)
	}
	n := a + b
	return -bd0(a, n*x) - bd0(b, n*(1-x)) - mathx.Log(x) - math.Log1p(-x) +
		0.5*(math.Log(a)+math.Log(b)-math.Log(n)) - lnSqrt2Pi -
		stirlingTail(a) - stirlingTail(b) + stirlingTail(n)
}

// betaLogDensityOneLarge is log of the Beta(a, b) density at u, for a > largeShape ≥ b and
// 0 < u ≤ 1, given logU = log u and w = 1 − u (the mirror Beta(b, a) at x passes u = 1 − x,
// logU = log1p(−x) and w = x, so that neither loses the digits of a small x). In log B(a, b)
// the difference log Γ(a) − log Γ(a+b) cancels terms of size a·log a to O(b·log a); with
// n = a + b and Stirling's series for both (as in gammaLogDensity) it is
//
//	log Γ(a) − log Γ(n) = (a−½)·log a − (n−½)·log n + b + S(a) − S(n)
//	                    = −b·log n + bd0(a, n) + ½·log1p(b/a) + S(a) − S(n),
//
// since (a−½)·log(a/n) + b = −a·log1p(b/a) + b + ½·log1p(b/a) and bd0(a, n) = −a·log1p(b/a) + b.
// With a·log u − bd0(a, n) = a·log(n·u/a) − b = −bd0(a, n·u) + n·u − a − b = −bd0(a, n·u) − n·w,
// the log-density (a−1)·log u + (b−1)·log w − log Γ(b) − log Γ(a) + log Γ(n) becomes
//
//	log p = [(b−1)·log(n·w) − n·w − log Γ(b)] + log n − bd0(a, n·u) − log u − ½·log1p(b/a) − S(a) + S(n),
//
// in which the bracket is the Gamma(b, 1) log-density at n·w (the limit of n·(1−u) as a → ∞)
// and the remaining terms after log n vanish as a → ∞, each computed without cancellation.
func betaLogDensityOneLarge(a, b, u, logU, w float64) float64 {
	n := a + b
	return gammaLogDensity(b, 1, n*w) + math.Log(n) - bd0(a, n*u) - logU -
		0.5*math.Log1p(b/a) - stirlingTail(a) + stirlingTail(n)
}

// LogProb is Σ_j [(alpha−1)·log x + (beta−1)·log(1−x) − log B(alpha, beta)].
func (d *Beta) LogProb(x *mat.Dense) []float64 {
	return logProbRows("Beta", d, x, func(row []float64) float64 {
		s := 0.0
		for j, v := range row {
			s += betaLogDensity(d.alpha[j], d.beta[j], v)
		}
		return s
	})
}

// InSupport reports whether 0 ≤ x_j ≤ 1 for every j.
func (d *Beta) InSupport(x []float64) bool {
	for _, v := range x {
		if !(v >= 0 && v <= 1) {
			return false
		}
	}
	return len(x) == d.Dim()
}

// Support is [0, 1]^d.
func (d *Beta) Support() (low, high []float64) { return make([]float64, d.Dim()), fill(d.Dim(), 1) }

// Mean is alpha/(alpha+beta).
func (d *Beta) Mean() []float64 {
	return coords(d.Dim(), func(j int) float64 { return d.alpha[j] / (d.alpha[j] + d.beta[j]) })
}

// Covariance is diagonal with alpha·beta/((alpha+beta)²(alpha+beta+1)).
func (d *Beta) Covariance() *mat.SymDense {
	return diagSym(coords(d.Dim(), func(j int) float64 {
		a, b := d.alpha[j], d.beta[j]
		return a * b / ((a + b) * (a + b) * (a + b + 1))
	}))
}
