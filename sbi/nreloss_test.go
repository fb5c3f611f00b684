package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// toyLogRatio is the closed-form log r(θ, x) = log N(x; θ, s²) − log N(x; 0, 1 + s²) of the
// toy θ ~ N(0, 1), x | θ ~ N(θ, s²).
func toyLogRatio(theta, x, s float64) float64 {
	logN := func(v, m, sd float64) float64 {
		z := (v - m) / sd
		return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
	}
	return logN(x, theta, s) - logN(x, 0, math.Sqrt(1+s*s))
}

// toyLossShift returns, over nb batches of B joint pairs of the toy, the mean and the standard
// error of loss(f + a + b·x) − loss(f) where f is the exact log ratio and loss builds the batch
// loss from the B×J logits L_ik = f(θ_{i+k}, xᵢ).
func toyLossShift(seed uint64, nb, B, J int, a, b float64, loss func(tp *nn.Tape, L *nn.Tensor) *nn.Tensor) (mean, se float64) {
	const s = 0.5
	rng := rand.New(rand.NewPCG(seed, 7))
	tp := nn.NewTape()
	tp.NoGrad = true
	th, x := make([]float64, B), make([]float64, B)
	L0, L1 := make([]float64, B*J), make([]float64, B*J)
	var sum, sum2 float64
	for range nb {
		for i := range B {
			th[i] = rng.NormFloat64()
			x[i] = th[i] + s*rng.NormFloat64()
		}
		for i := range B {
			for k := range J {
				f := toyLogRatio(th[(i+k)%B], x[i], s)
				L0[i*J+k], L1[i*J+k] = f, f+a+b*x[i]
			}
		}
		d := loss(tp, tp.Const(B, J, L1)).Item() - loss(tp, tp.Const(B, J, L0)).Item()
		tp.Reset()
		sum += d
		sum2 += d * d
	}
	mean = sum / float64(nb)
	return mean, math.Sqrt((sum2/float64(nb) - mean*mean) / float64(nb))
}

// At the exact log ratio, NRE-C's expected loss grows when the logits move by a constant or by
// a multiple of x: its optimum is log r itself. NRE-B's loss does not move at all under the
// same shifts (its optimum is log r + c(x), any c), which is the power of the check.
func TestNRECLossOptimumIsTheLogRatio(t *testing.T) {
	const nb, B, K = 400, 200, 5
	nrec := func(tp *nn.Tape, L *nn.Tensor) *nn.Tensor { l, _, _ := contrastiveNRELoss(tp, L, 1); return l }
	nrecG := func(tp *nn.Tape, L *nn.Tensor) *nn.Tensor { l, _, _ := contrastiveNRELoss(tp, L, 3); return l }
	nreb := func(tp *nn.Tape, L *nn.Tensor) *nn.Tensor { return atomicNRELoss(tp, L) }
	for _, c := range []struct {
		name string
		a, b float64
	}{{"a=+0.15", 0.15, 0}, {"a=−0.15", -0.15, 0}, {"b=+0.15", 0, 0.15}, {"b=−0.15", 0, -0.15}} {
		for _, l := range []struct {
			name string
			J    int
			f    func(*nn.Tape, *nn.Tensor) *nn.Tensor
		}{{"NRE-C γ=1", K + 1, nrec}, {"NRE-C γ=3", K + 1, nrecG}} {
			m, se := toyLossShift(1, nb, B, l.J, c.a, c.b, l.f)
			t.Logf("%s, shift %s: loss increase %.5f ± %.5f", l.name, c.name, m, se)
			if m < 4*se {
				t.Errorf("%s: shifting the exact log ratio by %s lowers or keeps the loss (%.5f ± %.5f): its optimum is not log r", l.name, c.name, m, se)
			}
		}
		m, se := toyLossShift(1, nb, B, K, c.a, c.b, nreb)
		t.Logf("NRE-B, shift %s: loss change %.2g ± %.2g", c.name, m, se)
		if math.Abs(m) > 1e-9 {
			t.Errorf("NRE-B: shift %s changes the loss by %g: a constant per x should cancel", c.name, m)
		}
	}
}

// The losses reduce to what they generalize: NRE-C with K = 1 and γ = 1 is NRE-A's binary
// cross-entropy, and NRE-B is the cross-entropy of a softmax over the atoms; both equal their
// scalar formulas on random logits.
func TestNRELossFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tp := nn.NewTape()
	tp.NoGrad = true
	const B = 7
	softplus := func(v float64) float64 { return math.Log1p(math.Exp(v)) }
	L := make([]float64, B*2)
	for i := range L {
		L[i] = 3 * rng.NormFloat64()
	}
	got, _, _ := contrastiveNRELoss(tp, tp.Const(B, 2, L), 1)
	want := 0.0
	for i := range B {
		want += 0.5 * (softplus(-L[2*i]) + softplus(L[2*i+1])) / B
	}
	if math.Abs(got.Item()-want) > 1e-12 {
		t.Errorf("NRE-C with K = 1, γ = 1: loss %v, NRE-A's is %v", got.Item(), want)
	}
	for _, c := range []struct {
		K     int
		gamma float64
	}{{3, 1}, {5, 0.5}, {2, 4}} {
		J := c.K + 1
		L := make([]float64, B*J)
		for i := range L {
			L[i] = 2 * rng.NormFloat64()
		}
		got, joint, marg := contrastiveNRELoss(tp, tp.Const(B, J, L), c.gamma)
		want, p0, p1 := 0.0, 1/(1+c.gamma), c.gamma/(1+c.gamma)
		for i := range B {
			row := L[i*J : (i+1)*J]
			sj, sm := 0.0, 0.0
			for k := 0; k < c.K; k++ {
				sj += math.Exp(row[k])
				sm += math.Exp(row[k+1])
			}
			g := c.gamma / float64(c.K)
			q0 := 1 / (1 + g*sm)                    // none of the marginal set generated x
			q1 := g * math.Exp(row[0]) / (1 + g*sj) // θᵢ of the joint set did
			want -= (p0*math.Log(q0) + p1*math.Log(q1)) / B
			if w := math.Log(sj / float64(c.K)); math.Abs(joint.Data[i]-w) > 1e-12 {
				t.Errorf("K = %d: joint set logit %v, want %v", c.K, joint.Data[i], w)
			}
			if w := math.Log(sm / float64(c.K)); math.Abs(marg.Data[i]-w) > 1e-12 {
				t.Errorf("K = %d: marginal set logit %v, want %v", c.K, marg.Data[i], w)
			}
		}
		if math.Abs(got.Item()-want) > 1e-12 {
			t.Errorf("NRE-C K = %d, γ = %g: loss %v, scalar formula %v", c.K, c.gamma, got.Item(), want)
		}
	}
	const K = 4
	Lb := make([]float64, B*K)
	for i := range Lb {
		Lb[i] = 2 * rng.NormFloat64()
	}
	want = 0
	for i := range B {
		s := 0.0
		for k := range K {
			s += math.Exp(Lb[i*K+k])
		}
		want -= math.Log(math.Exp(Lb[i*K])/s) / B
	}
	if got := atomicNRELoss(tp, tp.Const(B, K, Lb)).Item(); math.Abs(got-want) > 1e-12 {
		t.Errorf("NRE-B: loss %v, scalar formula %v", got, want)
	}
}
