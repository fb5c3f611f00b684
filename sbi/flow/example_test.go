package flow_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Fit a conditional NSF to θ | x ~ N(x, 0.5²) by maximum likelihood, then sample it.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	f, err := flow.New(rng, flow.Config{Kind: flow.NSF, Features: 1, Context: 1, Transforms: 2, Hidden: []int{16, 16}, Bins: 4})
	if err != nil {
		panic(err)
	}
	opt := nn.NewAdam(f.Params(), 3e-3)
	tp := nn.NewTape()
	for step := 0; step < 400; step++ {
		theta, x := tp.New(64, 1), tp.New(64, 1)
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
			theta.Data[i] = x.Data[i] + 0.5*rng.NormFloat64()
		}
		loss := tp.Neg(tp.Mean(f.LogProb(tp, theta, x)))
		tp.Backward(loss)
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	s, err := f.Sample(rng, 4000, []float64{1})
	if err != nil {
		panic(err)
	}
	mean := 0.0
	for i := 0; i < 4000; i++ {
		mean += s.At(i, 0) / 4000
	}
	fmt.Printf("posterior mean at x = 1 within 0.15 of 1: %v\n", mean > 0.85 && mean < 1.15)
	// Output: posterior mean at x = 1 within 0.15 of 1: true
}

// Fit a conditional flow-matching field to θ | x ~ N(x, 0.5²) by regressing it on the
// velocities of straight paths, then sample it and evaluate its density by integrating the ODE.
func ExampleNewField() {
	rng := rand.New(rand.NewPCG(1, 2))
	f, err := flow.NewField(rng, flow.FieldConfig{Features: 1, Context: 1, Hidden: []int{32, 32}})
	if err != nil {
		panic(err)
	}
	opt := nn.NewAdam(f.Params(), 3e-3)
	tp := nn.NewTape()
	for step := 0; step < 2000; step++ {
		opt.SetLR(3e-3 * (1 - float64(step)/2000)) // linear decay
		theta, x := tp.New(128, 1), tp.New(128, 1)
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
			theta.Data[i] = x.Data[i] + 0.5*rng.NormFloat64()
		}
		t, eps := tp.New(128, 1), tp.New(128, 1)
		f.DrawNoise(rng, t.Data, eps.Data)
		tp.Backward(f.Loss(tp, theta, x, t, eps))
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	s, err := f.Sample(rng, 4000, []float64{1})
	if err != nil {
		panic(err)
	}
	mean := 0.0
	for i := 0; i < 4000; i++ {
		mean += s.At(i, 0) / 4000
	}
	// The exact density at θ = x = 1 is N(0; 0, 0.5²) = 0.798.
	lp, err := f.LogProb(mat.NewDense(1, 1, []float64{1}), []float64{1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("posterior mean at x = 1 within 0.15 of 1: %v\n", mean > 0.85 && mean < 1.15)
	fmt.Printf("density at θ = 1 within 15%% of 0.798: %v\n", math.Abs(math.Exp(lp[0])/0.798-1) < 0.15)
	// Output:
	// posterior mean at x = 1 within 0.15 of 1: true
	// density at θ = 1 within 15% of 0.798: true
}
