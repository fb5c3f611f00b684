package diag

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/sat"
)

// RankConfig configures the sample-based estimators (RankCoverage, SBC, MarginalCoverage, TARP).
// Each returns an error naming the pair and the draw when a posterior draw holds NaN or ±Inf:
// such a draw compares false with the true parameter and would bias every rank. Each reports
// one progress bar for its pairs; posteriors that sample by MCMC show no bar of their own (the
// pass's bar then says that each pair runs its own chains, and how to make that cheaper), and
// chains that did not mix (sbi.MCMCHealth.Warnings) are said in one warning after the pairs:
// how many pairs were flagged, the largest R-hat and smallest ESS among them, and the first
// flagged pair's warnings in full.
//
// Memory: each worker holds the Samples × Dim draws of one test pair (and their Samples log
// densities) at a time, so Workers × Samples × Dim values at once; the result holds a value
// per pair (Dim per pair for SBC and MarginalCoverage). Samples × Dim beyond what an int counts
// is an error before any draw.
type RankConfig struct {
	Levels  []float64 // credibility levels; nil means Levels(19)
	Samples int       // posterior draws per test pair; 0 means 1000; see Memory above
	Seed    uint64    // seed of the random streams; pair i uses rand.NewPCG(Seed, i)
	Workers int       // parallel workers; 0 means GOMAXPROCS
}

func (c RankConfig) withDefaults() RankConfig {
	if c.Levels == nil {
		c.Levels = Levels(19)
	}
	if c.Samples == 0 {
		c.Samples = 1000
	}
	return c
}

// ExpectedCoverage estimates the expected coverage of the HPD regions of est with the
// sample/rank estimator (RankCoverage with 1000 draws per pair, seed 1) over the test pairs
// (rows of theta and x, drawn from the joint p(θ)p(x|θ)); pairs with NaN or infinite values
// are dropped and counted in Dropped. It is the one-line form for notebooks and panics, on the
// caller's goroutine, with the error RankCoverage returns (an interrupted cell, a NaN density,
// an x of the wrong width): a shorthand of the naming rule (see package sbi). Library code
// calls RankCoverage, RankCoverageContext or GridCoverage. It holds 1000 × Dim draws per
// worker, one test pair at a time, and one value per pair.
func ExpectedCoverage(est sbi.Amortized, theta, x *mat.Dense, levels []float64) *CoverageResult {
	return safe.Must(RankCoverage(est, theta, x, RankConfig{Levels: levels, Seed: 1}))
}

// RankCoverage estimates the expected coverage of the HPD regions of est from posterior draws:
// for each pair it draws M = cfg.Samples parameters θⱼ ~ q(·|x) and computes the HPD rank
//
//	α = (k + U·(t + 1)) / (M + 1),  k = #{j : q(θⱼ|x) < q(θ*|x)},  t = #{j : q(θⱼ|x) = q(θ*|x)},
//
// with U ~ Uniform(0, 1): the Monte Carlo form of eq. 11 of Falkiewicz et al. (2023), with ties
// and the discreteness of k randomised so that α is exactly Uniform(0, 1) when q is the true
// posterior (k is then uniform on {0, …, M}). It needs only unnormalised densities and works in
// any dimension.
func RankCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*CoverageResult, error) {
	return RankCoverageContext(runenv.Context(), est, theta, x, cfg)
}

// MustRankCoverage is RankCoverage for notebook cells: it returns the result alone and panics with
// RankCoverage's error.
func MustRankCoverage(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) *CoverageResult {
	return safe.Must(RankCoverage(est, theta, x, cfg))
}

// RankCoverageContext is RankCoverage stopped by ctx instead of the host's context
// (runenv.Context).
func RankCoverageContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*CoverageResult, error) {
	cfg = cfg.withDefaults()
	if err := checkLevels(cfg.Levels); err != nil {
		return nil, err
	}
	pass, err := runSamplePass(ctx, est, theta, x, cfg, passHPD, "expected coverage (rank)")
	if err != nil {
		return nil, err
	}
	r := coverageFromRanks(MethodRank, pass.hpd, cfg.Levels)
	r.Dropped, r.Proposal = pass.dropped, pass.proposal
	return r, nil
}

type passKind int

const (
	passHPD passKind = 1 << iota
	passMarginal
	passTARP
)

// samplePass holds per-pair statistics computed from one set of posterior draws per pair.
type samplePass struct {
	hpd      []float64 // HPD rank α per pair
	marginal [][]int   // per pair and parameter: #{j : θⱼ,d < θ*_d}
	jitter   [][]float64
	tarp     []float64 // TARP statistic per pair
	logProb  []float64 // log q(θ*|x) per pair
	dropped  int       // pairs left out because θ or x held NaN or ±Inf
	proposal string    // the estimator's TrainingProposal
}

