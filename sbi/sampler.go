package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/nested"
	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/mat"
)

// SamplerMethod names how a RatioPosterior samples. It is a string so that a literal such as
// "mcmc" may stand for it.
type SamplerMethod string

// The sampling methods.
const (
	// SamplerAuto picks SamplerGrid for at most 3 parameters with a bounded prior,
	// SamplerMCMC otherwise.
	SamplerAuto SamplerMethod = "auto"
	// SamplerMCMC is slice sampling, vectorized over chains.
	SamplerMCMC SamplerMethod = "mcmc"
	// SamplerGrid is exact sampling on a grid over the prior's box: a cell is drawn with
	// probability proportional to the density at its centre, and the draw is uniform in the
	// cell's part of the prior's support (the centre when 100 uniform points of the cell miss
	// it), so that every draw lies inside the support.
	SamplerGrid SamplerMethod = "grid"
	// SamplerImportance is sampling-importance-resampling with the prior as proposal. A draw
	// whose effective sample size (RatioPosterior.ESS) is below min(400, n/10), the ESS limit
	// of MCMCHealth, prints a warning: its n draws repeat a few proposals.
	SamplerImportance SamplerMethod = "importance"
)

// SamplerConfig chooses how a ratio estimator's posterior p̂(θ | x) ∝ p(θ)·r̂(θ, x), or a
// likelihood estimator's p(θ)·q(x | θ), is sampled. Zero fields take defaults.
type SamplerConfig struct {
	// Method is "auto" (the default), "mcmc", "grid" or "importance"; "" means "auto".
	Method SamplerMethod
	Chains int // MCMC chains run side by side; 0 means 100
	BurnIn int // MCMC sweeps discarded at the start of every chain; 0 means 200 (as sbi's warm-up)
	// Thin is, for MCMC, the sweeps per kept draw of each chain; 0 means 5. Drawing n samples
	// runs BurnIn + ⌈n/Chains⌉·Thin sweeps, which must be fewer than 2⁶¹ − 1: more return an error
	// before the chains start.
	Thin int
	// GridPoints is the number of grid points per parameter; 0 means 10000, 512 and 80 for 1,
	// 2 and 3 parameters. The grid may hold at most 2²⁴ (16,777,216) cells, GridPoints^dim:
	// sampling a larger one returns an error before it allocates the grid.
	GridPoints int
	// Proposals is, for importance sampling, the number of prior draws per requested sample;
	// 0 means 20. Drawing n samples holds n·Proposals proposals of dim + 2 values each (the
	// point and its weights), which may be at most 2²⁶ (67,108,864) values in all: a larger
	// request returns an error before it draws them (draw fewer samples per call).
	Proposals int
}

func (s SamplerConfig) validate() error {
	switch s.Method {
	case "", SamplerAuto, SamplerMCMC, SamplerGrid, SamplerImportance:
	default:
		return fmt.Errorf("sampler: Method %q, expected %q, %q, %q or %q", string(s.Method),
			SamplerAuto, SamplerMCMC, SamplerGrid, SamplerImportance)
	}
	if s.Chains < 0 || s.BurnIn < 0 || s.Thin < 0 || s.GridPoints < 0 || s.Proposals < 0 {
		return fmt.Errorf("sampler: negative setting in %+v, expected ≥ 0 (0 takes the default)", s)
	}
	return nil
}

func (s SamplerConfig) withDefaults(prior dist.Distribution) SamplerConfig {
	if s.Method == "" || s.Method == SamplerAuto {
		s.Method = SamplerMCMC
		if _, _, ok := dist.Bounds(prior); ok && prior.Dim() <= 3 {
			s.Method = SamplerGrid
		}
	}
	if s.Chains == 0 {
		s.Chains = 100
	}
	if s.BurnIn == 0 {
		s.BurnIn = 200
	}
	if s.Thin == 0 {
		s.Thin = 5
	}
	if s.GridPoints == 0 {
		s.GridPoints = [...]int{0, 10000, 512, 80}[min(prior.Dim(), 3)]
	}
	if s.Proposals == 0 {
		s.Proposals = 20
	}
	return s
}

