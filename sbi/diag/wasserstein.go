package diag

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// WassersteinFeatures embeds isotropic Gaussian predictions N(μᵢ, σᵢ²I) (means one per row of
// means, standard deviations sds) as rows fᵢ = [μᵢ, √d·σᵢ], so that ‖fᵢ − fⱼ‖² is the squared
// 2-Wasserstein distance
//
//	W₂²(N(μ, σ²I), N(μ', σ'²I)) = ‖μ − μ'‖² + d·(σ − σ')²
//
// (the Bures distance of the covariances, tr(Σ + Σ' − 2(Σ^½Σ'Σ^½)^½), for commuting Σ = σ²I and
// Σ' = σ'²I). The exponentiated Wasserstein kernel of Glaser et al. (§7) is then
// exp(−‖fᵢ − fⱼ‖²/(2σ_k²)); it is positive definite because W₂ is a Euclidean distance on this
// family. The paper prints d(σ² − σ'²) for the second term, which can be negative; the
// authors' code uses (σ − σ')², as here. The features are linear in (μ, σ): a penalty gets
// ∂/∂μᵢ = ∂/∂fᵢ[:d] and ∂/∂σᵢ = √d·∂/∂fᵢ[d] from KCCSDFeatures' gradient with respect to the
// features. It panics unless len(sds) matches the rows of means and every sd is > 0.
func WassersteinFeatures(means *mat.Dense, sds []float64) *mat.Dense {
	n, d := means.Dims()
	if len(sds) != n {
		panic(fmt.Sprintf("diag: WassersteinFeatures has %d means and %d standard deviations; want one per prediction", n, len(sds)))
	}
	f := mat.NewDense(n, d+1, nil)
	c := math.Sqrt(float64(d))
	for i := range n {
		if !(sds[i] > 0) || math.IsInf(sds[i], 0) {
			panic(fmt.Sprintf("diag: WassersteinFeatures: standard deviation %d is %v, want a finite value > 0", i, sds[i]))
		}
		row := f.RawRowView(i)
		copy(row, means.RawRowView(i))
		row[d] = c * sds[i]
	}
	return f
}

// isoWassersteinFeatures checks that every prediction is isotropic, N(μ, σ²I), and returns
// WassersteinFeatures of their means and σ.
func isoWassersteinFeatures(gs []*gaussian) (*mat.Dense, error) {
	d := len(gs[0].Mean)
	means := mat.NewDense(len(gs), d, nil)
	sds := make([]float64, len(gs))
	for i, g := range gs {
		v := g.Cov.At(0, 0)
		for a := range d {
			for b := range d {
				want := 0.0
				if a == b {
					want = v
				}
				if math.Abs(g.Cov.At(a, b)-want) > 1e-12*v {
					return nil, fmt.Errorf("diag: the exact Wasserstein kernel needs isotropic Gaussian predictions N(μ, σ²I); prediction %d has covariance entry (%d, %d) = %g against variance %g on the diagonal", i, a, b, g.Cov.At(a, b), v)
				}
			}
		}
		means.SetRow(i, g.Mean)
		sds[i] = math.Sqrt(v)
	}
	return WassersteinFeatures(means, sds), nil
}
