package calib

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// The synthetic problem of the regularizer tests: prior θ ~ N(0, I₂), observation
// x = θ + s·ε with ε ~ N(0, I₂). The exact posterior is N(x/(1+s²), s²/(1+s²)·I₂).
const (
	gDim   = 2
	gNoise = 0.5
)

var gPostStd = gNoise / math.Sqrt(1+gNoise*gNoise)

// gaussModel is a diagonal Gaussian q(θ|x) = N(θ; a⊙x + μ, diag(exp(2ℓ))) whose parameters a,
// μ, ℓ (each 1×2) are variables on the tape: a stand-in for a trained NPE.
type gaussModel struct {
	a, mu, logStd *nn.Tensor
}

// newGauss returns the model with posterior mean x·slope and standard deviation std.
func newGauss(slope, std float64) *gaussModel {
	return &gaussModel{
		a:      nn.NewVariable(1, gDim, []float64{slope, slope}),
		mu:     nn.NewVariable(1, gDim, nil),
		logStd: nn.NewVariable(1, gDim, []float64{math.Log(std), math.Log(std)}),
	}
}

// exactGauss is the exact posterior scaled in width by widen.
func exactGauss(widen float64) *gaussModel {
	return newGauss(1/(1+gNoise*gNoise), widen*gPostStd)
}

// priorGauss is the prior, used as a posterior that ignores x.
func priorGauss() *gaussModel { return newGauss(0, 1) }

func (g *gaussModel) params() []*nn.Tensor { return []*nn.Tensor{g.a, g.mu, g.logStd} }

func (g *gaussModel) zeroGrad() {
	for _, p := range g.params() {
		p.ZeroGrad()
	}
}

// logPost builds log q(θⱼ | x_{rows[j]}) on tp.
func (g *gaussModel) logPost(tp *nn.Tape, x *mat.Dense) func(theta *mat.Dense, rows []int) *nn.Tensor {
	return func(theta *mat.Dense, rows []int) *nn.Tensor {
		th := tp.FromDense(theta)
		xr := tp.Gather(x, rows)
		mean := tp.Add(tp.Mul(xr, g.a), g.mu)
		z := tp.Div(tp.Sub(th, mean), tp.Exp(g.logStd))
		norm := tp.AddScalar(tp.Sum(g.logStd), gDim*0.5*math.Log(2*math.Pi))
		return tp.Sub(tp.Scale(tp.RowSum(tp.Square(z)), -0.5), norm)
	}
}

// logQ is the same density in plain Go.
func (g *gaussModel) logQ(theta, x []float64) float64 {
	s := 0.0
	for k := range theta {
		m := g.a.Data[k]*x[k] + g.mu.Data[k]
		z := (theta[k] - m) / math.Exp(g.logStd.Data[k])
		s += -0.5*z*z - g.logStd.Data[k] - 0.5*math.Log(2*math.Pi)
	}
	return s
}

// simulate draws n pairs of the synthetic problem.
func simulate(rng *rand.Rand, n int) (theta, x *mat.Dense) {
	theta = mat.NewDense(n, gDim, nil)
	x = mat.NewDense(n, gDim, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < gDim; k++ {
			t := rng.NormFloat64()
			theta.Set(i, k, t)
			x.Set(i, k, t+gNoise*rng.NormFloat64())
		}
	}
	return theta, x
}

// gaussBatch returns the batch that a trainer would hand the regularizer for model g.
func gaussBatch(tp *nn.Tape, g *gaussModel, theta, x *mat.Dense, seed uint64) *sbi.RegBatch {
	return &sbi.RegBatch{
		Tape:    tp,
		Rng:     rand.New(rand.NewPCG(seed, 7)),
		Prior:   dist.NewStandardNormal(gDim),
		Theta:   theta,
		X:       x,
		LogPost: g.logPost(tp, x),
	}
}
