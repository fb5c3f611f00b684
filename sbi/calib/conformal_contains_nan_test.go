package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestContainsNaNDensity: Contains and Coverage of Conformal and GroupConformal counted a
// pair at which the estimator's log density is NaN as outside the region, so that Coverage
// came out too low without a word; having no error result, they now panic with the error that
// MeasureCoverage and GroupCoverage return, naming the pair. Pairs with finite densities give
// the same answers as before.
func TestContainsNaNDensity(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(25, 26))
	th := m.prior().Sample(rng, 400)
	x := m.simulate(rng, th)
	c, err := NewConformal(m.estimator(1, 0), th, x, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := NewGroupConformal(m.estimator(1, 0), th, x, 0.1, PartitionFunc(1, func([]float64) int { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	tt := m.prior().Sample(rng, 200)
	xt := m.simulate(rng, tt)
	// the first test pair with θ₀ > 1 is the first at which the broken estimator gives NaN
	first := -1
	for i := range 200 {
		if tt.At(i, 0) > 1 {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("no test pair with θ₀ > 1")
	}
	broken := holeEstimator{m.estimator(1, 0), 1, math.NaN()}
	bc, bgc := *c, *gc
	bc.Estimator, bgc.Estimator = broken, broken
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"Conformal.Contains", func() { bc.Contains(tt, xt) }},
		{"Conformal.Coverage", func() { bc.Coverage(tt, xt) }},
		{"GroupConformal.Contains", func() { bgc.Contains(tt, xt) }},
		{"GroupConformal.Coverage", func() { bgc.Coverage(tt, xt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok {
					t.Fatalf("recovered %v, want a panic with an error naming the NaN log density", r)
				}
				want := fmt.Sprintf("calib: %s: the estimator returned a NaN log density for test pair %d;", tc.name[strings.Index(tc.name, ".")+1:], first)
				if !strings.Contains(err.Error(), want) {
					t.Errorf("panic %q, want it to contain %q", err, want)
				}
			}()
			tc.call()
		})
	}
	// a pair with a NaN entry, at which the sound estimator gives NaN: the panic says to drop it
	xn := mat.DenseCopyOf(xt)
	xn.Set(3, 0, math.NaN())
	func() {
		defer func() {
			want := "calib: Coverage: test pair 3 has a NaN or infinite entry"
			if r := fmt.Sprint(recover()); !strings.HasPrefix(r, want) {
				t.Errorf("Coverage with a NaN observation: recovered %q, want %q…", r, want)
			}
		}()
		c.Coverage(tt, xn)
	}()
	// finite densities: Coverage is still the share of Contains, the same for both types here
	in := c.Contains(tt, xt)
	k := 0
	for _, v := range in {
		if v {
			k++
		}
	}
	if got, want := c.Coverage(tt, xt), float64(k)/200; got != want || gc.Coverage(tt, xt) != want {
		t.Errorf("Coverage = %v and %v, want %v", got, gc.Coverage(tt, xt), want)
	}
}
