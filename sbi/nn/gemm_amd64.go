//go:build amd64 && !noasm

package nn

import (
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
)

// The pure-Go build multiplies matrices with its own packed kernel in Go assembly when the
// CPU has AVX2 and FMA (checked once with CPUID/XGETBV), and with gonum's blas64 otherwise.
// gonum's Dgemm is built on SSE2 level-1 routines and reaches 6–8 GFLOP/s on the reference
// machine; the 6×8 FMA kernel below reaches several times that.

// gemmNR is the width of a micro-tile: 16 columns with AVX-512 (kernels.Tile6x16), 8 with
// AVX2 (kernels.Tile6x8).
var gemmNR = 8

func init() {
	if kernels.AVX512 {
		gemmNR = 16
	}
}

// tile sets the micro-tile C = D + A·Bp on the kernel of width gemmNR, for all its columns.
func tile(k int, a []float64, rs, cs int, b, c []float64, ldc int, d []float64, ldd int) {
	if gemmNR == 16 {
		kernels.Tile6x16(k, a, rs, cs, b, c, ldc, d, ldd, 1<<16-1, math.Inf(-1))
	} else {
		kernels.Tile6x8(k, a, rs, cs, b, c, ldc, d, ldd)
	}
}

const (
	gemmMR    = kernels.MR // rows of a micro-tile
	gemmMaxNR = 16         // the widest micro-tile
	gemmKC    = 256        // depth of one packed block
)

type gemmBuf struct {
	a, b []float64
	tile [gemmMR * gemmMaxNR]float64
	job  gemmJob
}

// gemmBufs holds the packing buffers.
var gemmBufs par.FreeList[gemmBuf]

// gemmParFlops is the size of a product (2·m·n·k) above which its row panels are split
// over goroutines, and gemmChunkFlops the least work given to one goroutine.
const (
	gemmParFlops   = 1 << 20
	gemmChunkFlops = 1 << 19
)

// fastGemm computes C = op(A)·op(B) + beta·C with the packed kernel and reports true, or
// reports false when the kernel is not available (alpha ≠ 1 is never asked for here).
// B is packed once per depth block; the row panels of A are packed and multiplied by one or
// several goroutines.
func fastGemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if !kernels.AVX2 || alpha != 1 || !ownKernelFor(tA, tB, m) {
		return false
	}
	scaleC(m, n, beta, c, ldc)
	return packedGemm(tA, tB, m, n, k, a, lda, b, ldb, nil, c, ldc, false)
}

// fastGemmBias computes C = A·B + 1·biasᵀ (every row of C gets the bias row), followed by
// ReLU when relu is set, with the packed kernel and reports true, or reports false when the
// kernel is not available (or relu is asked of the AVX2 kernel, which does not fuse it). The
// bias and the ReLU are applied by the micro-kernel as it stores each tile, so C is written
// once and never read.
func fastGemmBias(m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	if !kernels.AVX2 || !ownKernelFor(false, false, m) || (relu && gemmNR != 16) {
		return false
	}
	return packedGemm(false, false, m, n, k, a, lda, b, ldb, bias, c, ldc, relu)
}

// packedGemm is C = op(A)·op(B) + C, or + 1·biasᵀ in place of C when bias is not nil,
// followed by ReLU when relu is set (AVX-512 only).
func packedGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	buf := gemmBufs.Get()
	np := (n + gemmNR - 1) / gemmNR
	panels := (m + gemmMR - 1) / gemmMR
	for l0 := 0; l0 < k; l0 += gemmKC {
		kb := min(gemmKC, k-l0)
		if cap(buf.b) < np*kb*gemmNR {
			buf.b = make([]float64, np*gemmKC*gemmMaxNR)
		}
		bp := buf.b[:np*kb*gemmNR]
		packB(tB, b, ldb, l0, kb, n, bp)
		buf.job = gemmJob{tA: tA, a: a, lda: lda, m: m, n: n, l0: l0, kb: kb, np: np, bp: bp, c: c, ldc: ldc}
		if l0 == 0 {
			buf.job.bias = bias
		}
		buf.job.relu = relu && l0+kb == k // with the last depth block
		grain := panels
		if 2*m*n*kb >= gemmParFlops {
			grain = max(1, gemmChunkFlops/(2*gemmMR*n*kb))
		}
		par.Range(panels, grain, &buf.job)
	}
	buf.job = gemmJob{}
	gemmBufs.Put(buf)
	return true
}

