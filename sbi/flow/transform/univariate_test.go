package transform

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/nntest"
	"github.com/gosbi/gosbi/sbi/nn"
)

// CheckUnivariate holds u to the contract of Univariate, on parameters drawn from
// N(0, scale²) and points of N(0, 3²) (some beyond a spline's bound):
//
//   - Forward, on a recording tape and on a gradient-free one, agrees with ForwardOne feature
//     by feature and its log-determinant with the sum of ForwardOne's (to 1e-12 relative: the
//     batch and scalar paths may round differently);
//   - InverseColumn, with one transform per point and with one shared by all, agrees with
//     InverseOne, and with logDet nil writes the same points;
//   - InverseOne undoes ForwardOne (to 1e-9 relative) with the opposite log-derivative;
//   - the log-derivative matches a central difference of ForwardOne (step 1e-6: 1e-6
//     relative);
//   - Forward's backward pass matches central differences (nntest.CheckGrad).
//
// It is exported to the package's external tests, which check a transform defined outside
// the package with it.
func CheckUnivariate(t *testing.T, name string, u Univariate, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 42))
	const n, D = 7, 3
	P := u.Params()
	if P < 1 {
		t.Fatalf("%s: Params() = %d, want ≥ 1", name, P)
	}
	x := nntest.Var(rng, n, D, -1, 1)
	for i := range x.Data {
		x.Data[i] = 3 * rng.NormFloat64()
	}
	p := nntest.Var(rng, n, D*P, -1, 1)
	for i := range p.Data {
		p.Data[i] = scale * rng.NormFloat64()
	}
	close := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }
	for _, noGrad := range []bool{false, true} {
		tp := nn.NewTape()
		tp.NoGrad = noGrad
		y, ld := u.Forward(tp, x, p)
		if y.Rows != n || y.Cols != D || ld.Rows != n || ld.Cols != 1 {
			t.Fatalf("%s: Forward gave %d×%d and %d×%d, want %d×%d and %d×1", name, y.Rows, y.Cols, ld.Rows, ld.Cols, n, D, n)
		}
		for i := 0; i < n; i++ {
			sum := 0.0
			for d := 0; d < D; d++ {
				wy, wl := u.ForwardOne(x.Data[i*D+d], p.Data[i*D*P+d*P:i*D*P+(d+1)*P])
				sum += wl
				if !close(y.Data[i*D+d], wy, 1e-12) {
					t.Fatalf("%s (NoGrad %v): Forward y[%d,%d] = %v, ForwardOne %v", name, noGrad, i, d, y.Data[i*D+d], wy)
				}
			}
			if !close(ld.Data[i], sum, 1e-12) {
				t.Fatalf("%s (NoGrad %v): Forward log-det[%d] = %v, ForwardOne's sum to %v", name, noGrad, i, ld.Data[i], sum)
			}
		}
	}
	for d := 0; d < D; d++ {
		col := make([]float64, n*P)
		for i := 0; i < n; i++ {
			copy(col[i*P:], p.Data[i*D*P+d*P:i*D*P+(d+1)*P])
		}
		for _, shared := range []bool{false, true} {
			ps := P
			if shared {
				ps = 0
			}
			back, lds, noLD := make([]float64, n*D), make([]float64, n), make([]float64, n*D)
			u.InverseColumn(back[d:], x.Data[d:], D, n, col, ps, lds)
			u.InverseColumn(noLD[d:], x.Data[d:], D, n, col, ps, nil)
			for i := 0; i < n; i++ {
				uc := col[i*ps : i*ps+P]
				wx, wl := u.InverseOne(x.Data[i*D+d], uc)
				if !close(back[i*D+d], wx, 1e-12) || !close(lds[i], wl, 1e-12) {
					t.Fatalf("%s: InverseColumn (shared %v) at row %d feature %d gave (%v, %v), InverseOne (%v, %v)", name, shared, i, d, back[i*D+d], lds[i], wx, wl)
				}
				if noLD[i*D+d] != back[i*D+d] {
					t.Fatalf("%s: InverseColumn without log-det gave %v, with it %v", name, noLD[i*D+d], back[i*D+d])
				}
			}
		}
	}
	for trial := 0; trial < 200; trial++ {
		uc := make([]float64, P)
		for i := range uc {
			uc[i] = scale * rng.NormFloat64()
		}
		xv := 3 * rng.NormFloat64()
		yv, l := u.ForwardOne(xv, uc)
		xr, li := u.InverseOne(yv, uc)
		if !close(xr, xv, 1e-9) || math.Abs(l+li) > 1e-9 {
			t.Fatalf("%s: InverseOne(ForwardOne(%v)) = %v, log-derivatives %v and %v", name, xv, xr, l, li)
		}
		const h = 1e-6
		yp, _ := u.ForwardOne(xv+h, uc)
		ym, _ := u.ForwardOne(xv-h, uc)
		if num := (yp - ym) / (2 * h); !(math.Abs(math.Exp(l)-num) <= 1e-8+1e-6*num) {
			t.Fatalf("%s: at %v the slope is %v, a central difference gives %v", name, xv, math.Exp(l), num)
		}
	}
	nntest.CheckGrad(t, name, []*nn.Tensor{x, p}, func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor {
		y, ld := u.Forward(tp, in[0], in[1])
		return tp.Concat(y, ld)
	})
}

