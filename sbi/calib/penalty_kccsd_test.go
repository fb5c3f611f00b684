package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// score is ∇_θ log q(θ | x) of the Gaussian model in closed form.
func (g *gaussModel) score(theta, x []float64) []float64 {
	s := make([]float64, len(theta))
	for k := range theta {
		sd := math.Exp(g.logStd.Data[k])
		s[k] = -(theta[k] - g.a.Data[k]*x[k] - g.mu.Data[k]) / (sd * sd)
	}
	return s
}

// refKCCSD is the U-statistic of NewKCCSDRegularizer computed by the calibration test's array code
// (diag.GFDFeatures, diag.KCCSDFeatures) with closed-form scores, the base points z (m×d,
// standardised) and fixed bandwidths.
func refKCCSD(g *gaussModel, theta, x *mat.Dense, z [][]float64, ell, sigma float64) float64 {
	n, d := theta.Dims()
	mean, std, err := columnMoments(theta)
	if err != nil {
		panic(err)
	}
	y, sy := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	atBase := make([]*mat.Dense, n)
	for i := range n {
		th := theta.RawRowView(i)
		sc := g.score(th, x.RawRowView(i))
		for k := range d {
			y.Set(i, k, (th[k]-mean[k])/std[k])
			sy.Set(i, k, std[k]*sc[k])
		}
		atBase[i] = mat.NewDense(len(z), d, nil)
		for a, za := range z {
			p := make([]float64, d)
			for k := range p {
				p[k] = mean[k] + std[k]*za[k]
			}
			for k, v := range g.score(p, x.RawRowView(i)) {
				atBase[i].Set(a, k, std[k]*v)
			}
		}
	}
	feat := diag.GFDFeatures(atBase)
	return diag.KCCSDFeatures(y, sy, feat, sigma, diag.GaussianTarget, ell, diag.Complete, nil, nil)
}

// The penalty is the KCCSD U-statistic computed with closed-form scores, up to the error of
// the central differences (relative 10⁻⁶ of the scores).
func TestKCCSDMatchesReference(t *testing.T) {
	const n, m = 30, 5
	theta, x := simulate(rand.New(rand.NewPCG(3, 3)), n)
	g := exactGauss(0.7)
	tp := nn.NewTape()
	b := gaussBatch(tp, g, theta, x, 4)
	pen, err := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 2, BasePoints: m, TargetBandwidth: 1.3, DistBandwidth: 2.1}).Penalty(b)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 7))
	z := make([][]float64, m)
	for a := range z {
		z[a] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	want := 2 * refKCCSD(g, theta, x, z, 1.3, 2.1)
	if got := pen.Item(); math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
		t.Errorf("penalty %.10g, reference %.10g", got, want)
	}
}

// The gradient of the penalty (fixed bandwidths, a smooth function of the weights) is the
// finite-difference gradient.
func TestKCCSDGradient(t *testing.T) {
	const n = 20
	theta, x := simulate(rand.New(rand.NewPCG(5, 3)), n)
	g := exactGauss(0.6)
	reg := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, BasePoints: 4, TargetBandwidth: 1, DistBandwidth: 1.5})
	grad, _ := gradient(t, g, theta, x, reg)
	fd := finiteDiff(g, func() float64 { return penaltyValue(t, g, theta, x, reg) })
	closeSlices(t, "KCCSD", grad, fd, 1e-4)
}

// Averaged over batches, the statistic is 0 for the exact posterior (calibrated) and positive
// for a too-narrow and a shifted posterior. The batch values are independent, so the mean is
// compared with 4 standard errors estimated from their spread.
func TestKCCSDCalibratedVsNot(t *testing.T) {
	const n, batches = 64, 30
	shifted := exactGauss(1)
	shifted.mu.Data[0] = 0.5 * gPostStd
	for _, c := range []struct {
		name       string
		g          *gaussModel
		calibrated bool
	}{
		{"exact", exactGauss(1), true},
		{"narrow", exactGauss(0.6), false},
		{"shifted", shifted, false},
	} {
		rng := rand.New(rand.NewPCG(8, 8))
		var s, s2 float64
		for k := 0; k < batches; k++ {
			theta, x := simulate(rng, n)
			tp := nn.NewTape()
			tp.NoGrad = true
			pen, err := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1}).Penalty(gaussBatch(tp, c.g, theta, x, uint64(k)))
			if err != nil {
				t.Fatal(err)
			}
			s += pen.Item()
			s2 += pen.Item() * pen.Item()
		}
		mean := s / batches
		se := math.Sqrt((s2/batches - mean*mean) / (batches - 1))
		t.Logf("%-8s mean Ĉ %.5f (standard error %.5f)", c.name, mean, se)
		if c.calibrated && math.Abs(mean) > 4*se {
			t.Errorf("%s: mean Ĉ %.5f, want within 4 standard errors (%.5f) of 0", c.name, mean, se)
		}
		if !c.calibrated && mean < 4*se {
			t.Errorf("%s: mean Ĉ %.5f, want above 4 standard errors (%.5f)", c.name, mean, se)
		}
	}
}

func TestKCCSDBadInput(t *testing.T) {
	theta, x := simulate(rand.New(rand.NewPCG(1, 1)), 8)
	tp := nn.NewTape()
	b := gaussBatch(tp, priorGauss(), theta, x, 1)
	for _, c := range []struct {
		reg  *KCCSDRegularizer
		want string
	}{
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: -1}), "Lambda = -1"},
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{}), "Lambda = 0"},
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, BasePoints: -1}), "BasePoints = -1"},
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, TargetBandwidth: -1}), "bandwidths -1"},
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, DistBandwidth: math.Inf(1)}), "bandwidths 0, +Inf"},
	} {
		if _, err := c.reg.Penalty(b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	// A ratio estimator with a box prior: the density vanishes outside the box. Refused from
	// the prior's support when the batch has classifier logits, from the evaluations otherwise.
	for _, small := range []float64{3, 0.5} {
		prior := dist.NewUniformCube(-small, small, gDim)
		nb := &sbi.RegBatch{Tape: tp, Rng: rand.New(rand.NewPCG(1, 1)), Prior: prior, Theta: theta, X: x,
			LogPost: func(th *mat.Dense, rows []int) *nn.Tensor {
				lp := prior.LogProb(th)
				return tp.Const(len(lp), 1, lp)
			}}
		if small == 3 {
			nb.JointLogits, nb.MarginalLogits = tp.New(8, 1), tp.New(8, 1)
		}
		if _, err := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1}).Penalty(nb); err == nil || !strings.Contains(err.Error(), "positive and smooth on all of R^d") {
			t.Errorf("box prior [−%v, %v]: error %v", small, small, err)
		}
	}
	if r := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1}); r.Name() != "kccsd" {
		t.Errorf("Name %q", r.Name())
	}
}

// The zero BasePoints is the paper's 10: the penalty is the same, on the same batch, as with 10
// set explicitly, and differs from that with 9.
func TestKCCSDPenaltyDefaultBasePoints(t *testing.T) {
	theta, x := simulate(rand.New(rand.NewPCG(6, 6)), 16)
	g := exactGauss(0.5)
	value := func(m int) float64 {
		return penaltyValue(t, g, theta, x, NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, BasePoints: m}))
	}
	def, ten, nine := value(0), value(10), value(9)
	if def != ten {
		t.Errorf("penalty with BasePoints 0 is %v, with 10 it is %v; want them equal", def, ten)
	}
	if def == nine {
		t.Errorf("penalty with BasePoints 0 equals that with 9 (%v): the test cannot tell the default", nine)
	}
}