// gemmJob multiplies row panels of op(A) by the packed B of one depth block.
type gemmJob struct {
	tA               bool
	a                []float64
	lda              int
	m, n, l0, kb, np int
	bp               []float64
	c                []float64
	ldc              int
	bias             []float64 // with the first depth block: C = bias + A·B, C not read
	relu             bool      // C = max(…, 0) as it is stored (AVX-512 kernel)
}

func (j *gemmJob) Do(lo, hi int) {
	buf := gemmBufs.Get()
	if cap(buf.a) < j.kb*gemmMR {
		buf.a = make([]float64, gemmKC*gemmMR)
	}
	ap := buf.a[:j.kb*gemmMR]
	c, ldc, kb := j.c, j.ldc, j.kb
	floor := math.Inf(-1) // no activation
	if j.relu {
		floor = 0
	}
	for p := lo; p < hi; p++ {
		i0 := p * gemmMR
		rows := min(gemmMR, j.m-i0)
		a, rs, cs := ap, 1, gemmMR
		if !j.tA && rows == gemmMR {
			a, rs, cs = j.a[i0*j.lda+j.l0:], j.lda, 1
		} else {
			packA(j.tA, j.a, j.lda, i0, rows, j.l0, kb, ap)
		}
		for jp := 0; jp < j.np; jp++ {
			j0 := jp * gemmNR
			cols := min(gemmNR, j.n-j0)
			panel := j.bp[jp*kb*gemmNR:]
			if rows == gemmMR && (cols == gemmNR || gemmNR == 16) { // AVX-512 stores narrow panels masked
				ct := c[i0*ldc+j0:]
				d, ldd := ct, ldc
				if j.bias != nil {
					d, ldd = j.bias[j0:], 0
				}
				if gemmNR == 16 {
					kernels.Tile6x16(kb, a, rs, cs, panel, ct, ldc, d, ldd, 1<<cols-1, floor)
				} else {
					kernels.Tile6x8(kb, a, rs, cs, panel, ct, ldc, d, ldd)
				}
				continue
			}
			tl := buf.tile[:gemmMR*gemmNR]
			clear(tl)
			tile(kb, a, rs, cs, panel, tl, gemmNR, tl, gemmNR)
			for r := 0; r < rows; r++ {
				row := c[(i0+r)*ldc+j0 : (i0+r)*ldc+j0+cols]
				t := tl[r*gemmNR : r*gemmNR+cols]
				if j.bias != nil {
					for jj, bv := range j.bias[j0 : j0+cols] {
						row[jj] = bv + t[jj]
					}
				} else {
					for jj := range row {
						row[jj] += t[jj]
					}
				}
				if j.relu {
					kernels.ReluGo(row)
				}
			}
		}
	}
	gemmBufs.Put(buf)
}

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

// packB copies rows l0…l0+kb−1 of op(B) (k×n) into panels of gemmNR columns, each stored
// row after row (panel[l*NR+j]), padding the last panel with zeros.
func packB(trans bool, b []float64, ldb, l0, kb, n int, dst []float64) {
	for j0 := 0; j0 < n; j0 += gemmNR {
		cols := min(gemmNR, n-j0)
		p := dst[(j0/gemmNR)*kb*gemmNR:]
		for l := 0; l < kb; l++ {
			row := p[l*gemmNR : l*gemmNR+gemmNR]
			if !trans {
				copy(row, b[(l0+l)*ldb+j0:(l0+l)*ldb+j0+cols])
			} else {
				for j := 0; j < cols; j++ {
					row[j] = b[(j0+j)*ldb+l0+l]
				}
			}
			clear(row[cols:])
		}
	}
}

// packA copies rows i0…i0+rows−1, columns l0…l0+kb−1 of op(A) column after column
// (dst[l*MR+r]), padding missing rows with zeros.
func packA(trans bool, a []float64, lda, i0, rows, l0, kb int, dst []float64) {
	if trans {
		for l := 0; l < kb; l++ {
			col := dst[l*gemmMR : l*gemmMR+gemmMR]
			copy(col, a[(l0+l)*lda+i0:(l0+l)*lda+i0+rows])
			clear(col[rows:])
		}
		return
	}
	// read each row of A contiguously; the strided writes stay in the small panel
	for r := 0; r < gemmMR; r++ {
		if r >= rows {
			for l := 0; l < kb; l++ {
				dst[l*gemmMR+r] = 0
			}
			continue
		}
		src := a[(i0+r)*lda+l0 : (i0+r)*lda+l0+kb]
		for l, v := range src {
			dst[l*gemmMR+r] = v
		}
	}
}
