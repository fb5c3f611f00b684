package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/mathx"
)

// TestVectorKernels checks the vector kernels of the build (assembly where the CPU allows)
// against the portable Go loops, element for element, on lengths that are not multiples of
// the vector width. The operations are the same IEEE operations in the same order, so the
// results must be equal (zeros compared by value).
func TestVectorKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	for _, n := range []int{0, 1, 3, 4, 7, 64, 129} {
		y := make([]float64, n)
		gy := make([]float64, n)
		for i := range y {
			y[i], gy[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		if n > 2 {
			y[0], y[1] = math.Copysign(0, -1), 0
		}
		want, got := append([]float64(nil), y...), append([]float64(nil), y...)
		ReluGo(want)
		Relu(got)
		same(t, "relu", want, got)

		gw, gg := make([]float64, n), make([]float64, n)
		ReluBackGo(want, gy, gw)
		ReluBack(want, gy, gg)
		same(t, "relu backward", gw, gg)
		ReluBackAddGo(want, gy, gw)
		ReluBackAdd(want, gy, gg)
		same(t, "relu backward, added", gw, gg)
		for i := range gw { // twice the gradient where the output is positive, else 0
			if d := 2 * gy[i]; (want[i] > 0 && gw[i] != d) || (!(want[i] > 0) && gw[i] != 0) {
				t.Fatalf("relu backward at %v: %v twice", want[i], gw[i])
			}
		}

		th := make([]float64, n) // tanh outputs, and their gradient set and added
		Tanh(th, y)
		TanhBackGo(th, gy, gw)
		TanhBack(th, gy, gg)
		same(t, "tanh backward", gw, gg)
		TanhBackAddGo(th, gy, gw)
		TanhBackAdd(th, gy, gg)
		same(t, "tanh backward, added", gw, gg)
		for i := range gw { // against the derivative's definition, 1 − tanh²
			if d := gy[i] * (1 - th[i]*th[i]) * 2; math.Abs(gw[i]-d) > 1e-15*math.Abs(d) {
				t.Fatalf("tanh backward at %v: %v twice, want %v", y[i], gw[i], d)
			}
		}

		c := [7]float64{0.9, 0.1, 0.999, 0.001, 0.01, 1e-8, 0.03}
		x1, x2 := append([]float64(nil), y...), append([]float64(nil), y...)
		m1, m2 := append([]float64(nil), gy...), append([]float64(nil), gy...)
		v1 := make([]float64, n)
		for i := range v1 {
			v1[i] = rng.Float64()
		}
		v2 := append([]float64(nil), v1...)
		AdamGo(x1, gy, m1, v1, &c)
		Adam(x2, gy, m2, v2, &c)
		same(t, "adam θ", x1, x2)
		same(t, "adam m", m1, m2)
		same(t, "adam v", v1, v2)
	}
}

func same(t *testing.T, name string, a, b []float64) {
	t.Helper()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%s (n=%d) differs at %d: %v and %v", name, len(a), i, a[i], b[i])
		}
	}
}

// TestExpVec compares the vector exponential with math.Exp: within 3 ulps (6.7e-16
// relative) on random arguments across the fast path's range, and exactly math.Exp's value
// outside it (±Inf, NaN, overflow, subnormal results), in every position of a group of four.
func TestExpVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	src := make([]float64, 1003)
	for i := range src {
		switch {
		case i%97 == 5:
			src[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 709.7, -745.1, -720, 710, 0}[i%8]
		case i%2 == 0:
			src[i] = 20 * (rng.Float64() - 0.5)
		default:
			src[i] = 1416 * (rng.Float64() - 0.5)
		}
	}
	dst := make([]float64, len(src))
	Exp(dst, src)
	for i, x := range src {
		want := math.Exp(x)
		got := dst[i]
		switch {
		case math.IsNaN(want):
			if !math.IsNaN(got) {
				t.Fatalf("exp(%v) = %v, want NaN", x, got)
			}
		case math.IsInf(want, 0) || want < 0x1p-1022:
			if got != want {
				t.Fatalf("exp(%v) = %v, want %v", x, got, want)
			}
		case math.Abs(got-want) > 6.7e-16*want:
			t.Fatalf("exp(%v) = %v, math.Exp %v (relative error %.2g)", x, got, want, math.Abs(got-want)/want)
		}
	}
	in := append([]float64(nil), src...)
	Exp(in, in) // in place
	for i := range in {
		if in[i] != dst[i] && !(math.IsNaN(in[i]) && math.IsNaN(dst[i])) {
			t.Fatalf("in place: exp(%v) = %v, out of place %v", src[i], in[i], dst[i])
		}
	}
}

