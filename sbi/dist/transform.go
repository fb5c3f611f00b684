package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// Bijection is an invertible, differentiable map of R^d onto its image, applied coordinate-wise
// or to a whole point.
type Bijection interface {
	// Forward sets y = f(x).
	Forward(x, y []float64)
	// Inverse sets x = f⁻¹(y) and reports whether y lies in the image of f.
	Inverse(y, x []float64) bool
	// LogAbsDetJacobian is log|det ∂f/∂x| at x.
	LogAbsDetJacobian(x []float64) float64
}

// Affine is the map y = Shift + Scale⊙x (element-wise), with every Scale_j ≠ 0.
type Affine struct {
	Shift, Scale []float64
}

// Forward sets y = Shift + Scale⊙x.
func (a Affine) Forward(x, y []float64) {
	for j := range x {
		y[j] = a.Shift[j] + a.Scale[j]*x[j]
	}
}

// Inverse sets x = (y − Shift)/Scale.
func (a Affine) Inverse(y, x []float64) bool {
	for j := range y {
		x[j] = (y[j] - a.Shift[j]) / a.Scale[j]
	}
	return true
}

// LogAbsDetJacobian is Σ log|Scale_j|.
func (a Affine) LogAbsDetJacobian(x []float64) float64 {
	s := 0.0
	for _, v := range a.Scale {
		s += mathx.Log(math.Abs(v))
	}
	return s
}

// Exp is the element-wise map y = exp(x) onto (0, ∞)^d.
type Exp struct{}

// Forward sets y = exp(x).
func (Exp) Forward(x, y []float64) {
	for j := range x {
		y[j] = math.Exp(x[j])
	}
}

// Inverse sets x = log(y); it reports false unless every y_j > 0.
func (Exp) Inverse(y, x []float64) bool {
	ok := true
	for j := range y {
		if !(y[j] > 0) {
			ok = false
		}
		x[j] = mathx.Log(y[j])
	}
	return ok
}

// LogAbsDetJacobian is Σ x_j.
func (Exp) LogAbsDetJacobian(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// Transformed is the distribution of y = f(x) for x drawn from a base distribution; its
// density is p_base(f⁻¹(y)) / |det ∂f/∂x| (change of variables).
type Transformed struct {
	base Distribution
	f    Bijection
}

// NewTransformed returns the distribution of f(x) with x ~ base. An Affine f (or *Affine) is
// checked as NewAffine checks its arguments.
func NewTransformed(base Distribution, f Bijection) *Transformed {
	switch a := f.(type) {
	case Affine:
		checkAffine("NewTransformed", base.Dim(), a.Shift, a.Scale)
	case *Affine:
		checkAffine("NewTransformed", base.Dim(), a.Shift, a.Scale)
	}
	return &Transformed{base: base, f: f}
}

// NewAffine returns the distribution of shift + scale⊙x with x ~ base. It panics unless the
// lengths match base.Dim() and every scale is finite and non-zero.
func NewAffine(base Distribution, shift, scale []float64) *Transformed {
	checkAffine("NewAffine", base.Dim(), shift, scale)
	return &Transformed{base: base, f: Affine{Shift: append([]float64(nil), shift...), Scale: append([]float64(nil), scale...)}}
}

// checkAffine panics unless shift and scale have dim values, all finite, and no scale is 0
// (the map would not be invertible and the density not defined).
func checkAffine(op string, dim int, shift, scale []float64) {
	checkLen(op, "shift", len(shift), dim)
	checkLen(op, "scale", len(scale), dim)
	checkFinite(op, "shift", shift)
	checkFinite(op, "scale", scale)
	for j, s := range scale {
		if s == 0 {
			panic(fmt.Sprintf("dist: %s: scale[%d] = 0, expected a non-zero scale", op, j))
		}
	}
}

// NewExp returns the distribution of exp(x) with x ~ base (element-wise), e.g. a log-uniform
// distribution from a BoxUniform.
func NewExp(base Distribution) *Transformed { return NewTransformed(base, Exp{}) }

// Base is the distribution that is transformed.
func (t *Transformed) Base() Distribution { return t.base }

// Dim is the base dimension.
func (t *Transformed) Dim() int { return t.base.Dim() }

// Sample draws from the base and maps every row.
func (t *Transformed) Sample(rng *rand.Rand, n int) *mat.Dense {
	x := t.base.Sample(rng, n)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		t.f.Forward(row, row)
	}
	return x
}

