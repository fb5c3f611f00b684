package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// at evaluates d's log-density at the one point x.
func at(d Distribution, x ...float64) float64 {
	return d.LogProb(mat.NewDense(1, len(x), x))[0]
}

// Natural logarithms, to 40 digits, of the float64 nearest 1e−310 and of 2⁻¹⁰⁷⁴ = 5e−324, both
// subnormal: math.Log on amd64 returns −709.09 for both (golang/go#56600).
const (
	tinyX  = 1e-310
	lnTiny = -713.8013788281541651006446006623883741382
	minX   = 5e-324
	lnMin  = -744.4400719213812623141072984460816341131
)

// TestSubnormalLogDensity checks the log-densities and transforms at a subnormal coordinate,
// parameter or width against their closed forms, written with the exact logarithms above, to
// a relative 1e−12. With math.Log they were off by up to 35.
func TestSubnormalLogDensity(t *testing.T) {
	lgHalf, _ := math.Lgamma(0.5)
	lg3, _ := math.Lgamma(3)
	a := 1e7
	lga, _ := math.Lgamma(a)
	lga2, _ := math.Lgamma(a + 2)
	inverse := func(f Bijection, y float64) float64 {
		x := make([]float64, 1)
		f.Inverse([]float64{y}, x)
		return x[0]
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Gamma(0.5, 1) at 1e-310", at(NewGamma([]float64{0.5}, []float64{1}), tinyX), -0.5*lnTiny - tinyX - lgHalf},
		{"Gamma(2, 1) at 5e-324", at(NewGamma([]float64{2}, []float64{1}), minX), lnMin},
		{"Gamma(3, rate 1e-310) at 1", at(NewGamma([]float64{3}, []float64{tinyX}), 1), 3*lnTiny - lg3},
		{"Gamma(shape 1e-310, 1) at 1", at(NewGamma([]float64{tinyX}, []float64{1}), 1), lnTiny - 1},
		{"Gamma(1e7, 1) at 1e-310", at(NewGamma([]float64{a}, []float64{1}), tinyX), (a-1)*lnTiny - lga},
		{"Beta(0.5, 0.5) at 1e-310", at(NewBeta([]float64{0.5}, []float64{0.5}), tinyX), -0.5*lnTiny - math.Log(math.Pi)},
		{"Beta(2, 0.5) at 5e-324", at(NewBeta([]float64{2}, []float64{0.5}), minX), lnMin + math.Log(0.75)},
		{"Beta(1e7, 2) at 1e-310", at(NewBeta([]float64{a}, []float64{2}), tinyX), lga2 - lga + (a-1)*lnTiny},
		{"Beta(alpha 1e-310, 1) at 0.5", at(NewBeta([]float64{tinyX}, []float64{1}), 0.5), (tinyX-1)*math.Log(0.5) + lnTiny},
		{"LogNormal(0, 1) at 1e-310", at(NewLogNormal([]float64{0}, []float64{1}), tinyX), -0.5*lnTiny*lnTiny - logSqrt2Pi - lnTiny},
		{"LogNormal(0, scale 1e-310) at 1", at(NewLogNormal([]float64{0}, []float64{tinyX}), 1), -lnTiny - logSqrt2Pi},
		{"Normal(0, std 1e-310) at 0", at(NewNormal([]float64{0}, []float64{tinyX}), 0), -lnTiny - logSqrt2Pi},
		{"BoxUniform[0, 1e-310] at 5e-311", at(NewBoxUniform([]float64{0}, []float64{tinyX}), tinyX/2), -lnTiny},
		{"Affine scale 1e-310 log|det|", Affine{Shift: []float64{0}, Scale: []float64{-tinyX}}.LogAbsDetJacobian([]float64{1}), lnTiny},
		{"Exp inverse at 1e-310", inverse(Exp{}, tinyX), lnTiny},
		{"SupportMap[0, 1] inverse at 1e-310", inverse(SupportMap{Low: []float64{0}, High: []float64{1}}, tinyX), lnTiny},
		{"SupportMap[0, ∞) inverse at 5e-324", inverse(SupportMap{Low: []float64{0}, High: []float64{math.Inf(1)}}, minX), lnMin},
		{"SupportMap(−∞, 0] inverse at −1e-310", inverse(SupportMap{Low: []float64{math.Inf(-1)}, High: []float64{0}}, -tinyX), -lnTiny},
		{"SupportMap[0, 1e-310] log|det| at 0", SupportMap{Low: []float64{0}, High: []float64{tinyX}}.LogAbsDetJacobian([]float64{0}), lnTiny - 2*math.Ln2},
	} {
		if math.IsInf(c.want, 0) {
			if c.got != c.want {
				t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
			}
			continue
		}
		if !(math.Abs(c.got-c.want) <= 1e-12*math.Abs(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
