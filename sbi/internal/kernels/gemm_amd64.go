//go:build amd64 && !noasm

package kernels

import (
	"math"

	"github.com/gosbi/gosbi/sbi/internal/par"
)

// The packed matrix product: B is packed once per depth block of KC into panels of gemmNR
// columns, row panels of A are packed (or, when whole and not transposed, read in place) and
// multiplied by the micro-kernels on one or several goroutines. Its micro-tile is documented
// by TileGo.

// The kernels read element (r, l) of the 6×k block of A at a[r*rs + l*cs]: packed panels
// have rs = 1, cs = gemmMR; full row panels of a row-major A are read in place with
// rs = lda, cs = 1, which saves copying them; so are those of a transposed A (rs = 1,
// cs = lda) when B is a single panel and each is read once (a convolution's weight gradient,
// long and narrow), where a strided read costs less than a copy. A panel read again for
// several panels of B is packed: contiguous reads then repay the copy.

//go:noescape
func kernel6x8(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int)

//go:noescape
func kernel6x16(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int, cols int, floor float64, ldb int)

// gemmNR is the width of a micro-tile: 16 columns with AVX-512, 8 with AVX2.
var gemmNR = 8

func init() {
	if AVX512 {
		gemmNR = 16
	}
}

// kernel sets the micro-tile C = D + A·B for the columns of cols (see TileGo) with B's rows
// ldb apart; kernel6x8 reads a packed panel (ldb = 8) and every column.
func kernel(k int, a *float64, rs, cs int, b *float64, ldb int, c *float64, ldc int, d *float64, ldd int, cols int) {
	if gemmNR == 16 {
		kernel6x16(k, a, rs, cs, b, c, ldc, d, ldd, cols, math.Inf(-1), ldb)
	} else {
		kernel6x8(k, a, rs, cs, b, c, ldc, d, ldd)
	}
}

const (
	gemmMR    = MR // rows of a micro-tile
	gemmMaxNR = 16 // the widest micro-tile
)

type gemmBuf struct {
	a, b []float64
	tile [gemmMR * gemmMaxNR]float64
	job  gemmJob
}

// gemmBufs holds the packing buffers.
var gemmBufs par.FreeList[gemmBuf]

// gemmParFlops is the size of a product (2·m·n·k) above which its row panels are split
// over goroutines, and gemmChunkFlops the least work given to one goroutine: more than waking
// a worker costs even on a small virtual machine, where chunks of a quarter of it make a
// training step of NRE slower than no split.
const (
	gemmParFlops   = 1 << 22
	gemmChunkFlops = 1 << 21
)

// Gemm computes C = op(A)·op(B) + C, or op(A)·op(B) + 1·biasᵀ in place of C when bias is not
// nil (every row gets the bias row; C is written, not read), followed by ReLU when relu is
// set, on the packed micro-kernels, and reports true; or reports false, doing nothing, where
// it cannot: no AVX2, relu without the AVX-512 kernel (the AVX2 kernel does not fuse it),
// or an empty product (m, n or k of 0, which the caller handles).
// op(A) is m×k with row stride lda, op(B) k×n with row stride ldb, C m×n with row stride ldc.
func Gemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) bool {
	if !AVX2 || (relu && gemmNR != 16) || m <= 0 || n <= 0 || k <= 0 {
		return false
	}
	packedGemm(tA, tB, m, n, k, a, lda, b, ldb, bias, c, ldc, relu)
	return true
}

