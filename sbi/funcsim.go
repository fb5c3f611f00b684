package sbi

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// FuncSimulator returns a Simulator that runs f on each row of a batch, for the calls that take
// a Simulator (SimulateBatch, Sequential, certify.Certify, diag's predictive checks) when the
// simulator is a per-row function, as a notebook cell writes it. dataDim is the length of the
// vectors f returns. Row i of a batch is f's output for row i of theta, drawn from the batch's
// rng in row order; a nil output, a failed simulation, becomes a row of NaN, which SimulateBatch
// drops and counts. An output of another length than dataDim panics, naming both lengths, and
// SimulateBatch reports it as a row that panicked. f receives a copy of each θ row, and is
// called from several goroutines at once, each with its own rng. FuncSimulator panics when f is
// nil or dataDim is not positive.
func FuncSimulator(f SimFunc, dataDim int) Simulator {
	switch {
	case f == nil:
		panic("sbi: FuncSimulator: the simulator function is nil")
	case dataDim < 1:
		panic(fmt.Sprintf("sbi: FuncSimulator: dataDim is %d, expected the length of the vectors the function returns (at least 1)", dataDim))
	}
	return funcSimulator{f: f, dim: dataDim}
}

// funcSimulator is FuncSimulator's Simulator.
type funcSimulator struct {
	f   SimFunc
	dim int
}

func (s funcSimulator) DataDim() int { return s.dim }

func (s funcSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, dt := theta.Dims()
	in := make([]float64, dt)
	for i := 0; i < n; i++ {
		copy(in, theta.RawRowView(i)) // f may not alter the caller's θ
		out := s.f(rng, in)
		row := x.RawRowView(i)
		switch {
		case out == nil:
			fillNaN(row)
		case len(out) != s.dim:
			panic(fmt.Sprintf("sbi: the simulator function returned %s, expected %d (the dataDim given to FuncSimulator)", plural(len(out), "value"), s.dim))
		default:
			copy(row, out)
		}
	}
}
