package sbi

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
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
