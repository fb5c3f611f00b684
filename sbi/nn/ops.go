package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/par"
)

// ---- matrix products ----

// MatMul returns a·b for a (n×k) and b (k×m).
func (tp *Tape) MatMul(a, b *Tensor) *Tensor {
	if a.Cols != b.Rows {
		panic(fmt.Sprintf("nn: MatMul: %d×%d · %d×%d, inner dimensions differ", a.Rows, a.Cols, b.Rows, b.Cols))
	}
	g := tp.grads(a, b)
	out := tp.tensor(a.Rows, b.Cols, g)
	gemm(false, false, a.Rows, b.Cols, a.Cols, 1, a.Data, a.Cols, b.Data, b.Cols, 0, out.Data, out.Cols)
	if g {
		tp.record(backMatMul, out, a, b, nil)
	}
	return out
}

func backMatMul(n *node) {
	a, b, out := n.a, n.b, n.out
	if a.Grad != nil { // dA += dY·Bᵀ
		gemm(false, true, a.Rows, a.Cols, b.Cols, 1, out.Grad, out.Cols, b.Data, b.Cols, 1, a.Grad, a.Cols)
	}
	if b.Grad != nil { // dB += Aᵀ·dY
		gemm(true, false, b.Rows, b.Cols, a.Rows, 1, a.Data, a.Cols, out.Grad, out.Cols, 1, b.Grad, b.Cols)
	}
}

// Linear returns x·w + bias for x (n×in), w (in×out) and bias (1×out, or nil for none).
func (tp *Tape) Linear(x, w, bias *Tensor) *Tensor {
	return tp.linear(x, w, bias, nil, Identity)
}

// LinearAct returns act(x·w + bias), Linear followed by an activation in one fused
// operation (one pass less over the output, no intermediate tensor).
func (tp *Tape) LinearAct(x, w, bias *Tensor, act Activation) *Tensor {
	return tp.linear(x, w, bias, nil, act)
}

// MaskedLinearAct returns act(x·(w⊙mask) + bias), MaskedLinear fused with an activation.
func (tp *Tape) MaskedLinearAct(x, w, bias *Tensor, mask []float64, act Activation) *Tensor {
	if len(mask) != w.Len() {
		panic(fmt.Sprintf("nn: MaskedLinearAct: mask has %d entries, weights %d×%d", len(mask), w.Rows, w.Cols))
	}
	return tp.linear(x, w, bias, mask, act)
}

// MaskedLinear returns x·(w⊙mask) + bias, where mask has w's shape (in×out) and entries 0 or
// 1: the masked layer of MADE (Germain et al. 2015, eq. 10). Gradients of masked-out weights
// are zero.
func (tp *Tape) MaskedLinear(x, w, bias *Tensor, mask []float64) *Tensor {
	if len(mask) != w.Len() {
		panic(fmt.Sprintf("nn: MaskedLinear: mask has %d entries, weights %d×%d", len(mask), w.Rows, w.Cols))
	}
	return tp.linear(x, w, bias, mask, Identity)
}

func (tp *Tape) linear(x, w, bias *Tensor, mask []float64, act Activation) *Tensor {
	if x.Cols != w.Rows {
		panic(fmt.Sprintf("nn: Linear: input %d×%d, weights %d×%d: want input columns = weight rows", x.Rows, x.Cols, w.Rows, w.Cols))
	}
	if bias != nil && (bias.Rows != 1 || bias.Cols != w.Cols) {
		panic(fmt.Sprintf("nn: Linear: bias %d×%d, want 1×%d", bias.Rows, bias.Cols, w.Cols))
	}
	g := tp.grads(x, w, bias)
	out := tp.tensor(x.Rows, w.Cols, g)
	wd := w.Data
	var wm []float64
	if mask != nil {
		wm = tp.scratch(len(mask))
		for i, m := range mask {
			wm[i] = w.Data[i] * m
		}
		wd = wm
	}
	fn := act.fn()
	if bias != nil {
		gemmBiasAct(x.Rows, w.Cols, x.Cols, x.Data, x.Cols, wd, w.Cols, bias.Data, out.Data, fn)
	} else {
		gemm(false, false, x.Rows, w.Cols, x.Cols, 1, x.Data, x.Cols, wd, w.Cols, 0, out.Data, out.Cols)
		if fn != fnIdentity {
			applyInPlace(fn, out.Data)
		}
	}
	if g {
		n := tp.record(backLinear, out, x, w, bias)
		n.s = wm
		if fn != fnIdentity {
			n.j = fn
			n.s3 = tp.scratch(out.Len())
		}
		if mask != nil && w.Grad != nil {
			n.s2 = mask // the weight gradient is masked too
		}
	}
	return out
}

