package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/par"
)

// Softmax returns the softmax of every row of x, exp(x_j − max x)/Σ_k exp(x_k − max x). Its
// gradient is dx = y⊙(dy − Σ dy⊙y).
func (tp *Tape) Softmax(x *Tensor) *Tensor {
	gr := tp.grads(x)
	out := tp.tensor(x.Rows, x.Cols, gr)
	for i := 0; i < x.Rows; i++ {
		softmaxRow(out.Row(i), x.Row(i), 1, x.Cols)
	}
	if gr {
		tp.record(backSoftmax, out, x, nil, nil)
	}
	return out
}

func backSoftmax(nd *node) {
	x, out := nd.a, nd.out
	c := x.Cols
	for i := 0; i < x.Rows; i++ {
		softmaxBack(x.Grad[i*c:(i+1)*c], out.Data[i*c:(i+1)*c], out.Grad[i*c:(i+1)*c], 1)
	}
}

// softmaxRow sets y to the softmax of scale·x over its first n values (n ≤ len(x)); the others
// get 0 (masked out). It reports whether those n values were all finite (with ±Inf or NaN
// among them, y holds what the formula gives).
func softmaxRow(y, x []float64, scale float64, n int) (finite bool) {
	m, lo := math.Inf(-1), math.Inf(1)
	for _, v := range x[:n] {
		m = max(m, v)
		lo = min(lo, v)
	}
	s := 0.0
	for j, v := range x[:n] {
		e := math.Exp(scale * (v - m))
		y[j] = e
		s += e
	}
	normalizeRow(y, n, s)
	return math.Abs(m) <= math.MaxFloat64 && math.Abs(lo) <= math.MaxFloat64
}

// normalizeRow divides the first n weights of y by their sum s (as a product by 1/s) and
// zeroes the rest of the row.
func normalizeRow(y []float64, n int, s float64) {
	inv := 1 / s
	for j := range y[:n] {
		y[j] *= inv
	}
	clear(y[n:])
}

// softmaxBack adds scale·y⊙(dy − Σ dy⊙y) to dx.
func softmaxBack(dx, y, dy []float64, scale float64) {
	dot := 0.0
	for j, v := range dy {
		dot += v * y[j]
	}
	for j, v := range dy {
		dx[j] += scale * y[j] * (v - dot)
	}
}

// MaxAttentionWeights is the most attention weights (sequences × heads × Length²) that
// Attention keeps on a recording tape for its backward pass, 2²⁸ values (2 GiB). Without
// gradients it keeps none: each worker reuses one Length×Length buffer.
const MaxAttentionWeights = 1 << 28

// AttentionConfig is the shape of scaled dot-product self-attention over sequences.
type AttentionConfig struct {
	Length int  // positions of each sequence: the rows of q, k and v come in blocks of Length
	Heads  int  // heads; 0 means 1. The columns of q, k and v split evenly among them
	Causal bool // position t attends to positions ≤ t only
}

// Attention returns multi-head scaled dot-product attention (Vaswani et al. 2017, eq. 1):
// for every sequence and head h, with Q, K and V the head's columns of the sequence's rows of
// q, k and v (one row per position, d/Heads columns of Q and K),
//
//	O_h = softmax(Q Kᵀ/√(d/Heads)) V,
//
// the softmax taken over each row (over positions ≤ t with Causal). q and k are
// (n·Length)×d, v (n·Length)×dv; the result (n·Length)×dv holds the heads side by side.
// The projections into q, k and v, and out of the result, are Linear layers applied to the
// rows. The backward pass (with P the attention weights and S the scaled scores) is
// dV = Pᵀ dO, dP = dO Vᵀ, dS = P⊙(dP − rowsum(dP⊙P)), dQ = dS K/√(d/Heads),
// dK = dSᵀ Q/√(d/Heads). Finite q and k give finite weights: a row whose scores overflow
// float64 (values beyond about 1e154) has them recomputed with products split into fractions
// and powers of two; other rows never take that path.
func (tp *Tape) Attention(q, k, v *Tensor, cfg AttentionConfig) *Tensor {
	h, L := or1(cfg.Heads), cfg.Length
	switch {
	case L < 1 || h < 1:
		panic(fmt.Sprintf("nn: Attention: Length %d and Heads %d, want Length ≥ 1 and Heads ≥ 0", L, cfg.Heads))
	case q.Rows != k.Rows || q.Rows != v.Rows || q.Rows%L != 0:
		panic(fmt.Sprintf("nn: Attention: q %d×%d, k %d×%d, v %d×%d: want the same rows, a multiple of Length %d", q.Rows, q.Cols, k.Rows, k.Cols, v.Rows, v.Cols, L))
	case q.Cols != k.Cols || q.Cols%h != 0 || v.Cols%h != 0 || q.Cols == 0 || v.Cols == 0:
		panic(fmt.Sprintf("nn: Attention: q has %d columns, k %d and v %d: want q and k alike and every width a positive multiple of %d heads", q.Cols, k.Cols, v.Cols, h))
	}
	gr := tp.grads(q, k, v)
	out := tp.tensor(q.Rows, v.Cols, gr)
	n := q.Rows / L
	var p []float64 // the attention weights, kept for the backward pass
	if gr {
		if n*h*L*L > MaxAttentionWeights {
			panic(fmt.Sprintf("nn: Attention: %d sequences × %d heads × %d² positions are %d attention weights to keep for the backward pass, more than MaxAttentionWeights (%d): use smaller batches or shorter sequences", n, h, L, n*h*L*L, MaxAttentionWeights))
		}
		p = tp.scratch(n * h * L * L)
	}
	j := attnJobs.Get()
	*j = attnJob{q: q, k: k, v: v, out: out, p: p, L: L, h: h, causal: cfg.Causal}
	par.Range(n*h, attnGrain(L, q.Cols/h+v.Cols/h), j)
	*j = attnJob{}
	attnJobs.Put(j)
	if gr {
		nd := tp.record(backAttention, out, q, k, v)
		nd.s, nd.i = p, L
		nd.j = h
		if cfg.Causal {
			nd.k = 1
		}
	}
	return out
}

