package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"github.com/gosbi/gosbi/sbi/nn"
)

// archSteps is M, the length of the ARCH series.
const archSteps = 100

// archNoise is the constant 0.2 of the conditional variance 0.2 + θ₂e².
const archNoise = 0.2

// ARCHTask is the lag-one ARCH model of CANVI (Patel et al., §4.2.2 and App. F.9, after Thomas
// et al. 2022): its likelihood is known in closed form, so that variational objectives that
// need it (ELBO, IWBO; package sbi/variational) can be trained on it.
type ARCHTask struct{ *base }

// ARCH is the lag-one ARCH model with θ = (θ₁, θ₂), θ₁ ~ U(−1, 1), θ₂ ~ U(0, 1):
//
//	y⁽ᵐ⁾ = θ₁y⁽ᵐ⁻¹⁾ + e⁽ᵐ⁾,  e⁽ᵐ⁾ = ξ⁽ᵐ⁾·√(0.2 + θ₂(e⁽ᵐ⁻¹⁾)²),  ξ⁽ᵐ⁾ ~ N(0, 1) i.i.d.,
//
// with y⁽⁰⁾ = 0 and e⁽⁰⁾ = 0 (the paper fixes e⁽⁰⁾ where Thomas et al. draw it), for m = 1…100;
// x = (y⁽¹⁾, …, y⁽¹⁰⁰⁾). (The authors' code stores the initial zero as a 101st-like first entry
// of a series of 100; here the 100 steps after it are the data.)
func ARCH() *ARCHTask {
	return &ARCHTask{&base{
		name:        "arch",
		prior:       dist.NewBoxUniform([]float64{-1, 0}, []float64{1, 1}),
		paramLabels: []string{"θ₁", "θ₂"}, dataDim: archSteps,
		row: func(rng *rand.Rand, theta, x []float64) {
			y, e := 0.0, 0.0
			for m := range x {
				e = rng.NormFloat64() * math.Sqrt(archNoise+theta[1]*e*e)
				y = theta[0]*y + e
				x[m] = y
			}
		},
	}}
}

// LogLikelihood is log p(x | θ) of one series: with the residuals e⁽ᵐ⁾ = y⁽ᵐ⁾ − θ₁y⁽ᵐ⁻¹⁾
// (a change of variables of unit Jacobian from the ξ), e⁽⁰⁾ = 0 and y⁽⁰⁾ = 0,
//
//	log p(x | θ) = Σ_{m=1}^{100} log N(e⁽ᵐ⁾; 0, 0.2 + θ₂(e⁽ᵐ⁻¹⁾)²).
//
// It is the scalar reference of LogLikelihoodTape. It panics unless len(theta) = 2 and len(x) =
// 100.
func (t *ARCHTask) LogLikelihood(theta, x []float64) float64 {
	if len(theta) != 2 || len(x) != archSteps {
		panic(fmt.Sprintf("task arch: LogLikelihood of θ with %d entries and x with %d, want 2 and %d", len(theta), len(x), archSteps))
	}
	var lp, yPrev, ePrev float64
	for _, y := range x {
		e := y - theta[0]*yPrev
		v := archNoise + theta[1]*ePrev*ePrev
		lp += -0.5*math.Log(2*math.Pi*v) - e*e/(2*v)
		yPrev, ePrev = y, e
	}
	return lp
}

