package transform

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

func randSplineParams(rng *rand.Rand, n, scale float64, bins int) []float64 {
	u := make([]float64, int(n)*SplineParams(bins))
	for i := range u {
		u[i] = scale * rng.NormFloat64()
	}
	return u
}

// rqsForward and rqsInverse evaluate the spline of the parameters u (its bins follow from
// their number) on [−bound, bound], one point at a time.
func rqsForward(x float64, u []float64, bound float64) (y, logDet float64) {
	return Spline{Bins: (len(u) + 1) / 3, Bound: bound}.ForwardOne(x, u)
}

func rqsInverse(y float64, u []float64, bound float64) (x, logDet float64) {
	return Spline{Bins: (len(u) + 1) / 3, Bound: bound}.InverseOne(y, u)
}

func TestRQSplineGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, bins := range []int{1, 2, 8, 10} {
		const n, D, B = 5, 3, 3.0
		x := nntest.Var(rng, n, D, -4, 4) // some entries fall in the linear tails
		p := nn.NewVariable(n, D*SplineParams(bins), randSplineParams(rng, n*D, 1.5, bins))
		nntest.CheckGrad(t, "RQSpline", []*nn.Tensor{x, p}, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
			y, ld := Spline{bins, B}.Forward(tp, in[0], in[1])
			return tp.Concat(y, ld)
		})
	}
}

func TestAffineGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 10))
	x, p := nntest.Var(rng, 4, 3, -2, 2), nntest.Var(rng, 4, 6, -3, 3)
	nntest.CheckGrad(t, "Affine", []*nn.Tensor{x, p}, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
		y, ld := Affine{}.Forward(tp, in[0], in[1])
		return tp.Concat(y, ld)
	})
}

// TestRQSplineInvertible checks inverse(forward(x)) = x, log-dets of the two directions that
// sum to zero, and the log-det against a central difference of the forward map, over random
// splines and points inside and outside the bound. The inverse solves a quadratic in its
// stable form, so the round trip is exact to about 1e-12; the numerical derivative with step
// 1e-6 has truncation error O(h²·y”') and rounding error about 2ε·max(1,|y|)/h ≤ 1e-9, so the
// slope exp(log-det) must match it to 1e-8 absolute plus 1e-6 relative.
func TestRQSplineInvertible(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, bins := range []int{1, 3, 8, 16} {
		for trial := 0; trial < 200; trial++ {
			const B = 5.0
			u := randSplineParams(rng, 1, 2, bins)
			x := 12 * (rng.Float64() - 0.5)
			y, ld := rqsForward(x, u, B)
			xr, ldi := rqsInverse(y, u, B)
			if math.Abs(xr-x) > 1e-10*max(1, math.Abs(x)) {
				t.Fatalf("bins %d: inverse(forward(%v)) = %v", bins, x, xr)
			}
			if math.Abs(ld+ldi) > 1e-9 {
				t.Fatalf("bins %d x %v: forward log-det %v, inverse %v: want opposite", bins, x, ld, ldi)
			}
			if math.Abs(math.Abs(x)-B) < 1e-5 {
				continue
			}
			const h = 1e-6
			yp, _ := rqsForward(x+h, u, B)
			ym, _ := rqsForward(x-h, u, B)
			if num := (yp - ym) / (2 * h); math.Abs(num-math.Exp(ld)) > 1e-8+1e-6*num {
				t.Fatalf("bins %d x %v: slope exp(log-det) %v, numerical %v", bins, x, math.Exp(ld), num)
			}
			if math.Abs(x) > B && (y != x || ld != 0) {
				t.Fatalf("tail x %v: y %v, log-det %v; want identity", x, y, ld)
			}
		}
	}
}