// packedGemm is C = op(A)·op(B) + C, or + 1·biasᵀ in place of C when bias is not nil,
// followed by ReLU when relu is set (AVX-512 only).
//
// B is read in place, not packed, where the AVX-512 kernel reads it and it is a single panel
// stored row by row (n ≤ 16, not transposed): its masked loads read the n columns of each row
// ldb apart, as a packed panel's rows 16 apart, so a narrow B (a convolution's patches in its
// weight gradient) is not copied for one reading.
func packedGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, bias, c []float64, ldc int, relu bool) {
	buf := gemmBufs.Get()
	np := (n + gemmNR - 1) / gemmNR
	panels := (m + gemmMR - 1) / gemmMR
	direct := gemmNR == 16 && !tB && n <= gemmNR
	for l0 := 0; l0 < k; l0 += KC {
		kb := min(KC, k-l0)
		var bp []float64
		bld := gemmNR
		if direct {
			bp, bld = b[l0*ldb:], ldb
		} else {
			if cap(buf.b) < np*kb*gemmNR {
				buf.b = make([]float64, np*KC*gemmMaxNR)
			}
			bp = buf.b[:np*kb*gemmNR]
			packB(tB, b, ldb, l0, kb, n, bp)
		}
		buf.job = gemmJob{tA: tA, a: a, lda: lda, m: m, n: n, l0: l0, kb: kb, np: np, bp: bp, ldb: bld, c: c, ldc: ldc}
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
}

// gemmJob multiplies row panels of op(A) by the packed B of one depth block.
type gemmJob struct {
	tA               bool
	a                []float64
	lda              int
	m, n, l0, kb, np int
	bp               []float64 // the packed panels of B, or B's row l0 read in place
	ldb              int       // the stride of bp's rows: gemmNR when packed
	c                []float64
	ldc              int
	bias             []float64 // with the first depth block: C = bias + A·B, C not read
	relu             bool      // C = max(…, 0) as it is stored (AVX-512 kernel)
}

func (j *gemmJob) Do(lo, hi int) {
	buf := gemmBufs.Get()
	if cap(buf.a) < j.kb*gemmMR {
		buf.a = make([]float64, KC*gemmMR)
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
		a, rs, cs := &ap[0], 1, gemmMR
		switch {
		case rows == gemmMR && !j.tA: // whole panels are read in place, row by row
			a, rs, cs = &j.a[i0*j.lda+j.l0], j.lda, 1
		case rows == gemmMR && j.np == 1: // or, transposed and read once, down the stored rows
			a, rs, cs = &j.a[j.l0*j.lda+i0], 1, j.lda
		default:
			packA(j.tA, j.a, j.lda, i0, rows, j.l0, kb, ap)
		}
		for jp := 0; jp < j.np; jp++ {
			j0 := jp * gemmNR
			cols := min(gemmNR, j.n-j0)
			panel := j.bp[jp*kb*gemmNR:]
			if rows == gemmMR && (cols == gemmNR || gemmNR == 16) { // AVX-512 stores narrow panels masked
				ct := &c[i0*ldc+j0]
				d, ldd := ct, ldc
				if j.bias != nil {
					d, ldd = &j.bias[j0], 0
				}
				if gemmNR == 16 {
					kernel6x16(kb, a, rs, cs, &panel[0], ct, ldc, d, ldd, 1<<cols-1, floor, j.ldb)
				} else {
					kernel6x8(kb, a, rs, cs, &panel[0], ct, ldc, d, ldd)
				}
				continue
			}
			tile := buf.tile[:gemmMR*gemmNR]
			clear(tile)
			kernel(kb, a, rs, cs, &panel[0], j.ldb, &tile[0], gemmNR, &tile[0], gemmNR, 1<<cols-1)
			for r := 0; r < rows; r++ {
				row := c[(i0+r)*ldc+j0 : (i0+r)*ldc+j0+cols]
				t := tile[r*gemmNR : r*gemmNR+cols]
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
					ReluGo(row)
				}
			}
		}
	}
	gemmBufs.Put(buf)
}

// packB copies rows l0…l0+kb−1 of op(B) (k×n) into panels of gemmNR columns, each stored
// row after row (panel[l*NR+j]), padding the last panel with zeros.
func packB(trans bool, b []float64, ldb, l0, kb, n int, dst []float64) {
	for j0 := 0; j0 < n; j0 += gemmNR {
		cols := min(gemmNR, n-j0)
		p := dst[(j0/gemmNR)*kb*gemmNR:]
		for l := 0; l < kb; l++ {
			row := p[l*gemmNR : l*gemmNR+gemmNR]
			switch {
			case !trans && cols < gemmNR: // a narrow panel: moves, not a call of memmove each
				for j, v := range b[(l0+l)*ldb+j0 : (l0+l)*ldb+j0+cols] {
					row[j] = v
				}
			case !trans:
				copy(row, b[(l0+l)*ldb+j0:(l0+l)*ldb+j0+cols])
			default:
				for j := 0; j < cols; j++ {
					row[j] = b[(j0+j)*ldb+l0+l]
				}
			}
			for j := cols; j < gemmNR; j++ { // the padding of the last panel
				row[j] = 0
			}
		}
	}
}

// packA copies rows i0…i0+rows−1, columns l0…l0+kb−1 of op(A) column after column
// (dst[l*MR+r]), padding missing rows with zeros.
func packA(trans bool, a []float64, lda, i0, rows, l0, kb int, dst []float64) {
	if trans {
		if rows == gemmMR { // six values per column: moves, not a call of memmove each
			for l := 0; l < kb; l++ {
				col, src := dst[l*gemmMR:l*gemmMR+gemmMR], a[(l0+l)*lda+i0:(l0+l)*lda+i0+gemmMR]
				col[0], col[1], col[2], col[3], col[4], col[5] = src[0], src[1], src[2], src[3], src[4], src[5]
			}
			return
		}
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

// GemmWidth returns the width of the micro-tile Gemm uses (16 with AVX-512, 8 with AVX2; 0
// where Gemm does not run).
func GemmWidth() int {
	if !AVX2 {
		return 0
	}
	return gemmNR
}

// GemmWidths returns the micro-tile widths this CPU can run, widest first ({0} where Gemm
// does not run), for tests to try each.
func GemmWidths() []int {
	switch {
	case AVX512:
		return []int{16, 8}
	case AVX2:
		return []int{8}
	}
	return []int{0}
}

// SetGemmWidth makes Gemm use the micro-tile of width w (one of GemmWidths; 0 changes
// nothing) and returns a function restoring the previous one. It is for tests.
func SetGemmWidth(w int) (restore func()) {
	old := gemmNR
	if w > 0 {
		gemmNR = w
	}
	return func() { gemmNR = old }
}
