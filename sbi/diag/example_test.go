package diag_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// shrinkModel is θ ~ N(0, 1), x = θ + N(0, 1) in one dimension, with the posterior
// N(x/2, width²/2): width 1 is exact.
type shrinkModel struct{ width float64 }

type normal1 struct{ mu, sd float64 }

func (m shrinkModel) Posterior(x []float64) sbi.Posterior {
	return normal1{x[0] / 2, m.width * math.Sqrt(0.5)}
}

func (m shrinkModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = m.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 1).(*mat.Dense))[0]
	}
	return out
}

func (p normal1) Dim() int { return 1 }

func (p normal1) Sample(rng *rand.Rand, n int) *mat.Dense {
	s := mat.NewDense(n, 1, nil)
	for i := range n {
		s.Set(i, 0, p.mu+p.sd*rng.NormFloat64())
	}
	return s
}

func (p normal1) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		z := (theta.At(i, 0) - p.mu) / p.sd
		out[i] = -0.5*z*z - math.Log(p.sd*math.Sqrt(2*math.Pi))
	}
	return out
}

func jointSample(n int) (theta, x *mat.Dense) {
	rng := rand.New(rand.NewPCG(1, 2))
	theta, x = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		t := rng.NormFloat64()
		theta.Set(i, 0, t)
		x.Set(i, 0, t+rng.NormFloat64())
	}
	return theta, x
}

// Expected coverage of an exact and a too-narrow posterior: the signed AUC is about 0 for the
// first and clearly negative (over-confident) for the second.
func ExampleRankCoverage() {
	theta, x := jointSample(2000)
	for _, width := range []float64{1, 0.6} {
		cov, err := diag.RankCoverage(shrinkModel{width}, theta, x, diag.RankConfig{Samples: 200, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("width %.1f: %d levels, AUC about 0: %v, over-confident: %v\n",
			width, len(cov.Levels), math.Abs(cov.AUC) < 0.03, cov.AUC < -0.05)
	}
	// Output:
	// width 1.0: 19 levels, AUC about 0: true, over-confident: false
	// width 0.6: 19 levels, AUC about 0: false, over-confident: true
}

// Coverage from HPD ranks computed elsewhere: a rank of 0.9 means 90% of the posterior mass is
// less dense than the true parameter, so it lies inside every HPD region of level ≥ 0.1.
func ExampleCoverageFromRanks() {
	cov, err := diag.CoverageFromRanks([]float64{0.1, 0.5, 0.9, 0.95}, []float64{0.25, 0.5, 0.75})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cov.Coverage, fmt.Sprintf("AUC %+.3f", cov.AUC))
	// Output: [0.5 0.75 0.75] AUC +0.167
}

// The classifier two-sample test tells apart two Gaussians one standard deviation apart
// about as well as the Bayes classifier, whose accuracy is Φ(½) ≈ 0.69.
func ExampleC2ST() {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := mat.NewDense(1000, 1, nil), mat.NewDense(1000, 1, nil)
	for i := range 1000 {
		a.Set(i, 0, rng.NormFloat64())
		b.Set(i, 0, 1+rng.NormFloat64())
	}
	acc := diag.C2ST(a, b, 1)
	fmt.Println(acc > 0.64 && acc < 0.72)
	// Output: true
}

// One call runs the calibration diagnostics and returns a report that a notebook displays as
// an HTML summary; viz.Report(rep) displays it with its plots.
func ExampleNewReport() {
	theta, x := jointSample(500)
	rep, err := diag.NewReport(shrinkModel{1}, theta, x, diag.ReportConfig{Label: "exact", Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.N, rep.Coverage.N, len(rep.SBC.Ranks), rep.Grid == nil)
	// Output: 500 500 1 true
}

// KCCSDTest detects predictions whose means are shifted by 0.5.
func ExampleKCCSDTest() {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200
	preds := make([]diag.Prediction, n)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		x := rng.NormFloat64()
		preds[i] = dist.NewNormal([]float64{x + 0.5}, []float64{1}) // the truth is N(x, 1)
		y.Set(i, 0, x+rng.NormFloat64())
	}
	res, err := diag.KCCSDTest(rng, preds, y, diag.KernelTestConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("miscalibration detected:", res.Reject)
	// Output: miscalibration detected: true
}

// The balancing statistic from classifier logits: σ(l) + σ(−l) = 1, so logits of opposite
// sign on joint and marginal pairs are balanced.
func ExampleBalancing() {
	B, err := diag.Balancing([]float64{2, -0.5, 1}, []float64{-2, 0.5, -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("B = %.3f\n", B)
	// Output: B = 1.000
}

// Bias and variance of the posterior (Delaunoy et al. 2022, Eqs. 8–9) on a grid over [−6, 6]:
// for the exact posterior N(x/2, ½) both are ½; a too-narrow one keeps the bias and loses
// variance, the mark of over-confidence.
func ExampleGridBiasVariance() {
	theta, x := jointSample(2000)
	cfg := diag.GridConfig{Lower: []float64{-6}, Upper: []float64{6}, Points: 200}
	for _, width := range []float64{1, 0.6} {
		bv, err := diag.GridBiasVariance(shrinkModel{width}, theta, x, cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("width %.1f: bias %.1f, variance %.2f\n", width, bv.Bias[0], bv.Variance[0])
	}
	// Output:
	// width 1.0: bias 0.5, variance 0.50
	// width 0.6: bias 0.5, variance 0.18
}