// RatioPosterior is the posterior p̂(θ | x) ∝ p(θ)·r̂(θ, x) of a ratio estimator (an NRE or an
// ensemble of them) for one observation, or p(θ)·q(x | θ) of a likelihood estimator (NLE,
// MNLE); for i.i.d. trials the ratio or likelihood is the product over them. LogProb is
// unnormalized. It is safe for concurrent use.
type RatioPosterior struct {
	label    string    // the estimator, e.g. "NRE" or "NRE ensemble of 3"
	x        []float64 // the observation; of several i.i.d. trials, the first
	trials   int       // the number of i.i.d. trials of PosteriorTrials; 0 for one observation
	prior    dist.Distribution
	logRatio func(theta *mat.Dense) []float64
	err      error
	cfg      SamplerConfig

	mu     sync.Mutex
	ess    float64
	health *MCMCHealth // of the last MCMC draw (mcmchealth.go)
}

func newRatioPosterior(label string, x []float64, prior dist.Distribution, lr func(*mat.Dense) []float64, err error, s SamplerConfig) *RatioPosterior {
	if verr := s.validate(); verr != nil && err == nil {
		err = verr
	}
	return &RatioPosterior{label: label, x: append([]float64(nil), x...), prior: prior, logRatio: lr, err: err,
		cfg: s.withDefaults(prior), ess: math.NaN()}
}

// ofTrials records, for the display, that p conditions on the trials in the rows of xs.
func (p *RatioPosterior) ofTrials(xs *mat.Dense) *RatioPosterior {
	if xs == nil {
		return p
	}
	if T, _ := xs.Dims(); T > 0 {
		p.trials, p.x = T, append([]float64(nil), xs.RawRowView(0)...)
	}
	return p
}

// Dim is the number of parameters.
func (p *RatioPosterior) Dim() int { return p.prior.Dim() }

// Method is the sampling method in use: "mcmc", "grid" or "importance".
func (p *RatioPosterior) Method() SamplerMethod { return p.cfg.Method }

// ESS is the effective sample size of the last importance-sampling draw, (Σw)²/Σw², NaN before.
func (p *RatioPosterior) ESS() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ess
}

// LogProb is log p(θ) + log r̂(θ, x) for every row of theta (unnormalized; −Inf outside the
// prior's support and where the estimator's output is NaN). The estimator is evaluated only at the rows inside the support, which
// saves the network passes of a sampler's proposals beyond a bounded prior.
func (p *RatioPosterior) LogProb(theta *mat.Dense) []float64 {
	if p.err != nil {
		panic(fmt.Errorf("sbi: ratio posterior LogProb: %w", p.err))
	}
	return p.logProb(theta, nil)
}

// logProb is LogProb; it counts the rows and those with a NaN log-density in tally, if not nil.
func (p *RatioPosterior) logProb(theta *mat.Dense, tally *nanTally) []float64 {
	lp := p.prior.LogProb(theta)
	n, D := theta.Dims()
	inside := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if p.prior.InSupport(theta.RawRowView(i)) && !math.IsInf(lp[i], -1) {
			inside = append(inside, i)
		}
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Inf(-1)
	}
	var lr []float64
	switch len(inside) {
	case 0:
		return out
	case n:
		lr = p.logRatio(theta)
	default:
		sub := mat.NewDense(len(inside), D, nil)
		for k, i := range inside {
			copy(sub.RawRowView(k), theta.RawRowView(i))
		}
		lr = p.logRatio(sub)
	}
	for k, i := range inside {
		v := lp[i] + lr[k]
		if math.IsNaN(v) {
			tally.nanAt(theta.RawRowView(i))
		}
		out[i] = cleanLogProb(v, p.prior, theta.RawRowView(i))
	}
	tally.count(n)
	return out
}

// nanTally counts the points a sampler evaluated and those where the estimator's output made
// the log-density NaN, which the samplers count as zero density. Its methods do nothing on a
// nil tally.
type nanTally struct {
	points, nan int
	first       []float64 // the first point whose log-density was NaN
}

func (t *nanTally) count(n int) {
	if t != nil {
		t.points += n
	}
}

func (t *nanTally) nanAt(theta []float64) {
	if t == nil {
		return
	}
	if t.nan == 0 {
		t.first = append([]float64(nil), theta...)
	}
	t.nan++
}

// warn says, when the tally holds NaN, that the draws of the sampling method what miss
// whatever mass lies where the log-density was NaN.
func (t *nanTally) warn(what string) {
	if t.nan == 0 {
		return
	}
	warnf("nan", "ratio posterior (%s): the log-density was NaN at %d of the %d points evaluated, the first θ = %s: the sampler counts such points as zero density, so no draw lies there, and if the posterior has mass there the draws miss it; check what the estimator returns there (NaN usually comes from an overflow inside it), then retrain it or use another estimator",
		what, t.nan, t.points, fmtPoint(t.first))
}

