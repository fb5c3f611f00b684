package transform_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/nn"
)

// A spline of four bins on [−3, 3]: all parameters zero give equal bins with interior knot
// derivatives softplus(0) + 10⁻³; outside the bound it is the identity. The inverse undoes the
// forward map, and the two log-derivatives cancel.
func ExampleRQSplineForward() {
	u := make([]float64, transform.SplineParams(4))
	u[0] = 1 // the first bin's width parameter
	y, ld := transform.RQSplineForward(0.5, u, 3)
	x, ldInv := transform.RQSplineInverse(y, u, 3)
	fmt.Printf("y = %.4f, back to x = %.4f, log-derivatives sum to %.1g\n", y, x, ld+ldInv)
	y, ld = transform.RQSplineForward(4, u, 3)
	fmt.Printf("tail: y = %v, log dy/dx = %v\n", y, ld)
	// Output:
	// y = -0.5097, back to x = 0.5000, log-derivatives sum to 0
	// tail: y = 4, log dy/dx = 0
}

// RQSpline transforms a batch on a tape and returns the log-determinant of every row; the
// backward pass gives the gradients with respect to the inputs and the parameters.
func ExampleRQSpline() {
	tp := nn.NewTape()
	x := tp.Variable(2, 1, []float64{-0.5, 4}) // the second row lies in the linear tail
	params := tp.Variable(2, transform.SplineParams(3), make([]float64, 2*transform.SplineParams(3)))
	y, logDet := transform.RQSpline(tp, x, params, 3, 3)
	tp.Backward(tp.Sum(tp.Add(y, logDet)))
	fmt.Printf("y: %.4f, log-det: %.4f, ∂(y + log-det)/∂x: %.4f\n", y.Data, logDet.Data, x.Grad)
	// Output:
	// y: [-0.5648 4.0000], log-det: [0.0315 0.0000], ∂(y + log-det)/∂x: [1.5665 1.0000]
}