func backAttention(nd *node) {
	j := attnJobs.Get()
	*j = attnJob{q: nd.a, k: nd.b, v: nd.c, out: nd.out, p: nd.s, L: nd.i, h: nd.j, causal: nd.k == 1, back: true}
	par.Range(nd.a.Rows/nd.i*nd.j, attnGrain(nd.i, nd.a.Cols/nd.j+nd.c.Cols/nd.j), j)
	*j = attnJob{}
	attnJobs.Put(j)
}

// attnGrain is the least number of (sequence, head) pairs given to one worker: about 64k
// multiply-adds.
func attnGrain(L, width int) int { return max(1, (1<<16)/max(1, L*L*width)) }

// attnJob runs the attention of the (sequence, head) pairs [lo, hi), forward or backward;
// pair s·h + head writes only its own columns of its own rows, so the split does not change
// a bit.
type attnJob struct {
	q, k, v, out *Tensor
	p            []float64 // attention weights, L×L per pair
	L, h         int
	causal, back bool
}

var (
	attnJobs    par.FreeList[attnJob]
	attnScratch par.FreeList[[]float64]
)

func (j *attnJob) Do(lo, hi int) {
	L, h := j.L, j.h
	d, dv := j.q.Cols, j.v.Cols
	dh, dvh := d/h, dv/h
	scale := 1 / math.Sqrt(float64(dh))
	var buf *[]float64 // dP backward; the weights forward without gradients
	if j.back || j.p == nil {
		buf = attnScratch.Get()
		if cap(*buf) < L*L {
			*buf = make([]float64, L*L)
		}
		defer attnScratch.Put(buf)
	}
	for pair := lo; pair < hi; pair++ {
		s, head := pair/h, pair%h
		qo, vo := s*L*d+head*dh, s*L*dv+head*dvh // offsets of the head's first element
		var p []float64
		if j.p != nil {
			p = j.p[pair*L*L : (pair+1)*L*L]
		} else {
			p = (*buf)[:L*L]
		}
		if !j.back {
			// S = Q·Kᵀ into p, then the scaled softmax of each row in place, then O = P·V
			gemm(false, true, L, L, dh, 1, j.q.Data[qo:], d, j.k.Data[qo:], d, 0, p, L)
			for t := 0; t < L; t++ {
				n := L
				if j.causal {
					n = t + 1
				}
				row := p[t*L : (t+1)*L]
				if !softmaxRow(row, row, scale, n) { // a score overflowed (or q or k is not finite)
					qt := j.q.Data[qo+t*d : qo+t*d+dh]
					softmaxWideRow(row, qt, j.k.Data[qo:], d, scale, n)
				}
			}
			gemm(false, false, L, dvh, L, 1, p, L, j.v.Data[vo:], dv, 0, j.out.Data[vo:], dv)
			continue
		}
		dO := j.out.Grad[vo:]
		if j.v.Grad != nil { // dV += Pᵀ·dO
			gemm(true, false, L, dvh, L, 1, p, L, dO, dv, 1, j.v.Grad[vo:], dv)
		}
		if j.q.Grad == nil && j.k.Grad == nil {
			continue
		}
		dp := (*buf)[:L*L] // dP = dO·Vᵀ, then dS in place (scaled: the gradient of Q·Kᵀ)
		gemm(false, true, L, L, dvh, 1, dO, dv, j.v.Data[vo:], dv, 0, dp, L)
		for t := 0; t < L; t++ {
			row := dp[t*L : (t+1)*L]
			pr := p[t*L : (t+1)*L]
			dot := 0.0
			for u, g := range row {
				dot += g * pr[u]
			}
			for u, g := range row {
				row[u] = scale * pr[u] * (g - dot)
			}
		}
		if j.q.Grad != nil { // dQ += dS·K
			gemm(false, false, L, dh, L, 1, dp, L, j.k.Data[qo:], d, 1, j.q.Grad[qo:], d)
		}
		if j.k.Grad != nil { // dK += dSᵀ·Q
			gemm(true, false, L, dh, L, 1, dp, L, j.q.Data[qo:], d, 1, j.k.Grad[qo:], d)
		}
	}
}

