package diag

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// ReferenceModel is what ReferenceLogPosteriors needs of a model with a tractable likelihood.
type ReferenceModel struct {
	Prior dist.Distribution
	// LogLikelihood is log p(x | θ), −Inf (with a nil error) where x is impossible under θ. An
	// error stops the run. It is called from several goroutines at once.
	LogLikelihood func(theta, x []float64) (float64, error)
	// Proposals returns the proposal densities at x: normalized densities of their draws, such
	// as estimated posteriors (an sbi.NPEPosterior's flow density is divided by its acceptance
	// rate, AcceptanceRate, for the draws its rejection leaves out). Nil or empty: the prior
	// alone, with the Laplace component if ReferenceConfig.Laplace.
	Proposals func(x []float64) []sbi.Posterior
}

// ReferenceConfig sets the importance sampler of ReferenceLogPosteriors.
type ReferenceConfig struct {
	Draws     int     // importance draws per pair (default 1000)
	Defensive float64 // share of the draws taken from the prior, in [0, 1] (default 0.1; 1 with neither proposals nor Laplace)
	MinESS    float64 // pairs whose effective sample size is below it are inconclusive (default 50)
	Seed      uint64  // pair i draws from rand.NewPCG(Seed, i)
	Workers   int     // goroutines over the pairs (0: GOMAXPROCS)
	// Laplace adds a Gaussian component at the posterior's mode: from the best of Draws/4 pilot
	// draws of the other components (not used in the estimate), Nelder–Mead finds the mode of
	// log p(x | θ) + log π(θ), and the component is N(mode, 2·H⁻¹) with H the finite-difference
	// Hessian of its negative there; it takes half the draws that are not the prior's. For
	// posteriors much narrower than the proposals (many observations), whose weights would
	// otherwise rest on a few draws. A pair where no positive-definite H is found goes without.
	Laplace bool
}

// ReferencePair is the estimate of one pair.
type ReferencePair struct {
	LogPosterior float64 // log p(x | θ*) + log π(θ*) − LogEvidence
	LogEvidence  float64 // log of the mean importance weight, an estimate of log p(x)
	SE           float64 // standard error of LogEvidence, and so of LogPosterior (delta method)
	ESS          float64 // effective sample size (Σw)²/Σw² of the draws
	// Inconclusive says why the pair's estimate is not used ("" when it is): ESS below MinESS.
	Inconclusive string
	Laplace      bool // the proposal had a Laplace component (ReferenceConfig.Laplace, where found)
}

// ReferenceResult holds ReferenceLogPosteriors' estimate for every test pair.
type ReferenceResult struct {
	Pairs        []ReferencePair
	Inconclusive int // the pairs whose Inconclusive is set
}

// ReferenceLogPosteriors estimates the true log posterior density log p(θ*ᵢ | xᵢ) of every test
// pair (row i of theta and x) of a model whose likelihood can be evaluated, for comparing
// estimators with the truth: E[log p(θ* | x)] − E[log q(θ* | x)] = E_x KL(p(·|x) ‖ q(·|x)) ≥ 0
// is what an estimator q could still gain over the pairs.
//
// With M draws θⱼ from the mixture r(θ) = Σ_k c_k q_k(θ) of the proposals at x and the prior
// (c_k the share of the draws of component k, the prior's Defensive, which bounds the
// weights wherever the proposals are narrower than the posterior), the evidence is estimated
// by p̂(x) = (1/M) Σⱼ wⱼ, wⱼ = p(x | θⱼ)π(θⱼ)/r(θⱼ) (the deterministic-mixture estimator,
// unbiased for p(x)), and log p(θ* | x) = log p(x | θ*) + log π(θ*) − log p̂(x). The log of
// an unbiased mean is biased low (by about SE²/2), so the reference is biased high by as
// much, and a gap reference − estimator overestimated a little. A pair with ESS below MinESS
// is inconclusive: its weights rest on a few draws and SE is not to be trusted; its
// LogPosterior is still filled in, and callers must leave it out and say how many they did.
func ReferenceLogPosteriors(theta, x *mat.Dense, model ReferenceModel, cfg ReferenceConfig) (*ReferenceResult, error) {
	return ReferenceLogPosteriorsContext(runenv.Context(), theta, x, model, cfg)
}

