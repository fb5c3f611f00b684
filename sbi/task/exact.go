package task

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

func checkObs(name string, x []float64, dim int) error {
	if len(x) != dim {
		return fmt.Errorf("task %s: ExactPosterior: x has %d values, expected %d", name, len(x), dim)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("task %s: ExactPosterior: x[%d] = %v, expected a finite value", name, i, v)
		}
	}
	return nil
}

// ExactPosterior of gaussian_linear is Gaussian with covariance (Σ₀⁻¹ + Σ⁻¹)⁻¹ = 0.05·I and
// mean (Σ₀⁻¹ + Σ⁻¹)⁻¹Σ⁻¹x = x/2, for prior N(0, 0.1·I) and likelihood N(θ, 0.1·I).
func (t *GaussianLinearTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, t.dataDim); err != nil {
		return nil, err
	}
	const priorVar, noiseVar = 0.1, 0.1
	postVar := 1 / (1/priorVar + 1/noiseVar)
	mean := make([]float64, len(x))
	for i, v := range x {
		mean[i] = postVar * v / noiseVar
	}
	return dist.NewNormal(mean, fillv(len(x), math.Sqrt(postVar))), nil
}

// ExactPosterior of gaussian_linear_uniform is N(x, 0.1·I) truncated to [−1, 1]¹⁰. Its mass
// is kept in logarithms wherever x lies outside the box; it returns an error where even the
// logarithm overflows (x beyond about 10¹⁵³).
func (t *GaussianLinearUniformTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, t.dataDim); err != nil {
		return nil, err
	}
	return checkMass(t.name, x, newTruncMixture(x, []float64{math.Sqrt(0.1)}, []float64{1}, -1, 1))
}

// checkMass refuses an observation so far outside the prior box that the logarithm of the
// truncated posterior's mass overflows (beyond about 10¹⁵³ standard deviations).
func checkMass(name string, x []float64, m *truncMixture) (dist.Distribution, error) {
	if math.IsInf(m.logZ, 0) || math.IsNaN(m.logZ) {
		return nil, fmt.Errorf("task %s: ExactPosterior: x = %v is too far from the prior's support for the truncated posterior to be computed", name, x)
	}
	return m, nil
}

// ExactPosterior of gaussian_mixture is ½·N(x, I) + ½·N(x, 0.01·I) truncated to [−10, 10]².
// Its mass is kept in logarithms wherever x lies outside the box; it returns an error where
// even the logarithm overflows (x beyond about 10¹⁵³).
func (t *GaussianMixtureTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, t.dataDim); err != nil {
		return nil, err
	}
	return checkMass(t.name, x, newTruncMixture(x, []float64{1, 0.1}, []float64{0.5, 0.5}, -10, 10))
}

// truncMixture is Σ_k w_k·N(mean, σ_k²·I) restricted to the cube [lo, hi]^d and renormalized.
// Component k keeps the mass Z_k = Π_j [Φ((hi−m_j)/σ_k) − Φ((lo−m_j)/σ_k)], so the truncated
// mixture picks k with probability ∝ w_k·Z_k and then draws each coordinate from its
// truncated normal by inverting the CDF. Far in a tail the masses and draws are taken as
// boxMass says.
type truncMixture struct {
	mean         []float64
	sd, w, logZk []float64
	lo, hi, logZ float64
	pick         []float64   // cumulative probabilities of the components after truncation
	box          [][]boxMass // per component, per coordinate
	unit         distuv.Normal
	dim          int
}

func newTruncMixture(mean, sd, w []float64, lo, hi float64) *truncMixture {
	m := &truncMixture{mean: append([]float64(nil), mean...), sd: sd, w: w, lo: lo, hi: hi,
		unit: distuv.Normal{Mu: 0, Sigma: 1}, dim: len(mean)}
	total := 0.0
	for k := range sd {
		lz := 0.0
		boxes := make([]boxMass, len(mean))
		for j, mu := range mean {
			boxes[j] = newBoxMass(m.unit, (lo-mu)/sd[k], (hi-mu)/sd[k])
			lz += boxes[j].logMass
		}
		m.box = append(m.box, boxes)
		m.logZk = append(m.logZk, lz)
		total += w[k] * math.Exp(lz)
	}
	if !(total >= mathx.MinNormal) { // the masses underflow: in logarithms
		m.logZ = logSumExp(w, m.logZk)
		acc := 0.0
		for k := range sd {
			acc += math.Exp(math.Log(w[k]) + m.logZk[k] - m.logZ)
			m.pick = append(m.pick, acc)
		}
		return m
	}
	m.logZ = math.Log(total)
	acc := 0.0
	for k := range sd {
		acc += w[k] * math.Exp(m.logZk[k]) / total
		m.pick = append(m.pick, acc)
	}
	return m
}