// fillRows sets every row of m (rows of len(row) values) to row, doubling the filled part
// with each copy: a few large copies instead of one small copy per row.
func fillRows(m, row []float64) {
	if len(m) == 0 || len(row) == 0 {
		return
	}
	done := copy(m, row)
	for done < len(m) {
		done += copy(m[done:], m[:done])
	}
}

func backLinear(n *node) {
	x, w, bias, out := n.a, n.b, n.c, n.out
	gy := out.Grad
	if n.s3 != nil { // gradient before the fused activation
		gy = n.s3
		derivFromOutput(n.j, out.Data, out.Grad, gy)
	}
	wd := w.Data
	if n.s != nil {
		wd = n.s
	}
	if x.Grad != nil { // dX += dY·Wᵀ
		gemm(false, true, x.Rows, x.Cols, w.Cols, 1, gy, out.Cols, wd, w.Cols, 1, x.Grad, x.Cols)
	}
	if w.Grad != nil {
		if n.s2 == nil { // dW += Xᵀ·dY
			gemm(true, false, w.Rows, w.Cols, x.Rows, 1, x.Data, x.Cols, gy, out.Cols, 1, w.Grad, w.Cols)
		} else { // dW += (Xᵀ·dY)⊙M, using the masked-weight buffer as scratch
			tmp := n.s
			gemm(true, false, w.Rows, w.Cols, x.Rows, 1, x.Data, x.Cols, gy, out.Cols, 0, tmp, w.Cols)
			for i, m := range n.s2 {
				w.Grad[i] += tmp[i] * m
			}
		}
	}
	if bias != nil && bias.Grad != nil {
		kernels.ColSumAdd(bias.Grad[:out.Cols], gy, out.Rows, out.Cols)
	}
}

// ---- broadcasting binary operations ----

const (
	opAdd = iota
	opSub
	opMul
	opDiv
)

// Add returns a+b. Shapes must agree, or one operand may have 1 row and/or 1 column, which is
// then repeated (broadcast) along that dimension.
func (tp *Tape) Add(a, b *Tensor) *Tensor { return tp.binary(opAdd, "Add", a, b) }

// Sub returns a−b with Add's broadcasting rule.
func (tp *Tape) Sub(a, b *Tensor) *Tensor { return tp.binary(opSub, "Sub", a, b) }

// Mul returns the elementwise product a⊙b with Add's broadcasting rule.
func (tp *Tape) Mul(a, b *Tensor) *Tensor { return tp.binary(opMul, "Mul", a, b) }

// Div returns the elementwise quotient a/b with Add's broadcasting rule.
func (tp *Tape) Div(a, b *Tensor) *Tensor { return tp.binary(opDiv, "Div", a, b) }

func bdim(op string, a, b *Tensor, x, y int) int {
	switch {
	case x == y:
		return x
	case x == 1:
		return y
	case y == 1:
		return x
	}
	panic(fmt.Sprintf("nn: %s: shapes %d×%d and %d×%d do not broadcast", op, a.Rows, a.Cols, b.Rows, b.Cols))
}

// strides returns the row and column strides of t when broadcast to rows×cols.
func strides(t *Tensor, rows, cols int) (rs, cs int) {
	if t.Cols == cols {
		cs = 1
	}
	if t.Rows == rows && rows > 1 {
		rs = t.Cols
	}
	return
}

