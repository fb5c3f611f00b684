package diag

import (
	"math"
	"strings"
	"testing"
)

// On the conjugate Gaussian model the posterior moments are known: every pair's variance is
// (width·sd)², with sd the exact posterior's standard deviation, and the squared error of the
// posterior mean, shifted by shift·sd, has expectation sd²(1 + shift²) and variance
// sd⁴(2 + 4·shift²) over the joint. The grid (64 points per axis over ±8 prior standard
// deviations, spacing 0.25 against sd ≈ 0.45) makes the discretisation error negligible, so the
// variance is compared to 10⁻⁶ and the bias within 3.5 of its standard errors.
func TestGridBiasVarianceGaussian(t *testing.T) {
	const n, dim = 600, 2
	cfg := GridConfig{Lower: []float64{-8, -8}, Upper: []float64{8, 8}, Points: 64, Workers: 2}
	for _, tc := range []struct {
		name         string
		width, shift float64
	}{
		{"exact", 1, 0},
		{"over-confident", 0.5, 0},
		{"under-confident", 2, 0},
		{"shifted", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := gaussModel{dim: dim, tau: 1, s: 0.5, width: tc.width, shift: tc.shift}
			theta, x := m.simulate(11, n)
			r, err := GridBiasVariance(m, theta, x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			sd2 := 0.2 // τ²s²/(τ²+s²)
			wantVar, wantBias := tc.width*tc.width*sd2, sd2*(1+tc.shift*tc.shift)
			biasSE := sd2 * math.Sqrt((2+4*tc.shift*tc.shift)/n)
			if r.Pairs != n || len(r.Bias) != dim || len(r.Variance) != dim {
				t.Fatalf("result for %d pairs, %d parameters: %+v", n, dim, r)
			}
			for d := range dim {
				if math.Abs(r.Variance[d]-wantVar) > 1e-6*wantVar {
					t.Errorf("parameter %d: variance %.8f, want %.8f", d, r.Variance[d], wantVar)
				}
				if math.Abs(r.Bias[d]-wantBias) > 3.5*biasSE {
					t.Errorf("parameter %d: bias %.4f, want %.4f ± %.4f (3.5 standard errors)", d, r.Bias[d], wantBias, 3.5*biasSE)
				}
				if math.Abs(r.BiasSE[d]-biasSE) > 0.25*biasSE {
					t.Errorf("parameter %d: standard error of the bias %.5f, want about %.5f", d, r.BiasSE[d], biasSE)
				}
				if r.VarianceSE[d] > 1e-6*wantVar {
					t.Errorf("parameter %d: every pair has the same variance, yet its standard error is %g", d, r.VarianceSE[d])
				}
				if math.Abs(r.BoxVariance[d]-256.0/12) > 1e-12 {
					t.Errorf("parameter %d: box variance %g, want 16²/12", d, r.BoxVariance[d])
				}
			}
			// The exact posterior's bias and variance agree (the law of total variance); an
			// over-confident one has less variance than bias, an under-confident one more.
			gap := r.Variance[0] - r.Bias[0]
			switch tc.name {
			case "exact":
				if math.Abs(gap) > 3.5*r.BiasSE[0] {
					t.Errorf("exact posterior: variance − bias = %+.4f, want 0 ± %.4f", gap, 3.5*r.BiasSE[0])
				}
			case "over-confident":
				if gap > -3.5*r.BiasSE[0] {
					t.Errorf("over-confident posterior: variance − bias = %+.4f, want below −%.4f", gap, 3.5*r.BiasSE[0])
				}
			case "under-confident":
				if gap < 3.5*r.BiasSE[0] {
					t.Errorf("under-confident posterior: variance − bias = %+.4f, want above %.4f", gap, 3.5*r.BiasSE[0])
				}
			}
		})
	}
}

func TestGridBiasVarianceBadInput(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := m.simulate(1, 10)
	for _, tc := range []struct {
		name string
		cfg  GridConfig
		want string
	}{
		{"no box", GridConfig{}, "prior box"},
		{"flat box", GridConfig{Lower: []float64{0, 0}, Upper: []float64{1, 0}}, "finite bounds"},
		{"box of another dimension", GridConfig{Lower: []float64{0}, Upper: []float64{1}}, "2 values each"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := GridBiasVariance(m, theta, x, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	m4 := gaussModel{dim: 4, tau: 1, s: 0.5, width: 1}
	theta4, x4 := m4.simulate(1, 10)
	if _, err := GridBiasVariance(m4, theta4, x4, GridConfig{Lower: make([]float64, 4), Upper: []float64{1, 1, 1, 1}}); err == nil || !strings.Contains(err.Error(), "up to 3") {
		t.Errorf("four parameters: error %v, want one naming the limit of 3", err)
	}
	if _, err := GridBiasVariance(nil, theta, x, GridConfig{Lower: []float64{0, 0}, Upper: []float64{1, 1}}); err == nil {
		t.Error("nil estimator: no error")
	}
}
