package task

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

const (
	glmSteps  = 100 // time steps of the spike train
	glmParams = 10  // offset + 9 filter weights
)

// glmDesign is sbibm's fixed design matrix (100×10): row t is [1, s_t, s_{t−1}, …, s_{t−8}]
// with s = the stimulus (zero before t = 0), every value rounded to float32 as in sbibm's
// stored tensor.
var glmDesign = func() []float64 {
	s := glmStimulus()
	d := make([]float64, glmSteps*glmParams)
	for t := 0; t < glmSteps; t++ {
		d[t*glmParams] = 1
		for lag := 0; lag < glmParams-1; lag++ {
			if t-lag >= 0 {
				d[t*glmParams+1+lag] = s[t-lag]
			}
		}
	}
	return d
}()

// glmStimulus is sbibm's stimulus: numpy.random.RandomState(42).randn(100), as float32.
func glmStimulus() []float64 {
	mt := newMT19937(42)
	s := make([]float64, glmSteps)
	for i := range s {
		s[i] = float64(float32(mt.gauss()))
	}
	return s
}

// glmPrior is N(0, B⁻¹) with precision B: B₀₀ = 0.5 for the offset, and FᵀF for the filter,
// F = D² + diag(√(i/9)), i = 0…8, D the 9×9 first-difference matrix (ones on the diagonal,
// −1 below it) — sbibm's smoothness prior.
func glmPrior() *dist.MultivariateNormal {
	const m = glmParams - 1
	d := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		d.Set(i, i, 1)
		if i > 0 {
			d.Set(i, i-1, -1)
		}
	}
	var f mat.Dense
	f.Mul(d, d)
	for i := 0; i < m; i++ {
		f.Set(i, i, f.At(i, i)+math.Sqrt(float64(i)/m))
	}
	var ftf mat.Dense
	ftf.Mul(f.T(), &f)
	prec := mat.NewSymDense(glmParams, nil)
	prec.SetSym(0, 0, 0.5)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			prec.SetSym(1+i, 1+j, ftf.At(i, j))
		}
	}
	return dist.NewMultivariateNormalPrecision(make([]float64, glmParams), prec)
}

// glmSpikes draws the spike train y_t ~ Bernoulli(σ(X_t·θ)), t = 0…99.
func glmSpikes(rng *rand.Rand, theta, y []float64) {
	for t := 0; t < glmSteps; t++ {
		psi := 0.0
		for j := 0; j < glmParams; j++ {
			psi += glmDesign[t*glmParams+j] * theta[j]
		}
		z := 1 / (1 + math.Exp(-psi))
		y[t] = 0
		if rng.Float64() < z {
			y[t] = 1
		}
	}
}

// BernoulliGLM is sbibm's bernoulli_glm: θ ∈ R¹⁰ with the smoothness prior above; a spike train
// of 100 steps y_t ~ Bernoulli(σ(X_t·θ)) and the summary x = Xᵀy: the spike count followed by
// the spike-triggered sums Σ_t y_t·s_{t−m}, m = 0…8 (what sbibm's conv1d(y, stimulus,
// padding=8)[-9:] computes).
func BernoulliGLM() Task {
	return &base{
		name: "bernoulli_glm", prior: glmPrior(), paramLabels: labels("θ", glmParams),
		dataDim: glmParams, files: "bernoulli_glm", obsFile: "observation.csv",
		row: func(rng *rand.Rand, theta, x []float64) {
			var y [glmSteps]float64
			glmSpikes(rng, theta, y[:])
			for j := 0; j < glmParams; j++ {
				s := 0.0
				for t := 0; t < glmSteps; t++ {
					s += glmDesign[t*glmParams+j] * y[t]
				}
				x[j] = s
			}
		},
	}
}

// BernoulliGLMRaw is sbibm's bernoulli_glm_raw: the same model with the raw 100-step spike train
// as data (observations from observation_raw.csv, reference samples shared with bernoulli_glm).
func BernoulliGLMRaw() Task {
	return &base{
		name: "bernoulli_glm_raw", prior: glmPrior(), paramLabels: labels("θ", glmParams),
		dataDim: glmSteps, files: "bernoulli_glm", obsFile: "observation_raw.csv",
		row: glmSpikes,
	}
}

// mt19937 is the Mersenne Twister of Matsumoto and Nishimura (1998), seeded as numpy's
// RandomState(seed) does for an integer seed (init_genrand), with numpy's legacy Gaussian
// (the polar Box–Muller method, which returns the second value of a pair on the next call).
// It only serves to rebuild sbibm's fixed stimulus.
type mt19937 struct {
	state    [624]uint32
	index    int
	hasGauss bool
	gaussVal float64
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{index: 624}
	m.state[0] = seed
	for i := 1; i < 624; i++ {
		m.state[i] = 1812433253*(m.state[i-1]^(m.state[i-1]>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) uint32() uint32 {
	if m.index >= 624 {
		for i := 0; i < 624; i++ {
			y := m.state[i]&0x80000000 | m.state[(i+1)%624]&0x7fffffff
			v := m.state[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.state[i] = v
		}
		m.index = 0
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// float64 is a 53-bit uniform in [0, 1) (genrand_res53).
func (m *mt19937) float64() float64 {
	a, b := m.uint32()>>5, m.uint32()>>6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

func (m *mt19937) gauss() float64 {
	if m.hasGauss {
		m.hasGauss = false
		return m.gaussVal
	}
	for {
		x1 := 2*m.float64() - 1
		x2 := 2*m.float64() - 1
		r2 := x1*x1 + x2*x2
		if r2 < 1 && r2 != 0 {
			f := math.Sqrt(-2 * math.Log(r2) / r2)
			m.gaussVal, m.hasGauss = f*x1, true
			return f * x2
		}
	}
}