// Both registered transforms keep the contract.
func TestUnivariateContract(t *testing.T) {
	for _, c := range []struct {
		u     Univariate
		scale float64
	}{
		{Affine{}, 1},
		{Spline{Bins: 8, Bound: 5}, 1},
		{Spline{Bins: 1, Bound: 2}, 2},
		{Spline{Bins: 3, Bound: 3}, 3},
	} {
		CheckUnivariate(t, fmt.Sprintf("%T%+v", c.u, c.u), c.u, c.scale)
	}
}

// The registry knows the two kinds of package flow, refuses duplicates and incomplete
// registrations, and names the known kinds when asked for an unknown one.
func TestRegistry(t *testing.T) {
	for name, want := range map[string]int{"maf": AffineParams, "nsf": SplineParams(8)} {
		r, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		u, err := r.New(Settings{Bins: 8, Bound: 5})
		if err != nil || u.Params() != want {
			t.Errorf("%s: New gave %v (%d parameters per feature), %v; want %d", name, u, u.Params(), err, want)
		}
	}
	if r, _ := Lookup("nsf"); r.Activation != nn.ReLU || r.OutputScale != 0.1 {
		t.Errorf("nsf: activation %v, output scale %v; want ReLU and 0.1", r.Activation, r.OutputScale)
	}
	if r, _ := Lookup("maf"); r.Activation != nn.Tanh || r.OutputScale != 0 {
		t.Errorf("maf: activation %v, output scale %v; want Tanh and 0 (none)", r.Activation, r.OutputScale)
	}
	if r, _ := Lookup("nsf"); r.New != nil {
		if _, err := r.New(Settings{Bins: MaxBins + 1, Bound: 5}); err == nil {
			t.Error("nsf with too many bins: no error")
		}
		if _, err := r.New(Settings{Bins: 8, Bound: math.Inf(1)}); err == nil {
			t.Error("nsf with an infinite bound: no error")
		}
	}
	for _, c := range []struct {
		name string
		r    Registration
	}{
		{"maf", Registration{New: func(Settings) (Univariate, error) { return Affine{}, nil }, Activation: nn.Tanh}},
		{"", Registration{New: func(Settings) (Univariate, error) { return Affine{}, nil }, Activation: nn.Tanh}},
		{"x", Registration{Activation: nn.Tanh}},
		{"x", Registration{New: func(Settings) (Univariate, error) { return Affine{}, nil }}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %+v) did not panic", c.name, c.r)
				}
			}()
			Register(c.name, c.r)
		}()
	}
	if _, err := Lookup("x"); err == nil {
		t.Error("a refused registration was kept")
	}
}
