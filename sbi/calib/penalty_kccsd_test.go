package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
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

// refKCCSD is the U-statistic of KCCSDPenalty in plain Go with closed-form scores, the base
// points z (m×d, standardised) and fixed bandwidths.
func refKCCSD(g *gaussModel, theta, x *mat.Dense, z [][]float64, ell, sigma float64) float64 {
	n, d := theta.Dims()
	mean, std := columnMoments(theta)
	y := make([][]float64, n)
	s := make([][]float64, n)
	phi := make([][][]float64, n)
	for i := range y {
		th := theta.RawRowView(i)
		y[i] = make([]float64, d)
		sc := g.score(th, x.RawRowView(i))
		s[i] = make([]float64, d)
		for k := range y[i] {
			y[i][k] = (th[k] - mean[k]) / std[k]
			s[i][k] = std[k] * sc[k]
		}
		for _, za := range z {
			p := make([]float64, d)
			for k := range p {
				p[k] = mean[k] + std[k]*za[k]
			}
			sz := g.score(p, x.RawRowView(i))
			for k := range sz {
				sz[k] *= std[k]
			}
			phi[i] = append(phi[i], sz)
		}
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			gfd := 0.0
			for a := range z {
				for k := 0; k < d; k++ {
					v := phi[i][a][k] - phi[j][a][k]
					gfd += v * v
				}
			}
			gfd /= float64(len(z))
			var r2, ss, sr float64
			for k := 0; k < d; k++ {
				r := y[i][k] - y[j][k]
				r2 += r * r
				ss += s[i][k] * s[j][k]
				sr += (s[i][k] - s[j][k]) * r
			}
			l := math.Exp(-r2 / (2 * ell * ell))
			h := l * (ss + float64(d)/(ell*ell) - r2/math.Pow(ell, 4) + sr/(ell*ell))
			sum += math.Exp(-gfd/(2*sigma*sigma)) * h
		}
	}
	return sum / float64(n*(n-1))
}

// The penalty is the KCCSD U-statistic computed with closed-form scores, up to the error of
// the central differences (relative 10⁻⁶ of the scores).
func TestKCCSDMatchesReference(t *testing.T) {
	const n, m = 30, 5
	theta, x := simulate(rand.New(rand.NewPCG(3, 3)), n)
	g := exactGauss(0.7)
	tp := nn.NewTape()
	b := gaussBatch(tp, g, theta, x, 4)
	pen, err := KCCSDPenalty(2, KCCSDBasePoints(m), KCCSDBandwidths(1.3, 2.1)).Penalty(b)
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
	reg := KCCSDPenalty(1, KCCSDBasePoints(4), KCCSDBandwidths(1, 1.5))
	tp := nn.NewTape()
	g.zeroGrad()
	pen, err := reg.Penalty(gaussBatch(tp, g, theta, x, 9))
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(pen)
	var grad []float64
	for _, p := range g.params() {
		grad = append(grad, p.Grad...)
	}
	fd := finiteDiff(g, func() float64 {
		tp := nn.NewTape()
		tp.NoGrad = true
		pen, err := reg.Penalty(gaussBatch(tp, g, theta, x, 9))
		if err != nil {
			t.Fatal(err)
		}
		return pen.Item()
	})
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
			pen, err := KCCSDPenalty(1).Penalty(gaussBatch(tp, c.g, theta, x, uint64(k)))
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
		{KCCSDPenalty(-1), "λ = -1"},
		{KCCSDPenalty(1, KCCSDBasePoints(0)), "0 base points"},
		{KCCSDPenalty(1, KCCSDBandwidths(-1, 0)), "bandwidths -1"},
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
		if _, err := KCCSDPenalty(1).Penalty(nb); err == nil || !strings.Contains(err.Error(), "positive and smooth on all of R^d") {
			t.Errorf("box prior [−%v, %v]: error %v", small, small, err)
		}
	}
	if r := KCCSDPenalty(1); r.Name() != "kccsd" {
		t.Errorf("Name %q", r.Name())
	}
}