func (tp *Tape) binary(op int, name string, a, b *Tensor) *Tensor {
	rows := bdim(name, a, b, a.Rows, b.Rows)
	cols := bdim(name, a, b, a.Cols, b.Cols)
	g := tp.grads(a, b)
	out := tp.tensor(rows, cols, g)
	if a.Rows == b.Rows && a.Cols == b.Cols {
		y, x, z := out.Data, a.Data, b.Data
		switch op {
		case opAdd:
			for i := range y {
				y[i] = x[i] + z[i]
			}
		case opSub:
			for i := range y {
				y[i] = x[i] - z[i]
			}
		case opMul:
			for i := range y {
				y[i] = x[i] * z[i]
			}
		case opDiv:
			for i := range y {
				y[i] = x[i] / z[i]
			}
		}
	} else {
		ars, acs := strides(a, rows, cols)
		brs, bcs := strides(b, rows, cols)
		for i := 0; i < rows; i++ {
			y := out.Data[i*cols : (i+1)*cols]
			ai, bi := i*ars, i*brs
			for j := range y {
				x, z := a.Data[ai+j*acs], b.Data[bi+j*bcs]
				switch op {
				case opAdd:
					y[j] = x + z
				case opSub:
					y[j] = x - z
				case opMul:
					y[j] = x * z
				case opDiv:
					y[j] = x / z
				}
			}
		}
	}
	if g {
		n := tp.record(backBinary, out, a, b, nil)
		n.i = op
	}
	return out
}

func backBinary(n *node) {
	a, b, out := n.a, n.b, n.out
	rows, cols := out.Rows, out.Cols
	ars, acs := strides(a, rows, cols)
	brs, bcs := strides(b, rows, cols)
	for i := 0; i < rows; i++ {
		gy := out.Grad[i*cols : (i+1)*cols]
		ai, bi := i*ars, i*brs
		for j, g := range gy {
			ak, bk := ai+j*acs, bi+j*bcs
			var ga, gb float64
			switch n.i {
			case opAdd:
				ga, gb = g, g
			case opSub:
				ga, gb = g, -g
			case opMul:
				ga, gb = g*b.Data[bk], g*a.Data[ak]
			case opDiv:
				q := 1 / b.Data[bk]
				ga, gb = g*q, -g*a.Data[ak]*q*q
			}
			if a.Grad != nil {
				a.Grad[ak] += ga
			}
			if b.Grad != nil {
				b.Grad[bk] += gb
			}
		}
	}
}

// Scale returns c·a.
func (tp *Tape) Scale(a *Tensor, c float64) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	for i, v := range a.Data {
		out.Data[i] = c * v
	}
	if g {
		tp.record(backScale, out, a, nil, nil).k = c
	}
	return out
}

func backScale(n *node) {
	for i, g := range n.out.Grad {
		n.a.Grad[i] += n.k * g
	}
}

// AddScalar returns a + c.
func (tp *Tape) AddScalar(a *Tensor, c float64) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	for i, v := range a.Data {
		out.Data[i] = v + c
	}
	if g {
		tp.record(backIdentity, out, a, nil, nil)
	}
	return out
}

func backIdentity(n *node) {
	for i, g := range n.out.Grad {
		n.a.Grad[i] += g
	}
}

// Neg returns −a.
func (tp *Tape) Neg(a *Tensor) *Tensor { return tp.Scale(a, -1) }

// ---- reductions and reshaping ----

// Sum returns the 1×1 sum of all elements.
func (tp *Tape) Sum(a *Tensor) *Tensor { return tp.sum(a, 1) }

// Mean returns the 1×1 mean of all elements.
func (tp *Tape) Mean(a *Tensor) *Tensor {
	if a.Len() == 0 {
		panic("nn: Mean of an empty tensor")
	}
	return tp.sum(a, 1/float64(a.Len()))
}

