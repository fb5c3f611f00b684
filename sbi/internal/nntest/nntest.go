// Package nntest holds the test helpers of the packages that build on package nn (the flows
// and their transforms): random tensors and the gradient check of nn.GradientError with the
// tolerance of nn's own tests. Package nn's tests keep their own copy, since a package's
// internal tests cannot import a package that imports it.
package nntest

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
)

// Step and Tol are the finite-difference step and the bound on the relative gradient error
// of CheckGrad (see nn.GradientError: a correct backward pass stays near 1e-10, a wrong term
// gives 1e-2 or more).
const (
	Step = 1e-5
	Tol  = 1e-6
)

// CheckGrad fails t when the gradient of f on the inputs is off by more than Tol.
func CheckGrad(t *testing.T, name string, inputs []*nn.Tensor, f func(tp *nn.Tape, in []*nn.Tensor) *nn.Tensor) {
	t.Helper()
	errs, err := nn.GradientError(inputs, f, Step, 7)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for k, e := range errs {
		if !(e <= Tol) {
			t.Errorf("%s: input %d: relative gradient error %.3g > %.g", name, k, e, Tol)
		}
	}
}

// Var returns a rows×cols variable (with a gradient) of values uniform on [lo, hi).
func Var(rng *rand.Rand, rows, cols int, lo, hi float64) *nn.Tensor {
	t := nn.NewVariable(rows, cols, nil)
	for i := range t.Data {
		t.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return t
}

// Const is Var without a gradient.
func Const(rng *rand.Rand, rows, cols int, lo, hi float64) *nn.Tensor {
	t := Var(rng, rows, cols, lo, hi)
	t.Grad = nil
	return t
}
