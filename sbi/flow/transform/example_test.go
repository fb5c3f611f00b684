package transform_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/nn"
)

// A spline of four bins on [−3, 3]: all parameters zero give equal bins with interior knot
// derivatives softplus(0) + 10⁻³; outside the bound it is the identity. The inverse undoes the
// forward map, and the two log-derivatives cancel.
func ExampleSpline_ForwardOne() {
	s, err := transform.NewSpline(4, 3)
	if err != nil {
		panic(err)
	}
	u := make([]float64, s.Params())
	u[0] = 1 // the first bin's width parameter
	y, ld := s.ForwardOne(0.5, u)
	x, ldInv := s.InverseOne(y, u)
	fmt.Printf("y = %.4f, back to x = %.4f, log-derivatives sum to %.1g\n", y, x, ld+ldInv)
	y, ld = s.ForwardOne(4, u)
	fmt.Printf("tail: y = %v, log dy/dx = %v\n", y, ld)
	// Output:
	// y = -0.5097, back to x = 0.5000, log-derivatives sum to 0
	// tail: y = 4, log dy/dx = 0
}

// Spline.Forward transforms a batch on a tape and returns the log-determinant of every row;
// the backward pass gives the gradients with respect to the inputs and the parameters.
func ExampleSpline_Forward() {
	s := transform.Spline{Bins: 3, Bound: 3}
	tp := nn.NewTape()
	x := tp.Variable(2, 1, []float64{-0.5, 4}) // the second row lies in the linear tail
	params := tp.Variable(2, s.Params(), make([]float64, 2*s.Params()))
	y, logDet := s.Forward(tp, x, params)
	tp.Backward(tp.Sum(tp.Add(y, logDet)))
	fmt.Printf("y: %.4f, log-det: %.4f, ∂(y + log-det)/∂x: %.4f\n", y.Data, logDet.Data, x.Grad)
	// Output:
	// y: [-0.5648 4.0000], log-det: [0.0315 0.0000], ∂(y + log-det)/∂x: [1.5665 1.0000]
}

// The registry gives the transform of a flow kind and the defaults of its conditioner.
func ExampleLookup() {
	r, err := transform.Lookup("nsf")
	if err != nil {
		panic(err)
	}
	u, err := r.New(transform.Settings{Bins: 8, Bound: 5})
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Params(), "parameters per feature,", r.Activation, "conditioners")
	// Output:
	// 23 parameters per feature, relu conditioners
}
