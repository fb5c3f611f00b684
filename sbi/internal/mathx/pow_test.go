package mathx

import (
	"math"
	"math/big"
	"testing"
)

// bigExp returns e^z to prec bits for |z| < 10⁴: with k the integer nearest z/ln 2 and
// s = z − k·ln 2 (|s| ≤ 0.35), e^z = 2ᵏ·Σ sʲ/j!. It uses nothing of package math's
// exponential.
func bigExp(z *big.Float) *big.Float {
	ln2 := bigLog(2)
	q, _ := new(big.Float).Quo(z, ln2).Float64()
	k := math.Round(q)
	s := new(big.Float).SetPrec(prec).Mul(ln2, big.NewFloat(k))
	s.Sub(z, s)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -prec-4)
	for j := int64(1); ; j++ {
		term.Mul(term, s)
		term.Quo(term, new(big.Float).SetInt64(j))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// bigPow returns x^y = e^{y·ln x} to about prec − 15 bits for x > 0 (the product y·ln x, of
// magnitude below 2¹², keeps prec bits of a relative precision).
func bigPow(x, y float64) *big.Float {
	z := new(big.Float).SetPrec(prec).Mul(bigLog(x), new(big.Float).SetFloat64(y))
	return bigExp(z)
}

// powUlpsOff is |got − ref| in units of the last place of ref rounded to float64, the unit being
// 2⁻¹⁰⁷⁴ where that rounds to zero or a subnormal; +Inf for got infinite, unless ref rounds
// to +Inf too.
func powUlpsOff(got float64, ref *big.Float) float64 {
	want, _ := ref.Float64()
	if math.IsInf(want, 1) || math.IsInf(got, 1) {
		if got == want {
			return 0
		}
		return math.Inf(1)
	}
	ulp := math.Max(math.Abs(math.Nextafter(want, 0)-want), 0x1p-1074)
	if want == 0 {
		ulp = 0x1p-1074
	}
	d := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetFloat64(got), ref)
	off, _ := d.Float64()
	return math.Abs(off) / ulp
}

// powExponents are the exponents of the accuracy test: fractions, both signs, the edges of the
// range where a subnormal's power is a float64, integers and ±½, where Pow is math.Pow.
func powExponents() []float64 {
	return []float64{0.25, -0.25, 0.1, 0.3, 1.0 / 3, 0.7, 0.75, 0.9, 0.99, 1.01, 1.03, 1.05,
		1.0 / 7, 1e-3, 1e-10, 1e-300, -1e-300, -0.1, -0.7, -0.9, -0.999, -1.001, 1.5, 1.9, -1.5,
		2.5, -2.5, 1e10, -1e10, 0.5, -0.5, 1, 2, -1, 3, 0.123456789, 0.987654321}
}

// TestPowSubnormal checks Pow against the 200-bit reference at subnormal bases: within 2 ulp,
// the unit being 2⁻¹⁰⁷⁴ where x^y is subnormal or rounds to zero (measured, at most 1.73 ulp
// where x^y is normal and 1 unit where it is subnormal), and exactly where it overflows.
// math.Pow fails it on amd64: Pow(1e−310, 0.25) is 3.16e−78, math.Pow's 1.03e−77.
func TestPowSubnormal(t *testing.T) {
	xs := subnormals()
	for i, y := range powExponents() {
		for j, x := range xs {
			if j%7 != i%7 && j > 60 {
				continue // every seventh random base for each exponent, to keep the test short
			}
			ref := bigPow(x, y)
			got := Pow(x, y)
			if u := powUlpsOff(got, ref); !(u <= 2) {
				want, _ := ref.Float64()
				t.Errorf("Pow(%v, %v) = %v, want %v (%.3g ulp off)", x, y, got, want, u)
			}
		}
	}
}

