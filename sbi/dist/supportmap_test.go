package dist

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSupportMap checks, for each kind of bound, that θ = f(u) lands strictly inside the box,
// that f⁻¹ undoes f, and that LogAbsDetJacobian matches a central difference of f.
func TestSupportMap(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name     string
		low, hig float64
	}{
		{"box", -1, 3},
		{"lower bound", 2, inf},
		{"upper bound", -inf, -0.5},
		{"unbounded", -inf, inf},
		{"box wider than MaxFloat64", -1e308, 1.5e308}, // hi − lo overflows; θ and its density do not
	}
	for _, c := range cases {
		s := NewSupportMap([]float64{c.low}, []float64{c.hig})
		for _, u := range []float64{-30, -4, -0.3, 0, 0.7, 5, 30} {
			th := make([]float64, 1)
			s.Forward([]float64{u}, th)
			if !(th[0] >= c.low && th[0] <= c.hig) {
				t.Errorf("%s: f(%v) = %v outside [%v, %v]", c.name, u, th[0], c.low, c.hig)
			}
			if math.Abs(u) > 10 {
				continue // θ rounds onto the bound there; the inverse is tested where it is exact
			}
			back := make([]float64, 1)
			if ok := s.Inverse(th, back); !ok || math.Abs(back[0]-u) > 1e-9*math.Max(1, math.Abs(u)) {
				t.Errorf("%s: f⁻¹(f(%v)) = %v (ok %v)", c.name, u, back[0], ok)
			}
			const h = 1e-6
			p, m := make([]float64, 1), make([]float64, 1)
			s.Forward([]float64{u + h}, p)
			s.Forward([]float64{u - h}, m)
			want := math.Log((p[0] - m[0]) / (2 * h))
			if got := s.LogAbsDetJacobian([]float64{u}); math.Abs(got-want) > 1e-6 {
				t.Errorf("%s: log|f'(%v)| = %v, central difference %v", c.name, u, got, want)
			}
		}
	}
	if s := NewSupportMap([]float64{-inf, 0}, []float64{inf, 1}); s.Identity() {
		t.Error("a map with a bounded coordinate reports Identity")
	}
	if !Unconstrain(NewStandardNormal(3)).Identity() {
		t.Error("the map of a normal distribution is not the identity")
	}
	if ok := NewSupportMap([]float64{0}, []float64{1}).Inverse([]float64{1}, make([]float64, 1)); ok {
		t.Error("Inverse accepts a point on the bound")
	}
}

// TestSupportMapDensity checks the change of variables end to end: a BoxUniform seen through
// the logit is the logistic density, log σ(u) + log σ(−u), in each coordinate.
func TestSupportMapDensity(t *testing.T) {
	box := NewBoxUniform([]float64{-1, 0}, []float64{1, 5})
	s := Unconstrain(box)
	for _, u := range [][]float64{{0, 0}, {2, -3}, {-7, 0.5}} {
		th := make([]float64, 2)
		s.Forward(u, th)
		got := box.LogProb(rowOf(th))[0] + s.LogAbsDetJacobian(u)
		var want float64
		for _, v := range u {
			want += -v - 2*math.Log1p(math.Exp(-v))
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("log density of u = %v: %v, want the logistic %v", u, got, want)
		}
	}
}

func TestNewSupportMapPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "low < high") {
			t.Errorf("NewSupportMap(1, 1): recovered %v, want a panic naming low < high", r)
		}
	}()
	NewSupportMap([]float64{1}, []float64{1})
}

func rowOf(x []float64) *mat.Dense { return mat.NewDense(1, len(x), append([]float64(nil), x...)) }
