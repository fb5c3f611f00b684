package diag

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/sbi/dist"
)

// laplaceInflation multiplies the covariance of the Laplace component: a proposal somewhat
// wider than the posterior keeps the weights bounded where the posterior is not Gaussian.
const laplaceInflation = 2

// laplaceComponent returns N(θ̂, laplaceInflation·H⁻¹), with θ̂ the mode of logJoint found by
// Nelder–Mead from start (in the coordinates (θ − start)/scale) and H the central-difference
// Hessian of −logJoint at θ̂; ok is false where no positive-definite H is found.
func laplaceComponent(logJoint func([]float64) float64, start, scale []float64) (*dist.MultivariateNormal, bool) {
	d := len(start)
	at := func(z []float64) []float64 {
		th := make([]float64, d)
		for j := range th {
			th[j] = start[j] + scale[j]*z[j]
		}
		return th
	}
	neg := func(z []float64) float64 {
		v := logJoint(at(z))
		if math.IsNaN(v) || math.IsInf(v, -1) {
			return math.MaxFloat64 / 4
		}
		return -v
	}
	res, err := optimize.Minimize(optimize.Problem{Func: neg}, make([]float64, d),
		&optimize.Settings{FuncEvaluations: 400 * d, Converger: &optimize.FunctionConverge{Absolute: 1e-9, Iterations: 20 * d}},
		&optimize.NelderMead{SimplexSize: 0.5})
	if err != nil && res == nil {
		return nil, false
	}
	mode := at(res.X)
	f := func(th []float64) float64 { return -logJoint(th) }
	h, ok := hessian(f, mode, scale)
	if !ok {
		return nil, false
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return nil, false
	}
	cov := mat.NewSymDense(d, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil, false
	}
	cov.ScaleSym(laplaceInflation, cov)
	for j := 0; j < d; j++ {
		if v := cov.At(j, j); !(v > 0) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	var check mat.Cholesky
	if !check.Factorize(cov) {
		return nil, false
	}
	return dist.NewMultivariateNormal(mode, cov), true
}

// hessian is the central-difference Hessian of f at x. Its steps are half of each
// coordinate's standard deviation 1/√(∂²f/∂x²), measured first with steps of scale/100, so
// that they follow the curvature rather than a guess of it; ok is false where a second
// derivative is not positive and finite.
func hessian(f func([]float64) float64, x, scale []float64) (*mat.SymDense, bool) {
	d := len(x)
	f0 := f(x)
	shifted := func(steps ...float64) float64 { // steps: pairs (coordinate, step)
		y := append([]float64(nil), x...)
		for k := 0; k < len(steps); k += 2 {
			y[int(steps[k])] += steps[k+1]
		}
		return f(y)
	}
	h := make([]float64, d)
	for j := range h {
		s := scale[j] / 100
		c := (shifted(float64(j), s) + shifted(float64(j), -s) - 2*f0) / (s * s)
		if !(c > 0) || math.IsInf(c, 0) {
			return nil, false
		}
		h[j] = 0.5 / math.Sqrt(c)
	}
	out := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		hi := h[i]
		c := (shifted(float64(i), hi) + shifted(float64(i), -hi) - 2*f0) / (hi * hi)
		if !(c > 0) || math.IsInf(c, 0) {
			return nil, false
		}
		out.SetSym(i, i, c)
		for j := i + 1; j < d; j++ {
			hj := h[j]
			v := (shifted(float64(i), hi, float64(j), hj) - shifted(float64(i), hi, float64(j), -hj) -
				shifted(float64(i), -hi, float64(j), hj) + shifted(float64(i), -hi, float64(j), -hj)) / (4 * hi * hj)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false
			}
			out.SetSym(i, j, v)
		}
	}
	return out, true
}
