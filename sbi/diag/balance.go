package diag

import (
	"errors"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Balancing returns B = mean σ(joint) + mean σ(marginal), the balancing statistic of
// Delaunoy et al. (2022, eq. 3) estimated from classifier logits log r̂ on joint pairs and on
// marginal pairs; a balanced classifier has B = 1. It is the diagnostic the paper reports as
// |1 − B|, computed on held-out pairs.
func Balancing(jointLogits, marginalLogits []float64) (float64, error) {
	if len(jointLogits) == 0 || len(marginalLogits) == 0 {
		return 0, errors.New("diag.Balancing: need at least one joint and one marginal logit")
	}
	mean := func(l []float64) float64 {
		s := 0.0
		for _, v := range l {
			s += sigmoid(v)
		}
		return s / float64(len(l))
	}
	B := mean(jointLogits) + mean(marginalLogits)
	if math.IsNaN(B) {
		return 0, errors.New("diag.Balancing: a logit is NaN")
	}
	return B, nil
}

// MustBalancing is Balancing for notebook cells: it returns the result alone and panics with
// Balancing's error.
func MustBalancing(jointLogits, marginalLogits []float64) float64 {
	return safe.Must(Balancing(jointLogits, marginalLogits))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