func (tp *Tape) sum(a *Tensor, c float64) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(1, 1, g)
	s := 0.0
	for _, v := range a.Data {
		s += v
	}
	out.Data[0] = c * s
	if g {
		tp.record(backSum, out, a, nil, nil).k = c
	}
	return out
}

func backSum(n *node) {
	g := n.k * n.out.Grad[0]
	for i := range n.a.Grad {
		n.a.Grad[i] += g
	}
}

// RowSum returns the n×1 column of row sums of an n×m tensor.
func (tp *Tape) RowSum(a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, 1, g)
	for i := 0; i < a.Rows; i++ {
		s := 0.0
		for _, v := range a.Row(i) {
			s += v
		}
		out.Data[i] = s
	}
	if g {
		tp.record(backRowSum, out, a, nil, nil)
	}
	return out
}

func backRowSum(n *node) {
	c := n.a.Cols
	for i, g := range n.out.Grad {
		row := n.a.Grad[i*c : (i+1)*c]
		for j := range row {
			row[j] += g
		}
	}
}

// ColSum returns the 1×m row of column sums of an n×m tensor.
func (tp *Tape) ColSum(a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(1, a.Cols, g)
	clear(out.Data)
	kernels.ColSumAdd(out.Data, a.Data, a.Rows, a.Cols)
	if g {
		tp.record(backColSum, out, a, nil, nil)
	}
	return out
}

func backColSum(n *node) {
	c := n.a.Cols
	for i := 0; i < n.a.Rows; i++ {
		row := n.a.Grad[i*c : (i+1)*c]
		for j, g := range n.out.Grad {
			row[j] += g
		}
	}
}

// Concat returns [a b], the columns of a followed by those of b; both have the same rows.
func (tp *Tape) Concat(a, b *Tensor) *Tensor {
	if a.Rows != b.Rows {
		panic(fmt.Sprintf("nn: Concat: %d×%d and %d×%d have different rows", a.Rows, a.Cols, b.Rows, b.Cols))
	}
	g := tp.grads(a, b)
	out := tp.tensor(a.Rows, a.Cols+b.Cols, g)
	for i := 0; i < a.Rows; i++ {
		row := out.Row(i)
		copy(row, a.Row(i))
		copy(row[a.Cols:], b.Row(i))
	}
	if g {
		tp.record(backConcat, out, a, b, nil)
	}
	return out
}

func backConcat(n *node) {
	a, b, out := n.a, n.b, n.out
	for i := 0; i < a.Rows; i++ {
		gy := out.Grad[i*out.Cols : (i+1)*out.Cols]
		if a.Grad != nil {
			ga := a.Grad[i*a.Cols : (i+1)*a.Cols]
			for j := range ga {
				ga[j] += gy[j]
			}
		}
		if b.Grad != nil {
			gb := b.Grad[i*b.Cols : (i+1)*b.Cols]
			for j := range gb {
				gb[j] += gy[a.Cols+j]
			}
		}
	}
}

// Columns returns columns [from, to) of a.
func (tp *Tape) Columns(a *Tensor, from, to int) *Tensor {
	if from < 0 || to > a.Cols || from > to {
		panic(fmt.Sprintf("nn: Columns [%d,%d) of a %d×%d tensor", from, to, a.Rows, a.Cols))
	}
	g := tp.grads(a)
	out := tp.tensor(a.Rows, to-from, g)
	for i := 0; i < a.Rows; i++ {
		copy(out.Row(i), a.Row(i)[from:to])
	}
	if g {
		tp.record(backColumns, out, a, nil, nil).i = from
	}
	return out
}

func backColumns(n *node) {
	a, out := n.a, n.out
	for i := 0; i < a.Rows; i++ {
		ga := a.Grad[i*a.Cols+n.i : i*a.Cols+n.i+out.Cols]
		for j, g := range out.Grad[i*out.Cols : (i+1)*out.Cols] {
			ga[j] += g
		}
	}
}

