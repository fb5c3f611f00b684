package calib

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScoreCalSizeOverflow asks ScoreCalibrate for sizes whose products overflow an int
// (MaxInt/4 + 1 datasets of 4 parameters wrap to a negative or small count), on 32-bit and
// 64-bit platforms alike: it refuses them with an error naming M, N and the parameters before
// it allocates, simulates or refits, instead of panicking with an index out of range on the
// wrapped matrix of calibration parameters.
func TestScoreCalSizeOverflow(t *testing.T) {
	obs := mat.NewDense(3, 4, []float64{0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5})
	simulate := func(rng *rand.Rand, theta *mat.Dense) *mat.Dense { return mat.DenseCopyOf(theta) }
	refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return nil, errors.New("refit called")
	}
	huge := math.MaxInt/4 + 1 // times the 4 parameters, more than an int holds
	cases := []struct {
		name string
		cfg  ScoreCalConfig
		want string
	}{
		{"M × d", ScoreCalConfig{M: huge, N: 10}, fmt.Sprintf("M = %d datasets", huge)},
		{"N × d", ScoreCalConfig{M: 10, N: huge}, fmt.Sprintf("N = %d draws", huge)},
		// M·N fits in an int, M·N·d does not.
		{"M × N × d", ScoreCalConfig{M: 1 << 10, N: math.MaxInt >> 10}, "M = 1024 datasets"},
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