// softmaxWideRow sets y to the softmax of the scores scale·q·k_u over the first n rows k_u of
// k (row u at k[u·ld:], len(q) values), the others 0, where the scores overflow float64 or
// cancel after overflowing: each product q_c·k_c is taken as a fraction times a power of two
// (wideDot), so that the scores and their differences to the largest are exact to the
// rounding of an ordinary dot product and overflow only where the weight is 0. Where q or k
// holds NaN or ±Inf it leaves y as it is.
func softmaxWideRow(y, q, k []float64, ld int, scale float64, n int) {
	dh := len(q)
	if !allFinite(q) {
		return
	}
	for u := 0; u < n; u++ {
		if !allFinite(k[u*ld : u*ld+dh]) {
			return
		}
	}
	mf, me := wideDot(q, k[:dh])
	for u := 1; u < n; u++ {
		f, e := wideDot(q, k[u*ld:u*ld+dh])
		if wideSub(f, e, mf, me) > 0 {
			mf, me = f, e
		}
	}
	s := 0.0
	for u := 0; u < n; u++ {
		f, e := wideDot(q, k[u*ld:u*ld+dh])
		w := math.Exp(scale * wideSub(f, e, mf, me))
		y[u] = w
		s += w
	}
	normalizeRow(y, n, s)
}

// wideDot returns Σ_c a_c·b_c as f·2^e, f a Frexp fraction (or 0, with e = 0): every product is
// a product of Frexp fractions (rounded once, as an ordinary product) times 2 to the sum of
// their exponents, and they are added at the scale of the largest. The values must be finite.
func wideDot(a, b []float64) (f float64, e int) {
	e = math.MinInt32
	for c, x := range a {
		if x == 0 || b[c] == 0 {
			continue
		}
		_, ea := math.Frexp(x)
		_, eb := math.Frexp(b[c])
		e = max(e, ea+eb)
	}
	if e == math.MinInt32 {
		return 0, 0
	}
	for c, x := range a {
		fa, ea := math.Frexp(x)
		fb, eb := math.Frexp(b[c])
		f += math.Ldexp(fa*fb, ea+eb-e)
	}
	if f == 0 { // terms that cancel: 0 at the scale of the other scores, not 2^e
		return 0, 0
	}
	f, ef := math.Frexp(f)
	return f, e + ef
}

// allFinite reports whether no value of x is NaN or ±Inf.
func allFinite(x []float64) bool {
	for _, v := range x {
		if !(math.Abs(v) <= math.MaxFloat64) {
			return false
		}
	}
	return true
}

// wideSub returns f·2^e − g·2^h as a float64 (±Inf where it overflows).
func wideSub(f float64, e int, g float64, h int) float64 {
	m := max(e, h)
	return math.Ldexp(math.Ldexp(f, e-m)-math.Ldexp(g, h-m), m)
}

// attentionRef is the scalar reference of Attention's forward pass: direct loops over
// sequences, heads and positions.
func attentionRef(q, k, v []float64, rows, d, dv int, cfg AttentionConfig) []float64 {
	h, L := or1(cfg.Heads), cfg.Length
	dh, dvh := d/h, dv/h
	scale := 1 / math.Sqrt(float64(dh))
	out := make([]float64, rows*dv)
	w := make([]float64, L)
	for s := 0; s < rows/L; s++ {
		for head := 0; head < h; head++ {
			for t := 0; t < L; t++ {
				n := L
				if cfg.Causal {
					n = t + 1
				}
				m := math.Inf(-1)
				for u := 0; u < n; u++ {
					dot := 0.0
					for c := 0; c < dh; c++ {
						dot += q[(s*L+t)*d+head*dh+c] * k[(s*L+u)*d+head*dh+c]
					}
					w[u] = dot * scale
					m = max(m, w[u])
				}
				sum := 0.0
				for u := 0; u < n; u++ {
					w[u] = math.Exp(w[u] - m)
					sum += w[u]
				}
				for c := 0; c < dvh; c++ {
					o := 0.0
					for u := 0; u < n; u++ {
						o += w[u] / sum * v[(s*L+u)*dv+head*dvh+c]
					}
					out[(s*L+t)*dv+head*dvh+c] = o
				}
			}
		}
	}
	return out
}