// TestRQSplineBoundary checks the interval endpoints are fixed points with unit slope, so the
// spline joins the linear tails continuously with a continuous derivative, and that the map
// is increasing.
func TestRQSplineBoundary(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	const B = 3.0
	u := randSplineParams(rng, 1, 3, 8)
	for _, x := range []float64{-B, B} {
		y, ld := rqsForward(x, u, B)
		if math.Abs(y-x) > 1e-12 || math.Abs(ld) > 1e-9 {
			t.Errorf("at %v: y %v log-det %v; want %v and 0", x, y, ld, x)
		}
	}
	prev := math.Inf(-1)
	for x := -B - 1; x <= B+1; x += 0.01 {
		y, _ := rqsForward(x, u, B)
		if !(y > prev) {
			t.Fatalf("not increasing at %v: %v after %v", x, y, prev)
		}
		prev = y
	}
}

func TestAffineInvertible(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	for trial := 0; trial < 100; trial++ {
		p := []float64{rng.NormFloat64(), 3 * rng.NormFloat64()}
		x := 5 * rng.NormFloat64()
		y, ld := Affine{}.ForwardOne(x, p)
		xr, ldi := Affine{}.InverseOne(y, p)
		if math.Abs(xr-x) > 1e-9*max(1, math.Abs(x)) || math.Abs(ld+ldi) > 1e-12 {
			t.Fatalf("x %v: round trip %v, log-dets %v %v", x, xr, ld, ldi)
		}
	}
}

// TestAffineValuesMatchRecorded compares Affine.Forward on a tape that records nothing (the
// block path with the vector exp and log) with the recording path (one value at a time with
// math's), element by element, on blocks of awkward sizes with scales from the far negative
// (softplus ≈ e^r, near the 10⁻³ floor) to the far positive (softplus ≈ r) side: each of the two
// logarithms and the exponential may differ by an ulp, so y to 8 ulps relative to |x·scale| +
// |shift| and log-det to 8 ulps of Σ|log scale| per row. A misplaced column or row gives errors
// of the size of the values.
func TestAffineValuesMatchRecorded(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 18))
	for _, c := range []struct{ n, D int }{{1, 1}, {7, 3}, {64, 1}, {33, 2}, {50, 5}} {
		x := nntest.Var(rng, c.n, c.D, -3, 3)
		p := nntest.Var(rng, c.n, 2*c.D, -3, 3)
		for i := 0; i < c.n; i++ {
			p.Data[i*2*c.D+1] = 40 * (rng.Float64() - 0.5) // r in [−20, 20]
		}
		want, wantLD := Affine{}.Forward(nn.NewTape(), x, p)
		tp := nn.NewTape()
		tp.NoGrad = true
		got, gotLD := Affine{}.Forward(tp, x, p)
		const tol = 8 * 0x1p-52
		for i := 0; i < c.n; i++ {
			sum := 0.0
			for d := 0; d < c.D; d++ {
				e := i*c.D + d
				sc := scaleOf(p.Data[i*2*c.D+2*d+1])
				sum += math.Abs(math.Log(sc))
				if g, w := got.Data[e], want.Data[e]; !(math.Abs(g-w) <= tol*(math.Abs(x.Data[e]*sc)+math.Abs(p.Data[i*2*c.D+2*d]))) {
					t.Fatalf("n=%d D=%d: y[%d][%d] = %v without a record, %v recorded", c.n, c.D, i, d, g, w)
				}
			}
			if g, w := gotLD.Data[i], wantLD.Data[i]; !(math.Abs(g-w) <= tol*sum) {
				t.Fatalf("n=%d D=%d: log-det[%d] = %v without a record, %v recorded", c.n, c.D, i, g, w)
			}
		}
	}
}

// TestRQSplineParallel checks that splitting the rows over goroutines gives bit-identical
// values and gradients (each element is computed the same way on every goroutine).
func TestRQSplineParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	const n, D, bins = 500, 3, 8
	x := nntest.Var(rng, n, D, -6, 6)
	p := nn.NewVariable(n, D*SplineParams(bins), randSplineParams(rng, n*D, 1, bins))
	w := nntest.Const(rng, n, D+1, -1, 1)
	run := func(threads int) (out, gx, gp []float64) {
		runenv.SetThreads(threads)
		defer runenv.SetThreads(0)
		tp := nn.NewTape()
		xv, pv := tp.Variable(n, D, x.Data), tp.Variable(n, p.Cols, p.Data)
		y, ld := Spline{bins, 5}.Forward(tp, xv, pv)
		o := tp.Concat(y, ld)
		tp.BackwardWith(o, w.Data)
		return append([]float64(nil), o.Data...), append([]float64(nil), xv.Grad...), append([]float64(nil), pv.Grad...)
	}
	o1, gx1, gp1 := run(1)
	o4, gx4, gp4 := run(4)
	for _, c := range []struct {
		name string
		a, b []float64
	}{{"values", o1, o4}, {"x gradient", gx1, gx4}, {"parameter gradient", gp1, gp4}} {
		for i := range c.a {
			if math.Float64bits(c.a[i]) != math.Float64bits(c.b[i]) {
				t.Fatalf("%s differ at %d: %v on 1 goroutine, %v on 4", c.name, i, c.a[i], c.b[i])
			}
		}
	}
}

