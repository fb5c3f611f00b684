package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Quantiles chooses the uniform quantiles that the sorted coverage ranks are compared with.
type Quantiles int

const (
	// QuantilesMean compares the i-th smallest of N ranks with i/(N+1), the mean of the i-th
	// order statistic of N uniform variables, so that a calibrated estimator's penalty is not
	// biased towards either side. It is the default and what the authors' code does.
	QuantilesMean Quantiles = iota
	// QuantilesECDF compares the i-th smallest rank with i/N, the empirical CDF at that rank,
	// as eq. 15 of Falkiewicz et al. (2023) writes it. It asks for slightly larger ranks, so a
	// calibrated estimator pays a small conservative penalty.
	QuantilesECDF
)

// STE chooses the straight-through estimator (Bengio et al. 2013) through which the
// indicators 1[q(θᵢⱼ|xᵢ) < q(θᵢ|xᵢ)] of the rank statistic pass gradients: their forward value
// is a step, so some backward pass must stand in for its derivative.
type STE int

const (
	// STEDensity is the authors' backward pass (the default, so that the paper's experiments
	// can be re-created): the indicator is taken of d = q* − qⱼ in density space, its incoming
	// gradient g is clipped to [−1, 1] (their "Hard Tanh backward relaxation",
	// hardtanh(grad_output) in their code) and passed to d, so that
	//
	//	∂/∂log q* = clip(g)·q*,   ∂/∂log qⱼ = −clip(g)·qⱼ.
	//
	// The gradient thus scales with the density values, which depend on the units of θ and
	// on how peaked the posterior is: the same λ is a different strength than under STELog.
	// The clip itself rarely acts: g is at most 2λ·wⱼ/N (wⱼ the draw's importance weight),
	// below 1 for λ = 5 and N = 128. See nn.Tape.DensityIndicator.
	STEDensity STE = iota
	// STELog passes the incoming gradient of 1[log q* − log qⱼ > 0] to its argument unchanged
	// (the identity STE in log space): ∂/∂log q* = g, ∂/∂log qⱼ = −g, whatever the densities'
	// scale. CoverageRegularizerConfig.STEWindow restricts it to |log q* − log qⱼ| ≤ window.
	STELog
)

// String returns "density" or "log".
func (s STE) String() string {
	switch s {
	case STEDensity:
		return "density"
	case STELog:
		return "log"
	}
	return fmt.Sprintf("STE(%d)", int(s))
}

// CoverageRegularizerConfig configures NewCoverageRegularizer. Lambda and Samples are required;
// the zero value of every other field is the default: the conservative objective, the
// estimator's prior as proposal, QuantilesMean and the authors' STEDensity.
type CoverageRegularizerConfig struct {
	// Lambda is the weight λ of the penalty, a finite value > 0 (the paper uses 5), stated
	// against the loss that NRELoss names.
	Lambda float64
	// NRELoss names the cross-entropy that Lambda is stated against when the estimator is a
	// ratio estimator: NRELossMean (the default) is sbi.NRE's own ½(BCE_joint + BCE_marginal);
	// NRELossSum is the authors' BCE_joint + BCE_marginal, so that their γ = 5 re-creates their
	// CalNRE (the penalty is then weighted γ/2 against sbi.NRE's loss). NPE's loss is −log q
	// in every convention, and its penalty is weighted Lambda either way.
	NRELoss NRELoss
	// Samples is L, the number of proposal draws per training pair, ≥ 1 (the paper uses 16).
	Samples int
	// Mixture blends the objectives: the penalty of a deviation d = quantile − rank is
	// ((1−w)·max(d, 0) + w·d)², so w = 0 (the default) is the conservativeness objective, which
	// penalises only sorted ranks below their uniform quantile (over-confidence), and w = 1 is
	// the two-sided calibration objective (the `calibration` weight of the authors' code). It
	// must lie in [0, 1].
	Mixture float64
	// Proposal is the importance-sampling proposal I(θ) of the rank statistic; nil (the
	// default) uses the estimator's prior. It must cover the posterior: draws where the
	// posterior density is zero carry no weight.
	Proposal dist.Distribution
	// Quantiles chooses the quantile targets (QuantilesMean by default).
	Quantiles Quantiles
	// STE chooses the straight-through estimator of the indicators (STEDensity by default).
	STE STE
	// STEWindow restricts the log-space straight-through estimator (STELog): with 0 (the
	// default) the gradient of 1[log q* − log qⱼ > 0] passes to its argument unchanged; with a
	// window > 0 it passes only where |log q* − log qⱼ| ≤ window (in nats), the textbook
	// HardTanh STE. A window > 0 needs STE = STELog; the authors' STEDensity has no window.
	STEWindow float64
}

