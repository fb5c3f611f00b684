package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFitAffineRefusesBadWeights: weights that are all zero or NaN made the objective 0/0 and
// the error blamed overflowing distances; a negative weight was used as given (it rewards a
// poor fit on its dataset). Each gets an error about the weights.
func TestFitAffineRefusesBadWeights(t *testing.T) {
	const M = 20
	rng := rand.New(rand.NewPCG(21, 22))
	thetaBar := mat.NewDense(M, 1, nil)
	draws := make([]*mat.Dense, M)
	for i := range M {
		thetaBar.Set(i, 0, rng.NormFloat64())
		draws[i] = mat.NewDense(30, 1, nil)
		for k := range 30 {
			draws[i].Set(k, 0, thetaBar.At(i, 0)+0.5*rng.NormFloat64())
		}
	}
	ones := func() []float64 {
		w := make([]float64, M)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	zero := make([]float64, M)
	nan := ones()
	nan[3] = math.NaN()
	neg := ones()
	neg[5] = -1
	inf := ones()
	inf[7] = math.Inf(1)
	for name, w := range map[string][]float64{"all zero": zero, "NaN": nan, "negative": neg, "+Inf": inf} {
		if _, err := FitAffine(rand.New(rand.NewPCG(1, 1)), thetaBar, draws, w, ScoreCalConfig{}); err == nil || !strings.Contains(err.Error(), "weight") {
			t.Errorf("weights %s: error %v, want one about the weights", name, err)
		}
	}
	if _, err := FitAffine(rand.New(rand.NewPCG(1, 1)), thetaBar, draws, ones(), ScoreCalConfig{}); err != nil {
		t.Errorf("unit weights: %v", err)
	}
}

// TestScoreCalibrateRefusesBadImportanceDensities: a prior density that is zero at every
// calibration parameter, or densities that are NaN, gave NaN weights and an error about
// overflowing distances, and a prior returning too few values panicked; the error must name
// the density at fault. A NaN Clip clipped every weight to the smallest (unit weights,
// silently); a negative one is refused with it.
func TestScoreCalibrateRefusesBadImportanceDensities(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	approx := m.estimator(0.5, 0.3)
	post := approx.Posterior([]float64{0.7})
	constant := func(v float64) func(*mat.Dense) []float64 {
		return func(th *mat.Dense) []float64 {
			r, _ := th.Dims()
			out := make([]float64, r)
			for i := range out {
				out[i] = v
			}
			return out
		}
	}
	tests := []struct {
		name                string
		logPrior, logApprox func(*mat.Dense) []float64
		clip                float64
		want                string
	}{
		{"clip NaN", m.prior().LogProb, post.LogProb, math.NaN(), "Clip"},
		{"clip negative", m.prior().LogProb, post.LogProb, -0.2, "Clip"},
		{"prior zero everywhere", constant(math.Inf(-1)), post.LogProb, 0, "LogPrior"},
		{"prior NaN", constant(math.NaN()), post.LogProb, 0, "LogPrior"},
		{"approx NaN", m.prior().LogProb, constant(math.NaN()), 0, "LogApprox"},
		{"approx zero at its own draws", m.prior().LogProb, constant(math.Inf(-1)), 0, "LogApprox"},
		{"prior of the wrong length", func(*mat.Dense) []float64 { return []float64{0} }, post.LogProb, 0, "LogPrior"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 24))
			obs := post.Sample(rng, 200)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				_, err = ScoreCalibrate(rng, obs, m.simulate, RefitAmortized(approx), ScoreCalConfig{
					M: 30, N: 50, ImportanceWeights: true, Clip: tc.clip, LogPrior: tc.logPrior, LogApprox: tc.logApprox,
				})
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestFitAffineRefusesZeroSpread: refits that return one point repeated carry no information
// on the scale L, whose entries then never move from the identity; a fit reporting L = I as
// if it had been found must be an error instead.
func TestFitAffineRefusesZeroSpread(t *testing.T) {
	const M = 20
	rng := rand.New(rand.NewPCG(25, 26))
	thetaBar := mat.NewDense(M, 2, nil)
	draws := make([]*mat.Dense, M)
	for i := range M {
		thetaBar.Set(i, 0, rng.NormFloat64())
		thetaBar.Set(i, 1, rng.NormFloat64())
		draws[i] = mat.NewDense(30, 2, nil)
		c := thetaBar.At(i, 1) + 0.3*rng.NormFloat64()
		for k := range 30 {
			draws[i].Set(k, 0, thetaBar.At(i, 0)+0.5*rng.NormFloat64())
			draws[i].Set(k, 1, c) // no spread in parameter 1
		}
	}
	for _, fam := range []AffineFamily{DiagonalAffine, LowerTriangularAffine} {
		res, err := FitAffine(rand.New(rand.NewPCG(1, 1)), thetaBar, draws, nil, ScoreCalConfig{Family: fam})
		if err == nil || !strings.Contains(err.Error(), "spread") || !strings.Contains(err.Error(), "parameter 1") {
			var L any
			if res != nil {
				L = mat.Formatted(res.L)
			}
			t.Errorf("%v family: error %v (L = %v), want one saying parameter 1 has no spread", fam, err, L)
		}
	}
}