// logSumExp returns log Σ_k w_k·e^(l_k), −Inf where every term is 0 and NaN where every
// l_k is −Inf.
func logSumExp(w, l []float64) float64 {
	best := math.Inf(-1)
	for k := range l {
		best = math.Max(best, math.Log(w[k])+l[k])
	}
	sum := 0.0
	for k := range l {
		sum += math.Exp(math.Log(w[k]) + l[k] - best)
	}
	return best + math.Log(sum)
}

// upperTailMass is the mass Φ(b) − Φ(a) of a box in the upper tail (a > 0) below which it is
// taken, and drawn from, as Φ(−a) − Φ(−b): there the difference of two values near 1 has lost
// more than 10 of its 53 bits (and all of them beyond a ≈ 8.3).
const upperTailMass = 0x1p-10

// boxMass is the mass a unit normal puts on the standardized box [a, b] of one coordinate,
// as newTruncMixture computes it and Sample draws from it. Far in the upper tail the box is
// reflected into the lower one, where Φ keeps its relative precision. Where the mass is
// below the normal float64 numbers (the box beyond about 37.5 standard deviations, where Φ
// becomes subnormal and then 0) it is taken from log Φ (logPhi), and the draws invert log Φ.
type boxMass struct {
	a, b         float64 // the standardized bounds, reflected to (−b, −a) where flip
	flip         bool
	tiny         bool    // the mass is below the normal numbers: logPa and logPb hold log Φ(a), log Φ(b)
	pa, pb       float64 // Φ(a), Φ(b) of the (reflected) bounds, for the draws
	logPa, logPb float64
	logMass      float64 // log(Φ(b) − Φ(a))
}

func newBoxMass(unit distuv.Normal, a, b float64) boxMass {
	m := boxMass{a: a, b: b, pa: unit.CDF(a), pb: unit.CDF(b)}
	d := m.pb - m.pa
	if a > 0 && d < upperTailMass {
		m.a, m.b, m.flip = -b, -a, true
		m.pa, m.pb = unit.CDF(m.a), unit.CDF(m.b)
		d = m.pb - m.pa
	}
	if d >= mathx.MinNormal {
		m.logMass = mathx.Log(d) // math.Log(d), bit for bit: d is a normal number
		return m
	}
	m.tiny = true
	m.logPa, m.logPb = logPhi(unit, m.a), logPhi(unit, m.b)
	m.logMass = m.logPb + log1mExp(m.logPa-m.logPb)
	if math.IsInf(m.logPb, -1) {
		m.logMass = math.Inf(-1)
	}
	return m
}

// draw returns the point of the box at which the unit normal's mass below it, within the box,
// is the share u of the box's mass; where flip, it is that point of the reflected box
// [−b, −a] reflected back, so the mass below it within [a, b] is the share 1 − u (as
// uniform as u when u is uniform).
func (m boxMass) draw(unit distuv.Normal, u float64) float64 {
	var z float64
	if m.tiny {
		r := math.Exp(m.logPa - m.logPb) // Φ(a)/Φ(b)
		z = invLogPhi(unit, m.logPb+mathx.Log(r+u*(1-r)), m.a, m.b)
	} else {
		z = unit.Quantile(m.pa + (m.pb-m.pa)*u)
	}
	if m.flip {
		return -z
	}
	return z
}

// logPhiTail is the point below which logPhi takes log Φ from its asymptotic series: Φ is
// about 6e−300 there, normal, and the series' ninth term is below 1e−20.
const logPhiTail = -37.0

