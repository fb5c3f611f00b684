package mathx

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// prec is the precision, in bits, of the reference logarithm.
const prec = 200

// bigLog returns ln x for a finite x > 0 to prec bits: with x = m·2^e, m ∈ [½, 1) (exact, from
// big.Float), ln x = e·ln 2 + ln m, and ln y = 2·atanh((y−1)/(y+1)) = 2·Σ s^(2k+1)/(2k+1),
// which converges for s ∈ [−⅓, ⅓] by at least three bits a term. It uses nothing of package
// math's logarithm.
func bigLog(x float64) *big.Float {
	m := new(big.Float).SetPrec(prec).SetFloat64(x)
	e := m.MantExp(m)
	ln2 := atanh2(new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), big.NewFloat(3)))
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	s := new(big.Float).SetPrec(prec).Quo(new(big.Float).Sub(m, one), new(big.Float).Add(m, one))
	r := new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetInt64(int64(e)))
	return r.Add(r, atanh2(s))
}

// atanh2 returns 2·atanh(s) for |s| ≤ ⅓ to prec bits.
func atanh2(s *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(prec)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	pow := new(big.Float).SetPrec(prec).Set(s)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -prec-4)
	for k := int64(0); ; k++ {
		t := new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*k+1))
		sum.Add(sum, t)
		if t.Abs(t).Cmp(eps) < 0 {
			break
		}
		pow.Mul(pow, s2)
	}
	return sum.Mul(sum, big.NewFloat(2))
}

// ulpsOff returns |got − ref| in units of the last place of ref rounded to float64.
func ulpsOff(got float64, ref *big.Float) float64 {
	want, _ := ref.Float64()
	ulp := math.Abs(math.Nextafter(want, 0) - want)
	d := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetFloat64(got), ref)
	off, _ := d.Float64()
	return math.Abs(off) / ulp
}

// subnormals returns the subnormal test points: the smallest and the largest, the examples of
// golang/go#56600, every power of two 2⁻¹⁰²³…2⁻¹⁰⁷⁴, and seeded random bit patterns.
func subnormals() []float64 {
	xs := []float64{5e-324, 1e-310, math.Nextafter(MinNormal, 0), 1e-320, 2e-308}
	for e := -1023; e >= -1074; e-- {
		xs = append(xs, math.Ldexp(1, e))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		xs = append(xs, math.Float64frombits(1+rng.Uint64N(1<<52-1)))
	}
	return xs
}

// TestLogSubnormal checks Log against the 200-bit reference at subnormal points, to 1 ulp
// (the scaled math.Log is within 1 ulp of a value near −700, and subtracting 52·ln 2 rounds
// once more, by at most ½ ulp; measured, the largest error is 0.65 ulp). math.Log fails
// it on amd64 by more than 4 units of the first digit.
func TestLogSubnormal(t *testing.T) {
	for _, x := range subnormals() {
		if !(x > 0 && x < MinNormal) {
			t.Fatalf("test point %v is not subnormal", x)
		}
		ref := bigLog(x)
		if u := ulpsOff(Log(x), ref); !(u <= 1) {
			want, _ := ref.Float64()
			t.Errorf("Log(%v) = %v, want %v (%.3g ulp off)", x, Log(x), want, u)
		}
	}
}

// TestLogIssueValues pins the examples of golang/go#56600 to their logarithms, computed
// independently to 40 digits: ln(2⁻¹⁰⁷⁴) = −1074·ln 2, and ln of the float64 nearest 1e−310
// (which is 1e−310 only to 5e−14 relative, a subnormal having few digits), to 2e−13 (2 ulp).
func TestLogIssueValues(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{5e-324, -744.4400719213812623141072984460816341131},
		{1e-310, -713.8013788281541651006446006623883741382},
	} {
		if got := Log(c.x); math.Abs(got-c.want) > 2e-13 {
			t.Errorf("Log(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// normalPoints returns points where Log must be math.Log bit for bit: every special value, the
// edges of the normal range and a geometric sweep over all of it.
func normalPoints() []float64 {
	xs := []float64{0, math.Copysign(0, -1), -1, -5e-324, -1e-310, -math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), MinNormal, math.Nextafter(MinNormal, 1),
		math.MaxFloat64, 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 2, 0.5, math.E, 10}
	for x := MinNormal; x < math.MaxFloat64/1.0173; x *= 1.0173 {
		xs = append(xs, x, math.Nextafter(x, 0))
	}
	return xs
}

// TestLogIsMathLogElsewhere checks that Log changes nothing outside the subnormals: bit for bit
// math.Log at normal numbers, zeros, negatives, infinities and NaN.
func TestLogIsMathLogElsewhere(t *testing.T) {
	for _, x := range normalPoints() {
		got, want := Log(x), math.Log(x)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Log(%v) = %v (%#x), math.Log %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestLgamma checks Lgamma against −ln|x| (the value of log Γ(x) for |x| < 2⁻⁷⁰ to far below
// an ulp) at subnormal x of both signs, to 1 ulp, with the sign of x; and that it is
// math.Lgamma bit for bit elsewhere.
func TestLgamma(t *testing.T) {
	for _, x := range subnormals() {
		for _, v := range []float64{x, -x} {
			got, sign := Lgamma(v)
			ref := bigLog(x)
			ref.Neg(ref)
			wantSign := 1
			if v < 0 {
				wantSign = -1
			}
			if u := ulpsOff(got, ref); !(u <= 1) || sign != wantSign {
				want, _ := ref.Float64()
				t.Errorf("Lgamma(%v) = %v, %d, want %v, %d (%.3g ulp off)", v, got, sign, want, wantSign, u)
			}
		}
	}
	xs := append(normalPoints(), -0.5, -2.5, -1e-300, 1e-30, -3, 3, 0.1, 171.5, 1e300)
	for _, x := range xs {
		if a := math.Abs(x); a > 0 && a < MinNormal {
			continue // checked above
		}
		got, gs := Lgamma(x)
		want, ws := math.Lgamma(x)
		if math.Float64bits(got) != math.Float64bits(want) || gs != ws {
			t.Fatalf("Lgamma(%v) = %v, %d, math.Lgamma %v, %d", x, got, gs, want, ws)
		}
	}
}
