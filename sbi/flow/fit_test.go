package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// conditional Gaussian θ | c ~ N(A·c + b, L·Lᵀ) with c ~ N(0, I₂).
var (
	fitA = [2][2]float64{{1, 0.5}, {-0.5, 1}}
	fitB = [2]float64{0.5, -1}
	fitL = [2][2]float64{{0.5, 0}, {0.3, 0.4}}
)

func drawPair(rng *rand.Rand, theta, c []float64) {
	c[0], c[1] = rng.NormFloat64(), rng.NormFloat64()
	e0, e1 := rng.NormFloat64(), rng.NormFloat64()
	for i := 0; i < 2; i++ {
		theta[i] = fitA[i][0]*c[0] + fitA[i][1]*c[1] + fitB[i] + fitL[i][0]*e0 + fitL[i][1]*e1
	}
}

// trueLogProb is the closed-form log N(θ; A·c + b, L·Lᵀ).
func trueLogProb(theta, c []float64) float64 {
	var r [2]float64
	for i := 0; i < 2; i++ {
		r[i] = theta[i] - fitA[i][0]*c[0] - fitA[i][1]*c[1] - fitB[i]
	}
	u0 := r[0] / fitL[0][0] // solve L·u = r
	u1 := (r[1] - fitL[1][0]*u0) / fitL[1][1]
	return -0.5*(u0*u0+u1*u1) - math.Log(2*math.Pi) - math.Log(fitL[0][0]*fitL[1][1])
}

// TestFitConditionalGaussian trains MAF and NSF by maximum likelihood on fresh draws of a
// 2-D conditional Gaussian and checks the learned density against the closed form: the
// estimate KL̂ = mean(log p − log q) over 4000 held-out pairs estimates E_c KL(p(·|c) ‖ q(·|c))
// with standard error SE = sd(log p − log q)/√4000. The test asks KL̂ + 3·SE < 0.05 nats and
// a mean absolute log-density error below 0.15 nats; an untrained flow is off by more than 1.
func TestFitConditionalGaussian(t *testing.T) {
	for _, kind := range []Kind{MAF, NSF} {
		rng := rand.New(rand.NewPCG(40, 41))
		f, err := New(rng, Config{Kind: kind, Features: 2, Context: 2, Transforms: 2, Hidden: []int{32, 32}, Bins: 8})
		if err != nil {
			t.Fatal(err)
		}
		opt := nn.NewAdam(f.Params(), 3e-3)
		tp := nn.NewTape()
		const batch, steps = 128, 1000
		sched := nn.NewCosineLR(opt, steps, 1e-4)
		for step := 0; step < steps; step++ {
			th, c := tp.New(batch, 2), tp.New(batch, 2)
			for i := 0; i < batch; i++ {
				drawPair(rng, th.Row(i), c.Row(i))
			}
			loss := tp.Neg(tp.Mean(f.LogProb(tp, th, c)))
			tp.Backward(loss)
			nn.ClipGradNorm(opt.Params(), 5)
			opt.Step()
			opt.ZeroGrad()
			sched.Step(loss.Item())
			tp.Reset()
		}
		const n = 4000
		tp.NoGrad = true
		th, c := tp.New(n, 2), tp.New(n, 2)
		for i := 0; i < n; i++ {
			drawPair(rng, th.Row(i), c.Row(i))
		}
		lq := f.LogProb(tp, th, c)
		var sum, sum2, abs float64
		for i := 0; i < n; i++ {
			d := trueLogProb(th.Row(i), c.Row(i)) - lq.Data[i]
			sum += d
			sum2 += d * d
			abs += math.Abs(d)
		}
		kl := sum / n
		se := math.Sqrt((sum2/n - kl*kl) / n)
		t.Logf("%v: KL estimate %.4f ± %.4f, mean |log p − log q| %.4f", kind, kl, se, abs/n)
		if kl+3*se > 0.05 || abs/n > 0.15 {
			t.Errorf("%v: KL estimate %.4f ± %.4f, mean |log p − log q| %.4f: the flow did not learn the conditional Gaussian", kind, kl, se, abs/n)
		}
	}
}