// logPhi returns log Φ(z). Below logPhiTail, where Φ(z) becomes subnormal and then 0, it is
// the asymptotic series of Mills' ratio (Abramowitz & Stegun 26.2.12):
//
//	log Φ(z) = −z²/2 − log(−z) − ½·log 2π + log(1 + Σ_{n≥1} (−1)ⁿ (2n−1)!!/z²ⁿ).
func logPhi(unit distuv.Normal, z float64) float64 {
	if z > logPhiTail {
		return mathx.Log(unit.CDF(z))
	}
	r := 1 / (z * z)
	s, term := 1.0, 1.0
	for n := 1; n <= 8; n++ {
		term *= -float64(2*n-1) * r
		s += term
	}
	return -z*z/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log(s)
}

// log1mExp returns log(1 − eˣ) for x ≤ 0 (Mächler 2012).
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// invLogPhi returns the z of [a, b] with logPhi(z) = l, by Newton's method from −√(−2l), which
// lies below z: log Φ is increasing and concave, so that the steps approach z from below. The
// derivative of log Φ is φ(z)/Φ(z).
func invLogPhi(unit distuv.Normal, l, a, b float64) float64 {
	z := math.Min(math.Max(-math.Sqrt(-2*l), a), b)
	for i := 0; i < 100; i++ {
		lp := logPhi(unit, z)
		step := (lp - l) / math.Exp(-z*z/2-0.5*math.Log(2*math.Pi)-lp)
		next := math.Min(math.Max(z-step, a), b)
		if next == z || math.Abs(next-z) <= 1e-15*math.Abs(z) {
			return next
		}
		z = next
	}
	return z
}

func (m *truncMixture) Dim() int { return m.dim }

func (m *truncMixture) Sample(rng *rand.Rand, n int) *mat.Dense {
	if n == 0 {
		return &mat.Dense{}
	}
	x := mat.NewDense(n, m.dim, nil)
	for i := 0; i < n; i++ {
		u := rng.Float64()
		k := 0
		for k < len(m.pick)-1 && u > m.pick[k] {
			k++
		}
		row := x.RawRowView(i)
		for j, mu := range m.mean {
			v := mu + m.sd[k]*m.box[k][j].draw(m.unit, rng.Float64())
			row[j] = math.Min(m.hi, math.Max(m.lo, v))
		}
	}
	return x
}

func (m *truncMixture) LogProb(x *mat.Dense) []float64 {
	r, c := x.Dims()
	if c != m.dim {
		panic(fmt.Sprintf("task: exact posterior LogProb: x has %d columns, expected %d", c, m.dim))
	}
	lp := make([]float64, r)
	for i := range lp {
		row := x.RawRowView(i)
		if !m.InSupport(row) {
			lp[i] = math.Inf(-1)
			continue
		}
		// log Σ_k w_k N(row; mean, σ_k² I) − log Σ_k w_k Z_k, with log-sum-exp.
		terms := make([]float64, len(m.sd))
		best := math.Inf(-1)
		for k, s := range m.sd {
			q := 0.0
			for j, v := range row {
				z := (v - m.mean[j]) / s
				q += z * z
			}
			terms[k] = math.Log(m.w[k]) - 0.5*q - float64(m.dim)*(math.Log(s)+0.5*math.Log(2*math.Pi))
			best = math.Max(best, terms[k])
		}
		sum := 0.0
		for _, v := range terms {
			sum += math.Exp(v - best)
		}
		lp[i] = best + math.Log(sum) - m.logZ
	}
	return lp
}

func (m *truncMixture) InSupport(x []float64) bool {
	for _, v := range x {
		if !(v >= m.lo && v <= m.hi) {
			return false
		}
	}
	return len(x) == m.dim
}

func (m *truncMixture) Support() (low, high []float64) {
	return fillv(m.dim, m.lo), fillv(m.dim, m.hi)
}