// validate returns the errors of the settings, joined, or nil.
func (c CoverageRegularizerConfig) validate() error {
	var errs []error
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 1) {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: Lambda = %v, want a finite weight > 0 (the paper uses 5)", c.Lambda))
	}
	if _, err := c.NRELoss.nreScale(); err != nil {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: %w", err))
	}
	if c.Samples < 1 {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: Samples = %d proposal draws, want ≥ 1 (the paper uses 16)", c.Samples))
	}
	if !(c.Mixture >= 0 && c.Mixture <= 1) {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: Mixture = %v, want a value in [0, 1] (0 conservative, 1 calibration)", c.Mixture))
	}
	if c.Quantiles != QuantilesMean && c.Quantiles != QuantilesECDF {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: unknown quantile targets %d, want QuantilesMean or QuantilesECDF", c.Quantiles))
	}
	if c.STE != STEDensity && c.STE != STELog {
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: unknown straight-through estimator %d, want STEDensity or STELog", int(c.STE)))
	}
	switch {
	case !(c.STEWindow >= 0) || math.IsInf(c.STEWindow, 1):
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: STEWindow = %v, want a finite value ≥ 0 (0 passes every gradient)", c.STEWindow))
	case c.STEWindow > 0 && c.STE != STELog:
		errs = append(errs, fmt.Errorf("calib.NewCoverageRegularizer: an STE window of %v applies to the log-space estimator; set STE to calib.STELog", c.STEWindow))
	}
	return errors.Join(errs...)
}

// CoverageRegularizer is the differentiable expected-coverage penalty of Falkiewicz et al.
// (2023), "Calibrating neural simulation-based inference with differentiable coverage
// probability": CalNPE with an NPE, CalNRE with an NRE. Build it with NewCoverageRegularizer.
type CoverageRegularizer struct {
	lambda    float64
	nreLoss   NRELoss
	l         int
	mix       float64
	proposal  dist.Distribution
	quantiles Quantiles
	ste       STE
	window    float64
	err       error                   // the settings' errors, returned by Penalty
	recordAll bool                    // record every pair's evaluation (tests compare it with the default)
	trace     func(active, pairs int) // called with the pairs re-evaluated with gradients (tests)
}

// NewCoverageRegularizer returns the differentiable-coverage regularizer with weight
// λ = cfg.Lambda and L = cfg.Samples proposal draws per training pair (the paper uses λ = 5,
// L = 16). For every pair (θᵢ, xᵢ) of a batch it estimates the HPD rank
//
//	α̂ᵢ = Σⱼ wᵢⱼ 1[log q(θᵢⱼ|xᵢ) < log q(θᵢ|xᵢ)],  wᵢⱼ = softmaxⱼ(log q(θᵢⱼ|xᵢ) − log I(θᵢⱼ)),
//
// θᵢⱼ ~ I (eq. 14 of the paper, self-normalised importance sampling in log space), with the
// indicator made differentiable by a straight-through estimator (the authors' density-space
// one by default; see STE and CoverageRegularizerConfig.STE). It sorts the N ranks and returns
//
//	λ · (1/N) Σᵢ ((1−w)·max(uᵢ − α̂₍ᵢ₎, 0) + w·(uᵢ − α̂₍ᵢ₎))²
//
// with uᵢ the uniform quantiles (i/(N+1) by default) and w the objective's mixture weight (0:
// conservative, the default; 1: calibration; second term of eq. 15 and its rectified form).
// The sort is the hard sort with the permutation's gradient, which is what the paper's default
// soft sort computes for ranks in [0, 1].
//
// q is RegBatch.LogPost: the flow for NPE, log p(θ) + log r̂(θ, x) for NRE, so ranks compare
// posterior densities and the importance weights of prior draws reduce to the ratios. The N·L
// draws (and the batch's parameters, unless RegBatch.PairLogPost has their log densities) are
// evaluated in one batched LogPost call, which computes the context of each observation once.
// With the conservative objective that call records no gradients, and only the pairs whose
// rank lies below its quantile (the only ones the penalty's gradient reaches) are evaluated
// again with gradients. Rows whose L draws all have zero posterior density are left out of the
// penalty. Invalid arguments make Penalty return an error.
//
// The weight λ is relative to the estimator's loss. For NPE that loss is the authors' −log q,
// so λ is their γ. For NRE it is ½(BCE_joint + BCE_marginal) (Delaunoy et al. 2022,
// Algorithm 1), half the authors' BCE_joint + BCE_marginal: with the default NRELossMean a
// given λ weighs the penalty twice as much as the same γ does in their code. Set
// cfg.NRELoss = NRELossSum to state the authors' γ (5) and let the regularizer apply γ/2.
func NewCoverageRegularizer(cfg CoverageRegularizerConfig) *CoverageRegularizer {
	return &CoverageRegularizer{lambda: cfg.Lambda, nreLoss: cfg.NRELoss, l: cfg.Samples, mix: cfg.Mixture, proposal: cfg.Proposal,
		quantiles: cfg.Quantiles, ste: cfg.STE, window: cfg.STEWindow, err: cfg.validate()}
}

