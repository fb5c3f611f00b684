package calib

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScoreCalSizeOverflow asks ScoreCalibrate for sizes whose products overflow an int
// (2⁶² + 1 datasets of 4 parameters wrap to 4 values): it refuses them with an error naming
// M, N and the parameters before it allocates, simulates or refits, instead of panicking with
// an index out of range on the wrapped matrix of calibration parameters.
func TestScoreCalSizeOverflow(t *testing.T) {
	obs := mat.NewDense(3, 4, []float64{0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5})
	simulate := func(rng *rand.Rand, theta *mat.Dense) *mat.Dense { return mat.DenseCopyOf(theta) }
	refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return nil, errors.New("refit called")
	}
	cases := []struct {
		name string
		cfg  ScoreCalConfig
		want string
	}{
		{"M × d", ScoreCalConfig{M: 1<<62 + 1, N: 10}, "M = 4611686018427387905 datasets"},
		{"N × d", ScoreCalConfig{M: 10, N: 1<<62 + 1}, "N = 4611686018427387905 draws"},
		{"M × N × d", ScoreCalConfig{M: 1 << 20, N: 1 << 41}, "M = 1048576 datasets"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panicked: %v", p)
					}
				}()
				_, err = ScoreCalibrate(rand.New(rand.NewPCG(1, 2)), obs, simulate, refit, c.cfg)
			}()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "more values than") {
				t.Fatalf("error %v, want one naming %q and saying they are more values than an int can count", err, c.want)
			}
		})
	}
}