// ExactPosterior of two_moons samples p(θ | x) exactly by inverting the simulator: draw the
// noise p = (r·cos a + 0.25, r·sin a), then |z₀| = p₀ − x₀ and z₁ = x₁ − p₁, choose the sign of
// z₀ at random, rotate back θ₁ = (z₀ − z₁)/√2, θ₂ = (z₀ + z₁)/√2, and keep θ inside the prior
// box (rejection). LogProb is log p(x | θ) − log ∫_box p(x | θ′) dθ′ inside the box, where
// p(x | θ) = N(ρ; 0.1, 0.01²)/(π·ρ) with (u, v) = x − (−|z₀|, z₁) − (0.25, 0), ρ = ‖(u, v)‖,
// u > 0 (the density of the noise in polar coordinates). The normalizer equals 2·P(accepted)
// for the inversion with a random sign, estimated once from 2·10⁵ draws (relative error
// about 0.3% at the typical acceptance near 0.5).
func (t *TwoMoonsTask) ExactPosterior(x []float64) (dist.Distribution, error) {
	if err := checkObs(t.name, x, 2); err != nil {
		return nil, err
	}
	p := &twoMoonsPosterior{x0: x[0], x1: x[1]}
	const n = 200000
	rng := rand.New(rand.NewPCG(0x2d00, 0x5eed))
	acc := 0
	for i := 0; i < n; i++ {
		if _, ok := p.draw(rng); ok {
			acc++
		}
	}
	if acc == 0 {
		return nil, fmt.Errorf("task two_moons: ExactPosterior: x = %v is (almost) impossible under the prior: no θ in [−1,1]² reproduces it", x)
	}
	p.logNorm = math.Log(2 * float64(acc) / n)
	return p, nil
}

type twoMoonsPosterior struct {
	x0, x1  float64
	logNorm float64
}

// draw returns one inverse-simulator draw and whether it is valid and in the prior box.
func (p *twoMoonsPosterior) draw(rng *rand.Rand) ([2]float64, bool) {
	px, py := twoMoonsNoise(rng)
	z0 := px - p.x0
	z1 := p.x1 - py
	valid := z0 >= 0
	if rng.Float64() < 0.5 {
		z0 = -z0
	}
	th := [2]float64{(z0 - z1) / math.Sqrt2, (z0 + z1) / math.Sqrt2}
	return th, valid && math.Abs(th[0]) <= 1 && math.Abs(th[1]) <= 1
}

func (p *twoMoonsPosterior) Dim() int { return 2 }

func (p *twoMoonsPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	if n == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(n, 2, nil)
	for i := 0; i < n; {
		if th, ok := p.draw(rng); ok {
			out.Set(i, 0, th[0])
			out.Set(i, 1, th[1])
			i++
		}
	}
	return out
}

func (p *twoMoonsPosterior) LogProb(theta *mat.Dense) []float64 {
	r, c := theta.Dims()
	if c != 2 {
		panic(fmt.Sprintf("task: two_moons posterior LogProb: theta has %d columns, expected 2", c))
	}
	lp := make([]float64, r)
	for i := range lp {
		th := theta.RawRowView(i)
		if !p.InSupport(th) {
			lp[i] = math.Inf(-1)
			continue
		}
		z0 := (th[0] + th[1]) / math.Sqrt2
		z1 := (th[1] - th[0]) / math.Sqrt2
		u := p.x0 + math.Abs(z0) - 0.25
		v := p.x1 - z1
		rho := math.Hypot(u, v)
		if !(u > 0) || rho == 0 {
			lp[i] = math.Inf(-1)
			continue
		}
		d := (rho - 0.1) / 0.01
		lp[i] = -0.5*d*d - math.Log(0.01) - 0.5*math.Log(2*math.Pi) - math.Log(math.Pi*rho) - p.logNorm
	}
	return lp
}

func (p *twoMoonsPosterior) InSupport(th []float64) bool {
	return len(th) == 2 && math.Abs(th[0]) <= 1 && math.Abs(th[1]) <= 1
}

func (p *twoMoonsPosterior) Support() (low, high []float64) {
	return []float64{-1, -1}, []float64{1, 1}
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *GaussianLinearTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *GaussianLinearUniformTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *GaussianMixtureTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}

// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
func (t *TwoMoonsTask) MustExactPosterior(x []float64) dist.Distribution {
	return safe.Must(t.ExactPosterior(x))
}
