package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// Normal is a Gaussian with independent coordinates: coordinate j is N(mean_j, std_j²).
type Normal struct {
	mean, std []float64
	logNorm   float64 // Σ log std_j + d·½log 2π
}

// NewNormal returns the diagonal Gaussian with the given means and standard deviations. It
// panics unless the lengths agree and every std is finite and positive.
func NewNormal(mean, std []float64) *Normal {
	checkLen("NewNormal", "std", len(std), len(mean))
	if len(mean) == 0 {
		panic("dist: NewNormal: mean is empty, expected at least one dimension")
	}
	checkFinite("NewNormal", "mean", mean)
	checkPositive("NewNormal", "std", std)
	d := &Normal{mean: append([]float64(nil), mean...), std: append([]float64(nil), std...)}
	for _, s := range std {
		d.logNorm += mathx.Log(s) + logSqrt2Pi
	}
	return d
}

// NewStandardNormal returns N(0, I) in dim dimensions.
func NewStandardNormal(dim int) *Normal { return NewNormal(make([]float64, dim), fill(dim, 1)) }

// Dim is the number of coordinates.
func (d *Normal) Dim() int { return len(d.mean) }

// Sample draws n points.
func (d *Normal) Sample(rng *rand.Rand, n int) *mat.Dense {
	return sampleCoords("Normal", n, d.Dim(), func(j int) float64 { return d.mean[j] + d.std[j]*rng.NormFloat64() })
}

// LogProb is Σ_j log N(x_j; mean_j, std_j²).
func (d *Normal) LogProb(x *mat.Dense) []float64 {
	return logProbRows("Normal", d, x, func(row []float64) float64 {
		s := 0.0
		for j, v := range row {
			z := (v - d.mean[j]) / d.std[j]
			s += z * z
		}
		return -0.5*s - d.logNorm
	})
}

// InSupport reports whether every coordinate is finite.
func (d *Normal) InSupport(x []float64) bool { return allFinite(x) && len(x) == d.Dim() }

// Support is all of R^d.
func (d *Normal) Support() (low, high []float64) {
	return fill(d.Dim(), math.Inf(-1)), fill(d.Dim(), math.Inf(1))
}

// Mean returns a copy of the means.
func (d *Normal) Mean() []float64 { return append([]float64(nil), d.mean...) }

// Std returns a copy of the standard deviations.
func (d *Normal) Std() []float64 { return append([]float64(nil), d.std...) }

// Covariance is diag(std²).
func (d *Normal) Covariance() *mat.SymDense {
	return diagSym(coords(d.Dim(), func(j int) float64 { return d.std[j] * d.std[j] }))
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// MultivariateNormal is a Gaussian N(mean, Σ) with a full covariance matrix.
type MultivariateNormal struct {
	mean   []float64
	cov    *mat.SymDense
	chol   mat.Cholesky
	lower  *mat.TriDense
	logDet float64 // ½·log det Σ
}

// NewMultivariateNormal returns N(mean, cov). It panics unless mean is finite and cov is
// dim×dim, finite, symmetric and positive definite.
func NewMultivariateNormal(mean []float64, cov mat.Symmetric) *MultivariateNormal {
	if cov.SymmetricDim() != len(mean) {
		panic(fmt.Sprintf("dist: NewMultivariateNormal: covariance is %d×%d, expected %d×%d to match the mean",
			cov.SymmetricDim(), cov.SymmetricDim(), len(mean), len(mean)))
	}
	if len(mean) == 0 {
		panic("dist: NewMultivariateNormal: mean is empty, expected at least one dimension")
	}
	checkFinite("NewMultivariateNormal", "mean", mean)
	d := &MultivariateNormal{mean: append([]float64(nil), mean...), cov: mat.NewSymDense(len(mean), nil)}
	d.cov.CopySym(cov)
	for i := range mean {
		for j := i; j < len(mean); j++ {
			if v := d.cov.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				panic(fmt.Sprintf("dist: NewMultivariateNormal: covariance[%d][%d] = %v, expected a finite value", i, j, v))
			}
		}
	}
	if ok := d.chol.Factorize(d.cov); !ok {
		panic("dist: NewMultivariateNormal: covariance is not positive definite")
	}
	d.lower = mat.NewTriDense(len(mean), mat.Lower, nil)
	d.chol.LTo(d.lower)
	d.logDet = d.chol.LogDet() / 2
	return d
}

