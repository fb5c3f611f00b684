package nn

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
	"gonum.org/v1/gonum/floats"
)

// GRU returns the hidden states of a gated recurrent unit (Cho et al. 2014, in PyTorch's
// form) run over every series of x, from h₀ = 0: for each position t, with σ the logistic
// function and ⊙ the elementwise product,
//
//	r = σ(x_t·Wr + br + h_{t−1}·Ur + cr)
//	z = σ(x_t·Wz + bz + h_{t−1}·Uz + cz)
//	m = tanh(x_t·Wm + bm + r ⊙ (h_{t−1}·Um + cm))
//	h_t = (1 − z) ⊙ m + z ⊙ h_{t−1}.
//
// x is n × length·in (channels-last series of in channels), wi is in × 3H holding [Wr Wz Wm]
// side by side, wh is H × 3H holding [Ur Uz Um], bi and bh are 1 × 3H ([br bz bm], [cr cz cm];
// nil for none). The result is n × length·H, channels-last: h_t of every position (the last
// H columns are the final state). The products of all inputs with wi are one matrix product
// before the recurrence; each step multiplies the batch's previous states by wh. The
// backward pass runs the recurrence in reverse (backpropagation through time). PyTorch
// initializes every weight and bias uniformly on ±1/√H (InitUniform).
func (tp *Tape) GRU(x, wi, wh, bi, bh *Tensor, length int) *Tensor {
	hid := wh.Rows
	switch {
	case length < 1 || x.Cols%length != 0:
		panic(fmt.Sprintf("nn: GRU: input %d×%d for series of %d positions, want columns = length × channels", x.Rows, x.Cols, length))
	case hid < 1 || wi.Rows != x.Cols/length || wi.Cols != 3*hid || wh.Cols != 3*hid:
		panic(fmt.Sprintf("nn: GRU: wi %d×%d and wh %d×%d for %d input channels, want %d×3H and H×3H", wi.Rows, wi.Cols, wh.Rows, wh.Cols, x.Cols/length, x.Cols/length))
	}
	for _, b := range []*Tensor{bi, bh} {
		if b != nil && (b.Rows != 1 || b.Cols != 3*hid) {
			panic(fmt.Sprintf("nn: GRU: bias %d×%d, want 1×%d", b.Rows, b.Cols, 3*hid))
		}
	}
	gr := tp.grads(x, wi, wh, bi, bh)
	n, in, g3 := x.Rows, x.Cols/length, 3*hid
	out := tp.tensor(n, length*hid, gr)
	// gi: the input products x_t·Wi + bi, one row per (example, position); gates: r, z and m
	// of every step; uh: h_{t−1}·Um + cm of every step; gh: one step's h_{t−1}·Wh + bh.
	gi := tp.scratch(n * length * g3)
	gates := tp.scratch(n * length * g3)
	uh := tp.scratch(n * length * hid)
	gh := tp.scratch(n * g3)
	if bi != nil {
		gemmBias(n*length, g3, in, x.Data, in, wi.Data, g3, bi.Data, gi, g3)
	} else {
		gemm(false, false, n*length, g3, in, 1, x.Data, in, wi.Data, g3, 0, gi, g3)
	}
	for t := 0; t < length; t++ {
		switch {
		case n == 0: // no series: no states (and out.Data is empty, so h_{t−1} is not sliced)
		case t == 0: // h₀ = 0: h·Wh + bh is bh
			for i := 0; i < n; i++ {
				if bh != nil {
					copy(gh[i*g3:(i+1)*g3], bh.Data)
				} else {
					clear(gh[i*g3 : (i+1)*g3])
				}
			}
		case bh != nil:
			gemmBias(n, g3, hid, out.Data[(t-1)*hid:], length*hid, wh.Data, g3, bh.Data, gh, g3)
		default:
			gemm(false, false, n, g3, hid, 1, out.Data[(t-1)*hid:], length*hid, wh.Data, g3, 0, gh, g3)
		}
		for i := 0; i < n; i++ {
			row := i*length + t
			a, u := gi[row*g3:(row+1)*g3], gh[i*g3:(i+1)*g3]
			gt, um := gates[row*g3:(row+1)*g3], uh[row*hid:(row+1)*hid]
			h := out.Data[row*hid : (row+1)*hid]
			for j := 0; j < hid; j++ {
				r := kernels.Sigmoid(a[j] + u[j])
				z := kernels.Sigmoid(a[hid+j] + u[hid+j])
				m := math.Tanh(a[2*hid+j] + r*u[2*hid+j])
				prev := 0.0
				if t > 0 {
					prev = out.Data[(row-1)*hid+j]
				}
				gt[j], gt[hid+j], gt[2*hid+j], um[j] = r, z, m, u[2*hid+j]
				h[j] = (1-z)*m + z*prev
			}
		}
	}
	if gr {
		op := gruOps.Get()
		*op = gruOp{x: x, wi: wi, wh: wh, bi: bi, bh: bh, out: out, length: length,
			gates: gates, uh: uh, dgi: gi, dgh: gh, dh: tp.scratch(2 * n * hid)}
		tp.Record(op, out)
	}
	return out
}

