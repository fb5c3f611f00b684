// Package kernels holds the numerical kernels of package nn and of the flows' transforms
// that have assembly twins: the packed matrix product (Gemm) and its float64 micro-tiles, the
// float32 micro-tiles of MADE evaluation (Tiles32), the vector operations (ReLU and its
// derivative, Adam's update, exp, log, tanh and its derivative, ELU/SELU and its derivative;
// tanh in float32 for the float32 MADEs), the column sums of a bias's gradient (ColSumAdd),
// max pooling by pairs (MaxPairs), the short copies of im2col (CopyRuns), the direct
// convolution of few taps and its weight gradient (ConvTaps, ConvGradW), the float32
// convolutions' strided micro-tiles (Tiles32Strided, Tiles16Strided) and direct kernels of
// few taps (ConvTaps32, ConvGradW32, with the exact float32 fused multiply-add Fma32 of their
// reference loops) and the vector evaluation of rational-quadratic splines (RunLanes), with
// the CPU feature detection that chooses among them, and the scalar functions they share
// (Softplus, Sigmoid, MaxStep).
// Tensors, tapes and gradients live in package nn, and so does the choice between this
// product and a BLAS library (its matmul.go); this package knows nothing of them.
//
// # The pattern
//
// Every kernel is a pure-Go reference loop, named with the suffix Go (TileGo, ReluGo,
// Tiles32Go, …) or One for a scalar (ExpOne, LogOne), which documents what the kernel computes,
// and one or more assembly twins in *_amd64.s. The exported function without suffix (Relu,
// Exp, Tiles32, …) is the dispatch: it runs the widest twin the CPU supports and the
// reference loop on what the twin leaves (the tail of a slice shorter than a vector, a value
// outside a vector kernel's range), and the reference loop alone where there is no twin.
// Tests compare every twin with its reference loop: bit for bit where both do the same IEEE
// operations in the same order (the float64 micro-tiles, the vector operations), within
// float32 rounding where the assembly fuses multiply-adds that the Go loop cannot (Tiles32).
//
// Two kernels differ from the pattern. Gemm packs its operands and calls the micro-tiles
// (documented by TileGo) directly, without a dispatch per tile, which would cost on the
// shallow products of small networks; where it cannot run it reports false (GemmWidth is 0),
// and package nn multiplies with OpenBLAS or gonum's BLAS. The vector spline kernels'
// reference is the scalar spline of package transform, against which that package's tests
// compare them to the bit (see Lanes).
//
// # Dispatch
//
// AVX2 and AVX512 are read once at start-up (CPUID and XGETBV: the CPU has the instructions
// and the OS saves the registers). Every assembly kernel needs AVX2 with FMA; the 6×16 float64
// micro-tile, the float32 micro-tile, the float32 tanh, max pooling by pairs, the im2col
// copies and the eight-lane spline kernel need AVX-512F. Builds
// for other architectures, or with the tag noasm, have no assembly: the dispatch functions
// are their reference loops, Gemm and RunLanes report false, and AVX2, AVX512, Float32 and
// LaneCount are false or 0.
package kernels
