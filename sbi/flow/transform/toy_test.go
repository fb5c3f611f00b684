package transform_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// expAffine is a third transform, defined here to show that one file adds a transform to
// every flow: y = x·e^s + t with parameters [t, s] per feature (the affine coupling of Real
// NVP, Dinh et al. 2017, eq. 6), log dy/dx = s. Its Forward is built from the tape's own
// operations, so it needs no backward pass of its own.
type expAffine struct{}

const toyKind = "toy-exp-affine"

func init() {
	transform.Register(toyKind, transform.Registration{
		New:         func(transform.Settings) (transform.Univariate, error) { return expAffine{}, nil },
		Activation:  nn.ELU,
		OutputScale: 0.5,
	})
}

func (expAffine) Params() int { return 2 }

func (expAffine) Forward(tp *nn.Tape, x, params *nn.Tensor) (y, logDet *nn.Tensor) {
	n, D := x.Rows, x.Cols
	pairs := tp.Reshape(params, n*D, 2) // one row per element: [t, s]
	t, s := tp.Columns(pairs, 0, 1), tp.Columns(pairs, 1, 2)
	y = tp.Add(tp.Mul(tp.Reshape(x, n*D, 1), tp.Exp(s)), t)
	return tp.Reshape(y, n, D), tp.RowSum(tp.Reshape(s, n, D))
}

func (expAffine) InverseColumn(x, y []float64, stride, n int, params []float64, ps int, logDet []float64) {
	for i := 0; i < n; i++ {
		u := params[i*ps : i*ps+2]
		x[i*stride] = (y[i*stride] - u[0]) * math.Exp(-u[1])
		if logDet != nil {
			logDet[i] -= u[1]
		}
	}
}

func (expAffine) ForwardOne(x float64, u []float64) (y, logDet float64) {
	return x*math.Exp(u[1]) + u[0], u[1]
}

func (expAffine) InverseOne(y float64, u []float64) (x, logDet float64) {
	return (y - u[0]) * math.Exp(-u[1]), -u[1]
}

