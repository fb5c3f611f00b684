package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/nn"
)

// TestARCHLikelihood ties the simulator to the likelihood: for series simulated at θ = (0.6,
// 0.7), the standardized residuals ξ = e/√(0.2 + θ₂e₋²) that LogLikelihood uses must be i.i.d.
// N(0, 1): mean 0, variance 1 and lag-one correlation 0 within 5 standard errors over 400 × 100
// values. The same check with θ₂ = 0 in the likelihood (an AR(1) with constant variance)
// must fail on the variance (power).
func TestARCHLikelihood(t *testing.T) {
	tk := ARCH()
	const n = 400
	theta := constTheta(n, 0.6, 0.7)
	x := tk.Simulate(rand.New(rand.NewPCG(1, 2)), theta)
	xi := func(th2 float64) (z, lag []float64) {
		for i := range n {
			var yPrev, ePrev, zPrev float64
			for m, y := range x.RawRowView(i) {
				e := y - 0.6*yPrev
				v := archNoise + th2*ePrev*ePrev
				zi := e / math.Sqrt(v)
				z = append(z, zi)
				if m > 0 {
					lag = append(lag, zi*zPrev)
				}
				yPrev, ePrev, zPrev = y, e, zi
			}
		}
		return z, lag
	}
	z, lag := xi(0.7)
	if m, s := meanSE(z); math.Abs(m) > 5*s {
		t.Errorf("residual mean %v ± %v", m, s)
	}
	if v, s := varSE(z); math.Abs(v-1) > 5*s {
		t.Errorf("residual variance %v ± %v", v, s)
	}
	if m, s := meanSE(lag); math.Abs(m) > 5*s {
		t.Errorf("lag-one correlation %v ± %v", m, s)
	}
	if z, _ = xi(0); true {
		if v, s := varSE(z); math.Abs(v-1) <= 5*s {
			t.Errorf("without the ARCH term the residual variance is %v ± %v: the check has no power", v, s)
		}
	}
}

// TestARCHLikelihoodTape compares the tape form with the scalar reference and checks its
// gradient in θ and x by central differences (nn.GradientError, relative error < 1e-6).
func TestARCHLikelihoodTape(t *testing.T) {
	tk := ARCH()
	rng := rand.New(rand.NewPCG(3, 4))
	theta := tk.Prior().Sample(rng, 5)
	x := tk.Simulate(rng, theta)
	tp := nn.NewTape()
	got := tk.LogLikelihoodTape(tp, tp.FromDense(theta), tp.FromDense(x))
	for i := range 5 {
		want := tk.LogLikelihood(theta.RawRowView(i), x.RawRowView(i))
		if math.Abs(got.Data[i]-want) > 1e-9*math.Abs(want) {
			t.Errorf("row %d: tape %.12g, reference %.12g", i, got.Data[i], want)
		}
	}
	th := nn.NewVariable(5, 2, append([]float64(nil), theta.RawMatrix().Data...))
	xs := nn.NewVariable(5, archSteps, append([]float64(nil), x.RawMatrix().Data...))
	errs, err := nn.GradientError([]*nn.Tensor{th, xs}, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
		return tk.LogLikelihoodTape(tp, in[0], in[1])
	}, 1e-5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] > 1e-6 || errs[1] > 1e-6 {
		t.Errorf("gradient: relative error %.3g in θ, %.3g in x", errs[0], errs[1])
	}
}

// TestARCHGridPosterior checks the grid posterior (40 × 40 cells) by simulation-based
// calibration: for 200 pairs from prior × simulator, the posterior probability that θ_k lies
// below its true value is Uniform(0, 1), so its mean is ½ and its variance 1/12, each within 5
// standard errors (1/√(12·200) = 0.02 for the mean). It is computed from the cell masses
// exactly, with the truth's own cell counted by the fraction of its width below the truth.
func TestARCHGridPosterior(t *testing.T) {
	tk := ARCH()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, bins = 200, 40
	theta := tk.Prior().Sample(rng, n)
	x := tk.Simulate(rng, theta)
	var pit [2][]float64
	for i := range n {
		g, err := tk.GridPosterior(x.RawRowView(i), bins)
		if err != nil {
			t.Fatal(err)
		}
		cellVol := 2.0 / bins * 1.0 / bins
		for k := range 2 {
			w := (g.High[k] - g.Low[k]) / bins
			pos := (theta.At(i, k) - g.Low[k]) / w
			var below float64
			for a := range bins {
				for b := range bins {
					c := []int{a, b}[k]
					mass := math.Exp(g.logDensity[a*bins+b]) * cellVol
					switch {
					case float64(c+1) <= pos:
						below += mass
					case float64(c) < pos:
						below += mass * (pos - float64(c))
					}
				}
			}
			pit[k] = append(pit[k], below)
		}
	}
	for k := range 2 {
		if m, s := meanSE(pit[k]); math.Abs(m-0.5) > 5*s {
			t.Errorf("θ%d: mean posterior CDF at the truth %v ± %v, want 0.5", k+1, m, s)
		}
		if v, s := varSE(pit[k]); math.Abs(v-1.0/12) > 5*s {
			t.Errorf("θ%d: its variance %v ± %v, want 1/12", k+1, v, s)
		}
	}
	// The grid density integrates to one and Sample lands in the box.
	g, _ := tk.GridPosterior(x.RawRowView(0), bins)
	s := g.Sample(rng, 2000)
	lp := g.LogProb(s)
	for i, v := range lp {
		if math.IsInf(v, -1) {
			t.Fatalf("draw %d = %v outside the box", i, s.RawRowView(i))
		}
	}
	if lp := g.LogProb(mat.NewDense(1, 2, []float64{0, 1.5})); !math.IsInf(lp[0], -1) {
		t.Errorf("log density outside the box %v", lp[0])
	}
	var total float64
	for _, v := range g.logDensity {
		total += math.Exp(v) * 2.0 / bins / bins
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("grid density integrates to %v", total)
	}
}
