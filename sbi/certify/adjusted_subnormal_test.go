package certify

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// normalBase is the estimator with posterior N(x/2, ½·I) at x, in any dimension.
type normalBase struct{}

func (normalBase) Posterior(x []float64) sbi.Posterior {
	mean, sd := make([]float64, len(x)), make([]float64, len(x))
	for j, v := range x {
		mean[j], sd[j] = v/2, math.Sqrt(0.5)
	}
	return dist.NewNormal(mean, sd)
}

func (b normalBase) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = b.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, theta.RawMatrix().Cols).(*mat.Dense))[0]
	}
	return out
}

// lnTiny is ln of the float64 nearest 1e−310, a subnormal, to 40 digits; math.Log on amd64
// returns −709.085 for it (golang/go#56600).
const lnTiny = -713.8013788281541651006446006623883741382

// adjustedAt returns the log density of the score-adjusted posterior of normalBase at
// x = (0.3, 0.6)[:d], for the map with L's lower triangle l (row-major; d = 1 or 2) and
// b = (0.2, 0.4)[:d], at θ = f(0), and the base's log density at 0. (At θ = f(θ₀) with θ₀ ≠ 0,
// a subnormal L would lose L·θ₀ in the sum with the shift.)
func adjustedAt(t *testing.T, l []float64) (got, base float64) {
	t.Helper()
	d := 1
	if len(l) == 3 {
		d = 2
	}
	m := AffineMap{Dim: d, L: make([]float64, d*d), B: []float64{0.2, 0.4}[:d]}
	for j, k := 0, 0; j < d; j++ {
		for i := 0; i <= j; i++ {
			m.L[j*d+i] = l[k]
			k++
		}
	}
	if err := m.check(); err != nil {
		t.Fatalf("L %v: %v", l, err)
	}
	a := &scoreAdjusted{base: normalBase{}, m: m, draws: 20, seed: 1}
	x := []float64{0.3, 0.6}[:d]
	p := a.Posterior(x).(*adjustedPosterior)
	theta := mat.NewDense(1, d, append([]float64(nil), p.shift...))
	return p.LogProb(theta)[0], normalBase{}.Posterior(x).LogProb(mat.NewDense(1, d, nil))[0]
}

// TestAdjustedLogProbSubnormalDiagonal checks the score-adjusted posterior's density where the
// map's L has a subnormal diagonal entry, which the map's check accepts (a positive entry): at
// θ = f(0) it is the base density at 0 less log det L = Σ log Lⱼⱼ. With math.Log's −709.09
// for ln 1e−310 it came out 4.7 too low, and 35 too low for 2⁻¹⁰⁷⁴.
func TestAdjustedLogProbSubnormalDiagonal(t *testing.T) {
	for _, c := range []struct {
		l      []float64
		logdet float64
	}{
		{[]float64{1e-310}, lnTiny},
		{[]float64{5e-324}, -1074 * math.Ln2},
		{[]float64{1e-310, 0.5, 3}, lnTiny + math.Log(3)},
	} {
		got, base := adjustedAt(t, c.l)
		if want := base - c.logdet; !(math.Abs(got-want) <= 1e-12*math.Abs(want)) {
			t.Errorf("L %v: log density %v, want %v", c.l, got, want)
		}
	}
}
