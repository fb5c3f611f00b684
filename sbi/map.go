package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// MAPConfig sets how MAP searches for the mode of a posterior. Zero fields take the defaults:
// 1000 draws, the 10 of highest density as starts (as sbi's posterior.map, which optimises
// 100 of 1000), seed 0, and at most 2000 evaluations of the log-density per start.
type MAPConfig struct {
	Draws       int    // posterior draws among which the starts are chosen; 0 means 1000
	Starts      int    // local optimisations, from the draws of highest density; 0 means 10
	Seed        uint64 // seeds the draws
	Evaluations int    // most log-density evaluations of one local optimisation; 0 means 2000
}

func (c MAPConfig) withDefaults() MAPConfig {
	if c.Draws == 0 {
		c.Draws = 1000
	}
	if c.Starts == 0 {
		c.Starts = 10
	}
	if c.Evaluations == 0 {
		c.Evaluations = 2000
	}
	return c
}

func (c MAPConfig) validate() error {
	if c.Draws < 1 || c.Starts < 1 || c.Evaluations < 1 || c.Starts > c.Draws {
		return fmt.Errorf("MAP: Draws = %d, Starts = %d, Evaluations = %d, expected each ≥ 1 and Starts ≤ Draws (0 takes the default)", c.Draws, c.Starts, c.Evaluations)
	}
	return nil
}

// MAP returns the maximum a posteriori estimate of p: the θ of highest LogProb. It draws
// cfg.Draws points from p, starts a local optimisation (Nelder–Mead, package
// gonum/optimize, in coordinates scaled by the draws' standard deviations) from each of the
// cfg.Starts draws of highest density, and returns the best point found. The local searches
// run in parallel; each stops when the log-density no longer improves by 10⁻¹⁰ over 100
// iterations or after cfg.Evaluations evaluations. Like any multi-start search it finds the
// global mode when some start lies in its basin: a posterior with many separated modes may
// need more draws and starts, and the answer may be a local mode when no start lay in the
// global one's basin. When two searches end more than 0.1 draw standard deviations apart with
// the same highest log-density (within 10⁻⁶ of it, relative where |log-density| > 1), the posterior has no unique mode (a flat
// top, modes of equal height) and MAP returns an error saying so ("MAP inconclusive"). It returns an error when p cannot be sampled (an untrained
// estimator, a non-finite observation), when no draw has a finite density, when p's LogProb
// panics (the error names θ and the panic), or when the host's context is cancelled.
func MAP(p Posterior, cfg MAPConfig) ([]float64, error) {
	return MAPContext(runenv.Context(), p, cfg)
}

// MustMAP is MAP for notebook cells: it returns the estimate and panics with MAP's error.
func MustMAP(p Posterior, cfg MAPConfig) []float64 {
	v, err := MAP(p, cfg)
	if err != nil {
		panic(err)
	}
	return v
}

