package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/draw"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/sat"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// AffineFamily is the family of moment-correcting maps f(θ) = L(θ − μ̂) + μ̂ + b fitted by
// Bayesian score calibration.
type AffineFamily int

const (
	// DiagonalAffine has a diagonal L: each parameter is shifted and rescaled on its own.
	DiagonalAffine AffineFamily = iota
	// LowerTriangularAffine has a lower-triangular L with a positive diagonal: it also
	// introduces or removes correlation between parameters.
	LowerTriangularAffine
)

func (f AffineFamily) String() string {
	if f == LowerTriangularAffine {
		return "lower-triangular"
	}
	return "diagonal"
}

// Refit draws n samples of the approximate posterior fitted to the dataset x. For an amortized
// estimator use RefitAmortized; for a surrogate model, variational fit or sampler, any closure.
// x is a calibration dataset as the simulator returned it: all finite, or, with
// ScoreCalConfig.Padding set, finite before its NaN padding, padding included (the row an
// sbi.AmortizedTrials reads as an observation of fewer trials).
// A Refit that panics (a posterior's Sample does when it cannot be sampled) ends
// ScoreCalibrate with that panic as its error, naming the dataset.
type Refit func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error)

// RefitAmortized is the Refit of an amortized estimator: its posterior for x, sampled.
func RefitAmortized(est sbi.Amortized) Refit {
	return func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return est.Posterior(x).Sample(rng, n), nil
	}
}

// RefitContext is a Refit that takes the context of the calibration that calls it
// (ScoreCalibrateRefitContext): a refit that trains or samples passes ctx on to TrainContext
// or SampleContext, so that the calibration's context stops the refit too, not only the loop
// between refits. ctx is marked as the calibration's (the errors and last progress lines of
// the calls under it say where they stopped, not what they keep): the calibration's error says
// what is kept.
type RefitContext func(ctx context.Context, rng *rand.Rand, x []float64, n int) (*mat.Dense, error)

// RefitAmortizedContext is the RefitContext of an amortized estimator: its posterior for x,
// sampled with SampleContext where the posterior has it (those of package sbi do), else with
// Sample. It draws what RefitAmortized draws.
func RefitAmortizedContext(est sbi.Amortized) RefitContext {
	return func(ctx context.Context, rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		return draw.Context(ctx, est.Posterior(x), rng, n)
	}
}

// ScoreCalConfig sets Bayesian score calibration. The zero value is the paper's default: M =
// 100 datasets, inflation 2, energy score with β = 1, unit weights, diagonal map.
type ScoreCalConfig struct {
	// M is the number of calibration datasets (target simulations and refits), default 100,
	// and N the approximate-posterior draws per dataset in the energy score, default 1000.
	// ScoreCalibrate holds every refit's draws at once, M × N × d values for d parameters,
	// beside the M simulations; sizes whose product an int cannot count are an error.
	M         int
	N         int
	Inflation float64      // scale factor of the importance distribution about the mean; default 2
	Beta      float64      // energy-score exponent in (0, 2); default 1
	Family    AffineFamily // DiagonalAffine (default) or LowerTriangularAffine

	// ImportanceWeights turns on the weights w = π(θ̄)/π̄(θ̄) instead of unit weights (the
	// default, "full clipping", which the paper found most robust). They need LogPrior and
	// LogApprox, and are clipped at their (1 − Clip) quantile, Clip in [0, 1]; Clip = 0 leaves them
	// as they are.
	ImportanceWeights bool
	Clip              float64
	LogPrior          func(theta *mat.Dense) []float64 // log prior density
	LogApprox         func(theta *mat.Dense) []float64 // log density of the approximate posterior for the observed data

	// Penalty λ adds λ(Σ log²Lⱼⱼ + Σ L²ⱼₖ, j > k), shrinking L towards the identity. The
	// objective is a weighted mean over datasets, so λ does not depend on M.
	Penalty float64
	// MeanShift lets the shift depend linearly on the approximate posterior mean,
	// b(μ̂) = b + B(μ̂ − μ̄) with μ̄ the average calibration mean (B diagonal for DiagonalAffine,
	// full otherwise): the data-dependent class (7) of Bon et al. with μ̂ as the estimator. It
	// represents approximations whose mean error grows with the mean, which one shared b cannot.
	// Like every map here it recovers the posterior only where the weights are right: with unit
	// weights the fit targets the posterior under the importance distribution.
	MeanShift bool
	// Scaling multiplies each coordinate before the Euclidean norms of the energy score (one
	// entry per parameter); AutoScale sets it to 1/sd of the calibration posterior means.
	Scaling   []float64
	AutoScale bool

	// Padding reads calibration datasets that end in NaN padding: set it to the estimator the
	// refit samples when that is an sbi.AmortizedTrials, whose observations of fewer trials
	// are padded with NaN trials. A dataset is then kept when its values before the padding
	// are finite (at least one trial), and one whose padding Padding cannot read is an error
	// naming it. Without Padding a dataset holding a NaN or ±Inf is dropped as a failed
	// simulation, padded ones included; the result counts those that end in NaN as padded
	// ones do (DroppedNaNTail) and its String and display say so. The refit receives a kept
	// dataset as simulated.
	Padding Unpadder
}

// Unpadder reads an observation that may end in NaN padding: Unpadded returns its values
// before the padding (none for a failed simulation) and an error for one it cannot read.
// *sbi.AmortizedTrials is one.
type Unpadder interface {
	Unpadded(x []float64) ([]float64, error)
}

func (c ScoreCalConfig) withDefaults() ScoreCalConfig {
	if c.M <= 0 {
		c.M = 100
	}
	if c.N <= 0 {
		c.N = 1000
	}
	if c.Inflation == 0 {
		c.Inflation = 2
	}
	if c.Beta == 0 {
		c.Beta = 1
	}
	return c
}

