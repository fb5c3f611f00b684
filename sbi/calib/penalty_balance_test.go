package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/nn"
)

// The penalty is λ(mean σ(joint) + mean σ(marginal) − 1)², and its gradient with respect to
// the logits is the derivative of that smooth function (checked by finite differences).
func TestBalanceRegularizerAndGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	joint := make([]float64, 7)
	marg := make([]float64, 5) // the halves need not have the same size
	for i := range joint {
		joint[i] = 1 + 2*rng.NormFloat64()
	}
	for i := range marg {
		marg[i] = -0.5 + 2*rng.NormFloat64()
	}
	value := func(j, m []float64) float64 {
		B, err := diag.Balancing(j, m)
		if err != nil {
			t.Fatal(err)
		}
		return 100 * (B - 1) * (B - 1)
	}
	tp := nn.NewTape()
	jv, mv := tp.Variable(1, len(joint), joint), tp.Variable(len(marg), 1, marg)
	pen, err := NewBalanceRegularizer(100).Penalty(&sbi.RegBatch{Tape: tp, JointLogits: jv, MarginalLogits: mv})
	if err != nil {
		t.Fatal(err)
	}
	if want := value(joint, marg); math.Abs(pen.Item()-want) > 1e-12*want || want < 1e-3 {
		t.Fatalf("penalty %.15g, want %.15g (and not ≈ 0, so that the gradient is tested)", pen.Item(), want)
	}
	tp.Backward(pen)
	const h = 1e-6
	for _, c := range []struct {
		logits, grad []float64
	}{{joint, jv.Grad}, {marg, mv.Grad}} {
		for k := range c.logits {
			v := c.logits[k]
			c.logits[k] = v + h
			up := value(joint, marg)
			c.logits[k] = v - h
			down := value(joint, marg)
			c.logits[k] = v
			if fd := (up - down) / (2 * h); math.Abs(c.grad[k]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("gradient %d: %.10g, finite differences %.10g", k, c.grad[k], fd)
			}
		}
	}
}

// A balanced classifier pays nothing: logits ±l on joint and marginal pairs give
// σ(l) + σ(−l) = 1.
func TestBalanceZeroWhenBalanced(t *testing.T) {
	tp := nn.NewTape()
	pen, err := NewBalanceRegularizer(100).Penalty(&sbi.RegBatch{Tape: tp,
		JointLogits: tp.Variable(3, 1, []float64{2, -1, 0.5}), MarginalLogits: tp.Variable(3, 1, []float64{-2, 1, -0.5})})
	if err != nil {
		t.Fatal(err)
	}
	if pen.Item() > 1e-28 {
		t.Errorf("penalty %g for a balanced classifier, want 0", pen.Item())
	}
}

func TestBalanceBadInput(t *testing.T) {
	tp := nn.NewTape()
	logits := tp.Variable(2, 1, []float64{1, 2})
	for _, c := range []struct {
		reg  *BalanceRegularizer
		b    *sbi.RegBatch
		want string
	}{
		{NewBalanceRegularizer(-3), &sbi.RegBatch{Tape: tp, JointLogits: logits, MarginalLogits: logits}, "λ = -3"},
		{NewBalanceRegularizer(math.Inf(1)), &sbi.RegBatch{Tape: tp, JointLogits: logits, MarginalLogits: logits}, "λ = +Inf"},
		{NewBalanceRegularizer(100), &sbi.RegBatch{Tape: tp}, "ratio estimators (NRE)"},
		{NewBalanceRegularizer(100), &sbi.RegBatch{Tape: tp, JointLogits: logits, MarginalLogits: tp.New(0, 1)}, "no joint or no marginal"},
		{NewBalanceRegularizer(100), nil, "no tape"},
	} {
		if _, err := c.reg.Penalty(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if r := NewBalanceRegularizer(100); r.Name() != "balance" || r.Lambda() != 100 {
		t.Errorf("Name, Lambda = %q, %v", r.Name(), r.Lambda())
	}
}
