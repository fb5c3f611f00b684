package calib

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// TestConformalQuantileNaNPanics: ConformalQuantile is documented to panic on NaN scores.
// sort.Float64s puts NaN first, so without the check a NaN took the first rank and the
// threshold came out silently (here 4, one rank below the one the finite scores give).
func TestConformalQuantileNaNPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "NaN") {
			t.Errorf("recovered %v, want a panic naming the NaN score", r)
		}
	}()
	got := ConformalQuantile([]float64{1, 2, math.NaN(), 3, 4, 5, 6, 7, 8}, 0.5)
	t.Errorf("ConformalQuantile with a NaN score returned %v, want a panic", got)
}

// holeEstimator is a gaussEstimator whose log density is val (−Inf or NaN) at every pair with
// θ₀ > cut: an estimator with a hole in its support, or one that breaks there.
type holeEstimator struct {
	gaussEstimator
	cut, val float64
}

func (e holeEstimator) LogProbPairs(theta, x *mat.Dense) []float64 {
	lp := e.gaussEstimator.LogProbPairs(theta, x)
	for i := range lp {
		if theta.At(i, 0) > e.cut {
			lp[i] = e.val
		}
	}
	return lp
}

var _ sbi.Amortized = holeEstimator{}

// TestConformalInfiniteScoresReported: 200 calibration pairs are plenty for α = 0.05 (19 are
// needed), but an estimator with zero density at about half of them (θ > 0) gives the
// threshold +Inf. The error must say so, not that 200 pairs are too few.
func TestConformalInfiniteScoresReported(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(11, 12))
	th := m.prior().Sample(rng, 200)
	x := m.simulate(rng, th)
	est := holeEstimator{m.estimator(1, 0), 0, math.Inf(-1)}
	c, err := NewConformal(est, th, x, 0.05)
	if c == nil || !math.IsInf(c.Threshold, 1) {
		t.Fatalf("calibration %v, want one with threshold +Inf", c)
	}
	if err == nil || strings.Contains(err.Error(), "too few") || !strings.Contains(err.Error(), "zero density") {
		t.Errorf("NewConformal error %v, want one saying the estimator gives zero density to the pairs", err)
	}
	if g := c.Guarantee(); !strings.Contains(g, "whole space") {
		t.Errorf("Guarantee %q, want it to say the region is the whole space", g)
	}
	if r, err := c.MeasureCoverage(th, x); err == nil || !strings.Contains(err.Error(), "whole space") {
		t.Errorf("MeasureCoverage with threshold +Inf: %v, %v; want an error saying the region is the whole space", r, err)
	}
	one := PartitionFunc(2, func(x []float64) int {
		if x[0] > 100 {
			return 1
		}
		return 0
	})
	gc, err := NewGroupConformal(est, th, x, 0.05, one)
	if gc == nil || !math.IsInf(gc.Thresholds[0], 1) {
		t.Fatalf("group calibration %v, want group 0 with threshold +Inf", gc)
	}
	if err == nil || !strings.Contains(err.Error(), "group 0") || !strings.Contains(err.Error(), "zero density") ||
		!strings.Contains(err.Error(), "group 1 has 0") {
		t.Errorf("NewGroupConformal error %v, want group 0 reported for zero density and group 1 for too few pairs", err)
	}
	if strings.Contains(err.Error(), "group 0 has 200") {
		t.Errorf("NewGroupConformal error %v reports group 0 as having too few pairs", err)
	}
}

// TestVolumeInfiniteThreshold: a threshold of +Inf is the whole space, whose volume is +Inf;
// the mixture sampler only sees the support of q and the prior and gave a finite number.
func TestVolumeInfiniteThreshold(t *testing.T) {
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(13, 14))
	r := &Region{Posterior: isoGauss([]float64{0, 0}, 1), Threshold: math.Inf(1)}
	if v, se := r.Volume(rng, m.prior(), VolumeConfig{Samples: 200}); !math.IsInf(v, 1) || math.IsNaN(se) {
		t.Errorf("Volume of the whole space = %v ± %v, want +Inf", v, se)
	}
	th := m.prior().Sample(rng, 5)
	c, err := NewConformal(m.estimator(1, 0), th, m.simulate(rng, th), 0.05)
	if err == nil || !math.IsInf(c.Threshold, 1) {
		t.Fatalf("5 pairs at α = 0.05: want an error and threshold +Inf, got %v", err)
	}
	xs := m.simulate(rng, m.prior().Sample(rng, 3))
	mean, se, err := c.ExpectedVolume(rng, m.prior(), xs, VolumeConfig{Samples: 200})
	if err != nil || !math.IsInf(mean, 1) || math.IsNaN(se) {
		t.Errorf("ExpectedVolume with threshold +Inf = %v ± %v (%v), want +Inf", mean, se, err)
	}
}

// TestMeasureCoverageNaNDensity: an estimator that returns NaN log densities at test pairs
// made those pairs count as not covered, and the verdict then blamed the test pairs'
// exchangeability; the measurement must refuse instead.
func TestMeasureCoverageNaNDensity(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(15, 16))
	th := m.prior().Sample(rng, 400)
	x := m.simulate(rng, th)
	c, err := NewConformal(m.estimator(1, 0), th, x, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	c.Estimator = holeEstimator{m.estimator(1, 0), 0, math.NaN()}
	tt := m.prior().Sample(rng, 400)
	xt := m.simulate(rng, tt)
	if r, err := c.MeasureCoverage(tt, xt); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("MeasureCoverage with NaN densities: %v, %v; want an error naming the NaN", r, err)
	}
	gc, err := NewGroupConformal(m.estimator(1, 0), th, x, 0.1, PartitionFunc(1, func([]float64) int { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	gc.Estimator = c.Estimator
	if r, err := gc.GroupCoverage(tt, xt); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("GroupCoverage with NaN densities: %v, %v; want an error naming the NaN", r, err)
	}
}

// TestRegionSampleNegative: n < 0 returned a 1×d matrix of zeros as if it were a draw.
func TestRegionSampleNegative(t *testing.T) {
	r := &Region{Posterior: isoGauss([]float64{0, 0}, 1), Threshold: 3}
	if s, err := r.Sample(rand.New(rand.NewPCG(1, 1)), -1); err == nil {
		t.Errorf("Sample(-1) = %v, want an error", mat.Formatted(s))
	}
}

// TestGridVolumeStatesLimit: the grid's cell limit is in the error (and the doc), so that a
// caller knows how many bins are allowed; the check comes before any density is evaluated.
func TestGridVolumeStatesLimit(t *testing.T) {
	r := &Region{Posterior: isoGauss([]float64{0, 0, 0}, 1), Threshold: 3}
	lo, hi := []float64{-1, -1, -1}, []float64{1, 1, 1}
	if _, err := r.GridVolume(lo, hi, 407); err == nil || !strings.Contains(err.Error(), "67108864") {
		t.Errorf("407³ cells: error %v, want one stating the limit of 67108864 cells", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stop before counting: only the size check runs
	if _, err := r.GridVolumeContext(ctx, lo, hi, 406); err == nil || strings.Contains(err.Error(), "too large") {
		t.Errorf("406³ cells are within the limit: %v, want the cancellation error", err)
	}
}
