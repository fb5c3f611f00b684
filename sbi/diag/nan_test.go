package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
)

// nanSummaries is gaussModel with an embedding (sbi.Summarizer) that is NaN, or +Inf with inf
// set, for every row whose first value exceeds cut, as an embedding net that overflows on
// data far from its training set would be.
type nanSummaries struct {
	gaussModel
	cut float64
	inf bool
}

func (m nanSummaries) Summaries(x *mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(x)
	n, _ := x.Dims()
	for i := range n {
		if x.At(i, 0) > m.cut {
			v := math.NaN()
			if m.inf {
				v = math.Inf(1)
			}
			out.Set(i, 1, v)
		}
	}
	return out
}

// TestMisspecificationNonFiniteSummaries: an estimator whose summary of the observation is NaN
// gave an MMD² of NaN, which no calibration statistic is ≥, so p = 1/(m+1) and the verdict
// "atypical of the simulations" came from no evidence; a NaN summary of some simulations made
// every statistic NaN the same way. Each is an error naming the summaries.
func TestMisspecificationNonFiniteSummaries(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	_, x := m.simulate(1, 400)
	for _, c := range []struct {
		name string
		est  nanSummaries
		xo   []float64
		want string
	}{
		{"NaN observation summary", nanSummaries{gaussModel: m, cut: 100}, []float64{200, 0}, "summary of the observation"},
		{"+Inf observation summary", nanSummaries{gaussModel: m, cut: 100, inf: true}, []float64{200, 0}, "summary of the observation"},
		{"NaN simulation summaries", nanSummaries{gaussModel: m, cut: 1.5}, []float64{0.1, 0}, "summaries of"},
	} {
		res, err := Misspecification(c.est, x, c.xo, MisspecConfig{Seed: 1})
		if err == nil {
			t.Errorf("%s: no error; verdict %q", c.name, res.Verdict())
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "NaN or ±Inf") {
			t.Errorf("%s: error %q, want one naming %q and NaN or ±Inf", c.name, err, c.want)
		}
	}
}

// badShapeSummaries returns summaries of the wrong shape: rows dropped or a width that
// depends on the number of rows.
type badShapeSummaries struct {
	gaussModel
	rows bool
}

func (m badShapeSummaries) Summaries(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	if m.rows {
		return mat.NewDense(max(1, n-1), d, nil)
	}
	return mat.NewDense(n, 1+n%2, nil)
}

// TestMisspecificationSummaryShapes: summaries with a row per row of x and one width are
// required; a Summarizer that breaks this is an error, not a panic or a statistic over the
// wrong points.
func TestMisspecificationSummaryShapes(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	_, x := m.simulate(1, 400)
	for _, rows := range []bool{true, false} {
		if _, err := Misspecification(badShapeSummaries{m, rows}, x, []float64{0, 0}, MisspecConfig{Seed: 1, Reference: 100, Calibration: 51}); err == nil || !strings.Contains(err.Error(), "Summaries") {
			t.Errorf("rows %v: error %v, want one naming Summaries", rows, err)
		}
	}
}

var _ sbi.Summarizer = nanSummaries{}

// nanDraws is gaussModel whose posterior draws hold NaN (or +Inf with inf set) in the last
// coordinate of every fifth draw, as a sampler that fails would, while its log density stays
// finite at the true parameters (and −Inf at the draws it cannot place).
type nanDraws struct {
	gaussModel
	inf bool
}

type nanDrawsPost struct {
	gaussPost
	inf bool
}

func (m nanDraws) Posterior(x []float64) sbi.Posterior { return nanDrawsPost{m.post(x), m.inf} }

func (p nanDrawsPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	s := p.gaussPost.Sample(rng, n)
	v := math.NaN()
	if p.inf {
		v = math.Inf(1)
	}
	for i := 0; i < n; i += 5 {
		s.Set(i, len(p.mu)-1, v)
	}
	return s
}