// LogLikelihoodTape records log p(xᵢ | θᵢ) of LogLikelihood for every row i of theta (n×2) and
// x (n×100) on the tape, as an n×1 tensor differentiable in theta and x. It is one fused
// operation: with the residuals eₘ = yₘ − θ₁yₘ₋₁, the variances vₘ = 0.2 + θ₂e²ₘ₋₁ and
//
//	gᵥ,ₘ = ∂ℓ/∂vₘ = −1/(2vₘ) + e²ₘ/(2v²ₘ),   Gₘ = dℓ/deₘ = −eₘ/vₘ + 2θ₂eₘ·gᵥ,ₘ₊₁,
//
// the backward pass adds dℓ/dθ₁ = −Σₘ Gₘyₘ₋₁, dℓ/dθ₂ = Σₘ gᵥ,ₘe²ₘ₋₁ and dℓ/dyₘ = Gₘ − θ₁Gₘ₊₁
// (times the gradient of the result), in one pass per row.
func (t *ARCHTask) LogLikelihoodTape(tp *nn.Tape, theta, x *nn.Tensor) *nn.Tensor {
	n := theta.Rows
	if theta.Cols != 2 || x.Cols != archSteps || x.Rows != n {
		panic(fmt.Sprintf("task arch: LogLikelihoodTape of θ %d×%d and x %d×%d, want n×2 and n×%d", theta.Rows, theta.Cols, x.Rows, x.Cols, archSteps))
	}
	grad := tp.RequiresGrad(theta, x)
	out := tp.Output(n, 1, grad)
	var v, logv [archSteps]float64
	for i := range n {
		// LogLikelihood with the logarithms of a row from one vector call (kernels.Log).
		th, y := theta.Row(i), x.Row(i)
		var sq, yPrev, ePrev float64
		for m := range archSteps {
			e := y[m] - th[0]*yPrev
			v[m] = archNoise + th[1]*ePrev*ePrev
			sq += e * e / v[m]
			yPrev, ePrev = y[m], e
		}
		kernels.Log(logv[:], v[:])
		var sumLog float64
		for _, l := range logv {
			sumLog += l
		}
		out.Data[i] = -0.5*(sumLog+sq) - 0.5*archSteps*math.Log(2*math.Pi)
	}
	if grad {
		op := archOps.Get().(*archLikOp)
		op.theta, op.x, op.out = theta, x, out
		tp.Record(op, out)
	}
	return out
}

// archLikOp is the backward pass of LogLikelihoodTape.
type archLikOp struct{ theta, x, out *nn.Tensor }

var archOps = sync.Pool{New: func() any { return new(archLikOp) }}

func (op *archLikOp) Release() {
	*op = archLikOp{}
	archOps.Put(op)
}

func (op *archLikOp) Backward() {
	var e, v [archSteps]float64
	for i, g := range op.out.Grad {
		if g == 0 {
			continue
		}
		th, y := op.theta.Row(i), op.x.Row(i)
		var yPrev, ePrev float64
		for m := range archSteps {
			e[m] = y[m] - th[0]*yPrev
			v[m] = archNoise + th[1]*ePrev*ePrev
			yPrev, ePrev = y[m], e[m]
		}
		var d1, d2, gvNext, gNext float64
		var gy []float64
		if op.x.Grad != nil {
			gy = op.x.Grad[i*archSteps : (i+1)*archSteps]
		}
		for m := archSteps - 1; m >= 0; m-- {
			gv := -0.5/v[m] + e[m]*e[m]/(2*v[m]*v[m])
			G := -e[m]/v[m] + 2*th[1]*e[m]*gvNext
			if m > 0 {
				d1 -= G * y[m-1]
				d2 += gv * e[m-1] * e[m-1]
			}
			if gy != nil {
				gy[m] += g * (G - th[0]*gNext)
			}
			gvNext, gNext = gv, G
		}
		if op.theta.Grad != nil {
			op.theta.Grad[2*i] += g * d1
			op.theta.Grad[2*i+1] += g * d2
		}
	}
}

