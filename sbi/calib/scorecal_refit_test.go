package calib

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestScoreCalibrateRefitPanicIsError: a refit that panics — a closure of the user's, or
// RefitAmortized of an estimator whose posterior cannot be sampled (untrained, or the low
// acceptance of an NPE at a far observation) — is ScoreCalibrate's error, naming the dataset,
// not a panic out of the call. Certify's score-calibration step panicked this way.
func TestScoreCalibrateRefitPanicIsError(t *testing.T) {
	var c conjGauss
	prior := dist.NewNormal([]float64{0}, []float64{conjSigma0})
	untrained := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 4})
	tests := []struct {
		name  string
		refit Refit
		want  string
		is    error
	}{
		{"closure panics", func(*rand.Rand, []float64, int) (*mat.Dense, error) { panic("refit broke") }, "refit broke", nil},
		{"untrained estimator", RefitAmortized(untrained), "calibration dataset 0", sbi.ErrUntrained},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			obs, _ := c.refit(rng, make([]float64, conjN), 50)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("ScoreCalibrate panicked: %v", r)
					}
				}()
				_, err = ScoreCalibrate(rng, obs, c.simulate, tc.refit, ScoreCalConfig{M: 5, N: 20})
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}