// TestEluVec compares the block ELU and SELU with scale·alpha·math.Expm1: within 4 ulps, or an
// absolute 4e-16·scale·alpha near 0 (see Elu), down to where eˣ vanishes; scale·x exactly for
// x > 0; NaN, ±Inf and ±0; the derivative loop matches derivFn.
func TestEluVec(t *testing.T) {
	var src []float64
	for x := -40.0; x <= 5; x += 0.00731 {
		src = append(src, x)
	}
	src = append(src, -1e-5, -1e-12, -1e-300, 1e-300, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -800)
	for _, c := range []struct {
		name         string
		scale, alpha float64
	}{{"elu", 1, 1}, {"selu", seluScale, seluAlpha}} {
		sa := c.scale * c.alpha
		dst, dstGo := make([]float64, len(src)), make([]float64, len(src))
		Elu(dst, src, c.scale, sa)
		EluGo(dstGo, src, c.scale, sa)
		for i, x := range src {
			if dst[i] != dstGo[i] && !math.IsNaN(dst[i]) {
				t.Fatalf("%s(%v): vector kernel %v, portable loop %v", c.name, x, dst[i], dstGo[i])
			}
			want, got := eluScalar(c.scale, c.alpha, x), dst[i]
			switch {
			case math.IsNaN(want):
				if !math.IsNaN(got) {
					t.Fatalf("%s(%v) = %v, want NaN", c.name, x, got)
				}
			case x > 0 && got != want:
				t.Fatalf("%s(%v) = %v, want %v exactly", c.name, x, got, want)
			case math.Abs(got-want) > 9e-16*math.Abs(want)+4e-16*sa:
				t.Fatalf("%s(%v) = %v, want %v", c.name, x, got, want)
			}
		}
		gy := make([]float64, len(src))
		for i := range gy {
			gy[i] = 1 + float64(i%7)
		}
		g, gGo := make([]float64, len(src)), make([]float64, len(src))
		EluBack(dst, gy, g, c.scale, sa)
		EluBackGo(dst, gy, gGo, c.scale, sa)
		for i, x := range src {
			if g[i] != gGo[i] && !math.IsNaN(g[i]) {
				t.Fatalf("%s'(%v): vector kernel %v, portable loop %v", c.name, x, g[i], gGo[i])
			}
			if math.IsNaN(x) {
				continue
			}
			want := gy[i] * c.scale
			if x <= 0 {
				want = gy[i] * (dst[i] + sa) // sa·eˣ from the output, as the kernels take it
			}
			if math.Abs(g[i]-want) > 1e-15*math.Abs(want) {
				t.Fatalf("%s'(%v)·%v = %v, want %v", c.name, x, gy[i], g[i], want)
			}
		}
	}
}

// The constants of SELU (Klambauer et al. 2017).
const (
	seluScale = 1.0507009873554804934193349852946
	seluAlpha = 1.6732632423543772848170429916717
)

// eluScalar is the textbook ELU with math.Expm1, the reference for Elu.
func eluScalar(scale, alpha, x float64) float64 {
	if x > 0 {
		return scale * x
	}
	return scale * alpha * math.Expm1(x)
}

// TestLogVec compares the vector logarithm with math.Log: within 1 ulp from 1e-300 to 1e300
// and around 1 (where ln x is small and cancellation would show), and the values the vector
// kernel leaves to mathx.Log (0, negatives, subnormals, ±Inf, NaN) exactly: at subnormals,
// where math.Log on amd64 is wrong (golang/go#56600), that is the right logarithm.
func TestLogVec(t *testing.T) {
	var src []float64
	for x := 1e-300; x < 1e300; x *= 1.0137 {
		src = append(src, x)
	}
	for x := 0.5; x < 2; x += 0.000731 {
		src = append(src, x, math.Nextafter(1, 2), math.Nextafter(1, 0))
	}
	src = append(src, 1, 0.7071067811865476, 0.7071067811865475, 2, 0.5, math.MaxFloat64,
		0, math.Copysign(0, -1), -1, 5e-324, 1e-310, 2.2250738585072014e-308, math.Inf(1), math.Inf(-1), math.NaN())
	dst := make([]float64, len(src))
	Log(dst, src)
	for i, x := range src {
		want, got := mathx.Log(x), dst[i]
		switch {
		case math.IsNaN(want) || math.IsInf(want, 0):
			if !(math.IsNaN(want) && math.IsNaN(got)) && got != want {
				t.Fatalf("log(%v) = %v, want %v", x, got, want)
			}
		case math.Abs(got-want) > ulp(want):
			t.Fatalf("log(%v) = %v, mathx.Log %v (%.2g ulps)", x, got, want, math.Abs(got-want)/ulp(want))
		}
	}
	in := append([]float64(nil), src...)
	Log(in, in)
	for i := range in {
		if in[i] != dst[i] && !math.IsNaN(dst[i]) {
			t.Fatalf("in place: log(%v) = %v, out of place %v", src[i], in[i], dst[i])
		}
	}
}

// ulp is the spacing of float64 values at v.
func ulp(v float64) float64 {
	v = math.Abs(v)
	return math.Nextafter(v, math.Inf(1)) - v
}

// TestColSumAdd checks ColSumAdd against a sum written out here, bit for bit, for widths on
// both sides of the kernel's four- and sixteen-column blocks, row strides wider than the
// columns summed and a start value in dst. Values span twelve orders of magnitude, so a sum
// taken in any other order than row by row from dst's value gives other bits.
func TestColSumAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, cols := range []int{1, 3, 4, 5, 15, 16, 17, 20, 32, 33, 37} {
		for _, rows := range []int{0, 1, 2, 7, 100} {
			for _, pad := range []int{0, 3} {
				stride := cols + pad
				src := make([]float64, max(rows*stride, 1))
				for i := range src {
					src[i] = rng.NormFloat64() * math.Pow(10, 12*rng.Float64()-6)
				}
				dst := make([]float64, cols)
				for j := range dst {
					dst[j] = rng.NormFloat64()
				}
				want := append([]float64(nil), dst...)
				for j := range want {
					for r := 0; r < rows; r++ {
						want[j] = want[j] + src[r*stride+j]
					}
				}
				ColSumAdd(dst, src, rows, stride)
				for j := range dst {
					if math.Float64bits(dst[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%d rows × %d columns (stride %d): column %d = %v, want %v", rows, cols, stride, j, dst[j], want[j])
					}
				}
			}
		}
	}
}
