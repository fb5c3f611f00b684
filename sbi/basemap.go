package sbi

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// BaseMapper is implemented by estimators whose posterior is a normalizing flow on a standard
// normal base: q(θ | x) is the image of N(0, I) under θ = T(z; x). ToBase applies the inverse,
// zᵢ = T⁻¹(θᵢ; xᵢ), to every row pair. If q is the true posterior, the zᵢ of pairs (θᵢ, xᵢ)
// from the joint are independent N(0, I) draws, whatever xᵢ: the null hypothesis of the
// L-C2ST-NF test (diag.LC2STConfig.Flow). NPE implements it.
type BaseMapper interface {
	ToBase(theta, x *mat.Dense) *mat.Dense
}

// ToBase maps each θᵢ to the flow's base space given xᵢ: zᵢ = T⁻¹(θᵢ; xᵢ), θ standardized
// with the training statistics and passed forward through the flow (in float64), in
// parallel. It is the flow before the posterior rejects draws outside the prior's support, so
// a flow that leaks mass out of the support maps the true posterior to a law narrower than
// N(0, I). It panics when the NPE is untrained, the shapes do not match, or a row of x cannot
// be evaluated: it holds NaN or ±Inf, or the embedding cannot read it (a count of trials
// outside 1 … MaxTrials), whose zᵢ would be that of another observation. Like a posterior it
// warns when a row of x holds a number of trials outside those of training, naming ToBase.
func (e *NPE) ToBase(theta, x *mat.Dense) *mat.Dense {
	e.mustTrained("ToBase")
	n := checkEvalPairs("NPE.ToBase", theta, x, e.prior.Dim(), e.xDim)
	e.checkEvalRows("ToBase", x)
	e.warnUnseenTrials(e.label+" ToBase", x)
	D := e.prior.Dim()
	out := mat.NewDense(n, D, nil)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		th := standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, D).(*mat.Dense))
		z, _ := e.fl.Forward(tp, th, e.context(tp, x.Slice(lo, hi, 0, e.xDim).(*mat.Dense)))
		if z.Cols != D {
			panic(fmt.Sprintf("sbi: NPE.ToBase: the flow returned %d columns, expected %d", z.Cols, D))
		}
		copy(out.RawMatrix().Data[lo*D:hi*D], z.Data)
	})
	return out
}

var _ BaseMapper = (*NPE)(nil)