// MustReferenceLogPosteriors is ReferenceLogPosteriors for notebook cells: it returns the
// result alone and panics with ReferenceLogPosteriors' error.
func MustReferenceLogPosteriors(theta, x *mat.Dense, model ReferenceModel, cfg ReferenceConfig) *ReferenceResult {
	return safe.Must(ReferenceLogPosteriors(theta, x, model, cfg))
}

// ReferenceLogPosteriorsContext is ReferenceLogPosteriors stopped by ctx instead of the host's
// context (runenv.Context).
func ReferenceLogPosteriorsContext(ctx context.Context, theta, x *mat.Dense, model ReferenceModel, cfg ReferenceConfig) (*ReferenceResult, error) {
	cfg, err := cfg.withDefaults(model.Proposals == nil && !cfg.Laplace)
	if err != nil {
		return nil, err
	}
	if model.Prior == nil || model.LogLikelihood == nil {
		return nil, fmt.Errorf("diag: ReferenceLogPosteriors needs the model's Prior and LogLikelihood")
	}
	n, d := theta.Dims()
	if nx, _ := x.Dims(); nx != n || d != model.Prior.Dim() {
		return nil, fmt.Errorf("diag: ReferenceLogPosteriors: theta is %d×%d and x has %d rows, expected one row per pair and %d columns of θ", n, d, nx, model.Prior.Dim())
	}
	res := &ReferenceResult{Pairs: make([]ReferencePair, n)}
	err = forEachPair(ctx, "reference log posterior", "pairs", n, cfg.Workers, func(i int) error {
		p, err := referencePair(pairRNG(cfg.Seed, i), rowCopy(theta, i), rowCopy(x, i), model, cfg)
		if err != nil {
			return fmt.Errorf("pair %d: %w", i, err)
		}
		res.Pairs[i] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("diag: ReferenceLogPosteriors: %w", err)
	}
	for _, p := range res.Pairs {
		if p.Inconclusive != "" {
			res.Inconclusive++
		}
	}
	return res, nil
}

func (c ReferenceConfig) withDefaults(priorOnly bool) (ReferenceConfig, error) {
	if c.Draws == 0 {
		c.Draws = 1000
	}
	if c.Defensive == 0 {
		c.Defensive = 0.1
	}
	if priorOnly {
		c.Defensive = 1
	}
	if c.MinESS == 0 {
		c.MinESS = 50
	}
	if c.Draws < 2 || !(c.Defensive >= 0 && c.Defensive <= 1) || !(c.MinESS >= 1) {
		return c, fmt.Errorf("diag: ReferenceConfig: Draws = %d, Defensive = %v, MinESS = %v; expected at least 2 draws, a share in [0, 1] and MinESS ≥ 1 (0 for the defaults)", c.Draws, c.Defensive, c.MinESS)
	}
	return c, nil
}

// mixture is the importance proposal of one pair: its components and their shares of the draws.
type mixture struct {
	comps  []dist.Distribution
	counts []int
	draws  int
}

// componentCounts splits m draws among the prior (component 0) and k proposals: defensive of
// them to the prior, the rest evenly among the proposals (the first ones one more where it
// does not divide), or, with laplace, half of the rest to the last proposal (the Laplace
// component) and the other half evenly among the others.
func componentCounts(m, k int, defensive float64, laplace bool) []int {
	counts := make([]int, k+1)
	counts[0] = int(math.Round(defensive * float64(m)))
	if k == 0 {
		counts[0] = m
		return counts
	}
	rest := m - counts[0]
	if laplace {
		counts[k] = rest - rest/2
		rest /= 2
		k--
		if k == 0 {
			counts[1] += rest
			return counts
		}
	}
	for j := 1; j <= k; j++ {
		counts[j] = rest / k
		if j <= rest%k {
			counts[j]++
		}
	}
	return counts
}

// sampler is a posterior whose sampling returns its errors (an NPE posterior's low acceptance).
type sampler interface {
	SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error)
}

