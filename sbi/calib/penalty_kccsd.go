package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/nn"
)

// KCCSDRegularizerConfig configures NewKCCSDRegularizer. Lambda is required; the zero value of
// every other field is the default: 10 base points and median-heuristic bandwidths.
type KCCSDRegularizerConfig struct {
	// Lambda is the weight λ of the penalty, a finite value > 0.
	Lambda float64
	// BasePoints is m, the number of base points z ~ ν = N(0, I) (in standardised parameters)
	// at which the scores of two predictions are compared by the kernel between them; 0 means
	// 10, the paper's approximation.
	BasePoints int
	// TargetBandwidth is ℓ of the Gaussian kernel between standardised parameters and
	// DistBandwidth σ of the exponentiated-GFD kernel between predictions; 0 (the default)
	// takes each from the median heuristic on the batch, without gradient.
	TargetBandwidth, DistBandwidth float64
}

// validate returns the errors of the settings, joined, or nil.
func (c KCCSDRegularizerConfig) validate() error {
	var errs []error
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 1) {
		errs = append(errs, fmt.Errorf("calib.NewKCCSDRegularizer: Lambda = %v, want a finite weight > 0", c.Lambda))
	}
	if c.BasePoints < 0 {
		errs = append(errs, fmt.Errorf("calib.NewKCCSDRegularizer: BasePoints = %d, want ≥ 1 (0 for the paper's 10)", c.BasePoints))
	}
	for _, b := range [...]float64{c.TargetBandwidth, c.DistBandwidth} {
		if !(b >= 0) || math.IsInf(b, 1) {
			errs = append(errs, fmt.Errorf("calib.NewKCCSDRegularizer: bandwidths %v, %v, want finite values ≥ 0 (0 for the median heuristic)", c.TargetBandwidth, c.DistBandwidth))
			break
		}
	}
	return errors.Join(errs...)
}

// KCCSDRegularizer is the kernel calibration-conditional Stein discrepancy used as a training
// penalty. Build it with NewKCCSDRegularizer.
type KCCSDRegularizer struct {
	lambda, ell, sigma float64
	m                  int
	err                error // the settings' errors, returned by Penalty
}

// NewKCCSDRegularizer returns λ = cfg.Lambda times the U-statistic of the kernel
// calibration-conditional Stein discrepancy of the batch (Glaser, Widmann, Lindsten and
// Gretton, "Fast and scalable score-based kernel calibration tests", eq. 8–10):
//
//	Ĉ = 1/(N(N−1)) Σ_{i≠j} k(qᵢ, qⱼ) h((qᵢ, yᵢ), (qⱼ, yⱼ)),
//	h = l(yᵢ, yⱼ)·[sᵢᵀsⱼ + d/ℓ² − ‖yᵢ−yⱼ‖²/ℓ⁴ + (sᵢ−sⱼ)ᵀ(yᵢ−yⱼ)/ℓ²],
//
// with yᵢ the batch's parameters standardised by the batch mean and standard deviation, qᵢ
// the estimator's posterior for xᵢ, sᵢ = ∇_y log qᵢ(yᵢ) its score, l the Gaussian kernel of
// bandwidth ℓ, and k(qᵢ, qⱼ) = exp(−GFD(qᵢ, qⱼ)/(2σ²)) with the generalised Fisher divergence
// GFD = (1/m) Σₐ ‖sᵢ(zₐ) − sⱼ(zₐ)‖² over m base points zₐ ~ N(0, I) shared by the batch
// (Definitions 4.1–4.2). Ĉ is 0 in expectation for a calibrated estimator and positive for a
// miscalibrated one; as an unbiased U-statistic it can be negative on a batch.
//
// The engine has no second-order differentiation, so the scores are central differences of
// RegBatch.LogPost with a step of 10⁻³ standard deviations; the penalty is then an exact,
// differentiable function of the weights whose scores carry an O(10⁻⁶) relative error. All
// N·2d·(m+1) evaluations go through one LogPost pass. Bandwidths (median heuristic by default)
// and base points carry no gradient. Ĉ and ∂Ĉ/∂scores are computed by diag.KCCSDFeatures on
// diag.GFDFeatures (complete design, Gaussian target kernel), the code of the calibration test.
//
// The scores must exist on all of R^d: an NPE's flow qualifies; an NRE with a bounded prior
// does not (its density drops to zero at the box), and Penalty returns an error for it, as for
// any density that is not finite at an evaluation point.
func NewKCCSDRegularizer(cfg KCCSDRegularizerConfig) *KCCSDRegularizer {
	m := cfg.BasePoints
	if m == 0 {
		m = 10
	}
	return &KCCSDRegularizer{lambda: cfg.Lambda, ell: cfg.TargetBandwidth, sigma: cfg.DistBandwidth, m: m, err: cfg.validate()}
}