// Name returns "coverage".
func (c *CoverageRegularizer) Name() string { return "coverage" }

// Lambda returns the weight λ as configured, stated against the loss that NRELoss returns.
func (c *CoverageRegularizer) Lambda() float64 { return c.lambda }

// NRELoss returns the cross-entropy convention that Lambda is stated against.
func (c *CoverageRegularizer) NRELoss() NRELoss { return c.nreLoss }

// Samples returns L, the number of proposal draws per training pair.
func (c *CoverageRegularizer) Samples() int { return c.l }

// Penalty builds λ·R for the batch b on b.Tape (see NewCoverageRegularizer).
func (c *CoverageRegularizer) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	if c.err != nil {
		return nil, c.err
	}
	alpha, invalid, err := c.ranks(b)
	if err != nil {
		return nil, err
	}
	return c.penalty(b.Tape, alpha, invalid, c.weight(b))
}

// weight is the factor of the penalty for batch b: λ, converted to sbi.NRE's loss when the
// batch comes from a ratio estimator (it has classifier logits).
func (c *CoverageRegularizer) weight(b *sbi.RegBatch) float64 {
	if b.JointLogits == nil {
		return c.lambda
	}
	s, _ := c.nreLoss.nreScale() // validated by NewCoverageRegularizer
	return s * c.lambda
}

// proposalFor returns the proposal to use for b, checking its dimension.
func (c *CoverageRegularizer) proposalFor(b *sbi.RegBatch) (dist.Distribution, error) {
	prop := c.proposal
	if prop == nil {
		prop = b.Prior
	}
	if prop == nil {
		return nil, errors.New("calib.NewCoverageRegularizer: the batch has no prior to draw proposals from; set CoverageRegularizerConfig.Proposal")
	}
	if _, d := b.Theta.Dims(); prop.Dim() != d {
		return nil, fmt.Errorf("calib.NewCoverageRegularizer: the proposal has %d dimensions, the parameters %d", prop.Dim(), d)
	}
	return prop, nil
}

func checkBatch(name string, b *sbi.RegBatch) error {
	switch {
	case b == nil || b.Tape == nil:
		return fmt.Errorf("%s: the batch has no tape", name)
	case b.Theta == nil || b.LogPost == nil:
		return fmt.Errorf("%s: the batch has no parameters or no LogPost; this estimator cannot evaluate its posterior density", name)
	case b.Rng == nil:
		return fmt.Errorf("%s: the batch has no random stream", name)
	}
	return nil
}