// referencePair estimates log p(θ* | x) for one pair.
func referencePair(rng *rand.Rand, thetaStar, x []float64, model ReferenceModel, cfg ReferenceConfig) (ReferencePair, error) {
	var props []sbi.Posterior
	if model.Proposals != nil {
		props = model.Proposals(x)
	}
	laplace := false
	if cfg.Laplace {
		g, err := laplaceAt(rng, x, model, props, cfg)
		if err != nil {
			return ReferencePair{}, err
		}
		if g != nil {
			props, laplace = append(props, g), true
		}
	}
	draws, counts, err := drawMixture(rng, cfg.Draws, model.Prior, props, cfg.Defensive, laplace)
	if err != nil {
		return ReferencePair{}, err
	}
	logR := mixtureLogDensity(draws, model.Prior, props, counts)
	d := model.Prior.Dim()
	lp := model.Prior.LogProb(draws)
	lw := make([]float64, cfg.Draws)
	for j := range lw {
		ll, err := model.LogLikelihood(draws.RawRowView(j), x)
		if err != nil {
			return ReferencePair{}, fmt.Errorf("LogLikelihood at draw %d: %w", j, err)
		}
		lw[j] = ll + lp[j] - logR[j]
		if math.IsNaN(lw[j]) || math.IsInf(lw[j], 1) {
			return ReferencePair{}, fmt.Errorf("draw %d has log weight %v (log likelihood %v, log prior %v, log proposal %v): expected a finite value or −Inf", j, lw[j], ll, lp[j], logR[j])
		}
	}
	llStar, err := model.LogLikelihood(thetaStar, x)
	if err != nil {
		return ReferencePair{}, fmt.Errorf("LogLikelihood at θ*: %w", err)
	}
	lpStar := model.Prior.LogProb(mat.NewDense(1, d, thetaStar))[0]
	p := weighPair(lw, llStar+lpStar, cfg.MinESS)
	p.Laplace = laplace
	return p, nil
}

// drawMixture draws m points from the prior and the proposals in the shares of
// componentCounts, which it returns with them.
func drawMixture(rng *rand.Rand, m int, prior dist.Distribution, props []sbi.Posterior, defensive float64, laplace bool) (*mat.Dense, []int, error) {
	d := prior.Dim()
	counts := componentCounts(m, len(props), defensive, laplace)
	draws := mat.NewDense(m, d, nil)
	row := 0
	for k, c := range counts {
		if c == 0 {
			continue
		}
		s, err := sampleComponent(rng, prior, props, k, c, d)
		if err != nil {
			return nil, nil, err
		}
		draws.Slice(row, row+c, 0, d).(*mat.Dense).Copy(s)
		row += c
	}
	return draws, counts, nil
}

// laplaceAt returns the Laplace component of ReferenceConfig.Laplace at x, nil where none is
// found. Its search starts at the pilot draw of highest log p(x | θ) + log π(θ), in units of
// the pilot draws' standard deviation per coordinate.
func laplaceAt(rng *rand.Rand, x []float64, model ReferenceModel, props []sbi.Posterior, cfg ReferenceConfig) (*dist.MultivariateNormal, error) {
	pilot, _, err := drawMixture(rng, max(cfg.Draws/4, 2), model.Prior, props, cfg.Defensive, false)
	if err != nil {
		return nil, err
	}
	var lerr error
	logJoint := func(th []float64) float64 {
		lp := model.Prior.LogProb(mat.NewDense(1, len(th), th))[0]
		if math.IsInf(lp, -1) {
			return lp
		}
		ll, err := model.LogLikelihood(th, x)
		if err != nil && lerr == nil {
			lerr = err
		}
		return ll + lp
	}
	n, d := pilot.Dims()
	best, start := math.Inf(-1), -1
	for i := 0; i < n; i++ {
		if v := logJoint(pilot.RawRowView(i)); v > best {
			best, start = v, i
		}
	}
	if lerr != nil {
		return nil, fmt.Errorf("LogLikelihood at a pilot draw: %w", lerr)
	}
	if start < 0 {
		return nil, nil
	}
	scale := make([]float64, d)
	for j := range scale {
		col := mat.Col(nil, j, pilot)
		_, sd := stat.MeanStdDev(col, nil)
		scale[j] = sd
		if !(sd > 0) || math.IsInf(sd, 0) {
			scale[j] = 1
		}
	}
	g, ok := laplaceComponent(logJoint, pilot.RawRowView(start), scale)
	if lerr != nil {
		return nil, fmt.Errorf("LogLikelihood in the search of the mode: %w", lerr)
	}
	if !ok {
		return nil, nil
	}
	return g, nil
}

