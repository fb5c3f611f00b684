package diag

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// Prediction is one predicted distribution p as the score-based calibration tests see it: only
// its score ∇y log p(y) is needed, so p may be unnormalized.
type Prediction interface {
	Dim() int
	// Score returns ∇y log p(y) for every row of y, one row per row.
	Score(y *mat.Dense) *mat.Dense
}

// SampledPrediction is a Prediction that can also be sampled, as the sample-based MMD kernel on
// distributions and the SKCE baseline need.
type SampledPrediction interface {
	Prediction
	Sample(rng *rand.Rand, n int) *mat.Dense
}

// Gaussian is a multivariate normal prediction.
//
// Deprecated: use dist.MultivariateNormal (or dist.Normal), which the exact kernels accept.
type Gaussian = dist.MultivariateNormal

// NewGaussian returns N(mean, cov), or an error when cov is not symmetric positive definite or
// does not match the mean.
//
// Deprecated: use dist.NewMultivariateNormal.
func NewGaussian(mean []float64, cov mat.Symmetric) (g *Gaussian, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("diag: %v", r)
		}
	}()
	return dist.NewMultivariateNormal(mean, cov), nil
}

// NewIsoGaussian returns N(mean, variance·I).
//
// Deprecated: use dist.NewNormal(mean, std) with std = √variance in every coordinate.
func NewIsoGaussian(mean []float64, variance float64) *Gaussian {
	if !(variance > 0) || math.IsInf(variance, 0) {
		panic(fmt.Sprintf("diag: NewIsoGaussian needs a positive variance, got %g", variance))
	}
	cov := mat.NewSymDense(len(mean), nil)
	for i := range mean {
		cov.SetSym(i, i, variance)
	}
	return dist.NewMultivariateNormal(mean, cov)
}

// gaussian is a Gaussian prediction as the exact kernels read it: mean, covariance and
// precision, copied once from a *dist.MultivariateNormal or *dist.Normal.
type gaussian struct {
	Mean      []float64
	Cov, prec *mat.SymDense
}

// asGaussian returns the moments of p when it is a Gaussian of package dist.
func asGaussian(p Prediction) (*gaussian, bool) {
	var mean []float64
	var cov *mat.SymDense
	switch g := p.(type) {
	case *dist.MultivariateNormal:
		mean, cov = g.Mean(), g.Covariance()
	case *dist.Normal:
		mean, cov = g.Mean(), g.Covariance()
	default:
		return nil, false
	}
	var ch mat.Cholesky
	prec := mat.NewSymDense(len(mean), nil)
	if !ch.Factorize(cov) || ch.InverseTo(prec) != nil {
		return nil, false // the constructors of package dist refuse such a covariance
	}
	return &gaussian{Mean: mean, Cov: cov, prec: prec}, true
}

// PosteriorPrediction adapts any sbi.Posterior to a SampledPrediction. Its score is the
// central finite difference of LogProb with step h·max(1, |yⱼ|) (h = 1e-4 when h ≤ 0), computed
// in one batched LogProb call of 2d rows per point. The score must be finite wherever the test
// evaluates it: a posterior on a bounded support has none outside it, so test such posteriors
// with UnconstrainedPrediction (see "Supports" in the package documentation).
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

func (q *posteriorPrediction) Score(y *mat.Dense) *mat.Dense { return fdScore(q.p.LogProb, y, q.h) }

// UnconstrainedPrediction is the posterior p seen in the coordinates u of the bijection f, θ =
// f(u), typically dist.Unconstrain(prior) (logit for a box, log for a positive support): its log
// density is log p(f(u)) + log|det ∂f/∂u| (change of variables), finite on all of R^d when p is
// positive inside the support, and its score is the central difference of that log density in u
// (step h as in PosteriorPrediction). Score and Sample take and return points in u.
func UnconstrainedPrediction(p sbi.Posterior, f dist.Bijection, h float64) Prediction {
	if h <= 0 {
		h = 1e-4
	}
	return &unconstrainedPrediction{p: p, f: f, h: h}
}

type unconstrainedPrediction struct {
	p sbi.Posterior
	f dist.Bijection
	h float64
}

func (q *unconstrainedPrediction) Dim() int { return q.p.Dim() }

// logProb is log p(f(u)) + log|det ∂f/∂u| for every row of u.
func (q *unconstrainedPrediction) logProb(u *mat.Dense) []float64 {
	n, d := u.Dims()
	th := mat.NewDense(n, d, nil)
	for i := range n {
		q.f.Forward(u.RawRowView(i), th.RawRowView(i))
	}
	lp := q.p.LogProb(th)
	for i := range lp {
		lp[i] += q.f.LogAbsDetJacobian(u.RawRowView(i))
	}
	return lp
}

func (q *unconstrainedPrediction) Score(u *mat.Dense) *mat.Dense { return fdScore(q.logProb, u, q.h) }

// Sample draws θ from p and maps it to u = f⁻¹(θ); a draw on or outside the boundary of the
// support (which p should never give) becomes a row of NaN, which the tests refuse.
func (q *unconstrainedPrediction) Sample(rng *rand.Rand, n int) *mat.Dense {
	th := q.p.Sample(rng, n)
	r, d := th.Dims()
	u := mat.NewDense(r, d, nil)
	for i := range r {
		if !q.f.Inverse(th.RawRowView(i), u.RawRowView(i)) {
			for j := range d {
				u.Set(i, j, math.NaN())
			}
		}
	}
	return u
}

// fdScore is the central difference of logProb at every row of y, with step h·max(1, |yⱼ|), in
// one batched call of 2d + 1 rows per point. Where the central difference is not finite but
// log p(y) is (y next to a point where the density drops to zero, such as an edge of the
// support inside the domain), it is the one-sided difference towards the finite side; where
// neither side is finite the score is NaN, which the tests report as an error.
func fdScore(logProb func(*mat.Dense) []float64, y *mat.Dense, h float64) *mat.Dense {
	n, d := y.Dims()
	per := 2*d + 1
	pts := mat.NewDense(per*n, d, nil)
	steps := make([]float64, n*d)
	for i := range n {
		row := y.RawRowView(i)
		copy(pts.RawRowView(i*per+2*d), row)
		for j := range d {
			hj := h * math.Max(1, math.Abs(row[j]))
			steps[i*d+j] = hj
			plus := pts.RawRowView(i*per + 2*j)
			minus := pts.RawRowView(i*per + 2*j + 1)
			copy(plus, row)
			copy(minus, row)
			plus[j] += hj
			minus[j] -= hj
		}
	}
	lp := logProb(pts)
	out := mat.NewDense(n, d, nil)
	for i := range n {
		at := lp[i*per+2*d]
		for j := range d {
			hj := steps[i*d+j]
			plus, minus := lp[i*per+2*j], lp[i*per+2*j+1]
			s := (plus - minus) / (2 * hj)
			switch {
			case !math.IsNaN(s) && !math.IsInf(s, 0):
			case isFinite(at) && isFinite(plus):
				s = (plus - at) / hj
			case isFinite(at) && isFinite(minus):
				s = (at - minus) / hj
			default:
				s = math.NaN()
			}
			out.Set(i, j, s)
		}
	}
	return out
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