// ScoreCalibration is a fitted moment-correcting map and its diagnostic.
type ScoreCalibration struct {
	Family AffineFamily
	L      *mat.Dense // d×d, lower triangular (diagonal for DiagonalAffine), positive diagonal
	B      []float64  // shift b
	// ShiftSlope is B of MeanShift (nil without it) and ShiftCentre the μ̄ it is centred on.
	ShiftSlope  *mat.Dense
	ShiftCentre []float64

	ThetaBar *mat.Dense // M×d calibration parameters θ̄ drawn from the importance distribution
	Weights  []float64  // importance weights, max-normalized (all 1 for unit weights)
	Dropped  int        // calibration datasets dropped (non-finite simulations)
	// DroppedNaNTail counts the dropped datasets that end in NaN after finite values, when
	// Padding was not set: observations padded with NaN trials (sbi.AmortizedTrials) do, and so
	// does one whose last value failed. If they are padded, the map was fitted to the
	// datasets of all trials only, and setting ScoreCalConfig.Padding to the estimator keeps
	// them. String and MIMEBundle say so.
	DroppedNaNTail int

	Initial, Objective float64 // negative energy score at the identity map and at the fit
	Iterations         int
	Status             string // the optimizer's stop status

	// Coverage is the calibration diagnostic: marginal coverage of symmetric-tail credible
	// intervals of the adjusted calibration posteriors at θ̄; CoverageBefore is the same for
	// the unadjusted approximate posteriors. Coverage.Coverage[j][l] is the share of the M
	// calibration datasets whose level-l interval of parameter j holds θ̄ⱼ.
	Coverage, CoverageBefore *diag.MarginalResult

	data    *calData
	padding bool // ScoreCalConfig.Padding was set
}

// DiagnosticLevels are the nominal levels of the coverage diagnostic, 0.10, 0.15, …, 0.95.
func DiagnosticLevels() []float64 {
	var l []float64
	for k := 2; k <= 19; k++ {
		l = append(l, float64(k)*0.05)
	}
	return l
}

// calData holds the calibration pairs: for each dataset m its θ̄ₘ, its draws and their mean.
type calData struct {
	thetaBar *mat.Dense
	draws    []*mat.Dense
	means    [][]float64
	weights  []float64
	perm     []int // fixed derangement for the spread term of the energy score
}

// ScoreCalibrate fits a moment-correcting affine map by Bayesian score calibration (Bon et al.,
// Algorithm 1): it draws M parameters θ̄ from the approximate posterior for the observed data
// (obsDraws, one draw per row) inflated about its mean, simulates one dataset for each with the
// target simulator, refits the approximate posterior to each, and maximizes the weighted mean
// energy score of the mapped draws at θ̄ with BFGS. Apply the result with Adjust.
func ScoreCalibrate(rng *rand.Rand, obsDraws *mat.Dense, simulate SimulateFunc, refit Refit, cfg ScoreCalConfig) (*ScoreCalibration, error) {
	return ScoreCalibrateContext(runenv.Context(), rng, obsDraws, simulate, refit, cfg)
}

// MustScoreCalibrate is ScoreCalibrate for notebook cells: it returns the result alone and panics
// with ScoreCalibrate's error.
func MustScoreCalibrate(rng *rand.Rand, obsDraws *mat.Dense, simulate SimulateFunc, refit Refit, cfg ScoreCalConfig) *ScoreCalibration {
	return safe.Must(ScoreCalibrate(rng, obsDraws, simulate, refit, cfg))
}

// ScoreCalibrateContext is ScoreCalibrate stopped by ctx instead of the host's context
// (runenv.Context). ctx stops the loop between refits; a refit that should stop with it takes
// it: see ScoreCalibrateRefitContext. An interrupt's error says how many calibration datasets
// were done and that nothing is kept.
func ScoreCalibrateContext(ctx context.Context, rng *rand.Rand, obsDraws *mat.Dense, simulate SimulateFunc, refit Refit, cfg ScoreCalConfig) (*ScoreCalibration, error) {
	var rc RefitContext
	if refit != nil {
		rc = func(_ context.Context, rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
			return refit(rng, x, n)
		}
	}
	return ScoreCalibrateRefitContext(ctx, rng, obsDraws, simulate, rc, cfg)
}

