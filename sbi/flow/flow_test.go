package flow

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// randomFlow returns a flow whose parameters are all drawn from N(0, scale²), so that every
// transform is far from the identity.
func randomFlow(t *testing.T, kind Kind, features, context int, scale float64, seed uint64) *Flow {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	f, err := New(rng, Config{Kind: kind, Features: features, Context: context, Transforms: 3, Hidden: []int{16, 16}, Bins: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Params() {
		for i := range p.Data {
			p.Data[i] = scale * rng.NormFloat64()
		}
	}
	return f
}

func randTensor(tp *nn.Tape, rng *rand.Rand, rows, cols int, sd float64) *nn.Tensor {
	if cols == 0 {
		return nil
	}
	x := tp.New(rows, cols)
	for i := range x.Data {
		x.Data[i] = sd * rng.NormFloat64()
	}
	return x
}

// TestInverseForward checks Inverse(Forward(θ)) = θ and that the two log-determinants are
// opposite, for points inside and outside the spline interval. Each transform is inverted
// exactly (closed-form affine, quadratic root for the spline), so only rounding remains; it is
// amplified by 1/slope where a random flow is very flat, so the bound is 1e-7.
func TestInverseForward(t *testing.T) {
	for _, kind := range []Kind{MAF, NSF} {
		for _, dims := range [][2]int{{1, 2}, {3, 2}, {4, 0}} {
			f := randomFlow(t, kind, dims[0], dims[1], 0.25, 3)
			rng := rand.New(rand.NewPCG(4, 5))
			tp := nn.NewTape()
			theta := randTensor(tp, rng, 50, dims[0], 2)
			ctx := randTensor(tp, rng, 50, dims[1], 1)
			z, ld := f.Forward(tp, theta, ctx)
			back, ldi := f.Inverse(tp, z, ctx)
			for i := range theta.Data {
				if math.Abs(back.Data[i]-theta.Data[i]) > 1e-7*max(1, math.Abs(theta.Data[i])) {
					t.Fatalf("%v %v: θ %v came back as %v", kind, dims, theta.Data[i], back.Data[i])
				}
			}
			for i := range ld.Data {
				if math.Abs(ld.Data[i]+ldi.Data[i]) > 1e-9 {
					t.Fatalf("%v %v: log-dets %v and %v are not opposite", kind, dims, ld.Data[i], ldi.Data[i])
				}
			}
		}
	}
}

// TestBoundInverter checks that an inverter bound to one context, which folds the context
// into the first layer and computes context-only features once, maps z like Inverse with
// the context repeated on every row (to rounding: 1e-12 relative), and that Map, which skips
// the log-determinant, gives the same θ exactly.
func TestBoundInverter(t *testing.T) {
	for _, kind := range []Kind{MAF, NSF} {
		for _, dims := range [][2]int{{1, 2}, {3, 2}, {2, 0}} {
			f := randomFlow(t, kind, dims[0], dims[1], 0.25, 6)
			rng := rand.New(rand.NewPCG(7, 8))
			tp := nn.NewTape()
			z := randTensor(tp, rng, 40, dims[0], 1)
			var one []float64
			var ctx *nn.Tensor
			if dims[1] > 0 {
				one = randTensor(tp, rng, 1, dims[1], 1).Data
				ctx = tp.RepeatRows(tp.Const(1, dims[1], one), 40)
			}
			want, wantLD := f.Inverse(tp, z, ctx)
			inv := f.Inverter(one)
			got, gotLD := inv.Inverse(tp, z, nil)
			mapped := inv.Map(tp, z, nil)
			for i := range want.Data {
				if math.Abs(got.Data[i]-want.Data[i]) > 1e-12*max(1, math.Abs(want.Data[i])) {
					t.Fatalf("%v %v: bound inverter gave %v, Inverse %v", kind, dims, got.Data[i], want.Data[i])
				}
				if mapped.Data[i] != got.Data[i] {
					t.Fatalf("%v %v: Map gave %v, Inverse %v", kind, dims, mapped.Data[i], got.Data[i])
				}
			}
			for i := range wantLD.Data {
				if math.Abs(gotLD.Data[i]-wantLD.Data[i]) > 1e-12*max(1, math.Abs(wantLD.Data[i])) {
					t.Fatalf("%v %v: log-det %v, Inverse %v", kind, dims, gotLD.Data[i], wantLD.Data[i])
				}
			}
		}
	}
}

// TestLogDetJacobian compares the flow's log-determinant with log|det J| of the Jacobian of
// Forward computed by central differences (step 1e-6, error ≈ 1e-9 per entry, so 1e-6 on the
// log-determinant of a well-conditioned 3×3 Jacobian).
func TestLogDetJacobian(t *testing.T) {
	const D, C, h = 3, 2, 1e-6
	for _, kind := range []Kind{MAF, NSF} {
		f := randomFlow(t, kind, D, C, 0.25, 6)
		rng := rand.New(rand.NewPCG(7, 8))
		for trial := 0; trial < 10; trial++ {
			tp := nn.NewTape()
			tp.NoGrad = true
			theta := randTensor(tp, rng, 1, D, 1.5)
			ctx := randTensor(tp, rng, 1, C, 1)
			_, ld := f.Forward(tp, theta, ctx)
			jac := mat.NewDense(D, D, nil)
			for j := 0; j < D; j++ {
				x := theta.Data[j]
				theta.Data[j] = x + h
				zp, _ := f.Forward(tp, theta, ctx)
				zpv := append([]float64(nil), zp.Data...)
				theta.Data[j] = x - h
				zm, _ := f.Forward(tp, theta, ctx)
				theta.Data[j] = x
				for i := 0; i < D; i++ {
					jac.Set(i, j, (zpv[i]-zm.Data[i])/(2*h))
				}
			}
			lu := mat.LU{}
			lu.Factorize(jac)
			num, _ := lu.LogDet()
			if math.Abs(num-ld.Data[0]) > 1e-6 {
				t.Errorf("%v: log-det %v, numerical %v", kind, ld.Data[0], num)
			}
		}
	}
}

// gridDensity evaluates q(θ|c) at the midpoints of an n×n grid on [−L, L]² and returns the
// points, the densities and the cell area.
func gridDensity(t *testing.T, f *Flow, ctx []float64, L float64, n int) (*mat.Dense, []float64, float64) {
	t.Helper()
	h := 2 * L / float64(n)
	pts := mat.NewDense(n*n, 2, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			pts.Set(i*n+j, 0, -L+(float64(i)+0.5)*h)
			pts.Set(i*n+j, 1, -L+(float64(j)+0.5)*h)
		}
	}
	lp, err := f.LogProbValues(pts, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range lp {
		lp[k] = math.Exp(v)
	}
	return pts, lp, h * h
}

// TestDensityNormalizedAndSampled checks, for 2-D conditional flows far from the identity,
// that q integrates to 1 (midpoint rule on [−8, 8]² with 300² cells; for these parameter
// scales the quadrature error is below 1e-3, as refining the grid shows) and that samples
// drawn by inverting the flow have the means and second moments that the density gives. The
// sample moments are compared within 4 standard errors (SE = sd/√n, sd from the grid,
// n = 20000), so a correct implementation fails a check with probability below 1e-4.
func TestDensityNormalizedAndSampled(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		scale float64
	}{{MAF, 0.3}, {NSF, 0.1}} {
		f := randomFlow(t, c.kind, 2, 1, c.scale, 9)
		ctx := []float64{0.7}
		pts, q, area := gridDensity(t, f, ctx, 8, 300)
		integrate := func(g func(x, y float64) float64) float64 {
			s := 0.0
			for k, v := range q {
				s += v * g(pts.At(k, 0), pts.At(k, 1))
			}
			return s * area
		}
		if mass := integrate(func(x, y float64) float64 { return 1 }); math.Abs(mass-1) > 1e-3 {
			t.Errorf("%v: density integrates to %v", c.kind, mass)
		}
		moments := []func(x, y float64) float64{
			func(x, y float64) float64 { return x },
			func(x, y float64) float64 { return y },
			func(x, y float64) float64 { return x * x },
			func(x, y float64) float64 { return x * y },
			func(x, y float64) float64 { return y * y },
		}
		const n = 20000
		s, err := f.Sample(rand.New(rand.NewPCG(10, 11)), n, ctx)
		if err != nil {
			t.Fatal(err)
		}
		for k, g := range moments {
			want := integrate(g)
			sd := math.Sqrt(integrate(func(x, y float64) float64 { v := g(x, y) - want; return v * v }))
			got := 0.0
			for i := 0; i < n; i++ {
				got += g(s.At(i, 0), s.At(i, 1))
			}
			got /= n
			if se := sd / math.Sqrt(n); math.Abs(got-want) > 4*se {
				t.Errorf("%v: moment %d: samples give %v, density %v (SE %v)", c.kind, k, got, want, se)
			}
		}
	}
}

func TestParseKind(t *testing.T) {
	for name, want := range map[string]Kind{"maf": MAF, "nsf": NSF} {
		if k, err := ParseKind(name); err != nil || k != want || string(k) != name {
			t.Errorf("ParseKind(%q) = %v, %v", name, k, err)
		}
	}
	if _, err := ParseKind("realnvp"); err == nil || !strings.Contains(err.Error(), `"realnvp"`) ||
		!strings.Contains(err.Error(), `"maf"`) || !strings.Contains(err.Error(), `"nsf"`) {
		t.Errorf("ParseKind(\"realnvp\"): error %v, want one naming the kind and the known ones", err)
	}
}

func TestConfigErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Features: 0}, "Features"},
		{Config{Features: 2, Context: -1}, "Context"},
		{Config{Features: 2, Kind: "realnvp"}, `unknown kind "realnvp": want "maf" or "nsf"`},
		{Config{Features: 2, Kind: "MAF"}, `unknown kind "MAF"`},
		{Config{Features: 2, Kind: NSF, Bins: 100}, "Bins"},
		{Config{Features: 2, Bound: -1}, "Bound"},
		{Config{Features: 2, Kind: NSF, Bound: math.MaxFloat64}, "transform.MaxBound"},
		{Config{Features: 2, Kind: NSF, Bound: math.Nextafter(transform.MaxBound, math.Inf(1))}, "transform.MaxBound"},
		{Config{Features: 2, Hidden: []int{8, 0}}, "hidden"},
	} {
		if _, err := New(rng, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.cfg, err, c.want)
		}
	}
	f, _ := New(rng, Config{Features: 2, Context: 3})
	if _, err := f.Sample(rng, 10, []float64{1}); err == nil {
		t.Error("Sample with a context of the wrong length: no error")
	}
	if _, err := f.LogProbValues(mat.NewDense(2, 3, nil), []float64{1, 2, 3}); err == nil {
		t.Error("LogProbValues with θ of the wrong width: no error")
	}
}