// TestRQSplineBlocks compares the block evaluations (the tape's Spline.Forward and
// Spline.InverseColumn, which shift each softmax by its first logit) with the one-spline
// functions (which shift by the largest), to 1e-12, on parameters of ordinary size and on
// parameters whose logits lie 800 apart, where the first-logit shift overflows and the block
// falls back to the one-spline path; and checks that the inverse undoes the forward (for the
// logits 800 apart, whose bins of the minimal width make the inverse ill-conditioned, by its
// backward error).
func TestRQSplineBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, D, bins, B = 101, 3, 8, 4.0
	P := SplineParams(bins)
	for _, scale := range []float64{1, 400} {
		x := nntest.Const(rng, n, D, -5, 5)
		p := nn.NewTensor(n, D*P, randSplineParams(rng, n*D, scale, bins))
		tp := nn.NewTape()
		y, ld := Spline{bins, B}.Forward(tp, x, p)
		for i := 0; i < n; i++ {
			sum := 0.0
			for d := 0; d < D; d++ {
				u := p.Data[i*D*P+d*P : i*D*P+(d+1)*P]
				wy, wl := rqsForward(x.Data[i*D+d], u, B)
				sum += wl
				if got := y.Data[i*D+d]; math.Abs(got-wy) > 1e-12*max(1, math.Abs(wy)) {
					t.Fatalf("scale %v: y[%d,%d] = %v, one spline gives %v", scale, i, d, got, wy)
				}
			}
			if math.Abs(ld.Data[i]-sum) > 1e-12*max(1, math.Abs(sum)) {
				t.Fatalf("scale %v: log-determinant of row %d = %v, one spline at a time gives %v", scale, i, ld.Data[i], sum)
			}
		}
		for d := 0; d < D; d++ {
			col := make([]float64, n*P) // the parameters of feature d, row after row
			for i := 0; i < n; i++ {
				copy(col[i*P:], p.Data[i*D*P+d*P:i*D*P+(d+1)*P])
			}
			back, lds := make([]float64, n*D), make([]float64, n)
			Spline{bins, B}.InverseColumn(back[d:], y.Data[d:], D, n, col, P, lds)
			for i := 0; i < n; i++ {
				got := back[i*D+d]
				if scale > 1 { // ill-conditioned: ask for a small backward error only
					if fy, _ := rqsForward(got, col[i*P:(i+1)*P], B); math.Abs(fy-y.Data[i*D+d]) > 1e-9 {
						t.Fatalf("scale %v: inverse at row %d feature %d = %v maps back to %v, not %v", scale, i, d, got, fy, y.Data[i*D+d])
					}
					continue
				}
				wx, wl := rqsInverse(y.Data[i*D+d], col[i*P:(i+1)*P], B)
				if math.Abs(got-wx) > 1e-12*max(1, math.Abs(wx)) || math.Abs(got-x.Data[i*D+d]) > 1e-9 {
					t.Fatalf("scale %v: inverse at row %d feature %d = %v, one spline %v, forward input %v", scale, i, d, got, wx, x.Data[i*D+d])
				}
				if math.Abs(lds[i]-wl) > 1e-12*max(1, math.Abs(wl)) {
					t.Fatalf("scale %v: inverse log-determinant at row %d feature %d = %v, one spline %v", scale, i, d, lds[i], wl)
				}
			}
		}
	}
}