// ranks returns the N×1 tensor of rank statistics α̂ᵢ on b.Tape and the rows whose proposal
// draws all have zero posterior density (nil when there are none); those rows are 0 in alpha.
//
// For the conservative objective a pair whose sorted rank is not below its uniform quantile
// gets no gradient at all: max(uₖ − α̂, 0)² is flat there. ranks therefore evaluates all N·L
// draws once without recording (a forward pass only), finds the pairs whose rank can receive
// a gradient, and evaluates only those again with gradients; the other ranks enter the
// penalty as constants. The penalty and its gradient are those of the single recorded pass
// (up to rounding); training with an estimator that is rarely over-confident costs little
// more than one forward pass over the draws.
func (c *CoverageRegularizer) ranks(b *sbi.RegBatch) (alpha *nn.Tensor, invalid []bool, err error) {
	if err := checkBatch("calib.NewCoverageRegularizer", b); err != nil {
		return nil, nil, err
	}
	prop, err := c.proposalFor(b)
	if err != nil {
		return nil, nil, err
	}
	tp := b.Tape
	n, _ := b.Theta.Dims()
	draws := prop.Sample(b.Rng, n*c.l)
	logI := prop.LogProb(draws)
	if c.mix != 0 || tp.NoGrad || c.recordAll {
		return c.rankRows(b, draws, logI, nil)
	}
	all, invalid, err := c.rankValues(b, draws, logI)
	if err != nil {
		return nil, nil, err
	}
	if slices.ContainsFunc(all.Data, math.IsNaN) {
		// a NaN rank (an infinite density) makes the penalty NaN: record every pair so that
		// the gradient is NaN too and the trainer skips the step, as it would otherwise
		return c.rankRows(b, draws, logI, nil)
	}
	act := c.activeRows(all.Data, invalid)
	if c.trace != nil {
		c.trace(len(act), n)
	}
	if len(act) == 0 {
		return all, invalid, nil
	}
	sub, _, err := c.rankRows(b, draws, logI, act)
	if err != nil {
		return nil, nil, err
	}
	return tp.ScatterRows(all, sub, act), invalid, nil
}

// rankValues is rankRows for every pair with recording turned off.
func (c *CoverageRegularizer) rankValues(b *sbi.RegBatch, draws *mat.Dense, logI []float64) (*nn.Tensor, []bool, error) {
	b.Tape.NoGrad = true
	defer func() { b.Tape.NoGrad = false }()
	return c.rankRows(b, draws, logI, nil)
}

// tieTolerance widens ties between ranks when activeRows decides which pairs can receive a
// gradient: a second evaluation of the same rank may differ in its last bits, and two ranks
// that close may swap places in the sort.
const tieTolerance = 1e-9

// activeRows returns the valid pairs whose rank can receive a gradient from the conservative
// penalty: those with uₖ − α̂ᵢ > 0 for a sorted position k that α̂ᵢ occupies, or could occupy
// when ranks within tieTolerance of it are counted as ties.
func (c *CoverageRegularizer) activeRows(alpha []float64, invalid []bool) []int {
	if c.lambda == 0 {
		return nil
	}
	sorted := make([]float64, 0, len(alpha))
	for i, a := range alpha {
		if invalid == nil || !invalid[i] {
			sorted = append(sorted, a)
		}
	}
	slices.Sort(sorted)
	m := len(sorted)
	denom := float64(m + 1)
	if c.quantiles == QuantilesECDF {
		denom = float64(m)
	}
	var act []int
	for i, a := range alpha {
		if invalid != nil && invalid[i] {
			continue
		}
		// the last position a rank tied with α̂ᵢ can take; quantiles grow with the position
		last, _ := slices.BinarySearch(sorted, a+tieTolerance)
		if float64(last)/denom-a > 0 {
			act = append(act, i)
		}
	}
	return act
}