// ScoreCalibrateRefitContext is ScoreCalibrateContext with a refit that takes ctx (marked as
// the calibration's, see RefitContext), so that an interrupt stops a refit that trains or
// samples, and the error says what is kept (nothing: the call returns only its error).
func ScoreCalibrateRefitContext(ctx context.Context, rng *rand.Rand, obsDraws *mat.Dense, simulate SimulateFunc, refit RefitContext, cfg ScoreCalConfig) (*ScoreCalibration, error) {
	cfg = cfg.withDefaults()
	if simulate == nil || refit == nil {
		return nil, errors.New("calib: ScoreCalibrate needs a simulator and a refit function")
	}
	n0, d := obsDraws.Dims()
	if n0 < 2 {
		return nil, fmt.Errorf("calib: ScoreCalibrate needs at least 2 approximate-posterior draws for the observed data, got %d", n0)
	}
	if sat.Prod(cfg.M, cfg.N, d) >= sat.Max { // M, N ≥ 1, so M·d and N·d fit too
		return nil, fmt.Errorf("calib: ScoreCalibrate: M = %d datasets of N = %d draws of %d parameters are more values than an int can count: use fewer datasets or draws", cfg.M, cfg.N, d)
	}
	if cfg.ImportanceWeights && (cfg.LogPrior == nil || cfg.LogApprox == nil) {
		return nil, errors.New("calib: importance weights need LogPrior and LogApprox; set them or use unit weights (ImportanceWeights false)")
	}
	if cfg.Inflation <= 0 {
		return nil, fmt.Errorf("calib: inflation must be positive, got %g", cfg.Inflation)
	}
	if cfg.ImportanceWeights && !(cfg.Clip >= 0 && cfg.Clip <= 1) {
		return nil, fmt.Errorf("calib: Clip = %v; want the share of importance weights to clip, in [0, 1]", cfg.Clip)
	}

	// Step 1: θ̄ = D(θ' − μ̂) + μ̂ with θ' drawn from the observed approximate posterior.
	mu := colMeans(obsDraws)
	src := mat.NewDense(cfg.M, d, nil)
	idx := rng.Perm(n0)
	for m := range cfg.M {
		i := idx[m%n0]
		if cfg.M > n0 {
			i = rng.IntN(n0)
		}
		src.SetRow(m, obsDraws.RawRowView(i))
	}
	thetaBar := mat.NewDense(cfg.M, d, nil)
	for m := range cfg.M {
		for j := range d {
			thetaBar.Set(m, j, cfg.Inflation*(src.At(m, j)-mu[j])+mu[j])
		}
	}
	// Step 3: log weights log π(θ̄) − log π̄(θ̄), with log π̄(θ̄) = log q̂(θ'|y) − d log D.
	logw := make([]float64, cfg.M)
	if cfg.ImportanceWeights {
		lp := cfg.LogPrior(thetaBar)
		lq := cfg.LogApprox(src)
		if len(lp) != cfg.M || len(lq) != cfg.M {
			return nil, fmt.Errorf("calib: LogPrior and LogApprox returned %d and %d values for %d calibration parameters; want one per row", len(lp), len(lq), cfg.M)
		}
		for m := range logw {
			if math.IsNaN(lp[m]) || math.IsInf(lp[m], 1) {
				return nil, fmt.Errorf("calib: LogPrior is %v at calibration parameter %d (%v); want a log density below +Inf", lp[m], m, thetaBar.RawRowView(m))
			}
			if math.IsNaN(lq[m]) || math.IsInf(lq[m], 0) {
				return nil, fmt.Errorf("calib: LogApprox is %v at observed draw %v; want a finite log density at the approximate posterior's own draws", lq[m], src.RawRowView(m))
			}
			logw[m] = lp[m] - (lq[m] - float64(d)*math.Log(cfg.Inflation))
		}
		if err := positiveLogWeight(logw); err != nil {
			return nil, err
		}
	}
	// Step 2 and 4: simulate and refit.
	x, err := simulateRows(rng, simulate, thetaBar, "calib: ScoreCalibrate", "the calibration datasets")
	if err != nil {
		return nil, err
	}
	p := sbi.NewProgress("score calibration refits", cfg.M)
	done := 0 // calibration datasets refitted or left out
	stop := func(err error) error {
		if cancel.Stopped(ctx, err) {
			err = fmt.Errorf("calib: score calibration %s: %w", cancel.Note(done, cfg.M, "calibration datasets", cancel.Kept(ctx, cancel.NothingKept)), err)
		}
		return cancel.FinishProgress(ctx, p, err, done, cfg.M, "calibration datasets")
	}
	inner := cancel.CallerKeeps(ctx) // the refits' context: this call's error says what is kept
	cal := &calData{}
	dropped, nanTail := 0, 0
	var keepTheta [][]float64
	var keepLogw []float64
	for m := range cfg.M {
		done = m
		if err := cancel.Check(ctx, "score calibration"); err != nil {
			return nil, stop(err)
		}
		ok, err := pairs.Readable(cfg.Padding, x.RawRowView(m))
		if err != nil {
			return nil, stop(fmt.Errorf("calib: calibration dataset %d: %w", m, err))
		}
		if !ok {
			dropped++
			if cfg.Padding == nil && endsInNaN(x.RawRowView(m)) {
				nanTail++
			}
			p.Add(1)
			continue
		}
		var dr *mat.Dense
		err = safe.Call("the refit", func() (err error) {
			dr, err = refit(inner, rng, x.RawRowView(m), cfg.N)
			return err
		})
		if err != nil {
			return nil, stop(fmt.Errorf("calib: refit to calibration dataset %d: %w", m, err))
		}
		if r, c := dr.Dims(); r < 2 || c != d {
			return nil, stop(fmt.Errorf("calib: refit to calibration dataset %d returned %d×%d draws, want at least 2×%d", m, r, c, d))
		}
		cal.draws = append(cal.draws, dr)
		keepTheta = append(keepTheta, thetaBar.RawRowView(m))
		keepLogw = append(keepLogw, logw[m])
		p.Add(1)
	}
	p.Finish()
	if len(cal.draws) < 2 {
		hint := ""
		switch {
		case nanTail > 0:
			hint = fmt.Sprintf("; %d of the %d dropped %s", nanTail, dropped, nanTailNote)
		case cfg.Padding == nil:
			hint = "; for observations padded with NaN trials (sbi.AmortizedTrials) set ScoreCalConfig.Padding to the estimator"
		}
		return nil, fmt.Errorf("calib: only %d of %d calibration datasets were usable; check the simulator%s", len(cal.draws), cfg.M, hint)
	}
	cal.thetaBar = mat.NewDense(len(keepTheta), d, nil)
	for m, r := range keepTheta {
		cal.thetaBar.SetRow(m, r)
	}
	if cfg.ImportanceWeights {
		if err := positiveLogWeight(keepLogw); err != nil {
			return nil, err
		}
	}
	cal.weights = clipWeights(keepLogw, cfg.ImportanceWeights, cfg.Clip)
	res, err := fitAffine(rng, cal, cfg)
	if err != nil {
		return nil, err
	}
	res.Dropped, res.DroppedNaNTail = dropped, nanTail
	res.padding = cfg.Padding != nil
	return res, nil
}