// Sample draws n parameter vectors, stopped by the host's context; it panics with
// SampleContext's error (the shorthand of the package's naming rule).
func (p *RatioPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(p.SampleContext(runenv.Context(), rng, n))
}

// SampleChecked is SampleContext with the host's context.
//
// Deprecated: use SampleContext (or Sample in a notebook cell).
func (p *RatioPosterior) SampleChecked(rng *rand.Rand, n int) (*mat.Dense, error) {
	return p.SampleContext(runenv.Context(), rng, n)
}

// SampleContext draws n parameter vectors with the configured method until ctx is done. It
// returns an error wrapping ErrUntrained for an untrained estimator and ErrNonFinite for an
// observation with NaN or ±Inf, and an error naming the point where a sampler finds the
// log-density +Inf (no density is infinite: the estimator is degenerate there). Points where
// the estimator's output is NaN count as zero density, as in LogProb, and a draw that met any
// prints a warning naming the first: its draws miss whatever mass lies there. n·Dim may be at most 2²⁶ (67,108,864) values: a larger
// request returns an error before anything is drawn (draw in several calls).
func (p *RatioPosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if p.err != nil {
		return nil, fmt.Errorf("ratio posterior: %w", p.err)
	}
	if err := checkSampleSize("ratio posterior", n, p.prior.Dim()); err != nil {
		return nil, err
	}
	switch p.cfg.Method {
	case SamplerGrid:
		return p.sampleGrid(ctx, rng, n)
	case SamplerImportance:
		return p.sampleImportance(ctx, rng, n)
	default:
		return p.sampleSlice(ctx, rng, n)
	}
}

// sampleGrid evaluates the posterior at the centres of a regular grid over the prior's box,
// draws cells with probability proportional to the density there, and places each draw
// uniformly inside its cell's part of the prior's support.
func (p *RatioPosterior) sampleGrid(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	low, high, ok := dist.Bounds(p.prior)
	D := p.prior.Dim()
	if !ok || D > 3 {
		return nil, fmt.Errorf("ratio posterior: grid sampling needs a prior with a bounded box and at most 3 parameters (have %d, box %v–%v): use Method \"mcmc\"", D, low, high)
	}
	G := p.cfg.GridPoints
	cells := 1
	for i := 0; i < D; i++ {
		cells = satMul(cells, G)
	}
	if cells > maxGridCells {
		return nil, fmt.Errorf("ratio posterior: grid sampling: GridPoints = %d makes %d^%d cells, more than the %d a grid may hold (each is an evaluation of the estimator and %d values in memory): lower GridPoints (0 for the default) or use Method \"mcmc\"", G, G, D, maxGridCells, D+3)
	}
	grid := mat.NewDense(cells, D, nil)
	width := make([]float64, D)
	for j := range width {
		width[j] = (high[j] - low[j]) / float64(G)
	}
	for c := 0; c < cells; c++ {
		k := c
		row := grid.RawRowView(c)
		for j := D - 1; j >= 0; j-- {
			row[j] = low[j] + (float64(k%G)+0.5)*width[j]
			k /= G
		}
	}
	var tally nanTally
	lp, err := evalChunks(ctx, "grid posterior", grid, func(theta *mat.Dense) []float64 { return p.logProb(theta, &tally) })
	if err != nil {
		return nil, cancel.Drawn(ctx, err, 0, n)
	}
	cdf, err := cumulativeWeights(lp, grid.RawRowView)
	if err != nil {
		return nil, fmt.Errorf("ratio posterior (grid): %w", err)
	}
	out := mat.NewDense(n, D, nil)
	for i := 0; i < n; i++ {
		c := drawIndex(rng, cdf)
		p.placeInCell(rng, out.RawRowView(i), grid.RawRowView(c), width)
	}
	tally.warn("grid")
	return out, nil
}

// sampleChunk is the number of points grid and importance sampling evaluate between looks at
// the context; a multiple of evalChunk, so that the parallel evaluation's chunks stay as they were.
const sampleChunk = 32 * evalChunk

// evalChunks returns f of the rows of points, evaluated sampleChunk rows at a time; it stops
// with an error naming what between chunks once ctx is done. f must evaluate every row on its
// own (the estimators do), so that the values do not depend on the chunks.
func evalChunks(ctx context.Context, what string, points *mat.Dense, f func(*mat.Dense) []float64) ([]float64, error) {
	n, D := points.Dims()
	out := make([]float64, n)
	for lo := 0; lo < n; lo += sampleChunk {
		if err := cancel.Check(ctx, what); err != nil {
			return nil, err
		}
		hi := min(lo+sampleChunk, n)
		copy(out[lo:hi], f(points.Slice(lo, hi, 0, D).(*mat.Dense)))
	}
	return out, nil
}

