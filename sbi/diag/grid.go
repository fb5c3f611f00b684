package diag

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Box is a prior that reports the box holding its support, in the form of
// dist.Distribution's Support: every prior of package sbi/dist and every task's Prior is one.
// The grid protocol needs finite bounds, such as a uniform prior's; GridCoverage refuses a box
// with an infinite side.
type Box interface {
	Support() (lower, upper []float64)
}

// GridConfig configures GridCoverage; its zero value is the default for every field but the box.
type GridConfig struct {
	Levels  []float64 // credibility levels; nil means Levels(19)
	Lower   []float64 // lower corner of the prior box
	Upper   []float64 // upper corner of the prior box
	Points  int       // grid points per dimension; 0 means 90 (the papers' protocol); Points^d at most MaxGridCells
	Seed    uint64    // seed of the tie-breaking streams
	Workers int       // parallel workers; 0 means GOMAXPROCS
}

// BoxOf fills Lower and Upper from the support of a prior, as in
// GridConfig{}.BoxOf(task.Prior()).
func (o GridConfig) BoxOf(prior Box) GridConfig {
	o.Lower, o.Upper = prior.Support()
	return o
}

// MaxGridDim is the largest number of parameters GridCoverage accepts.
const MaxGridDim = 3

// MaxGridCells is the most grid cells, Points^d, of GridCoverage and GridBiasVariance (4096
// points per axis in two dimensions, 256 in three; the default 90 makes 729,000 in three):
// the grid is held in memory and the estimator is evaluated on every cell for every pair, so
// a larger grid is an error before anything is allocated. It is the bound of the ratio
// posteriors' grid sampler.
const MaxGridCells = 1 << 24

// GridCoverage estimates expected coverage with the grid protocol of Hermans et al. (2022) and
// Delaunoy et al. (2022, App. E): for each pair it evaluates q(θ|x) at the centres of a grid of
// Points^d cells over the prior box, normalises it over the grid, and takes the HPD rank
//
//	α = (Σ_g q_g 1[q_g < q*] + U·Σ_g q_g 1[q_g = q*]) / Σ_g q_g,   q* = q(θ*|x) at the exact θ*,
//
// which is the grid mass less dense than the true parameter. θ* lies in the HPD region of
// level L iff α ≥ 1 − L, the same test as comparing q* with the density threshold that the
// papers find by dichotomic search, without the search error. It needs d ≤ 3 and at most
// MaxGridCells cells.
func GridCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) (*CoverageResult, error) {
	return GridCoverageContext(runenv.Context(), est, theta, x, cfg)
}

// MustGridCoverage is GridCoverage for notebook cells: it returns the result alone and panics with
// GridCoverage's error.
func MustGridCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) *CoverageResult {
	return safe.Must(GridCoverage(est, theta, x, cfg))
}

