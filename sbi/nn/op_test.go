package nn

import (
	"testing"
)

// scaleOp is y = 2x as an Op defined with the hook, with a backward pass that multiplies by
// slope (2 is right) and counts its calls.
type scaleOp struct {
	x, y      *Tensor
	slope     float64
	backwards int
	releases  int
}

func (op *scaleOp) Backward() {
	op.backwards++
	for i, g := range op.y.Grad {
		op.x.Grad[i] += op.slope * g
	}
}

func (op *scaleOp) Release() { op.releases++ }

func scale(tp *Tape, x *Tensor, op *scaleOp) *Tensor {
	g := tp.RequiresGrad(x)
	y := tp.Output(x.Rows, x.Cols, g)
	for i, v := range x.Data {
		y.Data[i] = 2 * v
	}
	if g {
		op.x, op.y = x, y
		tp.Record(op, y)
	}
	return y
}

// TestOpHook checks that an op recorded with Record is part of the backward pass (its
// gradient composes with the tape's own operations), is released by Reset and not called
// after it, and that GradientError tells a right backward pass from a wrong one.
func TestOpHook(t *testing.T) {
	for _, c := range []struct {
		slope float64
		ok    bool
	}{{2, true}, {3, false}} {
		op := &scaleOp{slope: c.slope}
		x := NewVariable(2, 3, []float64{1, -2, 0.5, 3, -1, 2})
		errs, err := GradientError([]*Tensor{x}, func(tp *Tape, in []*Tensor) *Tensor {
			return tp.Tanh(scale(tp, tp.Mul(in[0], in[0]), op))
		}, 1e-5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ok := errs[0] <= 1e-6; ok != c.ok {
			t.Errorf("slope %v: relative gradient error %.3g, want it %s 1e-6", c.slope, errs[0], map[bool]string{true: "≤", false: ">"}[c.ok])
		}
		if op.backwards != 1 {
			t.Errorf("slope %v: Backward called %d times, want 1", c.slope, op.backwards)
		}
	}

	op := &scaleOp{slope: 2}
	tp := NewTape()
	x := tp.Variable(1, 2, []float64{1, 2})
	y := scale(tp, x, op)
	tp.Reset()
	if op.releases != 1 {
		t.Errorf("Reset released the op %d times, want 1", op.releases)
	}
	tp.BackwardWith(y, []float64{1, 1})
	if op.backwards != 0 {
		t.Errorf("Backward after Reset called the op %d times, want 0", op.backwards)
	}

	tp.NoGrad = true
	scale(tp, tp.Variable(1, 2, []float64{1, 2}), op)
	if tp.Len() != 0 {
		t.Errorf("a NoGrad tape recorded %d operations", tp.Len())
	}
}

// TestGradientErrorBadStep checks that a step that is not positive is an error.
func TestGradientErrorBadStep(t *testing.T) {
	for _, h := range []float64{0, -1e-5} {
		if _, err := GradientError(nil, nil, h, 1); err == nil {
			t.Errorf("step %v: no error", h)
		}
	}
}