// maxCellTries bounds the uniform draws placeInCell makes in one cell.
const maxCellTries = 100

// placeInCell sets row to a uniform point of the cell with the given centre and widths that
// lies inside the prior's support: the support may be smaller than its box (a disc, θ₁ < θ₂),
// and a cell whose centre lies inside may reach out of it. After maxCellTries points outside
// it takes the centre, which is inside (its log-density is finite).
func (p *RatioPosterior) placeInCell(rng *rand.Rand, row, centre, width []float64) {
	for try := 0; try < maxCellTries; try++ {
		for j := range row {
			row[j] = centre[j] + (rng.Float64()-0.5)*width[j]
		}
		if p.prior.InSupport(row) {
			return
		}
	}
	copy(row, centre)
}

// maxGridCells bounds the cells of grid sampling, GridPoints^dim (the bound of the files'
// sampler settings too): the grid, its log-densities and cumulative weights take dim + 3
// values per cell.
const maxGridCells = 1 << 24

// cumulativeWeights returns the normalized cumulative sums of exp(lw − max lw), where lw[i]
// is the log-weight of the point at(i). It returns an error when a log-weight is +Inf, naming
// the first such point, or when none is above −Inf (NaN counts as −Inf).
func cumulativeWeights(lw []float64, at func(i int) []float64) ([]float64, error) {
	m, inf, first := math.Inf(-1), 0, -1
	for i, v := range lw {
		if v > m {
			m = v
		}
		if math.IsInf(v, 1) {
			inf++
			if first < 0 {
				first = i
			}
		}
	}
	switch {
	case inf > 0:
		return nil, fmt.Errorf("the log-density is +Inf at %d of the %d points, the first θ = %s: %s", inf, len(lw), fmtPoint(at(first)), infiniteDensity)
	case math.IsInf(m, -1):
		return nil, fmt.Errorf("all %d points have zero density (log-density −Inf or NaN): the posterior's mass lies in a region too small for these points to reach (raise Proposals or GridPoints, or use another Method), or the estimator's output is not finite", len(lw))
	}
	cdf := make([]float64, len(lw))
	s := 0.0
	for i, v := range lw {
		s += math.Exp(v - m)
		cdf[i] = s
	}
	for i := range cdf {
		cdf[i] /= s
	}
	return cdf, nil
}

// drawIndex draws an index with the probabilities whose cumulative sums are cdf (normalized
// to end at 1): quantile.Index at u uniform on [0, 1), never an index of zero weight.
func drawIndex(rng *rand.Rand, cdf []float64) int {
	return quantile.Index(cdf, rng.Float64())
}

// maxImportanceValues bounds the values importance sampling holds at once: n·Proposals
// proposals of dim + 2 values each (the point, its log-weight and its cumulative weight),
// 2²⁶ values (512 MiB), which for 2 parameters is the 2²⁴ cells of the grid's bound.
const maxImportanceValues = maxSampleValues

// sampleImportance draws Proposals·n points from the prior, weights them by r̂ (the posterior
// over the prior) and resamples n of them with replacement (sampling-importance-resampling).
// It refuses, before drawing, proposals of more than maxImportanceValues values.
func (p *RatioPosterior) sampleImportance(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	D := p.prior.Dim()
	m := satMul(n, p.cfg.Proposals)
	if v := satMul(m, D+2); v > maxImportanceValues {
		count := fmt.Sprint(m)
		if m == maxCount {
			count = fmt.Sprintf("more than %d", maxCount)
		}
		return nil, fmt.Errorf("ratio posterior: importance sampling: n = %d samples × Proposals = %d prior draws each is %s proposals of %d values each (the point, its log-weight and cumulative weight), more than the %d values in all that importance sampling may hold: lower n (draw in several calls: each resamples its own proposals) or Proposals (0 for the default 20), or use Method \"mcmc\"",
			n, p.cfg.Proposals, count, D+2, maxImportanceValues)
	}
	cand := p.prior.Sample(rng, m)
	var tally nanTally
	out, cdf, err := p.resample(ctx, rng, cand, n, "importance", &tally)
	if err != nil {
		return nil, cancel.Drawn(ctx, err, 0, n)
	}
	tally.warn("importance")
	var s1, s2, prev float64
	for _, c := range cdf {
		w := c - prev
		prev = c
		s1 += w
		s2 += w * w
	}
	ess := s1 * s1 / s2
	p.mu.Lock()
	p.ess = ess
	p.mu.Unlock()
	if limit := math.Min(400, float64(n)/10); ess < limit {
		warnf("importance", "importance posterior: effective sample size %.3g of %d proposals, below %.0f: the %d draws repeat a few proposals that carry the weight (the posterior is much narrower than the prior); raise Proposals or use Method \"mcmc\"",
			ess, m, limit, n)
	}
	return out, nil
}

