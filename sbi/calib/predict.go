package calib

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// Prediction is one predicted distribution p as the score-based calibration tests see it: only
// its score ∇y log p(y) is needed, so p may be unnormalized.
type Prediction interface {
	Dim() int
	// Score returns ∇y log p(y) for every row of y, one row per row.
	Score(y *mat.Dense) *mat.Dense
}

// Sampler is a Prediction that can also be sampled, as the sample-based MMD kernel on
// distributions and the SKCE baseline need.
type Sampler interface {
	Sample(rng *rand.Rand, n int) *mat.Dense
}

// Gaussian is a multivariate normal prediction N(Mean, Cov). Tests use closed forms for it.
type Gaussian struct {
	Mean []float64
	Cov  *mat.SymDense

	prec *mat.SymDense
	chol mat.Cholesky
}

// NewGaussian returns N(mean, cov); cov must be symmetric positive definite.
func NewGaussian(mean []float64, cov mat.Symmetric) (*Gaussian, error) {
	d := len(mean)
	if cov.SymmetricDim() != d {
		return nil, fmt.Errorf("calib: covariance is %d×%d but the mean has %d entries", cov.SymmetricDim(), cov.SymmetricDim(), d)
	}
	g := &Gaussian{Mean: append([]float64(nil), mean...), Cov: mat.NewSymDense(d, nil)}
	g.Cov.CopySym(cov)
	if ok := g.chol.Factorize(g.Cov); !ok {
		return nil, fmt.Errorf("calib: covariance is not positive definite")
	}
	g.prec = mat.NewSymDense(d, nil)
	if err := g.chol.InverseTo(g.prec); err != nil {
		return nil, fmt.Errorf("calib: inverting the covariance: %w", err)
	}
	return g, nil
}

// NewIsoGaussian returns N(mean, variance·I).
func NewIsoGaussian(mean []float64, variance float64) *Gaussian {
	d := len(mean)
	cov := mat.NewSymDense(d, nil)
	for i := range d {
		cov.SetSym(i, i, variance)
	}
	g, err := NewGaussian(mean, cov)
	if err != nil {
		panic(fmt.Sprintf("calib: NewIsoGaussian needs a positive variance, got %g", variance))
	}
	return g
}

// Dim is the dimension.
func (g *Gaussian) Dim() int { return len(g.Mean) }

// Score is Σ⁻¹(μ − y) for every row of y.
func (g *Gaussian) Score(y *mat.Dense) *mat.Dense {
	n, d := y.Dims()
	if d != len(g.Mean) {
		panic(fmt.Sprintf("calib: Gaussian score of %d-column points, want %d", d, len(g.Mean)))
	}
	out := mat.NewDense(n, d, nil)
	diff := make([]float64, d)
	for i := range n {
		row := y.RawRowView(i)
		for j := range d {
			diff[j] = g.Mean[j] - row[j]
		}
		o := out.RawRowView(i)
		for j := range d {
			var s float64
			for k := range d {
				s += g.prec.At(j, k) * diff[k]
			}
			o[j] = s
		}
	}
	return out
}

// Sample draws n points.
func (g *Gaussian) Sample(rng *rand.Rand, n int) *mat.Dense {
	d := len(g.Mean)
	var u mat.TriDense
	g.chol.LTo(&u)
	out := mat.NewDense(n, d, nil)
	z := make([]float64, d)
	for i := range n {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		o := out.RawRowView(i)
		for j := range d {
			s := g.Mean[j]
			for k := 0; k <= j; k++ {
				s += u.At(j, k) * z[k]
			}
			o[j] = s
		}
	}
	return out
}

// PosteriorPrediction adapts any sbi.Posterior to a Prediction and Sampler. Its score is the
// central finite difference of LogProb with step h·max(1, |yⱼ|) (h = 1e-4 when h ≤ 0), computed
// in one batched LogProb call of 2d rows per point. Box-bounded posteriors should be tested in
// unconstrained coordinates: the score must exist everywhere (see the package notes on KCCSD).
func PosteriorPrediction(p sbi.Posterior, h float64) Prediction {
	if h <= 0 {
		h = 1e-4
	}
	return &posteriorPrediction{p: p, h: h}
}

type posteriorPrediction struct {
	p sbi.Posterior
	h float64
}

func (q *posteriorPrediction) Dim() int { return q.p.Dim() }

func (q *posteriorPrediction) Sample(rng *rand.Rand, n int) *mat.Dense { return q.p.Sample(rng, n) }

func (q *posteriorPrediction) Score(y *mat.Dense) *mat.Dense {
	n, d := y.Dims()
	pts := mat.NewDense(2*d*n, d, nil)
	steps := make([]float64, n*d)
	for i := range n {
		row := y.RawRowView(i)
		for j := range d {
			h := q.h * math.Max(1, math.Abs(row[j]))
			steps[i*d+j] = h
			plus := pts.RawRowView((i*d + j) * 2)
			minus := pts.RawRowView((i*d+j)*2 + 1)
			copy(plus, row)
			copy(minus, row)
			plus[j] += h
			minus[j] -= h
		}
	}
	lp := q.p.LogProb(pts)
	out := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			k := (i*d + j) * 2
			out.Set(i, j, (lp[k]-lp[k+1])/(2*steps[i*d+j]))
		}
	}
	return out
}
