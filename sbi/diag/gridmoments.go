package diag

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// BiasVarianceResult is the bias and variance of a posterior estimator over test pairs, one
// value per parameter (the marginals of a multi-parameter posterior), as defined by Delaunoy et
// al. (2022, Eqs. 8–9) and shown per marginal in their App. G.
type BiasVarianceResult struct {
	// Bias[d] is the mean over the pairs of (θ̄_d(x) − θ*_d)², with θ̄(x) = E_q[θ|x] the
	// posterior mean (Eq. 8); BiasSE[d] its standard error over the pairs.
	Bias, BiasSE []float64
	// Variance[d] is the mean over the pairs of Var_q[θ_d|x], the posterior's spread (Eq. 9);
	// VarianceSE[d] its standard error over the pairs.
	Variance, VarianceSE []float64
	// BoxVariance[d] is (Upper[d] − Lower[d])²/12, the variance of a uniform distribution on the
	// box: the prior's variance for a uniform prior, the value Bias and Variance are divided by
	// to compare tasks (App. G's scaling), and the Variance of an estimator that returns such a
	// prior.
	BoxVariance []float64
	Pairs       int // pairs measured
	Dropped     int // pairs with a non-finite observation, left out (as in GridCoverage)
}

// GridBiasVariance measures the posterior bias and variance of Delaunoy et al. (2022, Eqs. 8–9)
// with the grid protocol of GridCoverage: for each pair it evaluates q(θ|x) at the centres of
// Points^d cells over the prior box, normalises it over the grid (weights w_g), and takes each
// parameter's posterior mean and variance
//
//	θ̄_d = Σ_g w_g θ_{g,d},   v_d = Σ_g w_g (θ_{g,d} − θ̄_d)²,
//
// which are the moments of the marginals; the results average (θ̄_d − θ*_d)² and v_d over the
// pairs. For the exact posterior the two averages have the same expectation (the law of total
// variance); an over-confident estimator shows a variance below its bias. It needs d ≤ 3, at most
// MaxGridCells cells and the box in cfg (Levels and Seed are not used).
func GridBiasVariance(est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) (*BiasVarianceResult, error) {
	return GridBiasVarianceContext(runenv.Context(), est, theta, x, cfg)
}

// MustGridBiasVariance is GridBiasVariance for notebook cells: it returns the result alone and
// panics with GridBiasVariance's error.
func MustGridBiasVariance(est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) *BiasVarianceResult {
	return safe.Must(GridBiasVariance(est, theta, x, cfg))
}

// GridBiasVarianceContext is GridBiasVariance stopped by ctx instead of the host's context
// (runenv.Context).
func GridBiasVarianceContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg GridConfig) (*BiasVarianceResult, error) {
	const label = "posterior bias and variance (grid)"
	if cfg.Points == 0 {
		cfg.Points = 90
	}
	grid, theta, x, dropped, err := gridPairs(label, est, theta, x, cfg)
	if err != nil {
		return nil, err
	}
	n, dim := theta.Dims()
	sqErr, vars := make([]float64, n*dim), make([]float64, n*dim) // per pair and parameter
	err = forEachPair(ctx, label, "test pairs", n, cfg.Workers, func(i int) error {
		lp := est.Posterior(rowCopy(x, i)).LogProb(grid)
		if err := gridMoments(grid, lp, theta.RawRowView(i), sqErr[i*dim:(i+1)*dim], vars[i*dim:(i+1)*dim]); err != nil {
			return fmt.Errorf("diag: %s, pair %d: %w", label, i, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := &BiasVarianceResult{Pairs: n, Dropped: dropped}
	for d := range dim {
		b, bse := meanSE(sqErr, d, dim)
		v, vse := meanSE(vars, d, dim)
		w := cfg.Upper[d] - cfg.Lower[d]
		r.Bias, r.BiasSE = append(r.Bias, b), append(r.BiasSE, bse)
		r.Variance, r.VarianceSE = append(r.Variance, v), append(r.VarianceSE, vse)
		r.BoxVariance = append(r.BoxVariance, w*w/12)
	}
	return r, nil
}

// gridMoments writes, for each parameter d, (θ̄_d − θ*_d)² into sqErr[d] and the variance v_d
// into vars[d], of the density exp(lp) normalised over the grid's rows.
func gridMoments(grid *mat.Dense, lp, thetaStar, sqErr, vars []float64) error {
	rows, dim := grid.Dims()
	if len(lp) != rows {
		return fmt.Errorf("LogProb of %d grid points returned %d values", rows, len(lp))
	}
	top, err := gridTop(lp)
	if err != nil {
		return err
	}
	total := 0.0
	mean := make([]float64, dim)
	for g, v := range lp {
		w := math.Exp(v - top)
		total += w
		for d, t := range grid.RawRowView(g) {
			mean[d] += w * t
		}
	}
	for d := range mean {
		mean[d] /= total
	}
	clear(vars)
	for g, v := range lp {
		w := math.Exp(v-top) / total
		for d, t := range grid.RawRowView(g) {
			vars[d] += w * (t - mean[d]) * (t - mean[d])
		}
	}
	for d := range mean {
		e := mean[d] - thetaStar[d]
		sqErr[d] = e * e
	}
	return nil
}

// meanSE returns the mean of v[d], v[d+stride], … and its standard error (sample standard
// deviation over √n; 0 for one value).
func meanSE(v []float64, d, stride int) (mean, se float64) {
	col := make([]float64, 0, (len(v)-d+stride-1)/stride)
	for k := d; k < len(v); k += stride {
		col = append(col, v[k])
	}
	if len(col) < 2 {
		return stat.Mean(col, nil), 0
	}
	mean, sd := stat.MeanStdDev(col, nil)
	return mean, sd / math.Sqrt(float64(len(col)))
}
