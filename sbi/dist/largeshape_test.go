package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// closeULP reports whether got is within k units in the last place of want.
func closeULP(got, want float64, k int) bool {
	ulp := math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want)
	return math.Abs(got-want) <= float64(k)*ulp
}

// TestGammaBetaLargeShapeMode checks the log-densities at the mode for shapes 1e7 … 1e300, where
// the direct form rounds terms of size a·log a, against closed forms from Stirling's series
// log Γ(a) = (a−½)·log a − a + ½·log 2π + 1/(12a) − 1/(360a³) + O(a⁻⁵):
//
//	Gamma(a, 1) at x = a:  log p = (a−1)·log a − a − log Γ(a) = −½·log(2πa) − 1/(12a) + 1/(360a³),
//	Beta(a, a) at x = ½:   log p = −(2a−2)·log 2 − 2·log Γ(a) + log Γ(2a)
//	                             = (3/2)·log 2 + ½·log a − ½·log 2π − 1/(8a) + 1/(192a³).
func TestGammaBetaLargeShapeMode(t *testing.T) {
	for _, a := range []float64{1e7, 1e8, 1e10, 1e13, 1e15, 1e16, 1e20, 1e30, 1e50, 1e100, 1e200, 1e300} {
		want := -0.5*math.Log(2*math.Pi*a) - 1/(12*a) + 1/(360*a*a*a)
		got := NewGamma([]float64{a}, []float64{1}).LogProb(mat.NewDense(1, 1, []float64{a}))[0]
		if !closeULP(got, want, 4) {
			t.Errorf("Gamma(%g, 1) at %g: log p = %.17g, want %.17g (error %.3g)", a, a, got, want, got-want)
		}
		want = 1.5*math.Ln2 + 0.5*math.Log(a) - 0.5*math.Log(2*math.Pi) - 1/(8*a) + 1/(192*a*a*a)
		got = NewBeta([]float64{a}, []float64{a}).LogProb(mat.NewDense(1, 1, []float64{0.5}))[0]
		if !closeULP(got, want, 4) {
			t.Errorf("Beta(%g, %g) at 0.5: log p = %.17g, want %.17g (error %.3g)", a, a, got, want, got-want)
		}
	}
}

// TestGammaLargeShapeOffMode checks Gamma(a, 1) away from the mode, at x = a·(1+δ) with a = 2⁶⁰
// and δ = 2⁻²⁰ (x exact), against the mode value of TestGammaBetaLargeShapeMode plus
//
//	log p(x) − log p(a) = (a−1)·log(1+δ) − a·δ = a·(−δ²/2 + δ³/3 − δ⁴/4 + …) − log(1+δ),
//
// where a·δ² = 2²⁰, a·δ³ = 1, a·δ⁴ = 2⁻²⁰, and the terms after a·δ⁵/5 are below 1e−25.
func TestGammaLargeShapeOffMode(t *testing.T) {
	a, delta := 0x1p60, 0x1p-20
	x := a * (1 + delta)
	mode := -0.5*math.Log(2*math.Pi*a) - 1/(12*a)
	diff := -0x1p19 + 1.0/3 - 0x1p-20/4 + 0x1p-40/5 - math.Log1p(delta)
	want := mode + diff
	got := NewGamma([]float64{a}, []float64{1}).LogProb(mat.NewDense(1, 1, []float64{x}))[0]
	if !closeULP(got, want, 4) {
		t.Errorf("Gamma(2⁶⁰, 1) at 2⁶⁰·(1+2⁻²⁰): log p = %.17g, want %.17g (error %.3g)", got, want, got-want)
	}
}