// sampleComponent draws c points from component k of the mixture (0 the prior).
func sampleComponent(rng *rand.Rand, prior dist.Distribution, props []sbi.Posterior, k, c, d int) (*mat.Dense, error) {
	if k == 0 {
		return prior.Sample(rng, c), nil
	}
	p := props[k-1]
	if p.Dim() != d {
		return nil, fmt.Errorf("proposal %d has %d parameters, expected %d", k-1, p.Dim(), d)
	}
	if s, ok := p.(sampler); ok {
		out, err := s.SampleContext(context.Background(), rng, c)
		if err != nil {
			return nil, fmt.Errorf("proposal %d: %w", k-1, err)
		}
		return out, nil
	}
	return p.Sample(rng, c), nil
}

// mixtureLogDensity is log r(θ) = log Σ_k c_k q_k(θ) of every row of draws, each proposal's
// density divided by its acceptance rate where it reports one.
func mixtureLogDensity(draws *mat.Dense, prior dist.Distribution, props []sbi.Posterior, counts []int) []float64 {
	n, _ := draws.Dims()
	terms := make([][]float64, 0, len(counts))
	for k, c := range counts {
		if c == 0 {
			continue
		}
		var lq []float64
		if k == 0 {
			lq = prior.LogProb(draws)
		} else {
			lq = props[k-1].LogProb(draws)
			if a, ok := props[k-1].(interface{ AcceptanceRate() float64 }); ok {
				if rate := a.AcceptanceRate(); rate > 0 && rate < 1 {
					floats.AddConst(-math.Log(rate), lq)
				}
			}
		}
		floats.AddConst(math.Log(float64(c)/float64(n)), lq)
		terms = append(terms, lq)
	}
	out := make([]float64, n)
	col := make([]float64, len(terms))
	for j := range out {
		for k := range terms {
			col[k] = terms[k][j]
		}
		out[j] = floats.LogSumExp(col) // −Inf where every term is
	}
	return out
}

// weighPair turns the log weights into the evidence, its standard error and the effective
// sample size, and logJointStar = log p(x | θ*) + log π(θ*) into the log posterior at θ*.
func weighPair(lw []float64, logJointStar, minESS float64) ReferencePair {
	m := float64(len(lw))
	best := math.Inf(-1)
	for _, v := range lw {
		best = math.Max(best, v)
	}
	if math.IsInf(best, -1) {
		return ReferencePair{LogPosterior: math.NaN(), LogEvidence: math.Inf(-1), SE: math.Inf(1),
			Inconclusive: fmt.Sprintf("inconclusive: none of the %d draws has a positive likelihood", len(lw))}
	}
	s1, s2 := 0.0, 0.0
	for _, v := range lw {
		w := math.Exp(v - best)
		s1, s2 = s1+w, s2+w*w
	}
	mean := s1 / m
	variance := math.Max(0, (s2/m-mean*mean)*m/(m-1))
	p := ReferencePair{LogEvidence: best + math.Log(mean), SE: math.Sqrt(variance/m) / mean, ESS: s1 * s1 / s2}
	p.LogPosterior = logJointStar - p.LogEvidence
	if p.ESS < minESS {
		p.Inconclusive = fmt.Sprintf("inconclusive: effective sample size %.1f of %d draws is below %v", p.ESS, len(lw), minESS)
	}
	return p
}
