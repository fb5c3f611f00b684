package sbitest

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// GaussianLinear is the conjugate task of the suite: θ ∈ R² with the prior
// N(μ₀, diag(σ₀²)), μ₀ = (0.5, −0.5), σ₀ = (1, 1.5), and an observation of T i.i.d. trials
// xₜ = Aθ + σεₜ ∈ R³ with
//
//	A = [1 0; 0 1; 1 1],  σ = 0.5,  εₜ ~ N(0, I₃),
//
// concatenated to 3T values. Its posterior is Gaussian (Bishop 2006, eq. 2.116–2.117):
//
//	Σ = (Σ₀⁻¹ + T·AᵀA/σ²)⁻¹,  μ = Σ·(Σ₀⁻¹μ₀ + Aᵀ·Σₜxₜ/σ²),
//
// for one trial sd ≈ (0.375, 0.387) and correlation −0.46: the prior's unequal scales test
// the standardization, the correlation the posterior's shape, and x of another width than θ
// the plumbing of dimensions.
type GaussianLinear struct {
	trials int
	prior  *dist.Normal
}

var (
	glMean  = []float64{0.5, -0.5}
	glStd   = []float64{1, 1.5}
	glA     = mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	glNoise = 0.5
)

// NewGaussianLinear returns the task with trials i.i.d. trials per observation (at least 1).
func NewGaussianLinear(trials int) *GaussianLinear {
	if trials < 1 {
		panic(fmt.Sprintf("sbitest: NewGaussianLinear: trials = %d, expected ≥ 1", trials))
	}
	return &GaussianLinear{trials: trials, prior: dist.NewNormal(glMean, glStd)}
}

// Prior is N(μ₀, diag(σ₀²)).
func (g *GaussianLinear) Prior() dist.Distribution { return g.prior }

// DataDim is the number of values of one observation, 3·trials.
func (g *GaussianLinear) DataDim() int { return 3 * g.trials }

// Simulate returns one observation per row of theta.
func (g *GaussianLinear) Simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	n, _ := theta.Dims()
	x := mat.NewDense(n, g.DataDim(), nil)
	for i := 0; i < n; i++ {
		th, row := theta.RawRowView(i), x.RawRowView(i)
		for t := 0; t < g.trials; t++ {
			for r := 0; r < 3; r++ {
				row[3*t+r] = glA.At(r, 0)*th[0] + glA.At(r, 1)*th[1] + glNoise*rng.NormFloat64()
			}
		}
	}
	return x
}

// Posterior is the closed-form posterior for the observation x (3·trials values).
func (g *GaussianLinear) Posterior(x []float64) *dist.MultivariateNormal {
	if len(x) != g.DataDim() {
		panic(fmt.Sprintf("sbitest: GaussianLinear.Posterior: x has %d values, expected %d", len(x), g.DataDim()))
	}
	prec := mat.NewSymDense(2, nil)
	var ata mat.Dense
	ata.Mul(glA.T(), glA)
	s2 := glNoise * glNoise
	rhs := make([]float64, 2)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			prec.SetSym(i, j, float64(g.trials)*ata.At(i, j)/s2)
		}
		prec.SetSym(i, i, prec.At(i, i)+1/(glStd[i]*glStd[i]))
		rhs[i] = glMean[i] / (glStd[i] * glStd[i])
	}
	for t := 0; t < g.trials; t++ {
		for r := 0; r < 3; r++ {
			for i := 0; i < 2; i++ {
				rhs[i] += glA.At(r, i) * x[3*t+r] / s2
			}
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(prec) {
		panic("sbitest: the posterior precision is not positive definite")
	}
	mean := mat.NewVecDense(2, nil)
	if err := chol.SolveVecTo(mean, mat.NewVecDense(2, rhs)); err != nil {
		panic(err)
	}
	return dist.NewMultivariateNormalPrecision([]float64{mean.AtVec(0), mean.AtVec(1)}, prec)
}
