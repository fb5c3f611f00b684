package task

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/gosbi/gosbi/sbi/dist"
)

// labels returns prefix₁ … prefixₙ.
func labels(prefix string, n int) []string {
	l := make([]string, n)
	for i := range l {
		sub := []rune(strconv.Itoa(i + 1))
		for k, r := range sub {
			sub[k] = '₀' + (r - '0')
		}
		l[i] = prefix + string(sub)
	}
	return l
}

// TwoMoonsTask is sbibm's two_moons task; it has an exact posterior.
type TwoMoonsTask struct{ *base }

// TwoMoons is sbibm's two_moons: θ ~ U(−1,1)²; a ~ U(−π/2, π/2), r ~ N(0.1, 0.01²),
// p = (r·cos a + 0.25, r·sin a), and x = p + (−|θ₁+θ₂|/√2, (θ₂−θ₁)/√2).
func TwoMoons() *TwoMoonsTask {
	return &TwoMoonsTask{&base{
		name: "two_moons", prior: dist.NewUniformCube(-1, 1, 2), paramLabels: labels("θ", 2),
		dataDim: 2, files: "two_moons", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			px, py := twoMoonsNoise(rng)
			z0 := (theta[0] + theta[1]) / math.Sqrt2
			z1 := (theta[1] - theta[0]) / math.Sqrt2
			x[0] = px - math.Abs(z0)
			x[1] = py + z1
		},
	}}
}

// twoMoonsNoise draws p = (r·cos a + 0.25, r·sin a).
func twoMoonsNoise(rng *rand.Rand) (float64, float64) {
	a := -math.Pi/2 + math.Pi*rng.Float64()
	r := 0.1 + 0.01*rng.NormFloat64()
	return r*math.Cos(a) + 0.25, r * math.Sin(a)
}

// GaussianLinearTask is sbibm's gaussian_linear task; its posterior is Gaussian.
type GaussianLinearTask struct{ *base }

// GaussianLinear is sbibm's gaussian_linear: θ ~ N(0, 0.1·I₁₀) (0.1 is the covariance, not
// the standard deviation) and x ~ N(θ, 0.1·I₁₀).
func GaussianLinear() *GaussianLinearTask {
	return &GaussianLinearTask{&base{
		name: "gaussian_linear", prior: dist.NewNormal(make([]float64, 10), fillv(10, math.Sqrt(0.1))),
		paramLabels: labels("θ", 10), dataDim: 10, files: "gaussian_linear", obsFile: "observation.csv",
		row: gaussianNoise(math.Sqrt(0.1)),
	}}
}

func gaussianNoise(std float64) func(rng *rand.Rand, theta, x []float64) {
	return func(rng *rand.Rand, theta, x []float64) {
		for j := range x {
			x[j] = theta[j] + std*rng.NormFloat64()
		}
	}
}

func fillv(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// GaussianLinearUniformTask is sbibm's gaussian_linear_uniform task.
type GaussianLinearUniformTask struct{ *base }

// GaussianLinearUniform is sbibm's gaussian_linear_uniform: θ ~ U(−1,1)¹⁰, x ~ N(θ, 0.1·I₁₀).
func GaussianLinearUniform() *GaussianLinearUniformTask {
	return &GaussianLinearUniformTask{&base{
		name: "gaussian_linear_uniform", prior: dist.NewUniformCube(-1, 1, 10),
		paramLabels: labels("θ", 10), dataDim: 10, files: "gaussian_linear_uniform", obsFile: "observation.csv",
		row: gaussianNoise(math.Sqrt(0.1)),
	}}
}

// GaussianMixtureTask is sbibm's gaussian_mixture task.
type GaussianMixtureTask struct{ *base }

// GaussianMixture is sbibm's gaussian_mixture (v1.1.0, after the batch fix): θ ~ U(−10,10)²
// and x ~ ½·N(θ, I) + ½·N(θ, 0.1²·I), one mixture component per simulation.
func GaussianMixture() *GaussianMixtureTask {
	return &GaussianMixtureTask{&base{
		name: "gaussian_mixture", prior: dist.NewUniformCube(-10, 10, 2),
		paramLabels: labels("θ", 2), dataDim: 2, files: "gaussian_mixture", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			s := 1.0
			if rng.Float64() < 0.5 {
				s = 0.1
			}
			for j := range x {
				x[j] = theta[j] + s*rng.NormFloat64()
			}
		},
	}}
}

// SLCP is sbibm's slcp task: θ ~ U(−3,3)⁵, m = (θ₁, θ₂), s₁ = θ₃², s₂ = θ₄², ρ = tanh θ₅,
// Σ = [[s₁², ρ·s₁·s₂], [ρ·s₁·s₂, s₂²]] + 10⁻⁶·I (so the variances are θ₃⁴ and θ₄⁴), and
// x holds 4 independent draws of N(m, Σ), flattened point by point (x₁,y₁,x₂,y₂,…).
func SLCP() Task {
	return &base{
		name: "slcp", prior: dist.NewUniformCube(-3, 3, 5), paramLabels: labels("θ", 5),
		dataDim: 8, files: "slcp", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			s1, s2 := theta[2]*theta[2], theta[3]*theta[3]
			rho := math.Tanh(theta[4])
			c00 := s1*s1 + 1e-6
			c01 := rho * s1 * s2
			c11 := s2*s2 + 1e-6
			// Cholesky factor of the 2×2 covariance.
			l00 := math.Sqrt(c00)
			l10 := c01 / l00
			l11 := math.Sqrt(c11 - l10*l10)
			for k := 0; k < 4; k++ {
				z0, z1 := rng.NormFloat64(), rng.NormFloat64()
				x[2*k] = theta[0] + l00*z0
				x[2*k+1] = theta[1] + l10*z0 + l11*z1
			}
		},
	}
}