// TestLogProbGradient compares the tape's gradient of Σ log q(θ_i | c_i) with respect to θ
// and to every parameter of a small NSF and MAF with central differences (step 1e-6; the
// bound 1e-5 on the error relative to max(1, |gradient|) leaves room for the rounding of
// a log-density of order 10 divided by the step).
func TestLogProbGradient(t *testing.T) {
	for _, kind := range []Kind{MAF, NSF} {
		f := randomFlow(t, kind, 2, 1, 0.2, 12)
		rng := rand.New(rand.NewPCG(13, 14))
		theta := make([]float64, 3*2)
		ctx := make([]float64, 3)
		for i := range theta {
			theta[i] = 1.5 * rng.NormFloat64()
		}
		for i := range ctx {
			ctx[i] = rng.NormFloat64()
		}
		total := func(tp *nn.Tape, th *nn.Tensor) *nn.Tensor {
			return tp.Sum(f.LogProb(tp, th, tp.Const(3, 1, ctx)))
		}
		tp := nn.NewTape()
		th := tp.Variable(3, 2, theta)
		nn.ZeroGrads(f.Params())
		tp.Backward(total(tp, th))
		eval := func() float64 {
			e := nn.NewTape()
			e.NoGrad = true
			return total(e, e.Const(3, 2, theta)).Item()
		}
		const h = 1e-6
		check := func(name string, v *float64, analytic float64) {
			x := *v
			*v = x + h
			fp := eval()
			*v = x - h
			fm := eval()
			*v = x
			num := (fp - fm) / (2 * h)
			if math.Abs(num-analytic) > 1e-5*max(1, math.Abs(num)) {
				t.Errorf("%v: d/d%s: analytic %v, numeric %v", kind, name, analytic, num)
			}
		}
		for i := range theta {
			check("θ", &theta[i], th.Grad[i])
		}
		for _, p := range f.Params() {
			for i := 0; i < p.Len(); i += 7 { // every 7th entry of every parameter
				check(p.Name, &p.Data[i], p.Grad[i])
			}
		}
	}
}

