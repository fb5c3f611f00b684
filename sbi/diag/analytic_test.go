package diag

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi"
)

// boxModel is θ ~ Uniform([lo, hi]^d), x = θ + N(0, s²I). Its exact posterior is N(x, s²I)
// truncated to the box; width scales the posterior's standard deviation to make it too narrow
// (width < 1) or too wide (width > 1).
type boxModel struct {
	dim    int
	lo, hi float64
	s      float64
	width  float64
}

func (m boxModel) Support() (lower, upper []float64) {
	lower, upper = make([]float64, m.dim), make([]float64, m.dim)
	for d := range m.dim {
		lower[d], upper[d] = m.lo, m.hi
	}
	return lower, upper
}

// simulate draws n pairs from the joint.
func (m boxModel) simulate(seed uint64, n int) (theta, x *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 99))
	theta, x = mat.NewDense(n, m.dim, nil), mat.NewDense(n, m.dim, nil)
	for i := range n {
		for d := range m.dim {
			t := m.lo + rng.Float64()*(m.hi-m.lo)
			theta.Set(i, d, t)
			x.Set(i, d, t+m.s*rng.NormFloat64())
		}
	}
	return theta, x
}

func (m boxModel) Posterior(x []float64) sbi.Posterior {
	t := truncNormal{mu: x, sd: m.s * m.width, lo: m.lo, hi: m.hi, logMass: make([]float64, len(x))}
	for d, mu := range x {
		t.logMass[d] = math.Log(stdNormal.CDF((t.hi-mu)/t.sd) - stdNormal.CDF((t.lo-mu)/t.sd))
	}
	return t
}

func (m boxModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(m.Posterior, theta, x)
}

func (m boxModel) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range out {
		out[i] = -float64(m.dim) * math.Log(m.hi-m.lo)
	}
	return out
}

// truncNormal is a product of normals N(mu_d, sd²) truncated to [lo, hi].
type truncNormal struct {
	mu      []float64
	sd      float64
	lo, hi  float64
	logMass []float64 // log of the normal mass inside [lo, hi], per dimension
}

var stdNormal = distuv.UnitNormal

func (t truncNormal) Dim() int { return len(t.mu) }

func (t truncNormal) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, len(t.mu), nil)
	for d, mu := range t.mu {
		a := stdNormal.CDF((t.lo - mu) / t.sd)
		b := stdNormal.CDF((t.hi - mu) / t.sd)
		for i := range n {
			v := mu + t.sd*stdNormal.Quantile(a+rng.Float64()*(b-a))
			out.Set(i, d, math.Min(math.Max(v, t.lo), t.hi))
		}
	}
	return out
}

func (t truncNormal) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		var s float64
		for d, mu := range t.mu {
			v := theta.At(i, d)
			if v < t.lo || v > t.hi {
				s = math.Inf(-1)
				break
			}
			z := (v - mu) / t.sd
			s += -0.5*z*z - math.Log(t.sd*math.Sqrt(2*math.Pi)) - t.logMass[d]
		}
		out[i] = s
	}
	return out
}

// gaussModel is the conjugate model θ ~ N(0, τ²I), x = θ + N(0, s²I) with posterior
// N(τ²/(τ²+s²)·x, τ²s²/(τ²+s²)·I); width scales the posterior standard deviation and shift
// moves its mean by shift·(posterior sd) in every coordinate.
type gaussModel struct {
	dim          int
	tau, s       float64
	width, shift float64
}

func (m gaussModel) simulate(seed uint64, n int) (theta, x *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 7))
	theta, x = mat.NewDense(n, m.dim, nil), mat.NewDense(n, m.dim, nil)
	for i := range n {
		for d := range m.dim {
			t := m.tau * rng.NormFloat64()
			theta.Set(i, d, t)
			x.Set(i, d, t+m.s*rng.NormFloat64())
		}
	}
	return theta, x
}

func (m gaussModel) post(x []float64) gaussPost {
	v := m.tau * m.tau / (m.tau*m.tau + m.s*m.s)
	sd := math.Sqrt(v*m.s*m.s) * m.width
	mu := make([]float64, len(x))
	for d := range x {
		mu[d] = v*x[d] + m.shift*sd/m.width
	}
	return gaussPost{mu: mu, sd: sd}
}

func (m gaussModel) Posterior(x []float64) sbi.Posterior { return m.post(x) }

func (m gaussModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	return pairLogProbs(m.Posterior, theta, x)
}

type gaussPost struct {
	mu []float64
	sd float64
}

func (g gaussPost) Dim() int { return len(g.mu) }

func (g gaussPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, len(g.mu), nil)
	for i := range n {
		for d, mu := range g.mu {
			out.Set(i, d, mu+g.sd*rng.NormFloat64())
		}
	}
	return out
}

func (g gaussPost) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		var s float64
		for d, mu := range g.mu {
			z := (theta.At(i, d) - mu) / g.sd
			s += -0.5*z*z - math.Log(g.sd*math.Sqrt(2*math.Pi))
		}
		out[i] = s
	}
	return out
}

// ToBase maps θ to the base space of the Gaussian posterior, z = (θ − μ(x))/sd: the estimator
// is a flow θ = μ(x) + sd·z (sbi.BaseMapper), for L-C2ST-NF.
func (m gaussModel) ToBase(theta, x *mat.Dense) *mat.Dense {
	n, d := theta.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		p := m.post(x.RawRowView(i))
		for j := range d {
			out.Set(i, j, (theta.At(i, j)-p.mu[j])/p.sd)
		}
	}
	return out
}