// MAPContext is MAP stopped by ctx instead of the host's context.
func MAPContext(ctx context.Context, p Posterior, cfg MAPConfig) ([]float64, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	var out []float64
	err := safe.Call("MAP", func() (err error) {
		out, err = findMAP(ctx, p, cfg)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// findMAP implements MAPContext.
func findMAP(ctx context.Context, p Posterior, cfg MAPConfig) ([]float64, error) {
	draws, err := sampleContext(ctx, p, rand.New(rand.NewPCG(cfg.Seed, 0x6d6170)), cfg.Draws)
	if err != nil {
		return nil, fmt.Errorf("MAP: drawing the starts: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("MAP interrupted: %w", err)
	}
	n, D := draws.Dims()
	lp := p.LogProb(draws)
	order := make([]int, 0, n)
	for i, v := range lp {
		if math.IsInf(v, 1) {
			return nil, infiniteDensityError(draws.RawRowView(i))
		}
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("MAP: none of the %d draws has a finite log-density", n)
	}
	sort.SliceStable(order, func(a, b int) bool { return lp[order[a]] > lp[order[b]] })
	starts := order[:min(cfg.Starts, len(order))]
	scale := drawScales(draws)

	best := make([][]float64, len(starts))
	bestLP := make([]float64, len(starts))
	errs := make([]error, len(starts))
	parallelChunks(len(starts), 1, func(k, _, _ int) {
		best[k], bestLP[k], errs[k] = localMode(ctx, p, draws.RawRowView(starts[k]), lp[starts[k]], scale, cfg.Evaluations)
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("MAP interrupted: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("MAP: %w", err)
	}
	k := 0
	for j := range bestLP {
		if bestLP[j] > bestLP[k] {
			k = j
		}
	}
	if len(best[k]) != D {
		return nil, errors.New("MAP: the local search returned no point")
	}
	if math.IsInf(bestLP[k], 1) {
		return nil, infiniteDensityError(best[k])
	}
	if j := tiedMode(best, bestLP, k, scale); j >= 0 {
		return nil, fmt.Errorf("MAP inconclusive: the posterior has no unique mode: the local searches end at θ = %v and θ = %v, %.3g draw standard deviations apart, with the same log-density %.6g (within %.2g): its density is flat at the top or has modes of equal height; report another summary (the posterior mean or median, the marginals) instead of a mode",
			best[k], best[j], scaledDistance(best[k], best[j], scale), bestLP[k], tieTolerance(bestLP[k]))
	}
	return best[k], nil
}

// tiedMode returns a local search's end point other than the best, best[k], whose log-density
// equals the best's within tieTolerance although it lies more than minModeDistance draw
// standard deviations away, or −1 when there is none: the maximum is then not one point.
func tiedMode(best [][]float64, lp []float64, k int, scale []float64) int {
	for j := range best {
		if j != k && lp[k]-lp[j] <= tieTolerance(lp[k]) && scaledDistance(best[k], best[j], scale) > minModeDistance {
			return j
		}
	}
	return -1
}

// minModeDistance is the distance, in draw standard deviations, beyond which two end points of
// the local searches are different points: the searches converge to well within 10⁻³ of a
// mode, and the log-density of a Gaussian 0.1 standard deviations from its mode is already
// 0.005 below it, far above tieTolerance.
const minModeDistance = 0.1

// tieTolerance is the difference in log-density below which two values count as equal: 10⁻⁶
// of the value, at least 10⁻⁶ (the rounding of a flow evaluated in float32).
func tieTolerance(lp float64) float64 { return 1e-6 * math.Max(1, math.Abs(lp)) }

// scaledDistance is the largest difference of a and b over the coordinates, in units of scale.
func scaledDistance(a, b, scale []float64) float64 {
	d := 0.0
	for j := range a {
		d = math.Max(d, math.Abs(a[j]-b[j])/scale[j])
	}
	return d
}

// infiniteDensityError is MAP's error for a posterior whose log-density is +Inf at theta: a
// density that is not finite has no mode to report.
func infiniteDensityError(theta []float64) error {
	return fmt.Errorf("MAP: the log-density is +Inf at θ = %v: the posterior's density is not finite there (an overflow of the estimator?), so it has no mode; check LogProb there", theta)
}

// drawScales returns the standard deviation of every column of draws, or a small scale for a
// column that does not vary (10⁻³ of its magnitude, at least 10⁻³).
func drawScales(draws *mat.Dense) []float64 {
	n, D := draws.Dims()
	out := make([]float64, D)
	for j := range out {
		var m, v float64
		for i := 0; i < n; i++ {
			m += draws.At(i, j) / float64(n)
		}
		for i := 0; i < n; i++ {
			d := draws.At(i, j) - m
			v += d * d / float64(n)
		}
		out[j] = math.Sqrt(v)
		if !(out[j] > 0) || math.IsInf(out[j], 0) {
			out[j] = 1e-3 * math.Max(1, math.Abs(m))
		}
	}
	return out
}

// localMode maximises log p by Nelder–Mead from start (whose log-density is lp0), in the
// coordinates u = (θ − start)/scale, and returns the best point and its log-density. Points of
// zero density are +∞ for the minimiser; a cancelled ctx makes every point +∞, which ends the
// search within a few iterations. The minimiser evaluates p on a goroutine of its own, where a
// panic would end the process: a panic of p.LogProb is recovered there, ends the search the
// same way, and is returned as the error.
func localMode(ctx context.Context, p Posterior, start []float64, lp0 float64, scale []float64, evals int) ([]float64, float64, error) {
	D := len(start)
	theta := mat.NewDense(1, D, nil)
	toTheta := func(u []float64) {
		row := theta.RawRowView(0)
		for j := range row {
			row[j] = start[j] + scale[j]*u[j]
		}
	}
	var panicked error
	prob := optimize.Problem{Func: func(u []float64) float64 {
		if ctx.Err() != nil || panicked != nil {
			return math.Inf(1)
		}
		toTheta(u)
		v, err := logProbAt(p, theta)
		if err != nil {
			panicked = err
			return math.Inf(1)
		}
		if math.IsNaN(v) || math.IsInf(v, -1) {
			return math.Inf(1)
		}
		return -v
	}}
	settings := &optimize.Settings{
		FuncEvaluations: evals,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 100},
	}
	res, err := optimize.Minimize(prob, make([]float64, D), settings, &optimize.NelderMead{SimplexSize: 0.5})
	if panicked != nil {
		return nil, math.NaN(), panicked
	}
	if err != nil || res == nil || !(-res.F > lp0) {
		return append([]float64(nil), start...), lp0, nil
	}
	toTheta(res.X)
	return append([]float64(nil), theta.RawRowView(0)...), -res.F, nil
}

// logProbAt is p's log-density at the one row of theta, or the error of a panic of LogProb
// (which names θ).
func logProbAt(p Posterior, theta *mat.Dense) (v float64, err error) {
	defer func() {
		r := recover()
		if e, ok := r.(error); ok {
			err = fmt.Errorf("the posterior's LogProb panicked at θ = %v: %w", theta.RawRowView(0), e)
		} else if r != nil {
			err = fmt.Errorf("the posterior's LogProb panicked at θ = %v: %v", theta.RawRowView(0), r)
		}
	}()
	return p.LogProb(theta)[0], nil
}

// MAP returns the maximum a posteriori estimate of the posterior (see the function MAP, with
// its default configuration).
func (p *NPEPosterior) MAP() ([]float64, error) { return MAP(p, MAPConfig{}) }

// MustMAP is MAP for notebook cells: it panics with MAP's error.
func (p *NPEPosterior) MustMAP() []float64 { return MustMAP(p, MAPConfig{}) }

// MAPContext is MAP stopped by ctx instead of the host's context.
func (p *NPEPosterior) MAPContext(ctx context.Context) ([]float64, error) {
	return MAPContext(ctx, p, MAPConfig{})
}

// MAP returns the maximum a posteriori estimate of the posterior (see the function MAP, with
// its default configuration): the mode of p(θ)·r̂(θ, x) for a ratio estimator, of
// p(θ)·q(x | θ) for a likelihood estimator.
func (p *RatioPosterior) MAP() ([]float64, error) { return MAP(p, MAPConfig{}) }

// MustMAP is MAP for notebook cells: it panics with MAP's error.
func (p *RatioPosterior) MustMAP() []float64 { return MustMAP(p, MAPConfig{}) }

// MAPContext is MAP stopped by ctx instead of the host's context.
func (p *RatioPosterior) MAPContext(ctx context.Context) ([]float64, error) {
	return MAPContext(ctx, p, MAPConfig{})
}

// MAP returns the maximum a posteriori estimate of the mixture (see the function MAP, with its
// default configuration): the mode of the mixture density, not of any one member.
func (p *MixturePosterior) MAP() ([]float64, error) { return MAP(p, MAPConfig{}) }

// MustMAP is MAP for notebook cells: it panics with MAP's error.
func (p *MixturePosterior) MustMAP() []float64 { return MustMAP(p, MAPConfig{}) }

// MAPContext is MAP stopped by ctx instead of the host's context.
func (p *MixturePosterior) MAPContext(ctx context.Context) ([]float64, error) {
	return MAPContext(ctx, p, MAPConfig{})
}
