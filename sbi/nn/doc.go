// Package nn is a small reverse-mode automatic-differentiation engine for the neural networks
// of simulation-based inference: dense row-major tensors, a tape of operations with analytic
// backward passes, parameters with gradients and seeded initialization, layers (Linear and
// its tape-free LinearRows, masked Linear, MLP, residual blocks, inverted dropout, and the
// Conv1D, Conv2D, LayerNorm and GRU layers of embedding networks, initialized as PyTorch
// initializes them), fused operations where a chain of small ones would cost
// (Linear+activation, log-sum-exp, log-softmax, binary cross-entropy with logits, the
// straight-through indicator, sorting with gradient), the operations of embedding networks
// (1-D and 2-D convolutions, in float64 or float32, max and mean pooling over windows and
// globally, layer normalization, pooling over sets, softmax and multi-head scaled dot-product
// attention, a gated recurrent unit), optimizers (Adam, AdamW, SGD) with gradient clipping and
// learning-rate schedules, and parameter (de)serialization.
//
// What does not live here: the assembly kernels and the CPU dispatch (sbi/internal/kernels,
// each kernel a Go reference loop with assembly twins), the worker goroutines that split
// large kernels (sbi/internal/par), the transforms of normalizing flows (the
// rational-quadratic spline and the affine transform, package sbi/flow/transform), which
// are recorded on the tape through the custom-operation hook below, and the MADE networks
// that condition them, with their float32 evaluation (package sbi/flow), which are built
// from this package's masked Linear layers.
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
// operations compute their gradients analytically in one pass. Tests compare every
// operation and layer with central finite differences (GradientError): with step 1e-5 the
// relative error max|analytic − numeric| / max(1, max|numeric|) must stay below 1e-6 in
// float64 (truncation and rounding of the differences are about 1e-10; a wrong term gives
// 1e-2 or more). The straight-through Indicator is checked against its definition instead.
//
// # Operations defined elsewhere
//
// A package can add a differentiable operation without changing this one: its forward pass
// asks the tape whether to record (RequiresGrad), takes its results from Output and what it
// saves for the backward pass from Scratch, and records itself with Record as an Op, a value
// with Backward (add the results' gradients to the inputs') and Release (called by Reset;
// an op taken from a free list goes back to it there, so that steady-state steps still
// allocate nothing). Backward calls recorded ops in reverse order of recording, like the
// tape's own. GradientError checks a new op's backward pass.
//
// # Layout of series, images and sets
//
// Tensors are 2-D. A batch of series, images or sequences is stored one example per row,
// channels-last: element (t, c) of a series of L positions with C channels is column t·C + c
// of its row, pixel (y, x) channel c of an H×W image is column (y·W + x)·C + c. The
// operations take the shape (channels, length, height, width) as parameters (Conv1DConfig,
// Conv2DConfig, AttentionConfig) and check it against the tensor. Channels-last makes a
// convolution one matrix product whose rows are already the output in the same layout (no
// transposition on either side; with unit strides the patches are overlapping rows of the
// input itself, read in place), a position's channels contiguous for layer normalization
// and attention, and the rows of a batch of sequences, viewed as (n·L)×C, the tokens that
// Linear layers and Attention work on (Reshape turns one view into the other). Data stored
// channel-first (PyTorch's NCL, NCHW flattened) becomes channels-last by PermuteColumns with
// ChannelsLastPerm.
//
// Sets (i.i.d. trials, a varying number per example) are segments: the elements of every
// example are rows of one tensor, example i owning rows offsets[i] up to offsets[i+1];
// SegmentSum, SegmentMean and SegmentMax pool them per example, invariant under permutations
// of the elements.
//
// # Numbers: float64, and float32 for convolution stacks
//
// Tensors hold float64. Go's math package (every exp, log and softplus of the flows) is
// float64-only, float32 gradient checks and spline inverses lose four to five digits, and the
// matrix products are only part of a training step, so float32 training would gain little.
// Convolutions are where the choice costs most: their products are nearly all of their time,
// and a product in float32 does twice the work per instruction, so a float32 convolution
// (PyTorch's) needs up to half the instructions of a float64 one.
//
// So a stack of convolutions can run in float32 (tensor32.go, conv32.go): Tensor32 holds
// float32 in the same layout, To32 and To64 cast into and out of it with gradients, and
// Conv1D32, Conv2D32 (unit strides, any padding, causal), ReLU32, MaxPool1D32 and
// MaxPool2D32 work on it, the convolutions taking the layers' float64 parameters, cast
// inside the op, and adding their gradients to the float64 Grad. The rest of the network,
// its losses and the optimizer stay float64. The convolutions' results differ from the
// float64 ops' by float32 rounding: a sum of N terms by at most about N·2⁻²⁴ of the sum of
// their magnitudes.
//
// Evaluation without gradients is the other exception: package sbi/flow can evaluate its
// MADEs in float32, PyTorch's precision, on an AVX-512 kernel of 16 lanes (flow.EvalConfig,
// which the estimators set for log-densities and samples).
//
// # Matrix products
//
// Every product goes through one function (matmul.go), which chooses among three
// implementations by a fixed rule of the CPU's instruction sets, the build and the product's
// shape, and Backend says what the rule gives here:
//
//   - gosbi's own packed micro-kernels in Go assembly (sbi/internal/kernels): 6×16 with
//     AVX-512, 6×8 with AVX2 and FMA (checked at start-up); B is packed once per depth block
//     of 256, row panels of A are packed (or read in place) and multiplied on up to
//     runenv.Threads() goroutines. They do every product in the default build.
//   - OpenBLAS, in builds with the tag openblas (cgo, libopenblas-dev, through
//     gonum.org/v1/netlib and blas64.Use; single-threaded unless OPENBLAS_NUM_THREADS is
//     set, see SetBLASThreads). On CPUs without AVX-512 it does the products of training
//     (fewer than 256 rows, or a transposed operand), where its per-CPU packing and
//     micro-kernels beat the 6×8 kernel on these small shapes; the own kernel keeps the tall
//     forward products of batched evaluation. On CPUs with AVX-512 the own kernels do every
//     product.
//   - gonum's portable BLAS (pure Go), where neither runs: other architectures, the tag
//     noasm, or a CPU without AVX2.
//
// The rule is read off BenchmarkGEMMPaths and the step benchmarks (docs/matmul.md); it
// is not a timing taken at start-up, which on a busy machine would choose differently from
// run to run and change the bits of every result.
//
// The ReLU that follows a product is applied by the AVX-512 micro-kernel as it stores; ReLU,
// Adam, exp, log and ELU have vector kernels, and the spline transforms evaluated without
// gradients run eight splines at a time on an AVX-512 kernel (four on an AVX2 one). All give
// results identical to their Go reference loops.
//
// # Parallelism
//
// The rows of large products and of the spline transforms are split over a fixed set of
// worker goroutines (at most the host's thread limit, runenv.SetThreads); handing work over
// allocates nothing, and every element is computed by one goroutine in a fixed order, so
// results do not depend on the number of goroutines. Steady-state training steps allocate
// nothing in the default and openblas builds (gonum's Dgemm in the noasm build allocates for
// its own goroutines).
// Measurements against PyTorch are in BENCHMARKS.md at the repository's root (go run
// ./tools/benchmarks).
package nn