// FitAffine fits the moment-correcting map to calibration data made elsewhere: thetaBar (M×d)
// holds the data-generating parameters, draws[m] the approximate-posterior draws for dataset m,
// weights the importance weights (nil for unit weights), finite, ≥ 0 and not all 0. The
// sampling fields of cfg are ignored. Draws without spread in some parameter in every dataset
// are an error (here and in ScoreCalibrate): they leave the map's scale for it undetermined.
func FitAffine(rng *rand.Rand, thetaBar *mat.Dense, draws []*mat.Dense, weights []float64, cfg ScoreCalConfig) (*ScoreCalibration, error) {
	cfg = cfg.withDefaults()
	m, d := thetaBar.Dims()
	if m == 0 {
		return nil, errors.New("calib: FitAffine needs at least one calibration dataset, got none")
	}
	if len(draws) != m {
		return nil, fmt.Errorf("calib: %d calibration parameters but %d sets of draws; want one set per row of thetaBar", m, len(draws))
	}
	for i, dr := range draws {
		if r, c := dr.Dims(); r < 2 || c != d {
			return nil, fmt.Errorf("calib: draws[%d] is %d×%d, want at least 2×%d", i, r, c, d)
		}
	}
	w := weights
	if w == nil {
		w = make([]float64, m)
		for i := range w {
			w[i] = 1
		}
	} else if len(w) != m {
		return nil, fmt.Errorf("calib: %d weights for %d datasets", len(w), m)
	}
	return fitAffine(rng, &calData{thetaBar: thetaBar, draws: draws, weights: w}, cfg)
}

// MustFitAffine is FitAffine for notebook cells: it returns the result alone and panics with
// FitAffine's error.
func MustFitAffine(rng *rand.Rand, thetaBar *mat.Dense, draws []*mat.Dense, weights []float64, cfg ScoreCalConfig) *ScoreCalibration {
	return safe.Must(FitAffine(rng, thetaBar, draws, weights, cfg))
}

func fitAffine(rng *rand.Rand, cal *calData, cfg ScoreCalConfig) (*ScoreCalibration, error) {
	if cfg.Beta <= 0 || cfg.Beta >= 2 {
		return nil, fmt.Errorf("calib: energy-score exponent beta must be in (0, 2), got %g", cfg.Beta)
	}
	var wsum float64
	for m, w := range cal.weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("calib: importance weight %d is %v; weights must be finite and ≥ 0", m, w)
		}
		wsum += w
	}
	if wsum == 0 {
		return nil, errors.New("calib: every importance weight is 0; at least one calibration dataset needs a positive weight")
	}
	M, d := cal.thetaBar.Dims()
	n := cfg.N
	for m := range cal.draws {
		r, _ := cal.draws[m].Dims()
		n = min(n, r)
	}
	for m := range cal.draws {
		cal.draws[m] = cal.draws[m].Slice(0, n, 0, d).(*mat.Dense)
	}
	if j := noSpread(cal.draws); j >= 0 {
		return nil, fmt.Errorf("calib: the approximate-posterior draws of every calibration dataset have no spread in parameter %d, so the map's scale for it (column %d of L) cannot be fitted; does the refit return one point repeated?", j, j)
	}
	cal.means = make([][]float64, M)
	for m := range M {
		cal.means[m] = colMeans(cal.draws[m])
	}
	// One fixed derangement (a cyclic shift along a random permutation): a deterministic
	// objective for BFGS, and no zero-distance pairs in the spread term.
	perm := rng.Perm(n)
	cal.perm = make([]int, n)
	for t := range n {
		cal.perm[perm[t]] = perm[(t+1)%n]
	}
	scale := cfg.Scaling
	if cfg.AutoScale {
		scale = make([]float64, d)
		for j := range d {
			col := make([]float64, M)
			for m := range M {
				col[m] = cal.means[m][j]
			}
			_, sd := meanSD(col)
			scale[j] = 1
			if sd > 0 {
				scale[j] = 1 / sd
			}
		}
	}
	if scale != nil && len(scale) != d {
		return nil, fmt.Errorf("calib: Scaling has %d entries, want %d (one per parameter)", len(scale), d)
	}
	obj := &energyObjective{cal: cal, d: d, n: n, beta: cfg.Beta, family: cfg.Family, penalty: cfg.Penalty, scale: scale}
	if cfg.MeanShift {
		obj.centre = make([]float64, d)
		for m := range M {
			for j := range d {
				obj.centre[j] += cal.means[m][j] / float64(M)
			}
		}
	}
	x0 := make([]float64, obj.nParams())
	initial := obj.value(x0, nil)
	// BFGS asks for the value and then the gradient at the same point: compute both at once.
	var lastX, lastG []float64
	var lastF float64
	eval := func(x []float64) {
		if lastX != nil && floats.Equal(lastX, x) {
			return
		}
		lastX = append(lastX[:0], x...)
		lastG = make([]float64, len(x))
		lastF = obj.value(x, lastG)
	}
	problem := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return lastF },
		Grad: func(g, x []float64) { eval(x); copy(g, lastG) },
	}
	// Stop when the objective changes by less than 1e-7 (relative) over 3 iterations, like the
	// authors' f_tol; the Monte Carlo objective is only piecewise smooth, so a tight gradient
	// threshold ends in line-search failures instead.
	settings := &optimize.Settings{
		GradientThreshold: 1e-9,
		MajorIterations:   500,
		Converger:         &optimize.FunctionConverge{Relative: 1e-7, Iterations: 3},
	}
	res, err := optimize.Minimize(problem, x0, settings, &optimize.BFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("calib: energy-score optimization: %w", err)
	}
	L, b, slope := obj.unpack(res.X)
	sc := &ScoreCalibration{
		Family: cfg.Family, L: L, B: b, ShiftSlope: slope, ShiftCentre: obj.centre,
		ThetaBar: cal.thetaBar, Weights: cal.weights,
		Initial: initial, Objective: res.F, Iterations: res.MajorIterations, Status: res.Status.String(),
		data: cal,
	}
	if math.IsNaN(initial) || math.IsInf(initial, 0) || math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, fmt.Errorf("calib: energy-score optimization: the objective is not finite (%g at the identity map, %g at the fit); the calibration draws or parameters hold values whose distances overflow float64 (largest magnitude %g): rescale θ first", initial, res.F, largestMagnitude(cal))
	}
	if res.F > initial {
		return nil, fmt.Errorf("calib: energy-score optimization failed (status %v, objective %g from %g); check the calibration draws", res.Status, res.F, initial)
	}
	// The first steps of the map's shift are of order 1 (the score's gradient in the shift is a
	// mean of unit vectors); beyond 2⁵³ they vanish in θ's rounding, BFGS ends at once with
	// Failure and the identity map is returned unfitted. Below that scale the same status with
	// an unchanged objective is a failed first line search at a map already near the optimum
	// (the Monte Carlo objective is piecewise smooth), and the identity map is the fit.
	if m := largestMagnitude(cal); res.Status == optimize.Failure && res.F == initial && m > 1<<53 {
		return nil, fmt.Errorf("calib: energy-score optimization could not move from the identity map (status %v, objective %g unchanged): the calibration draws or parameters reach %g, beyond 2⁵³, where the optimizer's steps of the map's shift vanish in θ's rounding: rescale θ to order 1 first", res.Status, initial, m)
	}
	levels := DiagnosticLevels()
	sc.Coverage = sc.coverage(levels, sc)
	id := mat.NewDense(d, d, nil)
	for j := range d {
		id.Set(j, j, 1)
	}
	sc.CoverageBefore = sc.coverage(levels, &ScoreCalibration{L: id, B: make([]float64, d)})
	return sc, nil
}

