package nn

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file is the one place that chooses the implementation of every matrix product of the
// package (gemm, gemmBias and gemmBiasAct, which the layers, MatMul, LinearRows, the
// convolutions, attention and the GRU call), and Backend reports the choice. Three
// implementations can run:
//
//   - gosbi's own packed kernels (sbi/internal/kernels.Gemm): 6×16 micro-tiles with AVX-512,
//     6×8 with AVX2 and FMA, in builds with assembly (not noasm, amd64 only);
//   - OpenBLAS, in builds with the openblas tag (cgo; see package nn/internal/openblas);
//   - gonum's pure-Go BLAS (blas64), where neither runs.
//
// The rule:
//
//   - with the 6×16 AVX-512 kernel, the own kernels do every product;
//   - with the 6×8 AVX2 kernel, OpenBLAS (where it is linked) does the products of training,
//     that is products of fewer than ownRowsMin rows and products with a transposed operand
//     (backward passes), and the own kernel the tall forward products of batched evaluation
//     (log-densities and sampling in chunks of 512 rows), which it reads in place;
//   - without the own kernels, OpenBLAS where it is linked, else gonum.
//
// It follows measurements, which docs/matmul.md gives: on an AVX2 CPU without AVX-512,
// OpenBLAS's per-CPU packing and micro-kernels beat the 6×8 kernel on the small products of
// training steps (BenchmarkGEMMPaths times each path on each shape), and the own kernel wins
// the tall forward products. On AVX-512 the measurements disagree from one machine to
// another, so the openblas build does there what the default build does and is never slower
// than it.
//
// The rule depends only on the CPU's instruction sets, the build and the product's shape, so
// the same program on the same machine computes the same bits on every run. A timing at
// start-up could not tell these paths apart on a busy machine (the margins are 5–25%, the
// noise of a shared core more) and would change the rounding of every result from one run to
// the next.

// matmulPath is an implementation of the matrix product.
type matmulPath int

const (
	pathOwn      matmulPath = iota // kernels.Gemm
	pathOpenBLAS                   // blas64 with OpenBLAS registered (openblas build)
	pathGonum                      // blas64 with gonum's pure-Go implementation
	pathAuto                       // no path forced (see forcedPath)
)

// ownRowsMin is the least number of rows of a forward product that the own AVX2 kernel does
// when OpenBLAS is linked.
const ownRowsMin = 256

// forcedPath, unless pathAuto, overrides the rule (benchmarks compare the paths with it).
var forcedPath = pathAuto

// matmulRan, when not nil, is called with the path of every product as it runs (tests).
var matmulRan func(matmulPath)

// ownWidth returns the width of the own kernel's micro-tile, 0 where it does not run.
func ownWidth() int { return kernels.GemmWidth() }

// blasPath is the path of products that the own kernels do not do.
func blasPath() matmulPath {
	if openblasLinked {
		return pathOpenBLAS
	}
	return pathGonum
}

// pathFor returns the implementation of the product op(A)·op(B) with m rows.
func pathFor(tA, tB bool, m int) matmulPath {
	if forcedPath != pathAuto {
		if forcedPath == pathOwn && ownWidth() == 0 {
			return blasPath()
		}
		return forcedPath
	}
	switch w := ownWidth(); {
	case w == 0:
		return blasPath()
	case !openblasLinked, w == 16:
		return pathOwn
	case !tA && !tB && m >= ownRowsMin:
		return pathOwn
	}
	return pathOpenBLAS
}

// name returns the implementation's name as Backend reports it.
func (p matmulPath) name() string {
	switch p {
	case pathOwn:
		if ownWidth() == 16 {
			return "gosbi's AVX-512 kernels (6×16 tiles)"
		}
		return "gosbi's AVX2 kernels (6×8 tiles)"
	case pathOpenBLAS:
		return "OpenBLAS"
	case pathGonum:
		return "gonum's pure-Go BLAS"
	}
	return "no implementation"
}

// Backend says which implementation does the package's matrix products on this CPU and in
// this build, per class of product where the choice depends on the shape: for example
// "gosbi's AVX-512 kernels (6×16 tiles) for every product", or, in the openblas build on a
// CPU without AVX-512, "OpenBLAS for products of fewer than 256 rows or with a transposed
// operand (training); gosbi's AVX2 kernels (6×8 tiles) for the rest (batched evaluation)".
func Backend() string {
	training, tall := pathFor(false, false, 1), pathFor(false, false, ownRowsMin)
	transposed := pathFor(true, false, ownRowsMin)
	if training == tall && tall == transposed {
		return training.name() + " for every product"
	}
	return fmt.Sprintf("%s for products of fewer than %d rows or with a transposed operand (training); %s for the rest (batched evaluation)",
		training.name(), ownRowsMin, tall.name())
}

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major A, B, C on the implementation
// pathFor chooses. op(A) is m×k, op(B) is k×n.
func gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	p := pathFor(tA, tB, m)
	if p == pathOwn && alpha == 1 {
		scaleC(m, n, beta, c, ldc)
		if kernels.Gemm(tA, tB, m, n, k, a, lda, b, ldb, nil, c, ldc, false) {
			ran(pathOwn)
			return
		}
		panic("nn: the own product kernel declined a product it was chosen for")
	}
	if p == pathOwn { // alpha ≠ 1, which the own kernel does not take (no caller asks for it)
		p = blasPath()
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	blas64.Implementation().Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	ran(p)
}

// gemmBias computes C = A·B + 1·biasᵀ: every row of the m×n result is the bias row plus the
// product (the affine layer's y = xW + b for a batch of rows). On the own kernels the bias
// is added as the micro-kernel stores C, which is written once and never read.
func gemmBias(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int) {
	gemmBiasReLU(m, n, k, a, lda, b, ldb, bias, c, ldc, false)
}

// gemmBiasAct is gemmBias with ldc = n followed by the activation fn on C; the AVX-512
// micro-kernel applies a ReLU as it stores C, saving a pass.
func gemmBiasAct(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, fn int) {
	if gemmBiasReLU(m, n, k, a, lda, b, ldb, bias, c, n, fn == fnReLU) {
		return
	}
	if fn != fnIdentity {
		applyInPlace(fn, c[:m*n])
	}
}

// gemmBiasReLU is gemmBias, followed by ReLU when relu is set and the own kernel fuses it
// (the AVX-512 one); it reports whether it applied the ReLU.
func gemmBiasReLU(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) (fused bool) {
	if m == 0 || n == 0 {
		return relu
	}
	if k > 0 && pathFor(false, false, m) == pathOwn {
		fuse := relu && ownWidth() == 16
		if kernels.Gemm(false, false, m, n, k, a, lda, b, ldb, bias, c, ldc, fuse) {
			ran(pathOwn)
			return fuse
		}
		panic("nn: the own product kernel declined a product it was chosen for")
	}
	if ldc == n {
		fillRows(c[:m*n], bias[:n])
	} else {
		for i := 0; i < m; i++ {
			copy(c[i*ldc:i*ldc+n], bias[:n])
		}
	}
	gemm(false, false, m, n, k, 1, a, lda, b, ldb, 1, c, ldc)
	return false
}

// ran tells the test hook which path a product took.
func ran(p matmulPath) {
	if matmulRan != nil {
		matmulRan(p)
	}
}

// scaleC sets C = beta·C (beta 0 clears C, so that NaN in C does not propagate).
func scaleC(m, n int, beta float64, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