// TestGammaBetaOrdinaryShapeBits checks that shapes up to largeShape keep the bits of the direct
// form, a·log rate − log Γ(a) + (a−1)·log x − rate·x and (a−1)·log x + (b−1)·log(1−x) − log B(a, b).
func TestGammaBetaOrdinaryShapeBits(t *testing.T) {
	shapes := []float64{0.1, 0.5, 1, 1.5, 2, 3.7, 10, 123.4, 1e3, 5e4, 1e5, 7.5e5, 1e6}
	for _, a := range shapes {
		for _, rate := range []float64{0.01, 1, 3} {
			for _, x := range []float64{0, 1e-3, 0.5, 1, a / rate, 2 * a / rate} {
				lg, _ := math.Lgamma(a)
				want := a*math.Log(rate) - lg + xlogy(a-1, x) - rate*x
				if math.IsNaN(want) {
					want = math.Inf(-1)
				}
				got := NewGamma([]float64{a}, []float64{rate}).LogProb(mat.NewDense(1, 1, []float64{x}))[0]
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("Gamma(%g, %g) at %g: log p = %.17g, want the bits of %.17g", a, rate, x, got, want)
				}
			}
		}
		for _, b := range shapes {
			for _, x := range []float64{0, 1e-300, 1e-6, 0.25, 0.5, a / (a + b), 0.999, 1 - 0x1p-53, 1} {
				la, _ := math.Lgamma(a)
				lb, _ := math.Lgamma(b)
				lab, _ := math.Lgamma(a + b)
				want := xlogy(a-1, x) + xlogy(b-1, 1-x) - (la + lb - lab)
				if math.IsNaN(want) {
					want = math.Inf(-1)
				}
				got := NewBeta([]float64{a}, []float64{b}).LogProb(mat.NewDense(1, 1, []float64{x}))[0]
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("Beta(%g, %g) at %g: log p = %.17g, want the bits of %.17g", a, b, x, got, want)
				}
			}
		}
	}
}

// TestBetaOneLargeShape checks Beta(a, b) and its mirror Beta(b, a) with a above largeShape and
// b ∈ {1, 2, 3}, where log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a+b) cancels terms of size
// a·log a, against the closed form for integer b, 1/B(a, b) = a(a+1)…(a+b−1)/(b−1)!, so that
// at 1 − x = ε (and at x = ε for the mirror)
//
//	log p = b·log a + Σ_{j<b} log1p(j/a) − log (b−1)! + (a−1)·log1p(−ε) + (b−1)·log ε.
//
// ε = 2⁻ᵐ is the power of two nearest 1/a, at most 2⁻⁵³ so that 1 − ε is a float64; it is the
// mode 1 − 1/a of Beta(a, 2) for a = 2ᵐ. The Beta(a, 2) mode used to read −Inf from a = 1e16 on
// because the mode (a−1)/a rounds to 1, where the density is 0; the point 1 − ε avoids that.
func TestBetaOneLargeShape(t *testing.T) {
	for _, a := range []float64{1e7, 1e8, 0x1p40, 1e13, 0x1p53, 1e16, 1e20, 0x1p80, 1e100, 1e300} {
		m := math.Min(math.Round(math.Log2(a)), 53)
		eps := math.Ldexp(1, -int(m))
		for _, b := range []float64{1, 2, 3} {
			lgb, _ := math.Lgamma(b)
			want := b*math.Log(a) - lgb + (a-1)*math.Log1p(-eps) + (b-1)*math.Log(eps)
			for j := 1.0; j < b; j++ {
				want += math.Log1p(j / a)
			}
			got := NewBeta([]float64{a}, []float64{b}).LogProb(mat.NewDense(1, 1, []float64{1 - eps}))[0]
			if !closeULP(got, want, 8) {
				t.Errorf("Beta(%g, %g) at 1−2⁻%g: log p = %.17g, want %.17g (error %.3g)", a, b, m, got, want, got-want)
			}
			got = NewBeta([]float64{b}, []float64{a}).LogProb(mat.NewDense(1, 1, []float64{eps}))[0]
			if !closeULP(got, want, 8) {
				t.Errorf("Beta(%g, %g) at 2⁻%g: log p = %.17g, want %.17g (error %.3g)", b, a, m, got, want, got-want)
			}
		}
	}
}