// gruOp is a recorded GRU: its inputs, its output and what the forward pass saved.
type gruOp struct {
	x, wi, wh, bi, bh, out *Tensor
	length                 int
	gates, uh              []float64 // r, z, m and h_{t−1}·Um + cm of every step
	dgi                    []float64 // the gradients of the input products (the forward's gi storage)
	dgh                    []float64 // one step's gradient of h_{t−1}·Wh + bh
	dh                     []float64 // the state gradient flowing back: two n×H buffers
}

var gruOps par.FreeList[gruOp]

// Release implements Op.
func (op *gruOp) Release() {
	*op = gruOp{}
	gruOps.Put(op)
}

// Backward implements Op: backpropagation through time. With d the gradient of h_t (from the
// output and from step t+1), dm = d⊙(1−z), dz = d⊙(h_{t−1} − m), the pre-activations'
// gradients are a_m = dm⊙(1−m²), a_z = dz⊙z(1−z), a_r = (a_m⊙u_m)⊙r(1−r); the input products
// get [a_r a_z a_m], the state products [a_r a_z a_m⊙r], and h_{t−1} gets d⊙z plus the state
// products' gradient times Whᵀ.
func (op *gruOp) Backward() {
	x, wi, wh, out := op.x, op.wi, op.wh, op.out
	n, length, hid := x.Rows, op.length, wh.Rows
	in, g3 := x.Cols/length, 3*hid
	dcur, dnext := op.dh[:n*hid], op.dh[n*hid:]
	clear(dnext)
	for t := length - 1; t >= 0; t-- {
		for i := 0; i < n; i++ {
			row := i*length + t
			gt, um := op.gates[row*g3:(row+1)*g3], op.uh[row*hid:(row+1)*hid]
			d := dcur[i*hid : (i+1)*hid]
			ai, ah := op.dgi[row*g3:(row+1)*g3], op.dgh[i*g3:(i+1)*g3]
			for j := 0; j < hid; j++ {
				dj := out.Grad[row*hid+j] + dnext[i*hid+j]
				r, z, m := gt[j], gt[hid+j], gt[2*hid+j]
				prev := 0.0
				if t > 0 {
					prev = out.Data[(row-1)*hid+j]
				}
				am := dj * (1 - z) * (1 - m*m)
				az := dj * (prev - m) * z * (1 - z)
				ar := am * um[j] * r * (1 - r)
				ai[j], ai[hid+j], ai[2*hid+j] = ar, az, am
				ah[j], ah[hid+j], ah[2*hid+j] = ar, az, am*r
				d[j] = dj * z // h_{t−1}'s direct share; the product's is added below
			}
		}
		if op.bh != nil && op.bh.Grad != nil {
			for i := 0; i < n; i++ {
				floats.Add(op.bh.Grad, op.dgh[i*g3:(i+1)*g3])
			}
		}
		if t > 0 && n > 0 { // with no series there is nothing to add (and no h_{t−1} to slice)
			prev := out.Data[(t-1)*hid:]
			if wh.Grad != nil { // dWh += h_{t−1}ᵀ·dgh
				gemm(true, false, hid, g3, n, 1, prev, length*hid, op.dgh, g3, 1, wh.Grad, g3)
			}
			// dh_{t−1} = d⊙z + dgh·Whᵀ
			gemm(false, true, n, hid, g3, 1, op.dgh, g3, wh.Data, g3, 1, dcur, hid)
		}
		dcur, dnext = dnext, dcur
	}
	rows := n * length
	if op.bi != nil && op.bi.Grad != nil {
		for r := 0; r < rows; r++ {
			floats.Add(op.bi.Grad, op.dgi[r*g3:(r+1)*g3])
		}
	}
	if wi.Grad != nil { // dWi += Xᵀ·dgi
		gemm(true, false, in, g3, rows, 1, x.Data, in, op.dgi, g3, 1, wi.Grad, g3)
	}
	if x.Grad != nil { // dX += dgi·Wiᵀ
		gemm(false, true, rows, in, g3, 1, op.dgi, g3, wi.Data, g3, 1, x.Grad, in)
	}
}

// gruRef is the scalar reference of GRU's forward pass: the recurrence written out per
// example, position and unit.
func gruRef(x, wi, wh, bi, bh []float64, n, length, in, hid int) []float64 {
	g3 := 3 * hid
	out := make([]float64, n*length*hid)
	pre := func(v, w, b []float64, k, col int) float64 {
		s := 0.0
		if b != nil {
			s = b[col]
		}
		for l := 0; l < k; l++ {
			s += v[l] * w[l*g3+col]
		}
		return s
	}
	for i := 0; i < n; i++ {
		h := make([]float64, hid)
		for t := 0; t < length; t++ {
			xt := x[(i*length+t)*in : (i*length+t+1)*in]
			next := make([]float64, hid)
			for j := 0; j < hid; j++ {
				r := 1 / (1 + math.Exp(-(pre(xt, wi, bi, in, j) + pre(h, wh, bh, hid, j))))
				z := 1 / (1 + math.Exp(-(pre(xt, wi, bi, in, hid+j) + pre(h, wh, bh, hid, hid+j))))
				m := math.Tanh(pre(xt, wi, bi, in, 2*hid+j) + r*pre(h, wh, bh, hid, 2*hid+j))
				next[j] = (1-z)*m + z*h[j]
			}
			h = next
			copy(out[(i*length+t)*hid:], h)
		}
	}
	return out
}
