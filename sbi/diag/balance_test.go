package diag

import (
	"math"
	"testing"
)

func TestBalancingBadInput(t *testing.T) {
	for _, c := range []struct {
		name          string
		joint, margin []float64
	}{
		{"no joint logits", nil, []float64{1}},
		{"no marginal logits", []float64{1}, nil},
		{"a NaN logit", []float64{math.NaN()}, []float64{1}},
	} {
		if _, err := Balancing(c.joint, c.margin); err == nil {
			t.Errorf("Balancing with %s: no error", c.name)
		}
	}
}
