package calib

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRegionString: a region shown in a cell (the value of Conformal.Region) says what it is,
// its threshold and its posterior, instead of Go's dump of the struct's fields.
func TestRegionString(t *testing.T) {
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(5, 6))
	est := m.estimator(1, 0)
	th := m.prior().Sample(rng, 500)
	c, err := NewConformal(est, th, m.simulate(rng, th), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Region([]float64{0.5, -1})
	s := fmt.Sprint(r)
	want := fmt.Sprintf("−log q(θ) ≤ %.4g", c.Threshold)
	if !strings.HasPrefix(s, "region {θ") || !strings.Contains(s, want) {
		t.Errorf("fmt.Sprint(region) = %q; want a description that starts \"region {θ\" and holds %q", s, want)
	}
}