// GridCoverageContext is GridCoverage stopped by ctx instead of the host's context
// (runenv.Context).
func GridCoverageContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) (*CoverageResult, error) {
	const label = "expected coverage (grid)"
	if cfg.Levels == nil {
		cfg.Levels = Levels(19)
	}
	if cfg.Points == 0 {
		cfg.Points = 90
	}
	if err := checkLevels(cfg.Levels); err != nil {
		return nil, err
	}
	grid, theta, x, dropped, err := gridPairs(label, est, theta, x, cfg)
	if err != nil {
		return nil, err
	}
	n, dim := theta.Dims()
	ranks := make([]float64, n)
	err = forEachPair(ctx, label, "test pairs", n, cfg.Workers, func(i int) error {
		post := est.Posterior(rowCopy(x, i))
		lp := post.LogProb(grid)
		if len(lp) != len(grid.RawMatrix().Data)/dim {
			return fmt.Errorf("diag: %s: LogProb of %d grid points returned %d values", label, len(grid.RawMatrix().Data)/dim, len(lp))
		}
		lpStar := post.LogProb(mat.NewDense(1, dim, rowCopy(theta, i)))[0]
		r, err := gridRank(lp, lpStar)
		if err != nil {
			return fmt.Errorf("diag: %s, pair %d: %w", label, i, err)
		}
		if ties := r[1]; ties > 0 {
			r[0] += pairRNG(cfg.Seed, i).Float64() * ties
		}
		ranks[i] = r[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := coverageFromRanks(MethodGrid, ranks, cfg.Levels)
	r.Dropped, r.Proposal = dropped, sbi.TrainingProposalOf(est)
	return r, nil
}

// gridTop returns the largest log density on the grid, by which the grid's densities are
// scaled before exponentiating; it refuses a NaN, a density that is zero everywhere and an
// infinite one, which leave the grid without a normalisation.
func gridTop(lp []float64) (float64, error) {
	top := math.Inf(-1)
	for g, v := range lp {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("log density at grid point %d is NaN", g)
		}
		top = math.Max(top, v)
	}
	if math.IsInf(top, -1) {
		return 0, fmt.Errorf("the density is zero on the whole grid; check the box bounds")
	}
	if math.IsInf(top, 1) {
		return 0, fmt.Errorf("the log density is +Inf on the grid")
	}
	return top, nil
}

// gridRank returns the normalised grid mass below and equal to the density at θ*.
func gridRank(lp []float64, lpStar float64) ([2]float64, error) {
	maxLP, err := gridTop(lp)
	if err != nil {
		return [2]float64{}, err
	}
	if math.IsNaN(lpStar) {
		return [2]float64{}, fmt.Errorf("log density at the true parameter is NaN")
	}
	var total, below, equal float64
	for _, v := range lp {
		w := math.Exp(v - maxLP)
		total += w
		switch {
		case v < lpStar:
			below += w
		case v == lpStar:
			equal += w
		}
	}
	return [2]float64{below / total, equal / total}, nil
}

// gridPairs checks the test pairs of a grid diagnostic named label: it returns the grid of
// cfg's box in the dimension of theta and the pairs checkPairs keeps, with how many it dropped.
func gridPairs(label string, est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) (grid, th, xx *mat.Dense, dropped int, err error) {
	if theta == nil {
		return nil, nil, nil, 0, fmt.Errorf("diag: %s needs test parameters, got nil", label)
	}
	_, dim := theta.Dims()
	if grid, err = boxGrid(cfg.Lower, cfg.Upper, cfg.Points, dim); err != nil {
		return nil, nil, nil, 0, err
	}
	th, xx, dropped, err = checkPairs(label, est, theta, x)
	return grid, th, xx, dropped, err
}

// boxGrid returns the Points^dim cell centres of the box as rows, the first dimension varying
// slowest.
func boxGrid(lower, upper []float64, points, dim int) (*mat.Dense, error) {
	if dim > MaxGridDim {
		return nil, fmt.Errorf("diag: the grid coverage estimator handles up to %d parameters, got %d; use RankCoverage", MaxGridDim, dim)
	}
	if len(lower) != dim || len(upper) != dim {
		return nil, fmt.Errorf("diag: the grid needs the prior box: Lower and Upper with %d values each, got %d and %d", dim, len(lower), len(upper))
	}
	for d := range dim {
		if !(upper[d] > lower[d]) || math.IsInf(upper[d]-lower[d], 0) {
			return nil, fmt.Errorf("diag: grid box dimension %d is [%v, %v]; it needs finite bounds with lower < upper", d, lower[d], upper[d])
		}
	}
	if points < 2 {
		return nil, fmt.Errorf("diag: the grid needs at least 2 points per dimension, got %d", points)
	}
	if cells := math.Pow(float64(points), float64(dim)); cells > MaxGridCells {
		return nil, fmt.Errorf("diag: the grid of %d points per dimension in %d dimensions has %.4g cells, more than MaxGridCells = %d: use at most %d points per dimension",
			points, dim, cells, MaxGridCells, int(math.Floor(math.Pow(MaxGridCells, 1/float64(dim))+1e-9)))
	}
	total := 1
	for range dim {
		total *= points
	}
	g := mat.NewDense(total, dim, nil)
	for r := range total {
		idx := r
		for d := dim - 1; d >= 0; d-- {
			k := idx % points
			idx /= points
			g.Set(r, d, lower[d]+(float64(k)+0.5)*(upper[d]-lower[d])/float64(points))
		}
	}
	return g, nil
}
