package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Tensor is a dense row-major matrix of float64 values. Element (i, j) is Data[i*Cols+j].
// Grad, when non-nil, has the same layout and receives the gradient of the loss during
// Tape.Backward; a tensor without Grad is a constant for differentiation.
//
// Tensors returned by Tape operations are owned by the tape: their storage is reused after
// Tape.Reset, so copy out whatever must outlive the step.
type Tensor struct {
	Rows, Cols int
	Data       []float64
	Grad       []float64

	gbuf []float64 // gradient storage kept across Reset when Grad is switched off
}

// NewTensor returns a rows×cols tensor without gradient. If data is nil a zeroed slice is
// allocated; otherwise data is used as the backing slice and must have rows*cols elements.
func NewTensor(rows, cols int, data []float64) *Tensor {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("nn: negative tensor shape %d×%d", rows, cols))
	}
	if data == nil {
		data = make([]float64, rows*cols)
	}
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: tensor %d×%d needs %d values, got %d", rows, cols, rows*cols, len(data)))
	}
	return &Tensor{Rows: rows, Cols: cols, Data: data}
}

// NewVariable returns a rows×cols tensor that receives gradients (Grad allocated and zeroed).
// data is copied; nil gives zeros.
func NewVariable(rows, cols int, data []float64) *Tensor {
	t := NewTensor(rows, cols, nil)
	if data != nil {
		if len(data) != rows*cols {
			panic(fmt.Sprintf("nn: variable %d×%d needs %d values, got %d", rows, cols, rows*cols, len(data)))
		}
		copy(t.Data, data)
	}
	t.Grad = make([]float64, rows*cols)
	return t
}

// Len returns Rows*Cols.
func (t *Tensor) Len() int { return t.Rows * t.Cols }

// At returns element (i, j).
func (t *Tensor) At(i, j int) float64 { return t.Data[i*t.Cols+j] }

// Row returns row i as a slice sharing the tensor's storage.
func (t *Tensor) Row(i int) []float64 { return t.Data[i*t.Cols : (i+1)*t.Cols] }

// Item returns the single value of a 1×1 tensor.
func (t *Tensor) Item() float64 {
	if t.Rows != 1 || t.Cols != 1 {
		panic(fmt.Sprintf("nn: Item of a %d×%d tensor, want 1×1", t.Rows, t.Cols))
	}
	return t.Data[0]
}

// RequiresGrad reports whether gradients flow into t.
func (t *Tensor) RequiresGrad() bool { return t.Grad != nil }

// ZeroGrad sets the gradient to zero (no-op without gradient).
func (t *Tensor) ZeroGrad() { clear(t.Grad) }

// Dense returns a copy of t as a *mat.Dense.
func (t *Tensor) Dense() *mat.Dense {
	d := make([]float64, len(t.Data))
	copy(d, t.Data)
	if t.Rows == 0 || t.Cols == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(t.Rows, t.Cols, d)
}

// String describes the shape.
func (t *Tensor) String() string { return fmt.Sprintf("Tensor(%d×%d)", t.Rows, t.Cols) }

func sameShape(op string, a, b *Tensor) {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		panic(fmt.Sprintf("nn: %s: shapes %d×%d and %d×%d differ", op, a.Rows, a.Cols, b.Rows, b.Cols))
	}
}
