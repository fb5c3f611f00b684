package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// MeanFieldFit is a mean-field (fully factorized) Gaussian variational approximation of a
// posterior in the unconstrained coordinates u = f⁻¹(θ) of the prior's support (Map, a
// dist.SupportMap: log for a positive, logit for a bounded coordinate), as automatic
// differentiation variational inference (ADVI, Kucukelbir et al. 2017) fits it:
// q(u) = Πⱼ N(uⱼ; Meanⱼ, SDⱼ²), θ = f(u). It is an sbi.Posterior in θ.
type MeanFieldFit struct {
	Mean, SD   []float64 // of u
	Map        dist.SupportMap
	ELBO       float64 // the evidence lower bound at the fit, up to the constants of the log joint
	Iterations int     // optimizer iterations
}

// Dim is the number of parameters.
func (f *MeanFieldFit) Dim() int { return len(f.Mean) }

// SampleUnconstrained draws n points u ~ q, one per row.
func (f *MeanFieldFit) SampleUnconstrained(rng *rand.Rand, n int) *mat.Dense {
	d := len(f.Mean)
	out := mat.NewDense(max(n, 1), d, nil)
	for i := range n {
		row := out.RawRowView(i)
		for j := range d {
			row[j] = f.Mean[j] + f.SD[j]*rng.NormFloat64()
		}
	}
	if n == 0 {
		return &mat.Dense{}
	}
	return out
}

// Sample draws n parameter vectors θ = f(u), u ~ q.
func (f *MeanFieldFit) Sample(rng *rand.Rand, n int) *mat.Dense {
	u := f.SampleUnconstrained(rng, n)
	if n == 0 {
		return u
	}
	theta := mat.NewDense(n, len(f.Mean), nil)
	for i := range n {
		f.Map.Forward(u.RawRowView(i), theta.RawRowView(i))
	}
	return theta
}

// LogProb is the log density of q in θ: Σⱼ log N(uⱼ; Meanⱼ, SDⱼ²) − log|det ∂θ/∂u| at u = f⁻¹(θ),
// −Inf outside the support.
func (f *MeanFieldFit) LogProb(theta *mat.Dense) []float64 {
	n, c := theta.Dims()
	d := len(f.Mean)
	if c != d {
		panic(fmt.Sprintf("task: MeanFieldFit.LogProb of %d-column parameters, want %d", c, d))
	}
	lp := make([]float64, n)
	u := make([]float64, d)
	for i := range n {
		if !f.Map.Inverse(theta.RawRowView(i), u) {
			lp[i] = math.Inf(-1)
			continue
		}
		for j := range d {
			z := (u[j] - f.Mean[j]) / f.SD[j]
			lp[i] -= 0.5*z*z + math.Log(f.SD[j]) + 0.5*math.Log(2*math.Pi)
		}
		lp[i] -= f.Map.LogAbsDetJacobian(u)
	}
	return lp
}

// MIMEBundle shows the fit per coordinate of u.
func (f *MeanFieldFit) MIMEBundle() map[string]any {
	t := &table.Table{Title: "Mean-field variational fit (in unconstrained coordinates u)", Header: []string{"u", "mean", "sd"}}
	for j := range f.Mean {
		t.Add(fmt.Sprint(j), table.G(f.Mean[j]), table.G(f.SD[j]))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("ELBO %.6g (up to the constants of the log joint), %d BFGS iterations; θ = f(u) by the prior's support map", f.ELBO, f.Iterations))
	return t.Bundle()
}

// meanFieldNodes is the number of Gauss–Hermite nodes per coordinate of the ELBO's
// expectation: exact for log joints that are polynomials of degree ≤ 13 in each coordinate.
const meanFieldNodes = 7

// fitMeanField maximizes the evidence lower bound over mean-field Gaussians in u,
//
//	ELBO(m, ω) = E_{z~N(0,I)}[log p̃(m + e^ω ⊙ z)] + Σⱼ ωⱼ + const,
//
// where logJoint returns log p̃(u) (the log joint density of u, with the Jacobian of f) and
// its gradient. The expectation is a tensor-product Gauss–Hermite rule of meanFieldNodes
// points per coordinate, so that the objective and its gradient,
//
//	∂/∂m = E[∇log p̃(u)],   ∂/∂ωⱼ = E[∂ⱼlog p̃(u)·zⱼ]·e^{ωⱼ} + 1,
//
// are deterministic and BFGS converges to the mean-field optimum itself, where ADVI's
// stochastic gradients (Turing's ADVI(10, 1000) in Bon et al.) would leave optimization noise.
// It needs d ≤ 6 (7^d evaluations per objective).
func fitMeanField(logJoint func(u, grad []float64) float64, init, initSD []float64, smap dist.SupportMap) (*MeanFieldFit, error) {
	d := len(init)
	if d > 6 {
		return nil, fmt.Errorf("task: the quadrature mean-field fit handles up to 6 parameters, got %d", d)
	}
	x, w := make([]float64, meanFieldNodes), make([]float64, meanFieldNodes)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	// Nodes and weights of E over N(0, 1): z = √2·x, weight w/√π.
	for k := range x {
		x[k] *= math.Sqrt2
		w[k] /= math.Sqrt(math.Pi)
	}
	total := 1
	for range d {
		total *= meanFieldNodes
	}
	z := make([][]float64, total)
	weight := make([]float64, total)
	for q := range total {
		z[q] = make([]float64, d)
		weight[q] = 1
		r := q
		for j := range d {
			k := r % meanFieldNodes
			r /= meanFieldNodes
			z[q][j] = x[k]
			weight[q] *= w[k]
		}
	}
	u, g := make([]float64, d), make([]float64, d)
	negELBO := func(p, grad []float64) float64 {
		m, om := p[:d], p[d:]
		var val float64
		if grad != nil {
			clear(grad)
		}
		for q, zq := range z {
			for j := range d {
				u[j] = m[j] + math.Exp(om[j])*zq[j]
			}
			lp := logJoint(u, g)
			val += weight[q] * lp
			if grad != nil {
				for j := range d {
					grad[j] -= weight[q] * g[j]
					grad[d+j] -= weight[q] * g[j] * zq[j] * math.Exp(om[j])
				}
			}
		}
		for j := range d {
			val += om[j]
			if grad != nil {
				grad[d+j] -= 1
			}
		}
		if math.IsNaN(val) || math.IsInf(val, 0) {
			return math.Inf(1)
		}
		return -val
	}
	p0 := make([]float64, 2*d)
	copy(p0, init)
	for j := range d {
		p0[d+j] = math.Log(initSD[j])
	}
	problem := optimize.Problem{
		Func: func(p []float64) float64 { return negELBO(p, nil) },
		Grad: func(grad, p []float64) { negELBO(p, grad) },
	}
	res, err := optimize.Minimize(problem, p0, &optimize.Settings{GradientThreshold: 1e-9, MajorIterations: 2000}, &optimize.BFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("task: mean-field fit: %w", err)
	}
	if res == nil || math.IsInf(res.F, 0) || math.IsNaN(res.F) {
		return nil, errors.New("task: mean-field fit: the evidence lower bound is not finite at the start; check the data")
	}
	fit := &MeanFieldFit{Mean: append([]float64(nil), res.X[:d]...), SD: make([]float64, d), Map: smap, ELBO: -res.F, Iterations: res.Stats.MajorIterations}
	for j := range d {
		fit.SD[j] = math.Exp(res.X[d+j])
	}
	return fit, nil
}
