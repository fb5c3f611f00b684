package sbi

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/nn"
)

// lnTiny is ln of the float64 nearest 1e−310, a subnormal, to 40 digits; math.Log on amd64
// returns −709.085 for it (golang/go#56600).
const lnTiny = -713.8013788281541651006446006623883741382

// TestLogsOfSubnormals checks the logarithms that the estimators take of data and of scales
// that can be subnormal: a standardization's log|det| with a column of standard deviation
// 1e−310 (data of that scale), and MNLE's log transform of a continuous value 1e−310 and its
// Jacobian. Each came out off by 4.7 with math.Log; ordinary values keep math.Log's bits.
func TestLogsOfSubnormals(t *testing.T) {
	e := &MNLE{cfg: MNLEConfig{Discrete: 1, LogTransform: true}}
	e.zx = zscore{Mean: []float64{0, 0, 0}, Std: []float64{1e-310, 2, 1}}
	x := mat.NewDense(1, 3, []float64{1e-310, 3, 1})
	tx := e.transformed(x).RawRowView(0)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"zscore log|det|", e.zx.logJacobian(), lnTiny + math.Log(2)},
		{"MNLE log transform of 1e-310", tx[0], lnTiny},
		{"MNLE log transform of 3", tx[1], math.Log(3)},
		{"MNLE Jacobian", (*mnleModel)(e).jacobian(x.RawRowView(0)), 2*lnTiny + math.Log(2) + math.Log(3)},
		{"MNLE training Jacobian", (*mnleModel)(e).trainJacobian(tx), 2*lnTiny + math.Log(2) + math.Log(3)},
	} {
		if !(math.Abs(c.got-c.want) <= 1e-13*math.Abs(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestNRECLossSubnormalGamma checks NRE-C's loss at odds γ = 1e−310, a subnormal the
// configuration accepts, against the scalar formula with the exact ln γ: with math.Log's −709.09
// the marginal class's term came out e^4.7 ≈ 110 times too large, which moves the optimum of
// the classifier by 4.7 instead of leaving it at log r.
func TestNRECLossSubnormalGamma(t *testing.T) {
	tp := nn.NewTape()
	tp.NoGrad = true
	const B, K, gamma = 3, 2, 1e-310
	L := []float64{0.3, -1.2, 2.5, -0.7, 0.1, 1.9, 4, -3.3, 0.02}
	got, _, _ := contrastiveNRELoss(tp, tp.Const(B, K+1, L), gamma)
	lg := lnTiny - math.Log(K) // log(γ/K)
	p0, p1 := 1/(1+gamma), gamma/(1+gamma)
	want := 0.0
	for i := range B {
		row := L[i*(K+1) : (i+1)*(K+1)]
		sj, sm := math.Exp(row[0])+math.Exp(row[1]), math.Exp(row[1])+math.Exp(row[2])
		logQ0 := -math.Log1p(math.Exp(lg) * sm)            // none of the marginal set generated x
		logQ1 := lg + row[0] - math.Log1p(math.Exp(lg)*sj) // θᵢ of the joint set did
		want -= (p0*logQ0 + p1*logQ1) / B
	}
	if !(math.Abs(got.Item()-want) <= 1e-12*math.Abs(want)) {
		t.Errorf("NRE-C loss at γ = %g: %v, scalar formula %v", gamma, got.Item(), want)
	}
}
