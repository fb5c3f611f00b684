// Package nn is a small reverse-mode automatic-differentiation engine for the neural networks
// of simulation-based inference: dense row-major tensors, a tape of operations with analytic
// backward passes, parameters with gradients and seeded initialization, layers (Linear,
// masked Linear for MADE, MLP, residual blocks), fused kernels where a chain of small
// operations would cost (log-sum-exp, log-softmax, binary cross-entropy with logits, the
// straight-through indicator, sorting with gradient, the rational-quadratic spline and the
// affine autoregressive transform of normalizing flows), optimizers (Adam, AdamW, SGD) with
// gradient clipping and learning-rate schedules, and parameter (de)serialization.
//
// # Training step
//
// Every operation is a method on a Tape and returns a *Tensor owned by the tape. A training
// step builds the loss on the tape, calls Backward, lets the optimizer step and then resets
// the tape and the gradients:
//
//	tp := nn.NewTape()
//	net := nn.NewMLP(rng, []int{4, 64, 64, 1}, nn.ReLU)
//	opt := nn.NewAdam(net.Params(), 1e-3)
//	for step := 0; step < steps; step++ {
//		x := tp.Gather(inputs, batch[step])  // minibatch rows, no allocation
//		y := tp.Gather(labels, batch[step])
//		loss := tp.BCEWithLogits(net.Forward(tp, x), y)
//		tp.Backward(loss)
//		nn.ClipGradNorm(opt.Params(), 5)
//		opt.Step()                            // skipped if a gradient is NaN or ±Inf
//		opt.ZeroGrad()
//		tp.Reset()
//	}
//
// After the first step has sized the tape's buffers, a step like this allocates nothing:
// tensors, scratch space and the records of the tape are reused in the same order.
//
// # Numbers
//
// Tensors hold float64. Go's math package, and with it every transcendental function in the
// flows, is float64-only, and gonum's pure-Go GEMM runs at the same speed in float32 and
// float64 (6–8 GFLOP/s on the reference machine), so float32 would gain only in the OpenBLAS
// build's matrix products, which take a minority of an SBI training step at batch 128–512
// and widths 50–128, while costing accuracy in the gradient checks and the spline inverses.
//
// # BLAS
//
// Matrix products go through gonum's blas64 interface, so whatever blas64.Use registered
// does the work: gonum's pure-Go implementation by default, OpenBLAS when the program is built
// with the tag openblas (which needs cgo and libopenblas-dev). Backend names the one in use.
package nn
