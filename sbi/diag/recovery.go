package diag

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
)

// RecoveryResult is the recovery view of an estimator on test pairs (Schad, Betancourt and
// Vasishth, "Toward a principled Bayesian workflow in cognitive science", 2021, Fig. 4; the
// "posterior contraction against z-score" plot of BayesFlow): for every pair i and parameter
// d, from posterior draws,
//
//	z = (posterior mean − θ*)/posterior SD,  contraction = 1 − posterior variance/prior variance.
//
// A calibrated posterior has z-scores with mean 0 and SD 1; an over-confident one has SD > 1,
// a biased one a mean away from 0. Contraction near 1 means the data pin the parameter down,
// near 0 that the posterior is about the prior.
type RecoveryResult struct {
	ZScore      [][]float64 // ZScore[d][i]
	Contraction [][]float64 // Contraction[d][i]
	PriorVar    []float64   // the prior variance per parameter used for the contraction
	N, Samples  int
	Dropped     int
}

// RecoveryConfig configures Recovery. The zero value is the default.
type RecoveryConfig struct {
	Samples int    // posterior draws per pair; 0 means 1000
	Seed    uint64 // the draws of pair i come from the stream (Seed, i)
	Workers int    // 0 means GOMAXPROCS
	// PriorVar is the prior variance of each parameter; nil means the variance of the test
	// pairs' θ (drawn from the prior).
	PriorVar []float64
}

// Recovery computes posterior z-scores and contractions of est on the test pairs (rows of
// theta and x drawn from the joint), in parallel. Non-finite pairs are dropped and counted; a
// posterior draw that holds NaN or ±Inf is an error naming the pair, and so is a posterior
// whose draws of a parameter are all equal (no spread, so no z-score).
func Recovery(est sbi.Amortized, theta, x *mat.Dense, cfg RecoveryConfig) (*RecoveryResult, error) {
	return RecoveryContext(runenv.Context(), est, theta, x, cfg)
}

// RecoveryContext is Recovery cancelled by ctx alone (the host's context is not read).
func RecoveryContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RecoveryConfig) (*RecoveryResult, error) {
	if cfg.Samples < 0 {
		return nil, fmt.Errorf("diag: recovery: Samples = %d, expected ≥ 0 (0 takes 1000)", cfg.Samples)
	}
	if cfg.Samples == 0 {
		cfg.Samples = 1000
	}
	if cfg.Samples < 2 {
		return nil, fmt.Errorf("diag: recovery needs at least 2 posterior draws per pair for a variance, got %d", cfg.Samples)
	}
	th, xx, dropped, err := checkPairs("recovery", est, theta, x)
	if err != nil {
		return nil, err
	}
	n, dim := th.Dims()
	prior := cfg.PriorVar
	if prior == nil {
		if n < 2 {
			return nil, fmt.Errorf("diag: recovery: one test pair cannot give the prior variance; set PriorVar")
		}
		prior = make([]float64, dim)
		for d := range dim {
			prior[d] = variance(mat.Col(nil, d, th))
		}
	}
	if len(prior) != dim {
		return nil, fmt.Errorf("diag: recovery: %d prior variances for %d parameters", len(prior), dim)
	}
	for d, v := range prior {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("diag: recovery: prior variance of parameter %d is %v, expected a positive number", d, v)
		}
	}
	r := &RecoveryResult{PriorVar: append([]float64(nil), prior...), N: n, Samples: cfg.Samples, Dropped: dropped,
		ZScore: make([][]float64, dim), Contraction: make([][]float64, dim)}
	for d := range dim {
		r.ZScore[d], r.Contraction[d] = make([]float64, n), make([]float64, n)
	}
	err = forEachPair(ctx, "recovery", "test pairs", n, cfg.Workers, func(i int) error {
		s, err := sampleN(est.Posterior(rowCopy(xx, i)), pairRNG(cfg.Seed, i), cfg.Samples)
		if err != nil {
			return fmt.Errorf("diag: recovery: pair %d: %w", i, err)
		}
		for d := range dim {
			col := mat.Col(nil, d, s)
			mu, v := meanOf(col), variance(col)
			if allEqual(col) { // v may be a rounding error of the mean, not 0
				return fmt.Errorf("diag: recovery: pair %d: the posterior's %d draws of θ%d are all equal (%g): with no spread there is no z-score; a posterior collapsed to a point is over-confident, so check the estimator's Posterior", i, cfg.Samples, d+1, col[0])
			}
			r.ZScore[d][i] = (mu - th.At(i, d)) / math.Sqrt(v)
			r.Contraction[d][i] = 1 - v/prior[d]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// allEqual reports whether every value of v equals the first.
func allEqual(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// variance is the sample variance (denominator n − 1).
func variance(v []float64) float64 {
	m := meanOf(v)
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s / float64(len(v)-1)
}

// Summary returns per parameter the mean and SD of the z-scores and the mean contraction.
func (r *RecoveryResult) Summary() (zMean, zSD, contraction []float64) {
	for d := range r.ZScore {
		zMean = append(zMean, meanOf(r.ZScore[d]))
		zSD = append(zSD, math.Sqrt(variance(r.ZScore[d])))
		contraction = append(contraction, meanOf(r.Contraction[d]))
	}
	return zMean, zSD, contraction
}

// String is a text summary with one line per parameter.
func (r *RecoveryResult) String() string {
	var b strings.Builder
	zm, zs, c := r.Summary()
	fmt.Fprintf(&b, "recovery (%d pairs, %d draws each): z-scores should have mean 0 and SD 1 (SD > 1: over-confident)\n", r.N, r.Samples)
	for d := range zm {
		fmt.Fprintf(&b, "  θ%d  z mean %+.3f, z SD %.3f, mean contraction %.3f\n", d+1, zm[d], zs[d], c[d])
	}
	return b.String() + droppedNote(r.Dropped)
}

// MIMEBundle shows the summary as HTML and text; viz.Recovery draws the scatter.
func (r *RecoveryResult) MIMEBundle() map[string]any {
	var b strings.Builder
	zm, zs, c := r.Summary()
	fmt.Fprintf(&b, `<div><b>Recovery</b> — %d pairs, %d draws each<table style="font-size:90%%"><tr><th></th><th>z mean</th><th>z SD</th><th>mean contraction</th></tr>`, r.N, r.Samples)
	for d := range zm {
		fmt.Fprintf(&b, "<tr><th>θ%d</th><td>%+.3f</td><td>%.3f</td><td>%.3f</td></tr>", d+1, zm[d], zs[d], c[d])
	}
	b.WriteString("</table><span style=\"font-size:80%\">z-scores of a calibrated posterior: mean 0, SD 1; SD above 1 is over-confident</span></div>")
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}
