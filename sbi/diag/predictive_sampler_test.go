package diag

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// shortSampler returns rows draws whatever is asked (nil for rows < 0).
type shortSampler struct{ rows int }

func (s shortSampler) Sample(rng *rand.Rand, n int) *mat.Dense {
	if s.rows < 0 {
		return nil
	}
	return mat.NewDense(s.rows, 1, nil)
}

// TestPredictiveCheckSamplerShort: a sampler that returns nil or fewer draws than asked is an
// error naming what it returned, not a panic or a check on fewer simulations than configured.
func TestPredictiveCheckSamplerShort(t *testing.T) {
	sim := func(rng *rand.Rand, theta []float64) []float64 { return []float64{theta[0] + rng.NormFloat64()} }
	for _, c := range []struct {
		rows int
		want string
	}{{-1, "returned no draws (nil) for 100"}, {30, "returned 30 draws, 100 requested"}} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("sampler of %d rows: panic %v", c.rows, r)
				}
			}()
			_, err = PredictiveCheckFunc(shortSampler{c.rows}, sim, []float64{0}, PredictiveConfig{Draws: 100})
		}()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sampler of %d rows: error %v, want one saying %q", c.rows, err, c.want)
		}
	}
}