// runSamplePass drops the non-finite test pairs (counted in dropped) and computes the statistics
// of kind on the others, in parallel.
func runSamplePass(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig, kind passKind, label string) (*samplePass, error) {
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("diag: %s needs at least 1 posterior draw per pair, got %d", label, cfg.Samples)
	}
	theta, x, dropped, method, err := checkPairsMethod(label, est, theta, x)
	if err != nil {
		return nil, err
	}
	n, dim := theta.Dims()
	if sat.Mul(cfg.Samples, dim) >= sat.Max {
		return nil, fmt.Errorf("diag: %s: Samples = %d draws of %d parameters per pair are more values than an int can count: draw fewer samples", label, cfg.Samples, dim)
	}
	p := &samplePass{hpd: make([]float64, n), logProb: make([]float64, n), dropped: dropped, proposal: sbi.TrainingProposalOf(est)}
	if kind&passMarginal != 0 {
		p.marginal = make([][]int, n)
		p.jitter = make([][]float64, n)
	}
	var tarpRef *tarpSetup
	if kind&passTARP != 0 {
		p.tarp = make([]float64, n)
		tarpRef = newTARPSetup(theta)
	}
	var chains chainTally
	err = forEachPairNote(ctx, label, "test pairs", mcmcNote(method), n, cfg.Workers, func(i int) error {
		rng := pairRNG(cfg.Seed, i)
		post := est.Posterior(rowCopy(x, i))
		if post.Dim() != dim {
			return fmt.Errorf("diag: %s: posterior of pair %d has dimension %d but theta has %d columns", label, i, post.Dim(), dim)
		}
		draws, err := sampleContext(pairContext(ctx, post), post, rng, cfg.Samples)
		if err != nil {
			return err
		}
		chains.add(i, post)
		if r, c := draws.Dims(); r != cfg.Samples || c != dim {
			return fmt.Errorf("diag: %s: Sample(rng, %d) returned %d×%d for pair %d, want %d×%d", label, cfg.Samples, r, c, i, cfg.Samples, dim)
		}
		if j, bad := firstNonFiniteRow(draws); bad {
			return fmt.Errorf("diag: %s: pair %d: %w", label, i, nonFiniteDraw(j, cfg.Samples, draws.RawRowView(j)))
		}
		star := mat.NewDense(1, dim, rowCopy(theta, i))
		lpStar := post.LogProb(star)[0]
		if math.IsNaN(lpStar) {
			return fmt.Errorf("diag: %s: log density of test pair %d is NaN; the estimator must return a number or −Inf", label, i)
		}
		p.logProb[i] = lpStar
		if kind&passHPD != 0 {
			lp := post.LogProb(draws)
			if len(lp) != cfg.Samples {
				return fmt.Errorf("diag: %s: LogProb of %d draws returned %d values", label, cfg.Samples, len(lp))
			}
			less, ties := 0, 0
			for j, v := range lp {
				switch {
				case math.IsNaN(v):
					return fmt.Errorf("diag: %s: log density of posterior draw %d for pair %d is NaN", label, j, i)
				case v < lpStar:
					less++
				case v == lpStar:
					ties++
				}
			}
			p.hpd[i] = (float64(less) + rng.Float64()*float64(ties+1)) / float64(cfg.Samples+1)
		}
		if kind&passMarginal != 0 {
			cnt := make([]int, dim)
			jit := make([]float64, dim)
			for d := range dim {
				t := star.At(0, d)
				for j := range cfg.Samples {
					if draws.At(j, d) < t {
						cnt[d]++
					}
				}
				jit[d] = rng.Float64()
			}
			p.marginal[i], p.jitter[i] = cnt, jit
		}
		if kind&passTARP != 0 {
			p.tarp[i] = tarpRef.statistic(rng, draws, star.RawRowView(0))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	chains.warn(label, n)
	return p, nil
}

// mcmcNote is the progress message of a sample pass whose posteriors sample by method: for
// MCMC (an NLE, MNLE or NRE with Method "mcmc", or "auto" beyond 3 parameters or with an
// unbounded prior, and their Trials) each pair runs its own chains, started by weighing prior
// draws and run BurnIn sweeps before the first draw, so that each pair costs many network
// evaluations whatever Samples is. It says so and how to make it cheaper; "" for other methods.
func mcmcNote(method sbi.SamplerMethod) string {
	if method != sbi.SamplerMCMC {
		return ""
	}
	return "each pair's posterior is sampled by MCMC: its own chains, each started by weighing prior draws and run BurnIn sweeps (200 by default) before the first draw, so each pair costs much more than its Samples; " +
		"to make it cheaper, give the estimator SamplerConfig{Method: \"importance\"} (its config's Sampler, or TrialsWith(k, cfg) for trials; \"grid\" for at most 3 parameters with a bounded prior) or a smaller BurnIn, or test fewer pairs"
}
