package diag

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// RankConfig configures the sample-based estimators (RankCoverage, SBC, MarginalCoverage, TARP).
type RankConfig struct {
	Levels  []float64 // credibility levels; nil means Levels(19)
	Samples int       // posterior draws per test pair; 0 means 1000
	Seed    uint64    // seed of the random streams; pair i uses rand.NewPCG(Seed, i)
	Workers int       // parallel workers; 0 means GOMAXPROCS
}

func (o RankConfig) withDefaults() RankConfig {
	if o.Levels == nil {
		o.Levels = Levels(19)
	}
	if o.Samples == 0 {
		o.Samples = 1000
	}
	return o
}

// ExpectedCoverage estimates the expected coverage of the HPD regions of est with the
// sample/rank estimator (RankCoverage with 1000 draws per pair, seed 1) over the test pairs
// (rows of theta and x, drawn from the joint p(θ)p(x|θ)); pairs with NaN or infinite values
// are dropped and counted in Dropped. It is the one-line form for notebooks and panics, on the
// caller's goroutine, with the error RankCoverage returns (an interrupted cell, a NaN density,
// an x of the wrong width); library code calls RankCoverage or GridCoverage.
func ExpectedCoverage(est sbi.Amortized, theta, x *mat.Dense, levels []float64) *CoverageResult {
	r, err := RankCoverage(est, theta, x, RankConfig{Levels: levels, Seed: 1})
	if err != nil {
		panic(err)
	}
	return r
}

// RankCoverage estimates the expected coverage of the HPD regions of est from posterior draws:
// for each pair it draws M = opts.Samples parameters θⱼ ~ q(·|x) and computes the HPD rank
//
//	α = (k + U·(t + 1)) / (M + 1),  k = #{j : q(θⱼ|x) < q(θ*|x)},  t = #{j : q(θⱼ|x) = q(θ*|x)},
//
// with U ~ Uniform(0, 1): the Monte Carlo form of eq. 11 of Falkiewicz et al. (2023), with ties
// and the discreteness of k randomised so that α is exactly Uniform(0, 1) when q is the true
// posterior (k is then uniform on {0, …, M}). It needs only unnormalised densities and works in
// any dimension.
func RankCoverage(est sbi.Amortized, theta, x *mat.Dense, opts RankConfig) (*CoverageResult, error) {
	opts = opts.withDefaults()
	if err := checkLevels(opts.Levels); err != nil {
		return nil, err
	}
	pass, err := runSamplePass(est, theta, x, opts, passHPD, "expected coverage (rank)")
	if err != nil {
		return nil, err
	}
	r := coverageFromRanks(MethodRank, pass.hpd, opts.Levels)
	r.Dropped = pass.dropped
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
}

// runSamplePass drops the non-finite test pairs (counted in dropped) and computes the statistics
// of kind on the others, in parallel.
func runSamplePass(est sbi.Amortized, theta, x *mat.Dense, opts RankConfig, kind passKind, label string) (*samplePass, error) {
	if opts.Samples < 1 {
		return nil, fmt.Errorf("diag: %s needs at least 1 posterior draw per pair, got %d", label, opts.Samples)
	}
	theta, x, dropped, err := checkPairs(label, est, theta, x)
	if err != nil {
		return nil, err
	}
	n, dim := theta.Dims()
	p := &samplePass{hpd: make([]float64, n), logProb: make([]float64, n), dropped: dropped}
	if kind&passMarginal != 0 {
		p.marginal = make([][]int, n)
		p.jitter = make([][]float64, n)
	}
	var tarpRef *tarpSetup
	if kind&passTARP != 0 {
		p.tarp = make([]float64, n)
		tarpRef = newTARPSetup(theta)
	}
	err = forEachPair(label, n, opts.Workers, func(i int) error {
		rng := pairRNG(opts.Seed, i)
		post := est.Posterior(rowCopy(x, i))
		if post.Dim() != dim {
			return fmt.Errorf("diag: %s: posterior of pair %d has dimension %d but theta has %d columns", label, i, post.Dim(), dim)
		}
		draws := post.Sample(rng, opts.Samples)
		if r, c := draws.Dims(); r != opts.Samples || c != dim {
			return fmt.Errorf("diag: %s: Sample(rng, %d) returned %d×%d for pair %d, want %d×%d", label, opts.Samples, r, c, i, opts.Samples, dim)
		}
		star := mat.NewDense(1, dim, rowCopy(theta, i))
		lpStar := post.LogProb(star)[0]
		if math.IsNaN(lpStar) {
			return fmt.Errorf("diag: %s: log density of test pair %d is NaN; the estimator must return a number or −Inf", label, i)
		}
		p.logProb[i] = lpStar
		if kind&passHPD != 0 {
			lp := post.LogProb(draws)
			if len(lp) != opts.Samples {
				return fmt.Errorf("diag: %s: LogProb of %d draws returned %d values", label, opts.Samples, len(lp))
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
			p.hpd[i] = (float64(less) + rng.Float64()*float64(ties+1)) / float64(opts.Samples+1)
		}
		if kind&passMarginal != 0 {
			cnt := make([]int, dim)
			jit := make([]float64, dim)
			for d := range dim {
				t := star.At(0, d)
				for j := range opts.Samples {
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
	return p, nil
}