// RepeatRows returns the tensor whose rows are those of a, each repeated times times in a row
// (row i of a becomes rows i*times … i*times+times−1).
func (tp *Tape) RepeatRows(a *Tensor, times int) *Tensor {
	if times < 1 {
		panic(fmt.Sprintf("nn: RepeatRows: times = %d, want ≥ 1", times))
	}
	g := tp.grads(a)
	out := tp.tensor(a.Rows*times, a.Cols, g)
	for i := 0; i < a.Rows; i++ {
		src := a.Row(i)
		for r := 0; r < times; r++ {
			copy(out.Row(i*times+r), src)
		}
	}
	if g {
		tp.record(backRepeatRows, out, a, nil, nil).i = times
	}
	return out
}

func backRepeatRows(n *node) {
	a, out, c := n.a, n.out, n.a.Cols
	for i := 0; i < out.Rows; i++ {
		ga := a.Grad[(i/n.i)*c : (i/n.i+1)*c]
		for j, g := range out.Grad[i*c : (i+1)*c] {
			ga[j] += g
		}
	}
}

// Reshape returns a with the same data viewed as rows×cols (a copy on the tape).
func (tp *Tape) Reshape(a *Tensor, rows, cols int) *Tensor {
	if rows*cols != a.Len() {
		panic(fmt.Sprintf("nn: Reshape %d×%d to %d×%d changes the size", a.Rows, a.Cols, rows, cols))
	}
	g := tp.grads(a)
	out := tp.tensor(rows, cols, g)
	copy(out.Data, a.Data)
	if g {
		tp.record(backIdentity, out, a, nil, nil)
	}
	return out
}

// ---- elementwise unary functions ----

const (
	fnIdentity = iota
	fnReLU
	fnELU
	fnSELU
	fnTanh
	fnSigmoid
	fnSoftplus
	fnExp
	fnLog
	fnSquare
	fnSqrt
	fnAbs
	fnLogSigmoid
	fnLeakyReLU
)

// SELU constants (Klambauer et al. 2017, eq. 2).
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// Exp returns exp(a) elementwise.
func (tp *Tape) Exp(a *Tensor) *Tensor { return tp.unary(fnExp, a) }

// Log returns log(a) elementwise.
func (tp *Tape) Log(a *Tensor) *Tensor { return tp.unary(fnLog, a) }

// Square returns a² elementwise.
func (tp *Tape) Square(a *Tensor) *Tensor { return tp.unary(fnSquare, a) }

// Sqrt returns √a elementwise.
func (tp *Tape) Sqrt(a *Tensor) *Tensor { return tp.unary(fnSqrt, a) }

// Abs returns |a| elementwise (gradient sign(a), 0 at 0).
func (tp *Tape) Abs(a *Tensor) *Tensor { return tp.unary(fnAbs, a) }

// Tanh returns tanh(a) elementwise.
func (tp *Tape) Tanh(a *Tensor) *Tensor { return tp.unary(fnTanh, a) }

// Sigmoid returns 1/(1+exp(−a)) elementwise.
func (tp *Tape) Sigmoid(a *Tensor) *Tensor { return tp.unary(fnSigmoid, a) }

// LogSigmoid returns log σ(a) = −softplus(−a) elementwise, computed stably.
func (tp *Tape) LogSigmoid(a *Tensor) *Tensor { return tp.unary(fnLogSigmoid, a) }

// Softplus returns log(1+exp(a)) elementwise, computed stably.
func (tp *Tape) Softplus(a *Tensor) *Tensor { return tp.unary(fnSoftplus, a) }

// ReLU returns max(a, 0) elementwise.
func (tp *Tape) ReLU(a *Tensor) *Tensor { return tp.unary(fnReLU, a) }

// Activate applies the activation act elementwise.
func (tp *Tape) Activate(a *Tensor, act Activation) *Tensor {
	if act == Identity {
		return a
	}
	return tp.unary(act.fn(), a)
}

