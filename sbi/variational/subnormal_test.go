package variational

import (
	"math"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// lnTiny is ln of the float64 nearest 1e−310, a subnormal, to 40 digits; math.Log on amd64
// returns −709.085 for it (golang/go#56600).
const lnTiny = -713.8013788281541651006446006623883741382

// gaussianLogProbAt is log q(θ | x) of a Gaussian estimator (diagonal family when len(out) is
// 2d) whose network returned out for x, on the support of smap (all of R^d for a zero smap).
func gaussianLogProbAt(out, theta []float64, smap dist.SupportMap) float64 {
	d := len(theta)
	identity := smap.Low == nil
	if identity {
		inf := math.Inf(1)
		smap = dist.SupportMap{Low: []float64{-inf, -inf}[:d], High: []float64{inf, inf}[:d]}
	}
	g := &Gaussian{d: d, diagonal: len(out) == 2*d, identity: identity, smap: smap}
	mu, L := g.moments(out)
	return (&GaussianPosterior{Mean: mu, Chol: L, est: g}).logProb(theta)
}

// jacobianConstantAt is the log-Jacobian the trainer records for θ = f(u) at u = 0, one
// coordinate on [lo, hi]: log(hi − lo) + 2·log σ(0).
func jacobianConstantAt(lo, hi float64) float64 {
	tr := &trainer{d: 1, g: &Gaussian{smap: dist.SupportMap{Low: []float64{lo}, High: []float64{hi}}}}
	tp := nn.NewTape()
	tp.NoGrad = true
	_, lj := tr.toTheta(tp, tp.Const(1, 1, []float64{0}))
	return lj.Data[0]
}

// normalPriorTapeAt is the recorded log density of the prior N(0, std²) at θ = 0.
func normalPriorTapeAt(t *testing.T, std []float64) float64 {
	t.Helper()
	f, err := priorTape(nil, dist.NewNormal(make([]float64, len(std)), std))
	if err != nil {
		t.Fatal(err)
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	return f(tp, tp.Const(1, len(std), make([]float64, len(std)))).Data[0]
}

// lnSubnormal is ln v for a subnormal v = k·2⁻¹⁰⁷⁴: ln k − 1074·ln 2, with k a normal number.
func lnSubnormal(v float64) float64 { return math.Log(v*0x1p1000*0x1p74) - 1074*math.Ln2 }

// TestLogsOfSubnormals checks the variational estimator's logarithms of values that can be
// subnormal against exact logarithms: log q where the network's log-diagonal output, below
// −708.4, makes Lⱼⱼ = e^out subnormal (an observation far from the training set); the trainer's
// log-Jacobian constant log(hi − lo) of a support of width 1e−310; a Normal prior's log σ with
// σ = 1e−310. With math.Log each was off by 4.7 or more (golang/go#56600).
func TestLogsOfSubnormals(t *testing.T) {
	halfLog2Pi := 0.5 * math.Log(2*math.Pi)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		// Lⱼⱼ = e^out is subnormal, k·2⁻¹⁰⁷⁴ with an integer k, whose logarithm is
		// ln k − 1074·ln 2 (lnSubnormal); at θ = μ, log q = −Σ log Lⱼⱼ − (d/2)·log 2π.
		{"log q, diagonal, log-diagonals (-720, 0.5)", gaussianLogProbAt([]float64{0.1, -0.2, -720, 0.5}, []float64{0.1, -0.2}, dist.SupportMap{}),
			-lnSubnormal(math.Exp(-720)) - 0.5 - 2*halfLog2Pi},
		{"log q, full, log-diagonals (0.5, -744)", gaussianLogProbAt([]float64{0.1, -0.2, 0.5, -744, 0.3}, []float64{0.1, -0.2}, dist.SupportMap{}),
			-lnSubnormal(math.Exp(-744)) - 0.5 - 2*halfLog2Pi},
		{"log-Jacobian on [0, 1e-310]", jacobianConstantAt(0, 1e-310), lnTiny - 2*math.Ln2},
		{"Normal prior, std (1e-310, 2)", normalPriorTapeAt(t, []float64{1e-310, 2}), -lnTiny - math.Log(2) - 2*halfLog2Pi},
	} {
		if !(math.Abs(c.got-c.want) <= 1e-13*math.Abs(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