// Adjust maps draws of the approximate posterior for the observed data: f(θ) = L(θ − μ̂) + μ̂ + b,
// with μ̂ the mean of the draws.
func (s *ScoreCalibration) Adjust(draws *mat.Dense) *mat.Dense {
	n, d := draws.Dims()
	if d != len(s.B) {
		panic(fmt.Sprintf("calib: Adjust got draws with %d columns, want %d", d, len(s.B)))
	}
	return s.apply(draws, colMeans(draws), mat.NewDense(n, d, nil))
}

// apply maps draws with mean mu into out.
func (s *ScoreCalibration) apply(draws *mat.Dense, mu []float64, out *mat.Dense) *mat.Dense {
	b := append([]float64(nil), s.B...)
	if s.ShiftSlope != nil {
		for j := range b {
			for k := range b {
				b[j] += s.ShiftSlope.At(j, k) * (mu[k] - s.ShiftCentre[k])
			}
		}
	}
	return affineMap(draws, mu, s.L, b, out)
}

func affineMap(draws *mat.Dense, mu []float64, L *mat.Dense, b []float64, out *mat.Dense) *mat.Dense {
	n, d := draws.Dims()
	for i := range n {
		row := draws.RawRowView(i)
		o := out.RawRowView(i)
		for j := range d {
			v := mu[j] + b[j]
			for k := 0; k <= j; k++ {
				v += L.At(j, k) * (row[k] - mu[k])
			}
			o[j] = v
		}
	}
	return out
}

func (s *ScoreCalibration) coverage(levels []float64, f *ScoreCalibration) *diag.MarginalResult {
	M, d := s.data.thetaBar.Dims()
	cov := make([][]float64, len(levels))
	for l := range cov {
		cov[l] = make([]float64, d)
	}
	col := make([]float64, 0)
	for m := range M {
		dr := s.data.draws[m]
		n, _ := dr.Dims()
		adj := f.apply(dr, s.data.means[m], mat.NewDense(n, d, nil))
		for j := range d {
			col = col[:0]
			for i := range n {
				col = append(col, adj.At(i, j))
			}
			sort.Float64s(col)
			t := s.data.thetaBar.At(m, j)
			for l, rho := range levels {
				lo := quantile.Sorted(col, (1-rho)/2)
				hi := quantile.Sorted(col, (1+rho)/2)
				if t >= lo && t <= hi {
					cov[l][j] += 1 / float64(M)
				}
			}
		}
	}
	r := &diag.MarginalResult{N: M, Levels: levels, Coverage: make([][]float64, d)}
	for j := range d {
		r.Coverage[j] = make([]float64, len(levels))
		for l := range levels {
			r.Coverage[j][l] = cov[l][j]
		}
	}
	r.Lower, r.Upper = diag.BinomialBand(M, levels, diag.DefaultConfidence)
	return r
}

