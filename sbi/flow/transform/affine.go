package transform

import (
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/par"
	"github.com/gosbi/gosbi/sbi/nn"
)

// AffineParams is the number of unconstrained parameters per feature of the affine transform.
const AffineParams = 2

// softplusOne is log(e − 1), where softplus equals 1.
const softplusOne = 0.54132485461291810

// affineScale maps the unconstrained scale parameter r to softplus(r + log(e−1)) + 10⁻³,
// which is positive, bounded away from 0, unbounded above, and 1 + 10⁻³ at r = 0 (nflows'
// MaskedAffineAutoregressiveTransform uses softplus(r) + 10⁻³; the shift by log(e−1) starts
// every transform at the identity). It returns the scale and its derivative.
func affineScale(r float64) (scale, dScale float64) {
	return scaleOf(r), kernels.Sigmoid(r + softplusOne)
}

// scaleOf is affineScale's scale alone.
func scaleOf(r float64) float64 { return kernels.Softplus(r+softplusOne) + 1e-3 }

// Affine is the monotonic affine transform of masked autoregressive flows (Papamakarios et
// al. 2017, eq. 4; zuko's MonotonicAffineTransform), y = x·scale + shift with scale =
// softplus(r + log(e−1)) + 10⁻³, whose parameters per feature are [shift, r]. It is the
// transform of flows of kind "maf", with tanh conditioners (sbi's MAF).
type Affine struct{}

func init() {
	Register("maf", Registration{
		New:        func(Settings) (Univariate, error) { return Affine{}, nil },
		Activation: nn.Tanh,
	})
}

// Params returns AffineParams.
func (Affine) Params() int { return AffineParams }

// Forward applies y = x·scale + shift feature by feature on the tape tp. x is n×D; params is
// n×2D with [shift, r] of feature d in columns 2d, 2d+1. It returns y and the n×1
// log|det ∂y/∂x| = Σ_d log scale_d.
func (Affine) Forward(tp *nn.Tape, x, params *nn.Tensor) (y, logDet *nn.Tensor) {
	D := x.Cols
	if params.Rows != x.Rows || params.Cols != 2*D {
		panic(fmt.Sprintf("transform: Affine parameters %d×%d, want %d×%d for input %d×%d",
			params.Rows, params.Cols, x.Rows, 2*D, x.Rows, D))
	}
	g := tp.RequiresGrad(x, params)
	y = tp.Output(x.Rows, D, g)
	logDet = tp.Output(x.Rows, 1, g)
	if !g {
		affineValues(x, params, y, logDet)
		return y, logDet
	}
	for i := 0; i < x.Rows; i++ {
		ld := 0.0
		p := params.Row(i)
		for d := 0; d < D; d++ {
			sc := scaleOf(p[2*d+1])
			y.Data[i*D+d] = x.Data[i*D+d]*sc + p[2*d]
			ld += math.Log(sc)
		}
		logDet.Data[i] = ld
	}
	op := affineOps.Get()
	*op = affineOp{x: x, params: params, y: y, logDet: logDet}
	tp.Record(op, y)
	return y, logDet
}

// affineValues is Forward without gradients: the same formulas, block by block, with the
// exponentials and logarithms of a block from one call of the vector kernels (kernels.Exp and
// kernels.Log, each within an ulp of math.Exp and math.Log), so its values are within a few
// ulps of those the recording path computes one at a time. Evaluation of a MAF (log-densities
// for MCMC, importance weights) spends most of its time outside the MADEs here.
func affineValues(x, params, y, logDet *nn.Tensor) {
	D := x.Cols
	n := x.Rows * D
	const block = 64
	var r, t, u, l [block]float64
	clear(logDet.Data)
	for lo := 0; lo < n; lo += block {
		k := min(block, n-lo)
		for j := range k {
			i, d := (lo+j)/D, (lo+j)%D
			r[j] = params.Data[i*2*D+2*d+1] + softplusOne
			t[j] = -math.Abs(r[j])
		}
		kernels.Exp(t[:k], t[:k]) // t = e^−|r|
		for j := range k {
			u[j] = 1 + t[j]
		}
		kernels.Log(l[:k], u[:k])
		for j := range k { // u = softplus(r) + 10⁻³
			u[j] = kernels.SoftplusWith(r[j], t[j], l[j]) + 1e-3
		}
		kernels.Log(l[:k], u[:k])
		for j := range k {
			e := lo + j
			i, d := e/D, e%D
			y.Data[e] = x.Data[e]*u[j] + params.Data[i*2*D+2*d]
			logDet.Data[i] += l[j]
		}
	}
}

// affineOp is the nn.Op that Affine records.
type affineOp struct{ x, params, y, logDet *nn.Tensor }

// affineOps holds the ops recorded on no tape.
var affineOps par.FreeList[affineOp]

// Release drops the references to the step's tensors and returns the op to its free list.
func (op *affineOp) Release() {
	*op = affineOp{}
	affineOps.Put(op)
}

// Backward adds the gradients of y and log-det to those of x and the parameters.
func (op *affineOp) Backward() {
	x, params, y, logDet := op.x, op.params, op.y, op.logDet
	D := x.Cols
	for i := 0; i < x.Rows; i++ {
		gl := logDet.Grad[i]
		for d := 0; d < D; d++ {
			r := params.Data[i*2*D+2*d+1]
			sc, dsc := affineScale(r)
			gy := y.Grad[i*D+d]
			if x.Grad != nil {
				x.Grad[i*D+d] += gy * sc
			}
			if params.Grad != nil {
				params.Grad[i*2*D+2*d] += gy
				params.Grad[i*2*D+2*d+1] += (gy*x.Data[i*D+d] + gl/sc) * dsc
			}
		}
	}
}

// ForwardOne applies one feature's affine transform (params [shift, r]) to x and returns y
// and log dy/dx.
func (Affine) ForwardOne(x float64, params []float64) (y, logDet float64) {
	sc := scaleOf(params[1])
	return x*sc + params[0], math.Log(sc)
}

// InverseOne inverts ForwardOne and returns x and log dx/dy. It carries no gradient.
func (Affine) InverseOne(y float64, params []float64) (x, logDet float64) {
	sc := scaleOf(params[1])
	return (y - params[0]) / sc, -math.Log(sc)
}

// InverseColumn inverts n affine transforms of one feature (see Univariate): x[i·stride] =
// (y[i·stride] − shift_i)/scale_i, adding −log scale_i to logDet[i] when logDet is not nil.
func (Affine) InverseColumn(x, y []float64, stride, n int, params []float64, ps int, logDet []float64) {
	if (ps != 0 && ps != AffineParams) || len(params) < (n-1)*ps+AffineParams || (n > 0 && (len(y) <= (n-1)*stride || len(x) <= (n-1)*stride)) {
		panic(fmt.Sprintf("transform: Affine.InverseColumn: %d transforms of %d parameters at stride %d (want %d or 0) need %d parameters and %d strided values; have %d, %d and %d",
			n, AffineParams, ps, AffineParams, (n-1)*ps+AffineParams, (n-1)*stride+1, len(params), len(y), len(x)))
	}
	for i := 0; i < n; i++ {
		u := params[i*ps : i*ps+AffineParams]
		sc := scaleOf(u[1])
		x[i*stride] = (y[i*stride] - u[0]) / sc
		if logDet != nil {
			logDet[i] += -math.Log(sc)
		}
	}
}
