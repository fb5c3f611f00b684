// Package nn is a small reverse-mode automatic-differentiation engine for the neural networks
// of simulation-based inference: dense row-major tensors, a tape of operations with analytic
// backward passes, parameters with gradients and seeded initialization, layers (Linear,
// masked Linear for MADE, MLP, residual blocks, inverted dropout), fused kernels where a chain of small
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
// # Differentiation
//
// Every operation records a node on the tape with a hand-written backward pass; the fused
// kernels (Linear+activation, the spline, the affine transform, log-sum-exp, log-softmax,
// binary cross-entropy, sorting) compute their gradients analytically in one pass. Tests
// compare every operation and layer with central finite differences: with step 1e-5 the
// relative error max|analytic − numeric| / max(1, max|numeric|) must stay below 1e-6 in
// float64 (truncation and rounding of the differences are about 1e-10; a wrong term gives
// 1e-2 or more). The straight-through Indicator is checked against its definition instead.
//
// # Numbers: float64
//
// Tensors hold float64, chosen by measurement. Single-core CPU-time rates of the products
// of SBI networks (256×64×64, 128×46×64, 512×128×128) on the reference machine (2 vCPUs,
// Sapphire Rapids): gonum's pure-Go Dgemm 7.9–8.7 GFLOP/s and Sgemm 4.5–8.1 (no faster),
// OpenBLAS Dgemm 38–59 and Sgemm 64–113 (1.7–2.1×). Products are 30–55% of a training step
// in the OpenBLAS build, so float32 would save at most a quarter of a step there and nothing
// in the pure-Go build, while Go's math package (every exp, log and softplus of the flows)
// is float64-only and float32 gradient checks and spline inverses lose four to five digits.
//
// Evaluation without gradients is the exception. Log-densities and sampling of flows spend
// most of their time in the MADEs' products, and nothing is differentiated, so a tape with
// Float32 set (the estimators set it for log-densities and samples) evaluates MADEs with ReLU
// in float32, PyTorch's precision, on an AVX-512 kernel of 16 lanes: the units are sorted by
// degree so that every panel of 32 columns multiplies only the inputs its masks keep (a
// quarter fewer products for two features), and sampling multiplies only the units that
// reach the feature it inverts (made32.go). The splines stay in float64. Results then carry
// float32 rounding (about 1e-7 in a log-density) and do not depend on the batch they are
// computed in.
//
// # Matrix products
//
// Products go through one function with three implementations, chosen at build time:
//
//   - default (amd64 with AVX2 and FMA, checked at start-up): packed micro-kernels in Go
//     assembly, 6×16 with AVX-512 where the CPU has it and 6×8 with AVX2 otherwise; B is
//     packed once per depth block of 256, row panels of A are packed and multiplied on up to
//     Threads() goroutines. 25–44 GFLOP per CPU second on the reference machine at the
//     shapes of SBI networks (peak per core at the nominal 2.0 GHz: 64 with AVX-512, 32 with
//     AVX2).
//   - other architectures, or the build tag noasm: gonum's blas64 (pure Go, 6–8 GFLOP/s).
//   - the build tag openblas: OpenBLAS through gonum.org/v1/netlib and blas64.Use (needs cgo
//     and libopenblas-dev); 29–54 GFLOP per CPU second (AVX-512 peak: 64 per core). OpenBLAS
//     runs single-threaded unless OPENBLAS_NUM_THREADS is set; see SetBLASThreads.
//
// ReLU and Adam also have AVX2 kernels (the AVX-512 product kernel applies a ReLU that
// follows it as it stores), and the spline transforms evaluated without gradients run eight
// splines at a time on an AVX-512 kernel (four on an AVX2 one); all give results identical
// to the Go loops.
// Backend names the product implementation in use.
//
// # Speed
//
// The rows of large products and of the spline transforms are split over a fixed set of
// worker goroutines (SetThreads limits them); handing work over allocates nothing, and every
// element is computed by one goroutine in a fixed order, so results do not depend on the
// number of goroutines. Steady-
// state training steps allocate nothing in the default and openblas builds (gonum's Dgemm in
// the noasm build allocates for its own goroutines). Benchmarks (go test -bench Step
// ./sbi/nn ./sbi/flow; cpu-ns/op is the CPU time per step, which a shared machine inflates
// less than the wall time) against PyTorch 1.13 with lampe/zuko on 2 threads, on the same
// machine class (2 vCPUs), batch 128:
//
//	step                                    PyTorch   default build      openblas build
//	NRE: MLP 3×64 on (θ, x), BCE, Adam      1.56 ms   0.71 ms (2.2×)     0.46 ms (3.4×)
//	NPE: NSF 5×(2×64), 8 bins, Adam         10.1 ms   2.69 ms (3.8×)     2.55 ms (4.0×)
//	MLP 512×8 → 128 → 128 → 1, Adam            —      1.99 ms            1.50 ms
//
// (CPU time per step; measured while other jobs kept the load average at 15–20 on the two
// cores, so wall times were 1–3× larger and no two-core speed-up could be observed).
package nn