// MIMEBundle shows the map and the coverage diagnostic at a few levels.
func (s *ScoreCalibration) MIMEBundle() map[string]any {
	d := len(s.B)
	t := &table.Table{Title: s.title()}
	t.Header = []string{"level"}
	for j := range d {
		t.Header = append(t.Header, fmt.Sprintf("θ%d before", j), fmt.Sprintf("θ%d after", j))
	}
	shown := func(rho float64) bool {
		for _, v := range []float64{0.5, 0.8, 0.9, 0.95} {
			if math.Abs(rho-v) < 1e-9 {
				return true
			}
		}
		return false
	}
	for l, rho := range s.Coverage.Levels {
		if !shown(rho) {
			continue
		}
		row := []string{fmt.Sprintf("%.2f", rho)}
		for j := range d {
			row = append(row, fmt.Sprintf("%.3f", s.CoverageBefore.Coverage[j][l]), fmt.Sprintf("%.3f", s.Coverage.Coverage[j][l]))
		}
		t.Add(row...)
	}
	var lrows []string
	for j := range d {
		var r []string
		for k := 0; k <= j; k++ {
			r = append(r, table.G(s.L.At(j, k)))
		}
		lrows = append(lrows, strings.Join(r, " "))
	}
	t.Notes = append(t.Notes,
		"L = ["+strings.Join(lrows, "; ")+"], b = "+fmt.Sprint(roundAll(s.B)),
		"coverage: fraction of calibration datasets whose central interval holds θ̄ (in-sample)",
		s.fitNote())
	if s.ShiftSlope != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("mean-dependent shift slope B = %v", roundAll(s.ShiftSlope.RawMatrix().Data)))
	}
	if s.Dropped > 0 {
		t.Notes = append(t.Notes, s.droppedNote())
	}
	return t.Bundle()
}

// String is a text summary: the map's fit and the datasets dropped.
func (s *ScoreCalibration) String() string {
	out := s.title() + ": " + s.fitNote()
	if s.Dropped > 0 {
		out += "; " + s.droppedNote()
	}
	return out
}

// title is the first words of String and the title of MIMEBundle's table.
func (s *ScoreCalibration) title() string {
	return fmt.Sprintf("Bayesian score calibration (%s map, %d datasets)", s.Family, len(s.Weights))
}

// fitNote says how the map's fit went.
func (s *ScoreCalibration) fitNote() string {
	return fmt.Sprintf("negative energy score %.4g → %.4g (%d BFGS iterations, %s)", s.Initial, s.Objective, s.Iterations, s.Status)
}

// nanTailNote follows a count of dropped datasets that end in NaN after finite values: it
// says so, without claiming they are padded (one NaN at the end may be a failed summary), and
// what keeps them if they are.
const nanTailNote = "end in NaN after finite values: if that NaN pads observations of fewer trials (sbi.AmortizedTrials), set ScoreCalConfig.Padding to the estimator the refit samples to keep them"

// droppedNote says how many calibration datasets were dropped and why; where some of them end
// in NaN and Padding was not set, how many and what to do if that is padding.
func (s *ScoreCalibration) droppedNote() string {
	switch {
	case s.padding:
		return fmt.Sprintf("%d calibration datasets dropped (non-finite before their padding)", s.Dropped)
	case s.DroppedNaNTail > 0:
		return fmt.Sprintf("%d calibration datasets dropped (non-finite simulations; the map is fitted to the other datasets only), %d of them %s",
			s.Dropped, s.DroppedNaNTail, nanTailNote)
	}
	return fmt.Sprintf("%d calibration datasets dropped (non-finite simulations; padded ones are kept with ScoreCalConfig.Padding set)", s.Dropped)
}

// endsInNaN reports whether x is finite up to a run of NaN at its end, as an observation
// padded with NaN trials is (and one whose last value failed): at least one finite value
// first, NaN from there on.
func endsInNaN(x []float64) bool {
	k := len(x)
	for k > 0 && math.IsNaN(x[k-1]) {
		k--
	}
	return k > 0 && k < len(x) && pairs.AllFinite(x[:k])
}

// energyObjective is the negative weighted mean energy score of the mapped draws (Bon et al.,
// eq. 4–5, minimized as in their code) plus the penalty:
//
//	F = Σₘ wₘ/Σw · (1/N) Σᵢ [ ‖S(uₘᵢ − θ̄ₘ)‖^β − ½ ‖S(uₘᵢ − uₘ,ₖᵢ)‖^β ] + λ(Σ log²Lⱼⱼ + Σ L²ⱼₖ),
//
// uₘᵢ = L(θ̂ₘᵢ − μ̂ₘ) + μ̂ₘ + b, S = diag(scale), k a fixed derangement.
type energyObjective struct {
	cal     *calData
	d, n    int
	beta    float64
	family  AffineFamily
	penalty float64
	scale   []float64
	centre  []float64 // μ̄ of MeanShift; nil without it
}

func (o *energyObjective) nParams() int {
	p := 2 * o.d
	if o.family == LowerTriangularAffine {
		p = o.d*(o.d+1)/2 + o.d
	}
	return p + o.nSlope()
}

func (o *energyObjective) nSlope() int {
	switch {
	case o.centre == nil:
		return 0
	case o.family == LowerTriangularAffine:
		return o.d * o.d
	default:
		return o.d
	}
}

// unpack reads x = [log L₁₁, (L₂₁, log L₂₂), (L₃₁, L₃₂, log L₃₃), …, b] (lower-triangular) or
// [log L₁₁ … log L_dd, b] (diagonal), followed with MeanShift by the slope B (row-major, or its
// diagonal). The zero vector is the identity map.
func (o *energyObjective) unpack(x []float64) (*mat.Dense, []float64, *mat.Dense) {
	d := o.d
	L := mat.NewDense(d, d, nil)
	p := 0
	for j := range d {
		if o.family == LowerTriangularAffine {
			for k := range j {
				L.Set(j, k, x[p])
				p++
			}
		}
		L.Set(j, j, math.Exp(x[p]))
		p++
	}
	b := append([]float64(nil), x[p:p+d]...)
	p += d
	if o.centre == nil {
		return L, b, nil
	}
	B := mat.NewDense(d, d, nil)
	for j := range d {
		if o.family == LowerTriangularAffine {
			for k := range d {
				B.Set(j, k, x[p])
				p++
			}
		} else {
			B.Set(j, j, x[p])
			p++
		}
	}
	return L, b, B
}