// GridPosterior is the posterior of θ for one series on a regular grid of bins × bins cells
// over the prior box [−1, 1] × [0, 1]: the likelihood at every cell centre times the uniform
// prior, normalized over the grid, as a density that is constant on each cell (the paper's
// "explicit gridding" with 200 bins per dimension). It is exact up to the cell size; its
// LogProb is −Inf outside the box and its Sample draws a cell by its mass and a point
// uniformly inside it. It returns an error unless x has 100 finite entries and bins ≥ 2.
func (t *ARCHTask) GridPosterior(x []float64, bins int) (*GridPosterior, error) {
	if err := checkObs(t.name, x, archSteps); err != nil {
		return nil, err
	}
	if bins < 2 || bins > 4096 {
		return nil, fmt.Errorf("task arch: GridPosterior needs 2 ≤ bins ≤ 4096 per dimension, got %d", bins)
	}
	lo, hi := []float64{-1, 0}, []float64{1, 1}
	g := &GridPosterior{Low: lo, High: hi, Bins: bins, logDensity: make([]float64, bins*bins)}
	theta := make([]float64, 2)
	maxLP := math.Inf(-1)
	for i := range bins {
		theta[0] = lo[0] + (float64(i)+0.5)*(hi[0]-lo[0])/float64(bins)
		for j := range bins {
			theta[1] = lo[1] + (float64(j)+0.5)*(hi[1]-lo[1])/float64(bins)
			lp := t.LogLikelihood(theta, x)
			g.logDensity[i*bins+j] = lp
			maxLP = math.Max(maxLP, lp)
		}
	}
	if math.IsInf(maxLP, 0) || math.IsNaN(maxLP) {
		return nil, errors.New("task arch: the likelihood is zero on the whole grid")
	}
	cellVol := (hi[0] - lo[0]) * (hi[1] - lo[1]) / float64(bins*bins)
	var total float64
	g.cdf = make([]float64, bins*bins)
	for k, lp := range g.logDensity {
		total += math.Exp(lp - maxLP)
		g.cdf[k] = total
	}
	logZ := maxLP + math.Log(total*cellVol)
	for k := range g.logDensity {
		g.logDensity[k] -= logZ
	}
	return g, nil
}

// MustGridPosterior is GridPosterior for notebook cells: it panics with the error.
func (t *ARCHTask) MustGridPosterior(x []float64, bins int) *GridPosterior {
	g, err := t.GridPosterior(x, bins)
	if err != nil {
		panic(err)
	}
	return g
}

// GridPosterior is a two-dimensional density that is constant on the cells of a regular grid
// over a box (see ARCHTask.GridPosterior); it is an sbi.Posterior.
type GridPosterior struct {
	Low, High  []float64
	Bins       int
	logDensity []float64 // per cell, row-major in (θ₁ bin, θ₂ bin), normalized
	cdf        []float64 // cumulative unnormalized cell masses
}

// Dim is 2.
func (g *GridPosterior) Dim() int { return 2 }

// cell returns the index of the cell holding theta, or false outside the box.
func (g *GridPosterior) cell(theta []float64) (int, bool) {
	idx := 0
	for k := range 2 {
		if !(theta[k] >= g.Low[k] && theta[k] <= g.High[k]) {
			return 0, false
		}
		b := int((theta[k] - g.Low[k]) / (g.High[k] - g.Low[k]) * float64(g.Bins))
		idx = idx*g.Bins + min(b, g.Bins-1)
	}
	return idx, true
}

// LogProb is the log density of the cell holding each row, −Inf outside the box.
func (g *GridPosterior) LogProb(theta *mat.Dense) []float64 {
	n, c := theta.Dims()
	if c != 2 {
		panic(fmt.Sprintf("task: GridPosterior.LogProb of %d-column points, want 2", c))
	}
	lp := make([]float64, n)
	for i := range n {
		k, ok := g.cell(theta.RawRowView(i))
		if !ok {
			lp[i] = math.Inf(-1)
			continue
		}
		lp[i] = g.logDensity[k]
	}
	return lp
}

// Sample draws n points: a cell by its mass, then a point uniformly in the cell.
func (g *GridPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(max(n, 1), 2, nil)
	total := g.cdf[len(g.cdf)-1]
	for i := range n {
		k := quantile.Index(g.cdf, rng.Float64()*total) // never a cell of zero mass
		a, b := k/g.Bins, k%g.Bins
		out.Set(i, 0, g.Low[0]+(float64(a)+rng.Float64())*(g.High[0]-g.Low[0])/float64(g.Bins))
		out.Set(i, 1, g.Low[1]+(float64(b)+rng.Float64())*(g.High[1]-g.Low[1])/float64(g.Bins))
	}
	if n == 0 {
		return &mat.Dense{}
	}
	return out
}