// sampleSlice runs Chains slice samplers side by side and returns n draws taken every Thin
// sweeps after BurnIn sweeps, chain-interleaved.
func (p *RatioPosterior) sampleSlice(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	C := min(p.cfg.Chains, n)
	perChain := n / C
	if n%C != 0 {
		perChain++
	}
	if satAdd(p.cfg.BurnIn, satMul(perChain, p.cfg.Thin)) >= maxCount {
		return nil, fmt.Errorf("ratio posterior (mcmc): BurnIn = %d sweeps + %d draws per chain × Thin = %d sweeps each is more than the %d sweeps a run may count: lower BurnIn or Thin (0 for the defaults), or draw fewer samples per chain (raise Chains)",
			p.cfg.BurnIn, perChain, p.cfg.Thin, maxCount-1)
	}
	var tally nanTally
	init, err := p.resampleInit(ctx, rng, C, &tally)
	if err != nil {
		return nil, cancel.Drawn(ctx, err, 0, n)
	}
	logp := func(theta *mat.Dense) []float64 { return p.logProb(theta, &tally) }
	ss := &sliceSampler{logp: logp, x: init, rng: rng, ctx: ctx}
	out, err := ss.run(n, p.cfg.BurnIn, p.cfg.Thin)
	if err == nil {
		tally.warn("mcmc")
		h := ss.health(out)
		if h != nil {
			h.chainsSet = p.cfg.Chains
		}
		p.recordHealth(h, !nested.In(ctx))
	}
	return out, err
}

// initCandidates is the number of prior draws from which each chain's starting point is
// resampled (sbi's num_candidate_samples of init_strategy "resample").
const initCandidates = 10000

// resampleInit picks C starting points, each by sampling-importance-resampling from its own
// initCandidates prior draws weighted by r̂, as sbi's init_strategy "resample" (which calls
// its initializer once per chain). The pools must be separate: chains drawn from one shared
// pool start from the handful of candidates that carry its weight, and where chains do not
// cross between modes, the share of draws in each mode is the share of chains started there.
// It stops between chains once ctx is done, and counts NaN log-weights in tally.
func (p *RatioPosterior) resampleInit(ctx context.Context, rng *rand.Rand, C int, tally *nanTally) (*mat.Dense, error) {
	out := mat.NewDense(C, p.prior.Dim(), nil)
	for c := 0; c < C; c++ {
		if err := cancel.Check(ctx, "mcmc initialization"); err != nil {
			return nil, err
		}
		one, _, err := p.resample(ctx, rng, p.prior.Sample(rng, initCandidates), 1, "mcmc init", tally)
		if err != nil {
			return nil, err
		}
		copy(out.RawRowView(c), one.RawRowView(0))
	}
	return out, nil
}

// resample weights the points cand (rows) by r̂, a NaN log-weight counting as weight zero, and
// draws n of them with replacement. It returns the draws and the cumulative weights; what
// names the caller in errors. It stops between chunks of the evaluation once ctx is done, and
// counts the points and the NaN log-weights in tally.
func (p *RatioPosterior) resample(ctx context.Context, rng *rand.Rand, cand *mat.Dense, n int, what string, tally *nanTally) (*mat.Dense, []float64, error) {
	lw, err := evalChunks(ctx, "ratio posterior ("+what+")", cand, p.logRatio)
	if err != nil {
		return nil, nil, err
	}
	tally.count(len(lw))
	for i := range lw {
		if math.IsNaN(lw[i]) {
			tally.nanAt(cand.RawRowView(i))
			lw[i] = math.Inf(-1)
		}
	}
	cdf, err := cumulativeWeights(lw, cand.RawRowView)
	if err != nil {
		return nil, nil, fmt.Errorf("ratio posterior (%s): %w", what, err)
	}
	_, D := cand.Dims()
	out := mat.NewDense(n, D, nil)
	for i := 0; i < n; i++ {
		copy(out.RawRowView(i), cand.RawRowView(drawIndex(rng, cdf)))
	}
	return out, cdf, nil
}