// value returns F(x) and, when grad is not nil, writes ∂F/∂x into it. With g = β‖v‖^{β−2} S v
// the gradient of ‖Sv‖^β in v, ∂/∂Lⱼₖ = gⱼ eₖ for the target term (e = θ̂ − μ̂) and −½ gⱼ Δeₖ
// for the spread term; ∂/∂b = g; the diagonal is parameterized by its log (chain rule · Lⱼⱼ).
func (o *energyObjective) value(x, grad []float64) float64 {
	d, n := o.d, o.n
	L, b0, B := o.unpack(x)
	Lr := L.RawMatrix()
	gL := make([]float64, d*d)
	gB := make([]float64, d*d)
	gb := make([]float64, d)
	gbm := make([]float64, d)
	b := make([]float64, d)
	var wsum, total float64
	e := make([]float64, d)
	de := make([]float64, d)
	v := make([]float64, d)
	for m, dr := range o.cal.draws {
		w := o.cal.weights[m]
		if w == 0 {
			continue
		}
		wsum += w
		mu := o.cal.means[m]
		tb := o.cal.thetaBar.RawRowView(m)
		c := w / float64(n)
		copy(b, b0)
		if B != nil {
			for j := range d {
				for k := range d {
					b[j] += B.At(j, k) * (mu[k] - o.centre[k])
				}
			}
		}
		clear(gbm)
		var sum float64
		for i := range n {
			row := dr.RawRowView(i)
			other := dr.RawRowView(o.cal.perm[i])
			for j := range d {
				e[j] = row[j] - mu[j]
				de[j] = row[j] - other[j]
			}
			// Target term: v = L e + μ̂ + b − θ̄.
			for j := range d {
				s := mu[j] + b[j] - tb[j]
				for k := 0; k <= j; k++ {
					s += Lr.Data[j*Lr.Stride+k] * e[k]
				}
				v[j] = s
			}
			sum += o.normTerm(v, grad != nil, c, e, gL, gbm, 1)
			// Spread term: v = L Δe.
			for j := range d {
				var s float64
				for k := 0; k <= j; k++ {
					s += Lr.Data[j*Lr.Stride+k] * de[k]
				}
				v[j] = s
			}
			sum -= 0.5 * o.normTerm(v, grad != nil, c, de, gL, nil, -0.5)
		}
		total += w * sum / float64(n)
		for j := range d {
			gb[j] += gbm[j]
			for k := range d {
				gB[j*d+k] += gbm[j] * (mu[k] - o.centre0(k))
			}
		}
	}
	total /= wsum
	// Penalty on log-diagonals and off-diagonals.
	var pen float64
	p := 0
	for j := range d {
		if o.family == LowerTriangularAffine {
			for range j {
				pen += x[p] * x[p]
				p++
			}
		}
		pen += x[p] * x[p]
		p++
	}
	total += o.penalty * pen
	if grad != nil {
		p := 0
		for j := range d {
			if o.family == LowerTriangularAffine {
				for k := range j {
					grad[p] = gL[j*d+k]/wsum + 2*o.penalty*x[p]
					p++
				}
			}
			grad[p] = gL[j*d+j]/wsum*Lr.Data[j*Lr.Stride+j] + 2*o.penalty*x[p]
			p++
		}
		for j := range d {
			grad[p+j] = gb[j] / wsum
		}
		p += d
		if B != nil {
			for j := range d {
				if o.family == LowerTriangularAffine {
					for k := range d {
						grad[p] = gB[j*d+k] / wsum
						p++
					}
				} else {
					grad[p] = gB[j*d+j] / wsum
					p++
				}
			}
		}
	}
	return total
}

func (o *energyObjective) centre0(k int) float64 {
	if o.centre == nil {
		return 0
	}
	return o.centre[k]
}

// normTerm returns ‖S v‖^β and, when want is set, adds sign·c·g eᵀ to gL (lower triangle) and
// sign·c·g to gb, where g = β‖Sv‖^{β−2} S² v.
func (o *energyObjective) normTerm(v []float64, want bool, c float64, e, gL, gb []float64, sign float64) float64 {
	var r2 float64
	for j, a := range v {
		if o.scale != nil {
			a *= o.scale[j]
		}
		r2 += a * a
	}
	if r2 < minPlainSq || math.IsInf(r2, 1) {
		return o.scaledNormTerm(v, want, c, e, gL, gb, sign)
	}
	r := math.Sqrt(r2)
	val := r
	if o.beta != 1 {
		val = math.Pow(r, o.beta)
	}
	if !want {
		return val
	}
	f := sign * c * o.beta * val / r2
	for j := range o.d {
		g := f * v[j]
		if o.scale != nil {
			g *= o.scale[j] * o.scale[j]
		}
		o.addGradient(j, g, e, gL, gb)
	}
	return val
}

// addGradient adds g eᵀ to row j of gL (its lower triangle) and g to gb[j] (when gb is set):
// the gradient of a norm term in the map's L and b for the component j of its gradient g.
func (o *energyObjective) addGradient(j int, g float64, e, gL, gb []float64) {
	for k := 0; k <= j; k++ {
		gL[j*o.d+k] += g * e[k]
	}
	if gb != nil {
		gb[j] += g
	}
}

