package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// energyCase is an input of EnergyScore.
type energyCase struct {
	draws *mat.Dense
	theta []float64
	beta  float64
}

// normCase is an input of energyObjective.normTerm, with the gradient asked for.
type normCase struct {
	v, scale, e []float64
	beta, c     float64
	sign        float64
}

// eval returns normTerm's value and the gradients it adds to zero gL and gb.
func (n normCase) eval() (val float64, gL, gb []float64) {
	d := len(n.v)
	o := &energyObjective{d: d, beta: n.beta, scale: n.scale}
	gL, gb = make([]float64, d*d), make([]float64, d)
	val = o.normTerm(n.v, true, n.c, n.e, gL, gb, n.sign)
	return val, gL, gb
}

// TestEnergyScoreExtremeScales: the energy score at parameter scales 1e-160 and 1e160, where
// the plain sum of squares of a distance loses its digits to underflow (every distance read
// 0, a score of 0) or overflows (every distance +Inf, a score of NaN). Against the closed form
// of two draws (0, 0) and (3, 4) at θ = (6, 8): ½·5^β − ½(10^β + 5^β) = −½·10^β, times c^β;
// and scale invariance on random draws: S(c·U, c·θ) = c^β·S(U, θ).
func TestEnergyScoreExtremeScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	draws := mat.NewDense(20, 3, nil)
	for i := range 20 {
		for j := range 3 {
			draws.Set(i, j, rng.NormFloat64())
		}
	}
	theta := []float64{0.5, -1, 2}
	for _, c := range []float64{1e-160, 1e160} {
		for _, beta := range []float64{0.5, 1} {
			two := mat.NewDense(2, 2, []float64{0, 0, 3 * c, 4 * c})
			got := EnergyScore(two, []float64{6 * c, 8 * c}, beta)
			want := -0.5 * math.Pow(10, beta) * math.Pow(c, beta)
			if !near(got, want, 1e-13) {
				t.Errorf("c = %g, β = %g: two draws: score %g, want %g", c, beta, got, want)
			}
			scaled := mat.NewDense(20, 3, nil)
			scaled.Scale(c, draws)
			got = EnergyScore(scaled, []float64{c * theta[0], c * theta[1], c * theta[2]}, beta)
			want = EnergyScore(draws, theta, beta) * math.Pow(c, beta)
			if !near(got, want, 1e-12) {
				t.Errorf("c = %g, β = %g: scaled draws: score %g, want c^β·S = %g", c, beta, got, want)
			}
		}
	}
}

// TestNormTermExtremeScales: normTerm's value ‖Sv‖^β and gradient g = β‖Sv‖^{β−2} S²v at
// v = c·(3, 4), S = diag(2, 0.5), for c = 1e-160 and 1e160, against the closed form
// ‖Sv‖ = c·√40, g = β·c^{β−1}·40^{(β−2)/2}·S²(3, 4).
func TestNormTermExtremeScales(t *testing.T) {
	s := []float64{2, 0.5}
	for _, c := range []float64{1e-160, 1e160} {
		for _, beta := range []float64{0.5, 1} {
			n := normCase{v: []float64{3 * c, 4 * c}, scale: s, e: []float64{1, 2}, beta: beta, c: 0.7, sign: -0.5}
			val, gL, gb := n.eval()
			wantVal := math.Pow(40, beta/2) * math.Pow(c, beta)
			if !near(val, wantVal, 1e-13) {
				t.Errorf("c = %g, β = %g: value %g, want %g", c, beta, val, wantVal)
			}
			f := n.sign * n.c * beta * math.Pow(c, beta-1) * math.Pow(40, (beta-2)/2)
			g := []float64{f * s[0] * s[0] * 3, f * s[1] * s[1] * 4}
			wantL := []float64{g[0] * n.e[0], 0, g[1] * n.e[0], g[1] * n.e[1]}
			for j, w := range g {
				if !near(gb[j], w, 1e-13) {
					t.Errorf("c = %g, β = %g: gb[%d] = %g, want %g", c, beta, j, gb[j], w)
				}
			}
			for k, w := range wantL {
				if !near(gL[k], w, 1e-13) {
					t.Errorf("c = %g, β = %g: gL[%d] = %g, want %g", c, beta, k, gL[k], w)
				}
			}
		}
	}
}

// near reports whether got is within the relative tolerance tol of want (false for NaN).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}