// Name returns "kccsd".
func (r *KCCSDRegularizer) Name() string { return "kccsd" }

const errKCCSDSupport = "calib.NewKCCSDRegularizer: the score-based penalty needs a posterior density that is positive and smooth on all of R^d (an NPE's flow); this one vanishes outside a bounded support (a ratio estimator's prior box)"

// boundedSupport reports whether some coordinate of d's support has a finite bound.
func boundedSupport(d dist.Distribution) bool {
	low, high := d.Support()
	for k := range low {
		if !math.IsInf(low[k], -1) || !math.IsInf(high[k], 1) {
			return true
		}
	}
	return false
}

// kccsdStep is the central-difference step in standard deviations of the batch.
const kccsdStep = 1e-3

// Penalty builds λ·Ĉ for the batch b on b.Tape.
func (r *KCCSDRegularizer) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err := checkBatch("calib.NewKCCSDRegularizer", b); err != nil {
		return nil, err
	}
	n, d := b.Theta.Dims()
	if n < 2 {
		return nil, fmt.Errorf("calib.NewKCCSDRegularizer: a batch of %d pairs, want at least 2", n)
	}
	if b.JointLogits != nil && b.Prior != nil && boundedSupport(b.Prior) {
		return nil, errors.New(errKCCSDSupport)
	}
	mean, std, err := columnMoments(b.Theta)
	if err != nil {
		return nil, fmt.Errorf("calib.NewKCCSDRegularizer: standardizing θ of the batch: %w", err)
	}
	scores, err := r.scores(b, mean, std)
	if err != nil {
		return nil, err
	}
	// The statistic and its gradient with respect to the scores come from the array code of
	// the calibration test; the tape gets λ·Ĉ as Σ G ⊙ scores shifted to the value Ĉ, whose
	// gradient with respect to the scores is G = ∂Ĉ/∂scores.
	m, stride := r.m, (r.m+1)*d
	y := mat.NewDense(n, d, nil)
	sy := mat.NewDense(n, d, nil)
	atBase := make([]*mat.Dense, n)
	for i := range n {
		for k := range d {
			y.Set(i, k, colstat.Standardize(b.Theta.At(i, k), mean[k], std[k]))
		}
		row := scores.Data[i*stride : (i+1)*stride]
		sy.SetRow(i, row[:d])
		atBase[i] = mat.NewDense(m, d, row[d:])
	}
	feat := diag.GFDFeatures(atBase) // ‖fᵢ − fⱼ‖² is the GFD estimate
	ell, sigma := r.ell, r.sigma
	if ell == 0 {
		ell = math.Sqrt(medianSqDist(y))
	}
	if sigma == 0 {
		sigma = math.Sqrt(medianSqDist(feat))
	}
	gradSy, gradFeat := mat.NewDense(n, d, nil), mat.NewDense(n, m*d, nil)
	value := diag.KCCSDFeatures(y, sy, feat, sigma, diag.GaussianTarget, ell, diag.Complete, gradSy, gradFeat)
	tp := b.Tape
	grad := tp.New(n, stride)
	c := 1 / math.Sqrt(float64(m)) // the features are the base-point scores times 1/√m
	for i := range n {
		row := grad.Data[i*stride : (i+1)*stride]
		copy(row, gradSy.RawRowView(i))
		for k, g := range gradFeat.RawRowView(i) {
			row[d+k] = c * g
		}
	}
	lin := tp.Sum(tp.Mul(scores, grad))
	return tp.Scale(tp.AddScalar(lin, value-lin.Item()), r.lambda), nil
}