// minPlainSq is the smallest sum of squares whose square root keeps full precision: below it
// squares of the components may be subnormal or 0 and lose digits (2⁻⁹⁶⁹ = 2⁵³ times the
// smallest normal float64). normTerm and euclidean then compute the norm scaled by the largest
// component, as they do when the sum overflows to +Inf; ordinary norms take the plain sum.
const minPlainSq = 0x1p-969

// scaledNormTerm is normTerm for a vector whose plain sum of squares underflows or overflows:
// ‖Sv‖ scaled by its largest component, and the gradient as β‖Sv‖^{β−1}·(Sv/‖Sv‖)·S, whose
// factors stay finite.
func (o *energyObjective) scaledNormTerm(v []float64, want bool, c float64, e, gL, gb []float64, sign float64) float64 {
	sv := func(j int) float64 {
		if o.scale != nil {
			return v[j] * o.scale[j]
		}
		return v[j]
	}
	r := scaledNorm(len(v), sv)
	if r == 0 {
		return 0
	}
	val := r
	if o.beta != 1 {
		val = math.Pow(r, o.beta)
	}
	if !want {
		return val
	}
	f := sign * c * o.beta * val / r
	for j := range o.d {
		g := f * (sv(j) / r)
		if o.scale != nil {
			g *= o.scale[j]
		}
		o.addGradient(j, g, e, gL, gb)
	}
	return val
}

// scaledNorm returns √Σⱼ a(j)² over j < n, computed as m·√Σⱼ (a(j)/m)² with m the largest
// |a(j)|, so that the squares neither underflow nor overflow. It is +Inf when a component is,
// and NaN when one is NaN.
func scaledNorm(n int, a func(j int) float64) float64 {
	var m float64
	for j := range n {
		m = max(m, math.Abs(a(j)))
	}
	if m == 0 || math.IsInf(m, 1) || math.IsNaN(m) {
		return m
	}
	var s float64
	for j := range n {
		q := a(j) / m
		s += q * q
	}
	return m * math.Sqrt(s)
}

// EnergyScore is the positively oriented energy score S(U, θ) = ½ E‖u − u'‖^β − E‖u − θ‖^β of
// the sample draws (one per row) at theta (Bon et al., eq. 4), estimated over all pairs.
func EnergyScore(draws *mat.Dense, theta []float64, beta float64) float64 {
	n, d := draws.Dims()
	if len(theta) != d {
		panic(fmt.Sprintf("calib: EnergyScore theta has %d entries, want %d", len(theta), d))
	}
	var a, s float64
	for i := range n {
		ri := draws.RawRowView(i)
		a += math.Pow(euclidean(ri, theta), beta)
		for k := i + 1; k < n; k++ {
			s += math.Pow(euclidean(ri, draws.RawRowView(k)), beta)
		}
	}
	return s/float64(n*(n-1)) - a/float64(n)
}

// euclidean returns ‖a − b‖, scaled where the plain sum of squares would lose its digits to
// underflow or overflow (minPlainSq).
func euclidean(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	if s < minPlainSq || math.IsInf(s, 1) {
		return scaledNorm(len(a), func(i int) float64 { return a[i] - b[i] })
	}
	return math.Sqrt(s)
}

// positiveLogWeight is an error when every log weight is −Inf: the prior density is zero at
// every calibration parameter.
func positiveLogWeight(logw []float64) error {
	for _, v := range logw {
		if !math.IsInf(v, -1) {
			return nil
		}
	}
	return fmt.Errorf("calib: LogPrior is −Inf at all %d calibration parameters, so every importance weight is 0: the inflated approximate posterior lies outside the prior's support (lower Inflation, or check LogPrior)", len(logw))
}

// clipWeights turns log weights into max-normalized weights clipped at their (1 − clip)
// quantile (Bon et al., eq. 9); without importance weights all weights are 1.
func clipWeights(logw []float64, use bool, clip float64) []float64 {
	w := make([]float64, len(logw))
	if !use || clip >= 1 {
		for i := range w {
			w[i] = 1
		}
		return w
	}
	s := append([]float64(nil), logw...)
	sort.Float64s(s)
	ceiling := quantile.Sorted(s, 1-clip)
	top := math.Inf(-1)
	for _, v := range logw {
		top = math.Max(top, math.Min(v, ceiling))
	}
	for i, v := range logw {
		w[i] = math.Exp(math.Min(v, ceiling) - top)
	}
	return w
}

// noSpread returns a parameter j whose draws are equal within every set of draws, or −1. The
// objective does not depend on column j of L then: its entries would stay at the identity.
func noSpread(draws []*mat.Dense) int {
	_, d := draws[0].Dims()
	for j := range d {
		spread := false
		for _, dr := range draws {
			n, _ := dr.Dims()
			for i := 1; i < n && !spread; i++ {
				spread = dr.At(i, j) != dr.At(0, j)
			}
			if spread {
				break
			}
		}
		if !spread {
			return j
		}
	}
	return -1
}

func colMeans(a *mat.Dense) []float64 {
	n, d := a.Dims()
	mu := make([]float64, d)
	for i := range n {
		for j, v := range a.RawRowView(i) {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	return mu
}

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, a := range v {
		out[i] = math.Round(a*1e4) / 1e4
	}
	return out
}

// largestMagnitude is the largest |value| among the calibration parameters and draws.
func largestMagnitude(cal *calData) float64 {
	m := maxAbs(cal.thetaBar)
	for _, d := range cal.draws {
		m = math.Max(m, maxAbs(d))
	}
	return m
}

func maxAbs(a *mat.Dense) float64 {
	var m float64
	r, _ := a.Dims()
	for i := range r {
		for _, v := range a.RawRowView(i) {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}
