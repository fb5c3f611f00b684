package diag

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGaussKernelMeanTinyBandwidth: the Gaussian-kernel expectations divide det(Σ + ℓ²I) by
// ℓ^{2d} in logarithms, and at a bandwidth ℓ = 1e−160 (data of that scale) ℓ² = 1e−320 is
// subnormal, where math.Log on amd64 is wrong (golang/go#56600, −709.1 for −736.8): the factors
// came out e^{13.9·d}-fold too large. With Σ = ℓ²I and equal means they are
// det(I + Σ/ℓ²)^{−1/2} = ½ and det(I + 2Σ/ℓ²)^{−1/2} = ⅓ in two dimensions, whatever the scale.
func TestGaussKernelMeanTinyBandwidth(t *testing.T) {
	ell := 1e-160
	l2 := ell * ell
	cov := mat.NewSymDense(2, []float64{l2, 0, 0, l2})
	zero := mat.NewSymDense(2, nil)
	mean := []float64{0, 0}
	g := &gaussian{Mean: mean, Cov: cov}
	sh := newSharedCovMeans([]*gaussian{g}, mat.NewDense(1, 2, mean), ell)
	if sh == nil {
		t.Fatal("newSharedCovMeans: nil for one Gaussian of a positive covariance")
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"gaussKernelMean", gaussKernelMean(mean, mean, cov, zero, ell), 0.5},
		{"gaussKernelMean of two", gaussKernelMean(mean, mean, cov, cov, ell), 1.0 / 3},
		{"shared point factor", sh.c1, 0.5},
		{"shared pair factor", sh.c2, 1.0 / 3},
	} {
		if math.Abs(c.got-c.want) > 1e-11 {
			t.Errorf("%s at ℓ = %g: %v, want %v", c.name, ell, c.got, c.want)
		}
	}
}