func (p nanDrawsPost) LogProb(theta *mat.Dense) []float64 {
	lp := p.gaussPost.LogProb(theta)
	for i := range lp {
		if !pairs.AllFinite(theta.RawRowView(i)) {
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

// TestNonFinitePosteriorDrawsAreAnError: posterior draws holding NaN compare false with the
// true parameter, so SBC and marginal coverage counted them as above it, TARP as farther
// than it, and the HPD rank as below it wherever their log density was −Inf: ranks biased
// by the failures of the sampler, read as miscalibration. L-C2ST fed them to its
// classifiers and Recovery averaged them. Each diagnostic now refuses them with an error
// naming the draw and the pair.
func TestNonFinitePosteriorDrawsAreAnError(t *testing.T) {
	for _, inf := range []bool{false, true} {
		m := nanDraws{gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}, inf}
		theta, x := m.simulate(2, 60)
		cfg := RankConfig{Samples: 19, Seed: 1}
		run := map[string]func() error{
			"RankCoverage":     func() error { _, err := RankCoverage(m, theta, x, cfg); return err },
			"SBC":              func() error { _, err := SBC(m, theta, x, cfg); return err },
			"MarginalCoverage": func() error { _, err := MarginalCoverage(m, theta, x, cfg); return err },
			"TARP":             func() error { _, err := TARP(m, theta, x, cfg); return err },
			"Recovery": func() error {
				_, err := Recovery(m, theta, x, RecoveryConfig{Samples: 19, Seed: 1})
				return err
			},
			"LocalC2ST": func() error {
				_, err := LocalC2ST(m, theta, x, x.RawRowView(0), LC2STConfig{Null: 2, Evals: 20, MaxEpochs: 2})
				return err
			},
		}
		for name, f := range run {
			err := f()
			if err == nil || !strings.Contains(err.Error(), "posterior draw") || !strings.Contains(err.Error(), "NaN or ±Inf") {
				t.Errorf("%s with draws holding %v: error %v, want one naming the posterior draw and NaN or ±Inf", name, map[bool]string{false: "NaN", true: "+Inf"}[inf], err)
			}
		}
	}
}

// TestLC2STNaNStatisticIsNotARejection: a classifier whose output at the observation is NaN
// (here the data classifier's or a null classifier's last bias set to NaN: training refuses a
// NaN loss, so this guards against what no input is known to reach) gave the statistic NaN,
// which no null statistic is ≥, so p = 1/(Null+1) and the verdict "rejected"; a NaN null
// statistic was counted as below the observed one. Either is now an error naming the NaN.
func TestLC2STNaNStatisticIsNotARejection(t *testing.T) {
	m := gaussModel{dim: 1, tau: 1, s: 0.5, width: 1}
	theta, x := m.simulate(3, 40)
	for _, k := range []int{0, 1} {
		l, err := NewLC2ST(m, theta, x, LC2STConfig{Null: 19, Evals: 50, MaxEpochs: 5, Flow: true})
		if err != nil {
			t.Fatal(err)
		}
		net := l.nets[k].net
		net.Layers[len(net.Layers)-1].B.Data[0] = math.NaN()
		res, err := l.Test(x.RawRowView(0))
		if err == nil {
			t.Errorf("classifier %d NaN: no error; statistic %v, p %v, verdict %q", k, res.Value, res.PValue, res.Verdict())
			continue
		}
		if !strings.Contains(err.Error(), "NaN") {
			t.Errorf("classifier %d NaN: error %q, want one naming NaN", k, err)
		}
	}
}

// TestKernelTestBandwidthsMustBeNumbers: a NaN bandwidth made every pair kernel NaN, which the
// tests reported as scores "too large to multiply"; a NaN ground bandwidth of the kernelized
// Fisher kernel as a Gram matrix that is not positive definite; an infinite bandwidth made a
// kernel constant and the test ran on it. Each is now an error naming the bandwidth.
func TestKernelTestBandwidthsMustBeNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 30
	preds := make([]Prediction, n)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		x := rng.NormFloat64()
		preds[i] = NewIsoGaussian([]float64{x}, 1)
		y.Set(i, 0, x+rng.NormFloat64())
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		cfg  KernelTestConfig
		want string
	}{
		{KernelTestConfig{TargetBandwidth: nan}, "TargetBandwidth"},
		{KernelTestConfig{TargetBandwidth: inf}, "TargetBandwidth"},
		{KernelTestConfig{Dist: DistKernelConfig{Bandwidth: nan}}, "Dist.Bandwidth"},
		{KernelTestConfig{Dist: DistKernelConfig{Bandwidth: inf}}, "Dist.Bandwidth"},
		{KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel, GroundBandwidth: nan}}, "Dist.GroundBandwidth"},
		{KernelTestConfig{Dist: DistKernelConfig{Kind: KernelizedFisherKernel, GroundBandwidth: nan}}, "Dist.GroundBandwidth"},
		{KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel, GroundBandwidth: inf}}, "Dist.GroundBandwidth"},
	} {
		for name, test := range map[string]func(*rand.Rand, []Prediction, *mat.Dense, KernelTestConfig) (*KernelTestResult, error){"KCCSD": KCCSDTest, "SKCE": SKCETest} {
			_, err := test(rand.New(rand.NewPCG(1, 1)), preds, y, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s with %+v: error %v, want one naming %s", name, c.cfg, err, c.want)
			}
		}
	}
}

// TestRegionCoverageNaNThreshold: a NaN threshold made every score "outside" its region
// (s ≤ NaN is false), a coverage of 0 read as an over-confident estimator. It is now an error
// naming the level.
func TestRegionCoverageNaNThreshold(t *testing.T) {
	scores := []float64{0.1, 0.5, 0.9, 0.3}
	_, err := RegionCoverage(scores, []float64{0.2, math.NaN(), 0.8}, []float64{0.25, 0.5, 0.75})
	if err == nil || !strings.Contains(err.Error(), "threshold") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("error %v, want one naming the NaN threshold", err)
	}
}

// nanSampler draws N(0, 1) parameters with every fourth draw NaN, as a failing posterior
// sampler would.
type nanSampler struct{}

func (nanSampler) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 1, nil)
	for i := range n {
		out.Set(i, 0, rng.NormFloat64())
		if i%4 == 0 {
			out.Set(i, 0, math.NaN())
		}
	}
	return out
}

// TestPredictiveCheckNaNDraws: parameter draws holding NaN were simulated (a simulator may
// clamp them to finite data, here to 0) and the observation compared with simulations of no
// parameter at all. They are now an error naming the draw.
func TestPredictiveCheckNaNDraws(t *testing.T) {
	clamp := func(rng *rand.Rand, theta []float64) []float64 {
		if math.IsNaN(theta[0]) {
			return []float64{0}
		}
		return []float64{theta[0] + rng.NormFloat64()}
	}
	_, err := PredictiveCheckFunc(nanSampler{}, clamp, []float64{0.1}, PredictiveConfig{Draws: 200})
	if err == nil || !strings.Contains(err.Error(), "draw") || !strings.Contains(err.Error(), "NaN or ±Inf") {
		t.Errorf("error %v, want one naming the parameter draw and NaN or ±Inf", err)
	}
}