// scores returns the N×((m+1)·d) tensor of standardised scores: sᵢ(yᵢ) in the first d
// columns, then sᵢ(zₐ) for the m base points, by central differences of LogPost.
func (r *KCCSDRegularizer) scores(b *sbi.RegBatch, mean, std []float64) (*nn.Tensor, error) {
	n, d := b.Theta.Dims()
	m := r.m
	// Base points z ~ N(0, I) in standardised coordinates, shared by the batch.
	z := make([]float64, m*d)
	for a := range z {
		z[a] = b.Rng.NormFloat64()
	}
	block := 2 * d * (m + 1) // evaluations per pair: ± for each coordinate of each point
	pts := mat.NewDense(n*block, d, nil)
	rows := make([]int, n*block)
	point := make([]float64, d)
	for i := 0; i < n; i++ {
		for a := 0; a <= m; a++ {
			if a == 0 {
				copy(point, b.Theta.RawRowView(i))
			} else {
				for k := 0; k < d; k++ {
					point[k] = mean[k] + std[k]*z[(a-1)*d+k]
				}
			}
			for k := 0; k < d; k++ {
				for s, sign := range [2]float64{1, -1} {
					row := i*block + (a*d+k)*2 + s
					p := pts.RawRowView(row)
					copy(p, point)
					p[k] += sign * kccsdStep * std[k]
					rows[row] = i
				}
			}
		}
	}
	out := b.LogPost(pts, rows)
	if out.Rows != n*block || out.Cols != 1 {
		return nil, fmt.Errorf("calib.NewKCCSDRegularizer: LogPost returned %d×%d values for %d parameters, want %d×1", out.Rows, out.Cols, n*block, n*block)
	}
	for _, v := range out.Data {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, errors.New(errKCCSDSupport)
		}
	}
	tp := b.Tape
	pm := tp.Reshape(out, n*block/2, 2)
	diff := tp.Sub(tp.Columns(pm, 0, 1), tp.Columns(pm, 1, 2)) // (n·(m+1)·d)×1
	// ∂ log q/∂y_k = σ_k ∂ log q/∂θ_k ≈ (f(θ + hσ_k e_k) − f(θ − hσ_k e_k))/(2h).
	grouped := tp.Reshape(diff, n, (m+1)*d)
	return tp.Scale(grouped, 1/(2*kccsdStep)), nil
}

// medianSqDist is the median of the positive squared distances between distinct rows of a, or 1
// when there are none (all rows equal).
func medianSqDist(a *mat.Dense) float64 {
	n, _ := a.Dims()
	vals := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			var s float64
			for k, v := range a.RawRowView(i) {
				e := v - a.At(j, k)
				s += e * e
			}
			if s > 0 {
				vals = append(vals, s)
			}
		}
	}
	if len(vals) == 0 {
		return 1
	}
	slices.Sort(vals)
	return vals[len(vals)/2]
}

// columnMoments returns the mean and standard deviation (population) of every column, at any
// finite scale of θ (package colstat; a constant column is only centred), or an error naming
// a column whose spread exceeds float64.
func columnMoments(x *mat.Dense) (mean, std []float64, err error) {
	cols, err := colstat.Fit(x, nil, 0)
	if err != nil {
		return nil, nil, err
	}
	mean, std = make([]float64, len(cols)), make([]float64, len(cols))
	for k, c := range cols {
		mean[k], std[k] = c.Mean, c.Scale()
	}
	return mean, std, nil
}

// KCCSDPenaltyConfig is KCCSDRegularizerConfig.
//
// Deprecated: use KCCSDRegularizerConfig.
type KCCSDPenaltyConfig = KCCSDRegularizerConfig

// KCCSDPenalty is NewKCCSDRegularizer.
//
// Deprecated: use NewKCCSDRegularizer (one word, Regularizer, names a term added to the
// training loss).
func KCCSDPenalty(cfg KCCSDRegularizerConfig) *KCCSDRegularizer { return NewKCCSDRegularizer(cfg) }