// TestSampleCollapsed checks that sampling a flow whose weights are huge but finite, whose
// transforms map every base draw of a column to one value, returns an error saying so and
// what to do, where it returned the collapsed draws without a word before (an NSF's spline
// inverse returned ±Inf there, and the error blamed non-finite parameters); and that ordinary
// flows' draws are those of inverting the same base draws by hand, bit for bit.
func TestSampleCollapsed(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		scale float64
	}{{MAF, 1e10}, {NSF, 1e6}} {
		f := randomFlow(t, c.kind, 2, 1, c.scale, 3)
		ctx := []float64{0.3}
		if s, err := f.Sample(rand.New(rand.NewPCG(1, 2)), 5, ctx); err == nil {
			t.Errorf("%v, weights of scale %g: Sample gave %v, want an error", c.kind, c.scale, s.RawMatrix().Data)
		} else if msg := err.Error(); !strings.Contains(msg, "collapsed") || !strings.Contains(msg, "smaller learning rate") {
			t.Errorf("%v, weights of scale %g: error %q, want one saying the draws collapsed and what to do", c.kind, c.scale, msg)
		}
		contexts := mat.NewDense(5, 1, []float64{0.3, 0.3, 0.3, 0.3, 0.3})
		if _, err := f.SampleEach(rand.New(rand.NewPCG(1, 2)), contexts); err == nil || !strings.Contains(err.Error(), "collapsed") {
			t.Errorf("%v, weights of scale %g: SampleEach error %v, want one saying the draws collapsed", c.kind, c.scale, err)
		}
	}
	for _, kind := range []Kind{MAF, NSF} {
		for _, n := range []int{1, 2, 50} {
			f := randomFlow(t, kind, 3, 1, 0.25, 3)
			ctx := []float64{0.3}
			s, err := f.Sample(rand.New(rand.NewPCG(1, 2)), n, ctx)
			if err != nil {
				t.Fatalf("%v, n = %d: %v", kind, n, err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			tp := nn.NewTape()
			z := tp.New(n, 3)
			for i := range z.Data {
				z.Data[i] = rng.NormFloat64()
			}
			want := f.Inverter(ctx).Map(tp, z, nil)
			for i, v := range s.RawMatrix().Data {
				if math.Float64bits(v) != math.Float64bits(want.Data[i]) {
					t.Fatalf("%v, n = %d: draw %d is %v, inverting its base draw gives %v", kind, n, i, v, want.Data[i])
				}
			}
		}
	}
}
