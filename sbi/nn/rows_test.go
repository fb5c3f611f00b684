package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearRows checks the tape-free layer against LinearAct on a tape, for every
// activation and a batch large enough for the packed product, and that a short buffer is
// refused.
func TestLinearRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	const n, in, out = 300, 5, 7
	x, w, b := randConst(rng, n, in, -2, 2), randConst(rng, in, out, -1, 1), randConst(rng, 1, out, -1, 1)
	for _, act := range []Activation{Identity, ReLU, ELU, SELU, Tanh, Sigmoid, Softplus, LeakyReLU} {
		tp := NewTape()
		tp.NoGrad = true
		want := tp.LinearAct(x, w, b, act).Data
		got := make([]float64, n*out)
		LinearRows(got, x.Data, n, in, out, w.Data, b.Data, act)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("%v: element %d is %v, LinearAct gives %v", act, i, got[i], want[i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("LinearRows with a short destination did not panic")
		}
	}()
	LinearRows(make([]float64, n*out-1), x.Data, n, in, out, w.Data, b.Data, ReLU)
}

// TestReleaseScratch checks that released scratch is handed out again and that a mark
// beyond the slices in use is refused.
func TestReleaseScratch(t *testing.T) {
	tp := NewTape()
	tp.Scratch(4)
	mark := tp.ScratchMark()
	a := tp.Scratch(8)
	tp.ReleaseScratch(mark)
	if b := tp.Scratch(8); &a[0] != &b[0] {
		t.Error("the released slice was not reused")
	}
	defer func() {
		if recover() == nil {
			t.Error("ReleaseScratch beyond the slices in use did not panic")
		}
	}()
	tp.ReleaseScratch(tp.ScratchMark() + 1)
}