// LogProb is log p_base(f⁻¹(y)) − log|det ∂f/∂x| at x = f⁻¹(y).
func (t *Transformed) LogProb(y *mat.Dense) []float64 {
	n := checkCols("Transformed", t.Dim(), y)
	lp := make([]float64, n)
	if n == 0 {
		return lp
	}
	x := mat.NewDense(n, t.Dim(), nil)
	valid := make([]bool, n)
	for i := 0; i < n; i++ {
		valid[i] = t.f.Inverse(y.RawRowView(i), x.RawRowView(i)) && !hasNaN(y.RawRowView(i))
	}
	base := t.base.LogProb(x)
	for i := range lp {
		if !valid[i] || math.IsInf(base[i], -1) {
			lp[i] = math.Inf(-1)
			continue
		}
		lp[i] = base[i] - t.f.LogAbsDetJacobian(x.RawRowView(i))
		if math.IsNaN(lp[i]) {
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

// InSupport reports whether f⁻¹(y) lies in the support of the base.
func (t *Transformed) InSupport(y []float64) bool {
	x := make([]float64, len(y))
	return len(y) == t.Dim() && t.f.Inverse(y, x) && t.base.InSupport(x)
}

// Support maps the base's support box through f (exact for monotone element-wise maps such as
// Affine and Exp).
func (t *Transformed) Support() (low, high []float64) {
	bl, bh := t.base.Support()
	low, high = make([]float64, len(bl)), make([]float64, len(bh))
	t.f.Forward(bl, low)
	t.f.Forward(bh, high)
	for j := range low {
		if low[j] > high[j] {
			low[j], high[j] = high[j], low[j]
		}
	}
	return low, high
}

func (t *Transformed) meanCov() ([]float64, *mat.SymDense, bool) {
	switch f := t.f.(type) {
	case Affine:
		m, c, ok := MeanCov(t.base)
		if !ok {
			return nil, nil, false
		}
		d := len(m)
		mean := make([]float64, d)
		cov := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			mean[i] = f.Shift[i] + f.Scale[i]*m[i]
			for j := i; j < d; j++ {
				cov.SetSym(i, j, f.Scale[i]*f.Scale[j]*c.At(i, j))
			}
		}
		return mean, cov, true
	case Exp:
		if nb, ok := t.base.(*Normal); ok {
			ln := NewLogNormal(nb.mean, nb.std)
			return ln.Mean(), ln.Covariance(), true
		}
	}
	return nil, nil, false
}

// SupportMap is the element-wise bijection of R^d onto the interior of a support box
// (Low_j, High_j), where a bound may be infinite. Coordinate j maps u to θ by
//
//	θ = Low + (High − Low)·σ(u)   both bounds finite (σ the logistic function; u = logit)
//	θ = Low + exp(u)              only Low finite
//	θ = High − exp(−u)            only High finite
//	θ = u                         neither finite
//
// so that tests and samplers that need a density on all of R^d can work in u. The density of u is
// p(θ(u))·|det ∂θ/∂u| with log|∂θ/∂u| = log(High − Low) + log σ(u) + log σ(−u), u and −u for
// the four cases in order (change of variables).
type SupportMap struct {
	Low, High []float64
}

// Unconstrain returns the SupportMap of the support box of d (d.Support()).
func Unconstrain(d Distribution) SupportMap {
	low, high := d.Support()
	return NewSupportMap(low, high)
}

// NewSupportMap returns the SupportMap onto the box (low, high); ±Inf bounds are allowed. It
// panics unless the lengths match, no bound is NaN and low < high.
func NewSupportMap(low, high []float64) SupportMap {
	checkLen("NewSupportMap", "high", len(high), len(low))
	for j := range low {
		if !(low[j] < high[j]) {
			panic(fmt.Sprintf("dist: NewSupportMap: low[%d] = %v, high[%d] = %v, expected low < high", j, low[j], j, high[j]))
		}
	}
	return SupportMap{Low: append([]float64(nil), low...), High: append([]float64(nil), high...)}
}

// Identity reports whether every coordinate is unbounded, so that the map is θ = u.
func (s SupportMap) Identity() bool {
	for j := range s.Low {
		if !math.IsInf(s.Low[j], -1) || !math.IsInf(s.High[j], 1) {
			return false
		}
	}
	return true
}

// Forward sets θ = f(u) (x is u, y is θ).
func (s SupportMap) Forward(x, y []float64) {
	for j, u := range x {
		lo, hi := s.Low[j], s.High[j]
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			if s := logistic(u); math.IsInf(hi-lo, 1) {
				y[j] = lo*(1-s) + hi*s // the width overflows; lo < 0 < hi, so neither term does
			} else {
				y[j] = lo + (hi-lo)*s
			}
		case !math.IsInf(lo, 0):
			y[j] = lo + math.Exp(u)
		case !math.IsInf(hi, 0):
			y[j] = hi - math.Exp(-u)
		default:
			y[j] = u
		}
	}
}

// Inverse sets u = f⁻¹(θ) (y is θ, x is u); it reports false unless θ lies strictly inside the
// box (a bound itself maps to ±Inf).
func (s SupportMap) Inverse(y, x []float64) bool {
	ok := true
	for j, t := range y {
		lo, hi := s.Low[j], s.High[j]
		if !(t > lo && t < hi) {
			ok = false
		}
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			// logit((θ − lo)/(hi − lo)) = log(θ − lo) − log(hi − θ), exact near either bound;
			// halved where the width overflows
			if math.IsInf(hi-lo, 1) {
				x[j] = mathx.Log(t/2-lo/2) - mathx.Log(hi/2-t/2)
			} else {
				x[j] = mathx.Log(t-lo) - mathx.Log(hi-t)
			}
		case !math.IsInf(lo, 0):
			x[j] = mathx.Log(t - lo)
		case !math.IsInf(hi, 0):
			x[j] = -mathx.Log(hi - t)
		default:
			x[j] = t
		}
	}
	return ok
}

// LogAbsDetJacobian is Σⱼ log|∂θⱼ/∂uⱼ| at u (x is u).
func (s SupportMap) LogAbsDetJacobian(x []float64) float64 {
	var sum float64
	for j, u := range x {
		lo, hi := s.Low[j], s.High[j]
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			// log σ(u) + log σ(−u) = −softplus(−u) − softplus(u) = −|u| − 2·log1p(e^{−|u|}).
			sum += logWidth(lo, hi) - math.Abs(u) - 2*math.Log1p(math.Exp(-math.Abs(u)))
		case !math.IsInf(lo, 0):
			sum += u
		case !math.IsInf(hi, 0):
			sum -= u
		}
	}
	return sum
}

// logWidth is log(hi − lo), also where hi − lo overflows float64.
func logWidth(lo, hi float64) float64 {
	if w := hi - lo; !math.IsInf(w, 1) {
		return mathx.Log(w)
	}
	return math.Log(hi/2-lo/2) + math.Ln2
}

// logistic is σ(u) = 1/(1 + e^{−u}), without overflow for large |u|.
func logistic(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}