func applyFn(fn int, x float64) float64 {
	switch fn {
	case fnIdentity:
		return x
	case fnReLU:
		return max(x, 0)
	case fnLeakyReLU:
		if x > 0 {
			return x
		}
		return 0.01 * x
	case fnELU:
		if x > 0 {
			return x
		}
		return math.Expm1(x)
	case fnSELU:
		if x > 0 {
			return seluScale * x
		}
		return seluScale * seluAlpha * math.Expm1(x)
	case fnTanh:
		return math.Tanh(x)
	case fnSigmoid:
		return kernels.Sigmoid(x)
	case fnSoftplus:
		return kernels.Softplus(x)
	case fnLogSigmoid:
		return -kernels.Softplus(-x)
	case fnExp:
		return math.Exp(x)
	case fnLog:
		return mathx.Log(x) // math.Log is wrong for subnormal x on amd64
	case fnSquare:
		return x * x
	case fnSqrt:
		return math.Sqrt(x)
	case fnAbs:
		return math.Abs(x)
	}
	panic("nn: unknown function")
}

// derivFn returns f'(x) given x and y = f(x).
func derivFn(fn int, x, y float64) float64 {
	switch fn {
	case fnIdentity:
		return 1
	case fnReLU:
		if x > 0 {
			return 1
		}
		return 0
	case fnLeakyReLU:
		if x > 0 {
			return 1
		}
		return 0.01
	case fnELU:
		if x > 0 {
			return 1
		}
		return y + 1
	case fnSELU:
		if x > 0 {
			return seluScale
		}
		return y + seluScale*seluAlpha
	case fnTanh:
		return 1 - y*y
	case fnSigmoid:
		return y * (1 - y)
	case fnSoftplus:
		return kernels.Sigmoid(x)
	case fnLogSigmoid:
		return kernels.Sigmoid(-x)
	case fnExp:
		return y
	case fnLog:
		return 1 / x
	case fnSquare:
		return 2 * x
	case fnSqrt:
		return 0.5 / y
	case fnAbs:
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	panic("nn: unknown function")
}

// applyInPlace replaces every y by fn(y), split over the workers when y is large.
func applyInPlace(fn int, y []float64) {
	const grain = 8192 // groups of four values
	if len(y) < 8*grain {
		applySerial(fn, y)
		return
	}
	par.Range((len(y)+3)/4, grain, &applyJob{fn: fn, y: y})
}

// applyJob applies an activation to the groups of four values [lo, hi) of a slice: the
// ranges split at multiples of four, where the vector kernels split, so that every value
// gets the bits a single call would give it.
type applyJob struct {
	fn int
	y  []float64
}

func (j *applyJob) Do(lo, hi int) { applySerial(j.fn, j.y[4*lo:min(4*hi, len(j.y))]) }

func applySerial(fn int, y []float64) {
	switch fn {
	case fnReLU:
		kernels.Relu(y)
	case fnTanh:
		kernels.Tanh(y, y)
	case fnELU:
		kernels.Elu(y, y, 1, 1)
	case fnSELU:
		kernels.Elu(y, y, seluScale, seluScale*seluAlpha)
	default:
		for i, x := range y {
			y[i] = applyFn(fn, x)
		}
	}
}

// relu returns 0 where x < 0 and x otherwise (NaN propagates, as in the vector kernel).
func relu(x float64) float64 {
	if 0 > x {
		return 0
	}
	return x
}

// derivFromOutput sets g[i] = gy[i]·f'(x_i) for the activations, whose derivative is a
// function of the output y = f(x) alone.
func derivFromOutput(fn int, y, gy, g []float64) {
	switch fn {
	case fnReLU:
		kernels.ReluBack(y, gy, g)
	case fnTanh:
		kernels.TanhBack(y, gy, g)
	case fnELU:
		kernels.EluBack(y, gy, g, 1, 1)
	case fnSELU:
		kernels.EluBack(y, gy, g, seluScale, seluScale*seluAlpha)
	default:
		for i, v := range y {
			var d float64
			switch fn {
			case fnLeakyReLU:
				d = 1
				if v <= 0 {
					d = 0.01
				}
			case fnSigmoid:
				d = v * (1 - v)
			case fnSoftplus: // y = log(1+eˣ) ⇒ σ(x) = 1 − e^{−y}
				d = -math.Expm1(-v)
			}
			g[i] = gy[i] * d
		}
	}
}

func (tp *Tape) unary(fn int, a *Tensor) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	y := out.Data
	switch fn { // the hot activations get their own loops
	case fnReLU:
		copy(y, a.Data)
		kernels.Relu(y)
	case fnTanh:
		kernels.Tanh(y, a.Data)
	case fnELU:
		kernels.Elu(y, a.Data, 1, 1)
	case fnSELU:
		kernels.Elu(y, a.Data, seluScale, seluScale*seluAlpha)
	default:
		for i, x := range a.Data {
			y[i] = applyFn(fn, x)
		}
	}
	if g {
		tp.record(backUnary, out, a, nil, nil).i = fn
	}
	return out
}