// The toy transform keeps the contract of Univariate, and flows of its kind are built through
// the registry, with its conditioner defaults, without any change to package flow: their
// density integrates to one, their samples have the density's moments, inversion undoes the
// forward map, and gradients reach every parameter.
func TestThirdTransformPlugsIn(t *testing.T) {
	transform.CheckUnivariate(t, toyKind, expAffine{}, 0.5)

	if k, err := flow.ParseKind(toyKind); err != nil || string(k) != toyKind {
		t.Fatalf("ParseKind(%q) = %q, %v", toyKind, k, err)
	}
	if _, err := flow.ParseKind("realnvp"); err == nil || err.Error() != `flow: unknown kind "realnvp": want "maf", "nsf" or "toy-exp-affine"` {
		t.Errorf("ParseKind of an unknown kind: error %v, want one that names the three known kinds", err)
	}
	cfg := flow.Config{Kind: toyKind, Features: 2, Context: 1, Transforms: 2, Hidden: []int{12, 12}}
	f, err := flow.New(rand.New(rand.NewPCG(1, 2)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Transform().(expAffine); !ok || f.Config().Activation != nn.ELU {
		t.Fatalf("flow of kind %q: transform %T, activation %v; want expAffine and the registered ELU", toyKind, f.Transform(), f.Config().Activation)
	}
	// the registered output scale: the same draws as a MAF (also 2 parameters per feature,
	// and no scale), halved
	cfg.Kind = flow.MAF
	maf, err := flow.New(rand.New(rand.NewPCG(1, 2)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range f.Params() {
		q := maf.Params()[k]
		want := 1.0
		if strings.HasSuffix(p.Name, ".made.2.w") { // the output layers' weights
			want = 0.5
		}
		for i := range p.Data {
			if p.Data[i] != want*q.Data[i] {
				t.Fatalf("%s[%d] = %v, the MAF's is %v: want %v times it", p.Name, i, p.Data[i], q.Data[i], want)
			}
		}
	}

	// far from the identity
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range f.Params() {
		for i := range p.Data {
			p.Data[i] = 0.3 * rng.NormFloat64()
		}
	}
	checkDensityAndSamples(t, f, []float64{0.7})
	checkRoundTrip(t, f)
	checkGradientsReachParameters(t, f)
}

// checkDensityAndSamples checks that q(·|ctx) integrates to 1 (midpoint rule on [−8, 8]²
// with 300² cells: the quadrature error of these smooth densities is below 1e-3) and that
// 20,000 samples have the means and second moments the density gives, within 4 standard
// errors (sd from the grid; a correct flow fails one of the five checks with probability
// below 1e-4 each).
func checkDensityAndSamples(t *testing.T, f *flow.Flow, ctx []float64) {
	t.Helper()
	const L, cells = 8.0, 300
	h := 2 * L / cells
	pts := mat.NewDense(cells*cells, 2, nil)
	for i := 0; i < cells; i++ {
		for j := 0; j < cells; j++ {
			pts.Set(i*cells+j, 0, -L+(float64(i)+0.5)*h)
			pts.Set(i*cells+j, 1, -L+(float64(j)+0.5)*h)
		}
	}
	lp, err := f.LogProbValues(pts, ctx)
	if err != nil {
		t.Fatal(err)
	}
	integrate := func(g func(x, y float64) float64) float64 {
		s := 0.0
		for k, v := range lp {
			s += math.Exp(v) * g(pts.At(k, 0), pts.At(k, 1))
		}
		return s * h * h
	}
	if mass := integrate(func(x, y float64) float64 { return 1 }); math.Abs(mass-1) > 1e-3 {
		t.Errorf("density integrates to %v", mass)
	}
	const n = 20000
	s, err := f.Sample(rand.New(rand.NewPCG(5, 6)), n, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, g := range []func(x, y float64) float64{
		func(x, y float64) float64 { return x },
		func(x, y float64) float64 { return y },
		func(x, y float64) float64 { return x * x },
		func(x, y float64) float64 { return x * y },
		func(x, y float64) float64 { return y * y },
	} {
		want := integrate(g)
		sd := math.Sqrt(integrate(func(x, y float64) float64 { v := g(x, y) - want; return v * v }))
		got := 0.0
		for i := 0; i < n; i++ {
			got += g(s.At(i, 0), s.At(i, 1)) / n
		}
		if se := sd / math.Sqrt(n); math.Abs(got-want) > 4*se {
			t.Errorf("moment %d: samples give %v, density %v (SE %v)", k, got, want, se)
		}
	}
}

// checkRoundTrip checks Inverse(Forward(θ)) = θ with opposite log-determinants.
func checkRoundTrip(t *testing.T, f *flow.Flow) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	tp := nn.NewTape()
	theta, ctx := tp.New(30, 2), tp.New(30, 1)
	for i := range theta.Data {
		theta.Data[i] = 2 * rng.NormFloat64()
	}
	for i := range ctx.Data {
		ctx.Data[i] = rng.NormFloat64()
	}
	z, ld := f.Forward(tp, theta, ctx)
	back, ldi := f.Inverse(tp, z, ctx)
	for i := range theta.Data {
		if math.Abs(back.Data[i]-theta.Data[i]) > 1e-9*max(1, math.Abs(theta.Data[i])) {
			t.Fatalf("θ %v came back as %v", theta.Data[i], back.Data[i])
		}
	}
	for i := range ld.Data {
		if math.Abs(ld.Data[i]+ldi.Data[i]) > 1e-9 {
			t.Fatalf("log-determinants %v and %v are not opposite", ld.Data[i], ldi.Data[i])
		}
	}
}

// checkGradientsReachParameters compares the tape's gradient of Σ log q with central
// differences for every parameter tensor (step 1e-6, 1e-5 relative).
func checkGradientsReachParameters(t *testing.T, f *flow.Flow) {
	t.Helper()
	theta, ctx := []float64{0.3, -1.2, 1.1, 0.4}, []float64{0.5, -0.8}
	total := func(tp *nn.Tape) *nn.Tensor {
		return tp.Sum(f.LogProb(tp, tp.Const(2, 2, theta), tp.Const(2, 1, ctx)))
	}
	tp := nn.NewTape()
	nn.ZeroGrads(f.Params())
	tp.Backward(total(tp))
	for _, p := range f.Params() {
		for i := 0; i < p.Len(); i += 5 {
			const h = 1e-6
			v := p.Data[i]
			e := nn.NewTape()
			e.NoGrad = true
			p.Data[i] = v + h
			fp := total(e).Item()
			p.Data[i] = v - h
			fm := total(e).Item()
			p.Data[i] = v
			if num := (fp - fm) / (2 * h); math.Abs(num-p.Grad[i]) > 1e-5*max(1, math.Abs(num)) {
				t.Errorf("d/d%s[%d]: tape %v, central difference %v", p.Name, i, p.Grad[i], num)
			}
		}
	}
}