// rankRows returns the ranks of the pairs sel (all pairs when sel is nil) as a len(sel)×1
// tensor on b.Tape, with the rows of sel whose draws all have zero posterior density.
func (c *CoverageRegularizer) rankRows(b *sbi.RegBatch, draws *mat.Dense, logI []float64, sel []int) (alpha *nn.Tensor, invalid []bool, err error) {
	tp := b.Tape
	n, d := b.Theta.Dims()
	L := c.l
	na := len(sel)
	if sel == nil {
		na = n
	}
	pair := func(k int) int {
		if sel == nil {
			return k
		}
		return sel[k]
	}

	// One LogPost pass over the draws of the selected pairs, each conditioned on its xᵢ, so that
	// the context of xᵢ is repeated rather than recomputed; the pairs' own parameters join the
	// pass unless the estimator has their log densities already.
	own := b.PairLogPost
	if own != nil && (own.Rows != n || own.Cols != 1) {
		return nil, nil, fmt.Errorf("calib.NewCoverageRegularizer: the batch's PairLogPost is %d×%d, want %d×1", own.Rows, own.Cols, n)
	}
	per := L
	if own == nil {
		per = L + 1
	}
	all := mat.NewDense(na*per, d, nil)
	rows := make([]int, na*per)
	for k := 0; k < na; k++ {
		i := pair(k)
		r := k * per
		if own == nil {
			copy(all.RawRowView(r), b.Theta.RawRowView(i))
			r++
		}
		for j := 0; j < L; j++ {
			copy(all.RawRowView(r+j), draws.RawRowView(i*L+j))
		}
		for j := k * per; j < (k+1)*per; j++ {
			rows[j] = i
		}
	}
	out := b.LogPost(all, rows)
	if out.Rows != na*per || out.Cols != 1 {
		return nil, nil, fmt.Errorf("calib.NewCoverageRegularizer: LogPost returned %d×%d values for %d parameters, want %d×1", out.Rows, out.Cols, na*per, na*per)
	}
	var lpStar, lp *nn.Tensor
	switch {
	case own == nil:
		grouped := tp.Reshape(out, na, L+1)
		lpStar, lp = tp.Columns(grouped, 0, 1), tp.Columns(grouped, 1, L+1)
	case sel == nil:
		lpStar, lp = own, tp.Reshape(out, na, L)
	default:
		lpStar, lp = tp.GatherRows(own, sel), tp.Reshape(out, na, L)
	}

	// Log importance weights log q − log I, shifted by their (constant) row maximum so that
	// the largest weight is 1: the self-normalised weights are invariant to the shift.
	shift := tp.New(na, L)
	rowMax := tp.New(na, 1)
	for k := 0; k < na; k++ {
		i := pair(k)
		m := math.Inf(-1)
		for j := 0; j < L; j++ {
			v := lp.Data[k*L+j] - logI[i*L+j]
			shift.Data[k*L+j] = logI[i*L+j]
			m = max(m, v)
		}
		if math.IsInf(m, -1) || math.IsNaN(m) {
			if invalid == nil {
				invalid = make([]bool, na)
			}
			invalid[k] = true
			m = 0
		}
		rowMax.Data[k] = m
	}
	e := tp.Exp(tp.Sub(tp.Sub(lp, shift), rowMax))
	var ind *nn.Tensor // 1[q(θᵢⱼ|xᵢ) < q(θᵢ|xᵢ)]
	if c.ste == STELog {
		ind = tp.Indicator(tp.Sub(lpStar, lp), c.window)
	} else {
		ind = tp.DensityIndicator(lpStar, lp)
	}
	den := tp.RowSum(e)
	if invalid != nil {
		one := tp.New(na, 1)
		for k, bad := range invalid {
			if bad {
				one.Data[k] = 1 // 0/1 instead of 0/0; the row is dropped from the penalty
			}
		}
		den = tp.Add(den, one)
	}
	return tp.Div(tp.RowSum(tp.Mul(e, ind)), den), invalid, nil
}

// penalty sorts the valid ranks and returns λ times the mean squared (rectified) deviation from
// the uniform quantiles.
func (c *CoverageRegularizer) penalty(tp *nn.Tape, alpha *nn.Tensor, invalid []bool, weight float64) (*nn.Tensor, error) {
	n := alpha.Rows
	row := tp.Reshape(alpha, 1, n)
	drop := 0
	if invalid != nil {
		sentinel := tp.New(1, n)
		for i, bad := range invalid {
			if bad {
				sentinel.Data[i] = -1 // sorts before every rank in [0, 1]
				drop++
			}
		}
		row = tp.Add(row, sentinel)
	}
	if drop == n {
		return nil, errors.New("calib.NewCoverageRegularizer: for every pair of the batch, all proposal draws fall where the posterior density is zero; use a proposal that covers the posterior (the prior does)")
	}
	sorted := tp.Columns(tp.SortRows(row), drop, n)
	m := n - drop
	u := tp.New(1, m)
	denom := float64(m + 1)
	if c.quantiles == QuantilesECDF {
		denom = float64(m)
	}
	for i := range u.Data {
		u.Data[i] = float64(i+1) / denom
	}
	d := tp.Sub(u, sorted) // > 0: rank too small, i.e. over-confidence
	var r *nn.Tensor
	switch c.mix {
	case 1:
		r = d
	case 0:
		r = tp.ReLU(d)
	default:
		r = tp.Add(tp.Scale(tp.ReLU(d), 1-c.mix), tp.Scale(d, c.mix))
	}
	return tp.Scale(tp.Mean(tp.Square(r)), weight), nil
}

// CoveragePenaltyConfig is CoverageRegularizerConfig.
//
// Deprecated: use CoverageRegularizerConfig.
type CoveragePenaltyConfig = CoverageRegularizerConfig

// CoveragePenalty is NewCoverageRegularizer.
//
// Deprecated: use NewCoverageRegularizer (one word, Regularizer, names a term added to the
// training loss).
func CoveragePenalty(cfg CoverageRegularizerConfig) *CoverageRegularizer {
	return NewCoverageRegularizer(cfg)
}