func backUnary(n *node) {
	a, out := n.a, n.out
	switch n.i {
	case fnReLU:
		kernels.ReluBackAdd(out.Data, out.Grad, a.Grad)
	case fnTanh:
		kernels.TanhBackAdd(out.Data, out.Grad, a.Grad)
	default:
		for i, g := range out.Grad {
			a.Grad[i] += g * derivFn(n.i, a.Data[i], out.Data[i])
		}
	}
}

// PermuteColumns returns the tensor whose column j is column perm[j] of a.
func (tp *Tape) PermuteColumns(a *Tensor, perm []int) *Tensor {
	if len(perm) != a.Cols {
		panic(fmt.Sprintf("nn: PermuteColumns: permutation of %d columns for a %d×%d tensor", len(perm), a.Rows, a.Cols))
	}
	return tp.gatherColumns(a, perm, 0)
}

// gatherColumns returns the tensor whose element (i, j) is element (i, idx[i·stride + j]) of
// a: one column permutation for all rows (stride 0) or one per row (stride a.Cols). The
// gradient of each output element flows back to the element it was taken from.
func (tp *Tape) gatherColumns(a *Tensor, idx []int, stride int) *Tensor {
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		src, dst := a.Row(i), out.Row(i)
		for j, p := range idx[i*stride : i*stride+c] {
			dst[j] = src[p]
		}
	}
	if g {
		n := tp.record(backGatherColumns, out, a, nil, nil)
		n.idx, n.i = idx, stride
	}
	return out
}

func backGatherColumns(n *node) {
	c, stride := n.a.Cols, n.i
	for i := 0; i < n.a.Rows; i++ {
		ga, gy := n.a.Grad[i*c:(i+1)*c], n.out.Grad[i*c:(i+1)*c]
		for j, p := range n.idx[i*stride : i*stride+c] {
			ga[p] += gy[j]
		}
	}
}

// Dropout zeroes every element of a with probability p and scales the others by 1/(1−p)
// (inverted dropout, Srivastava et al. 2014), drawing the mask from rng. It is for training
// only: do not call it when evaluating. p = 0 returns a unchanged.
func (tp *Tape) Dropout(a *Tensor, p float64, rng *rand.Rand) *Tensor {
	if !(p >= 0 && p < 1) {
		panic(fmt.Sprintf("nn: Dropout probability %v, want 0 ≤ p < 1", p))
	}
	if p == 0 {
		return a
	}
	g := tp.grads(a)
	out := tp.tensor(a.Rows, a.Cols, g)
	mask := tp.scratch(a.Len())
	keep := 1 / (1 - p)
	for i, v := range a.Data {
		if rng.Float64() < p {
			mask[i] = 0
		} else {
			mask[i] = keep
		}
		out.Data[i] = v * mask[i]
	}
	if g {
		tp.record(backDropout, out, a, nil, nil).s = mask
	}
	return out
}

func backDropout(n *node) {
	for i, g := range n.out.Grad {
		n.a.Grad[i] += g * n.s[i]
	}
}
