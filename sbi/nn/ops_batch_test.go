package nn

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRowSelectionGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, -2, 2) }
	cases := []struct {
		name   string
		inputs []*Tensor
		f      func(tp *Tape, in []*Tensor) *Tensor
	}{
		{"GatherRows", []*Tensor{r(4, 3)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.GatherRows(in[0], []int{2, 0, 2, 3, 2}) // row 1 unused, row 2 three times
		}},
		{"ScatterRows", []*Tensor{r(5, 2), r(2, 2)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.ScatterRows(in[0], in[1], []int{3, 1})
		}},
		{"ScatterRowsConstBase", []*Tensor{randConst(rng, 5, 2, -2, 2), r(3, 2)}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.ScatterRows(in[0], in[1], []int{4, 0, 2})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.inputs, c.f) })
	}
}

func TestRowSelectionValues(t *testing.T) {
	tp := NewTape()
	a := tp.Const(3, 2, []float64{1, 2, 3, 4, 5, 6})
	if got := tp.GatherRows(a, []int{2, 2, 0}).Data; !slices.Equal(got, []float64{5, 6, 5, 6, 1, 2}) {
		t.Errorf("GatherRows = %v, want [5 6 5 6 1 2]", got)
	}
	src := tp.Const(1, 2, []float64{-1, -2})
	if got := tp.ScatterRows(a, src, []int{1}).Data; !slices.Equal(got, []float64{1, 2, -1, -2, 5, 6}) {
		t.Errorf("ScatterRows = %v, want [1 2 -1 -2 5 6]", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("ScatterRows with a repeated row did not panic")
		}
	}()
	v := tp.Variable(2, 2, []float64{1, 2, 3, 4})
	tp.ScatterRows(a, v, []int{0, 0})
}