// NewMultivariateNormalPrecision returns N(mean, P⁻¹) for a precision matrix P.
func NewMultivariateNormalPrecision(mean []float64, precision mat.Symmetric) *MultivariateNormal {
	if len(mean) == 0 {
		panic("dist: NewMultivariateNormalPrecision: mean is empty, expected at least one dimension")
	}
	var c mat.Cholesky
	if ok := c.Factorize(precision); !ok {
		panic("dist: NewMultivariateNormalPrecision: precision matrix is not positive definite")
	}
	cov := mat.NewSymDense(precision.SymmetricDim(), nil)
	if err := c.InverseTo(cov); err != nil {
		panic(fmt.Sprintf("dist: NewMultivariateNormalPrecision: cannot invert the precision matrix: %v", err))
	}
	return NewMultivariateNormal(mean, cov)
}

// Dim is the number of coordinates.
func (d *MultivariateNormal) Dim() int { return len(d.mean) }

// Sample draws n points as mean + L·z with Σ = L·Lᵀ and z ~ N(0, I).
func (d *MultivariateNormal) Sample(rng *rand.Rand, n int) *mat.Dense {
	checkN("MultivariateNormal", n, d.Dim())
	dim := d.Dim()
	x := newDense(n, dim)
	z := make([]float64, dim)
	for i := 0; i < n; i++ {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := x.RawRowView(i)
		for j := 0; j < dim; j++ {
			s := d.mean[j]
			for k := 0; k <= j; k++ {
				s += d.lower.At(j, k) * z[k]
			}
			row[j] = s
		}
	}
	return x
}

// LogProb is −½‖L⁻¹(x−mean)‖² − ½ log det Σ − (d/2) log 2π.
func (d *MultivariateNormal) LogProb(x *mat.Dense) []float64 {
	dim := d.Dim()
	z := make([]float64, dim)
	return logProbRows("MultivariateNormal", d, x, func(row []float64) float64 {
		// Forward substitution L·z = x − mean.
		s := 0.0
		for j := 0; j < dim; j++ {
			v := row[j] - d.mean[j]
			for k := 0; k < j; k++ {
				v -= d.lower.At(j, k) * z[k]
			}
			z[j] = v / d.lower.At(j, j)
			s += z[j] * z[j]
		}
		return -0.5*s - d.logDet - float64(dim)*logSqrt2Pi
	})
}

// InSupport reports whether every coordinate is finite.
func (d *MultivariateNormal) InSupport(x []float64) bool { return allFinite(x) && len(x) == d.Dim() }

// Support is all of R^d.
func (d *MultivariateNormal) Support() (low, high []float64) {
	return fill(d.Dim(), math.Inf(-1)), fill(d.Dim(), math.Inf(1))
}

// Mean returns a copy of the mean.
func (d *MultivariateNormal) Mean() []float64 { return append([]float64(nil), d.mean...) }

// Covariance returns a copy of Σ.
func (d *MultivariateNormal) Covariance() *mat.SymDense {
	c := mat.NewSymDense(d.Dim(), nil)
	c.CopySym(d.cov)
	return c
}

// Score is ∇ₓ log p(x) = Σ⁻¹(mean − x) for every row of x, one row per row: the closed form
// that score-based tests (the kernel calibration tests of package diag) use for a Gaussian
// prediction. It panics when x has the wrong number of columns.
func (d *MultivariateNormal) Score(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	if c != d.Dim() {
		panic(fmt.Sprintf("dist: MultivariateNormal.Score: x has %d columns, expected %d", c, d.Dim()))
	}
	out := mat.NewDense(n, c, nil)
	diff := mat.NewVecDense(c, nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			diff.SetVec(j, d.mean[j]-row[j])
		}
		// Σ⁻¹v by the Cholesky factor: solve L·Lᵀ s = v.
		s := mat.NewVecDense(c, out.RawRowView(i))
		if err := d.chol.SolveVecTo(s, diff); err != nil {
			panic(fmt.Sprintf("dist: MultivariateNormal.Score: %v", err))
		}
	}
	return out
}

// Score is ∇ₓ log p(x) = (mean − x)/std² for every row of x, one row per row. It panics when x
// has the wrong number of columns.
func (d *Normal) Score(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	if c != d.Dim() {
		panic(fmt.Sprintf("dist: Normal.Score: x has %d columns, expected %d", c, d.Dim()))
	}
	out := mat.NewDense(n, c, nil)
	for i := 0; i < n; i++ {
		row, o := x.RawRowView(i), out.RawRowView(i)
		for j, v := range row {
			o[j] = (d.mean[j] - v) / (d.std[j] * d.std[j])
		}
	}
	return out
}