// TestPowIssueValue pins the example: the float64 nearest 1e−310 is 9.99999999999999694e−311
// (a subnormal has few digits), whose fourth root is 3.16227766016837691676e−78 (big.Float's
// square root, twice); Pow must be within 1 ulp. math.Pow gives 1.03e−77.
func TestPowIssueValue(t *testing.T) {
	const want = 3.16227766016837691676e-78
	if got := Pow(1e-310, 0.25); math.Abs(got-want) > math.Abs(math.Nextafter(want, 0)-want) {
		t.Errorf("Pow(1e-310, 0.25) = %v, want %v", got, want)
	}
}

// TestPowIsMathPowElsewhere checks that Pow is math.Pow bit for bit wherever the base is not a
// positive subnormal number or the exponent is an integer, ±½, ±Inf or NaN: every special case
// of math.Pow's documentation, and ordinary bases and exponents.
func TestPowIsMathPowElsewhere(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	cases := [][2]float64{
		{2, 0}, {nan, 0}, {-3, negZero}, {1, 7.5}, {1, nan}, {1, inf}, {4.2, 1}, {-4.2, 1}, {nan, 1},
		{nan, 2.5}, {2.5, nan}, {0, -3}, {negZero, -3}, {0, -inf}, {negZero, -inf}, {0, inf},
		{negZero, inf}, {0, -2.5}, {negZero, -2}, {0, 3}, {negZero, 3}, {0, 2.5}, {negZero, 2},
		{-1, inf}, {-1, -inf}, {1.5, inf}, {-1.5, -inf}, {0.5, inf}, {-0.5, -inf}, {inf, 2.5},
		{inf, -2.5}, {-inf, 3}, {-inf, -3}, {-inf, 2.5}, {-2, 2.5}, {-2, -0.3},
		// Subnormal bases with exponents math.Pow gets right: integers, ±½, ±Inf, NaN; negative
		// subnormal bases (NaN for a fractional exponent).
		{1e-310, 2}, {1e-310, 1}, {1e-310, -1}, {5e-324, 3}, {1e-310, 0.5}, {1e-310, -0.5},
		{1e-310, inf}, {1e-310, -inf}, {1e-310, nan}, {-1e-310, 0.25}, {-1e-310, 3}, {-5e-324, -2},
	}
	for _, x := range []float64{minNormal, math.Nextafter(minNormal, 1), 1e-300, 1e-100, 0.3, 1 - 1e-16, 1 + 1e-15, 2, 7.25, 1e100, 1e300, math.MaxFloat64} {
		for _, y := range []float64{0.25, -0.25, 0.75, 1.5, -1.5, 1.0 / 3, 0.1, 1e-300, 2, -3, 10.5, 1e10 + 0.5} {
			cases = append(cases, [2]float64{x, y}, [2]float64{-x, y})
		}
	}
	for _, c := range cases {
		got, want := Pow(c[0], c[1]), math.Pow(c[0], c[1])
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("Pow(%v, %v) = %v (%#x), math.Pow %v (%#x)", c[0], c[1], got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestBigPowReference checks the reference itself where big.Float is exact or has a root of
// its own: x^¼ = √√x and x² (exact, in 200 bits), to 2⁻¹⁸⁰ relative, at subnormal and normal x.
func TestBigPowReference(t *testing.T) {
	for _, x := range []float64{5e-324, 1e-310, 2e-308, 1e-300, 0.3, 7, 1e300} {
		bx := new(big.Float).SetPrec(prec).SetFloat64(x)
		root := new(big.Float).SetPrec(prec).Sqrt(bx)
		root.Sqrt(root)
		sq := new(big.Float).SetPrec(prec).Mul(bx, bx)
		for _, c := range []struct {
			y    float64
			want *big.Float
		}{{0.25, root}, {2, sq}} {
			d := new(big.Float).SetPrec(prec).Sub(bigPow(x, c.y), c.want)
			d.Quo(d, c.want)
			if rel, _ := d.Float64(); math.Abs(rel) > 0x1p-180 {
				t.Errorf("bigPow(%v, %v) is %g off, relative", x, c.y, rel)
			}
		}
	}
}
