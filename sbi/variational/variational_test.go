package variational

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"github.com/gosbi/gosbi/sbi/task"
)

// linGauss is θ ~ N(0, I₂), x = Aθ + σε with ε ~ N(0, I₃): its posterior is N(ΣAᵀx/σ², Σ),
// Σ = (I + AᵀA/σ²)⁻¹, correlated.
type linGauss struct{}

var (
	linA     = mat.NewDense(3, 2, []float64{1, 1, 1, 0.8, 0.5, 0.6})
	linSigma = 0.7
)

func (linGauss) Prior() dist.Distribution { return dist.NewStandardNormal(2) }
func (linGauss) DataDim() int             { return 3 }

func (linGauss) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		for k := range 3 {
			x.Set(i, k, linA.At(k, 0)*theta.At(i, 0)+linA.At(k, 1)*theta.At(i, 1)+linSigma*rng.NormFloat64())
		}
	}
}

func (linGauss) LogLikelihoodTape(tp *nn.Tape, theta, x *nn.Tensor) *nn.Tensor {
	at := tp.Const(2, 3, []float64{linA.At(0, 0), linA.At(1, 0), linA.At(2, 0), linA.At(0, 1), linA.At(1, 1), linA.At(2, 1)})
	r := tp.Sub(x, tp.MatMul(theta, at))
	c := -3 * (math.Log(linSigma) + 0.5*math.Log(2*math.Pi))
	return tp.AddScalar(tp.Scale(tp.RowSum(tp.Square(r)), -0.5/(linSigma*linSigma)), c)
}

// linPosterior returns the exact posterior mean and covariance for x, and the precision.
func linPosterior(x []float64) ([]float64, *mat.SymDense, *mat.SymDense) {
	prec := mat.NewSymDense(2, nil)
	var ata mat.Dense
	ata.Mul(linA.T(), linA)
	for i := range 2 {
		for j := range 2 {
			v := ata.At(i, j) / (linSigma * linSigma)
			if i == j {
				v++
			}
			prec.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	ch.Factorize(prec)
	cov := mat.NewSymDense(2, nil)
	ch.InverseTo(cov)
	var atx mat.VecDense
	atx.MulVec(linA.T(), mat.NewVecDense(3, x))
	atx.ScaleVec(1/(linSigma*linSigma), &atx)
	var m mat.VecDense
	m.MulVec(cov, &atx)
	return []float64{m.AtVec(0), m.AtVec(1)}, cov, prec
}

// gaussKL is KL(N(m1, S1) ‖ N(m2, S2)).
func gaussKL(m1 []float64, s1 *mat.SymDense, m2 []float64, s2 *mat.SymDense) float64 {
	d := len(m1)
	var c2 mat.Cholesky
	c2.Factorize(s2)
	var c1 mat.Cholesky
	c1.Factorize(s1)
	inv := mat.NewSymDense(d, nil)
	c2.InverseTo(inv)
	var p mat.Dense
	p.Mul(inv, s1)
	tr := mat.Trace(&p)
	diff := mat.NewVecDense(d, nil)
	for i := range d {
		diff.SetVec(i, m2[i]-m1[i])
	}
	quad := mat.Inner(diff, inv, diff)
	return 0.5 * (tr + quad - float64(d) + c2.LogDet() - c1.LogDet())
}

// TestConjugateOptimum trains on linGauss, whose posterior is Gaussian with correlation −0.80,
// with a linear network (Hidden = {}), which can represent the exact posterior for every x.
// The optimum of the ELBO, the IWBO and FAVI over the full-covariance family is then the exact
// posterior, and that of the ELBO over the diagonal family is the mean-field solution in
// closed form: the exact mean with variances 1/Λⱼⱼ (Λ the posterior precision), at
// KL(q ‖ p) = ½(Σⱼ log Λⱼⱼ − log det Λ) = 0.52. Averaged over 20 observations, the full fits
// must have KL(q ‖ p) < 0.03 (the stochastic optimizer's floor here is 0.002–0.015 nats; a
// diagonal fit has 0.52, so the check has power), and the diagonal fit must be within 0.03 of
// its closed-form optimum.
func TestConjugateOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	theta := linGauss{}.Prior().Sample(rng, 20)
	x := mat.NewDense(20, 3, nil)
	linGauss{}.SimulateBatch(rng, theta, x)
	_, _, prec := linPosterior(x.RawRowView(0))
	logDet := math.Log(prec.At(0, 0)*prec.At(1, 1) - prec.At(0, 1)*prec.At(1, 0))
	klMF := 0.5 * (math.Log(prec.At(0, 0)) + math.Log(prec.At(1, 1)) - logDet)
	for _, tc := range []struct {
		cfg  Config
		want float64
	}{
		{Config{Objective: ELBO}, 0},
		{Config{Objective: IWBO}, 0},
		{Config{Objective: FAVI}, 0},
		{Config{Objective: ELBO, Diagonal: true}, klMF},
	} {
		cfg := tc.cfg
		cfg.Fresh, cfg.Hidden, cfg.Steps, cfg.LearningRate, cfg.Seed = true, []int{}, 3000, 3e-3, 1
		g, err := Train(linGauss{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var kl float64
		for i := range 20 {
			m, s, _ := linPosterior(x.RawRowView(i))
			mq, sq := g.Unconstrained(x.RawRowView(i))
			kl += gaussKL(mq, sq, m, s) / 20
		}
		t.Logf("%v (diagonal %v): KL(q ‖ p) %.4f, optimum %.4f", cfg.Objective, cfg.Diagonal, kl, tc.want)
		if math.Abs(kl-tc.want) > 0.03 {
			t.Errorf("%v (diagonal %v): KL(q ‖ p) = %.4f, want %.4f ± 0.03", cfg.Objective, cfg.Diagonal, kl, tc.want)
		}
	}
}

// TestGaussianDensity checks that the estimator is a density in θ on a bounded prior: for a
// (briefly trained) fit to the ARCH task, exp(log q(θ | x)) summed over a 400 × 200 grid of the
// box [−1, 1] × [0, 1] is 1 within 1%, the mean of 20,000 draws agrees with the grid mean
// within 5 standard errors, and LogProbPairs agrees with Posterior(x).LogProb.
func TestGaussianDensity(t *testing.T) {
	arch := task.ARCH()
	g, err := Train(arch, Config{Objective: FAVI, Steps: 200, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	theta := arch.Prior().Sample(rng, 3)
	x := arch.Simulate(rng, theta)
	pairs := g.LogProbPairs(theta, x)
	for i := range 3 {
		post := g.Posterior(x.RawRowView(i))
		if lp := post.LogProb(theta.Slice(i, i+1, 0, 2).(*mat.Dense))[0]; math.Abs(lp-pairs[i]) > 1e-12*math.Max(1, math.Abs(lp)) {
			t.Errorf("pair %d: LogProbPairs %v, Posterior.LogProb %v", i, pairs[i], lp)
		}
		const nx, ny = 400, 200
		grid := mat.NewDense(nx*ny, 2, nil)
		for a := range nx {
			for b := range ny {
				grid.Set(a*ny+b, 0, -1+(float64(a)+0.5)*2/nx)
				grid.Set(a*ny+b, 1, (float64(b)+0.5)/ny)
			}
		}
		var mass, m0 float64
		for k, lp := range post.LogProb(grid) {
			w := math.Exp(lp) * (2.0 / nx) * (1.0 / ny)
			mass += w
			m0 += w * grid.At(k, 0)
		}
		if math.Abs(mass-1) > 0.01 {
			t.Errorf("pair %d: q integrates to %.4f over the box", i, mass)
		}
		draws := post.Sample(rng, 20000)
		col := mat.Col(nil, 0, draws)
		mean, se := meanSE(col)
		if math.Abs(mean-m0/mass) > 5*se {
			t.Errorf("pair %d: mean of draws %.4f ± %.4f, grid mean %.4f", i, mean, se, m0/mass)
		}
	}
	if lp := g.Posterior(x.RawRowView(0)).LogProb(mat.NewDense(1, 2, []float64{0, 1.5})); !math.IsInf(lp[0], -1) {
		t.Errorf("log density outside the prior's support: %v", lp[0])
	}
}

func meanSE(v []float64) (float64, float64) {
	var s, s2 float64
	for _, a := range v {
		s += a
	}
	m := s / float64(len(v))
	for _, a := range v {
		s2 += (a - m) * (a - m)
	}
	return m, math.Sqrt(s2 / float64(len(v)-1) / float64(len(v)))
}

// archGrid is the ARCH task's grid posterior (50 × 50 cells) as an amortized estimator: the
// exact posterior up to the cell size, for the level of the under-coverage check.
type archGrid struct{ t *task.ARCHTask }

func (g archGrid) Posterior(x []float64) sbi.Posterior {
	p, err := g.t.GridPosterior(x, 50)
	if err != nil {
		panic(err)
	}
	return p
}

func (g archGrid) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = g.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 2).(*mat.Dense))[0]
	}
	return out
}

// TestARCHUnderCoverage reproduces the direction of CANVI's Table 1 (before calibration): on
// the ARCH task, amortized Gaussian fits by the ELBO and the IWBO (K = 10; 1500 steps of 64
// series drawn from a fixed set of 1000 simulated ones, as the authors train them) cover less
// than their nominal level. The claim is about the method, not one fit: each objective is
// trained with archSeeds seeds, each fit's expected HPD coverage is estimated on its own
// archPairs fresh pairs (300 posterior draws each, diag.RankCoverage), and the covered pairs
// of all fits are pooled (N = 2000). With randomized ranks a pair is covered with probability
// exactly L under a fit calibrated at level L, and at least L under one that over-covers, so
// if no fit under-covers the pooled count is at least Binomial(N, L) in distribution; the
// method under-covers at L when the pooled coverage is below L − 3.09·√(L(1−L)/N), the
// one-sided 0.001 binomial bound (0.879 at L = 0.9, 0.935 at 0.95). A method that does not
// under-cover thus fails the test with probability at least 0.999. Both objectives must
// under-cover at 0.9 and 0.95.
//
// Single fits vary with the seed and with the arithmetic path (assembly kernels or the Go
// reference loops): the IWBO's coverage at 0.9 on 2000 pairs ranged over 0.78–0.87 for seeds
// 1–6, about 0.82 on average (0.88 at 0.95), so one fit on 400 pairs sat at the 0.854 bound of
// that size on some paths. The ELBO gives about 0.44/0.49; its deficit comes mostly from its
// means: the network, trained only through the ELBO, misplaces them (amortization gap), while
// its widths are close to the grid posterior's. The paper's fits (normalizing flows, 25,000
// steps) are far worse, 0.0195/0.0396 for the ELBO and 0.33/0.41 for the IWBO.
//
// Level: the same pooled check on the same pairs must not flag the grid posterior, which is
// exact up to its cells and so stands in for a calibrated method.
func TestARCHUnderCoverage(t *testing.T) {
	arch := task.ARCH()
	rng := rand.New(rand.NewPCG(4, 4))
	sets := make([]pairSet, archSeeds)
	for s := range sets {
		theta := arch.Prior().Sample(rng, archPairs)
		sets[s] = pairSet{theta, arch.Simulate(rng, theta)}
	}
	levels := []float64{0.9, 0.95}
	for _, obj := range []Objective{ELBO, IWBO} {
		fit := func(s int) sbi.Amortized {
			g, err := Train(arch, Config{Objective: obj, Steps: 1500, Seed: uint64(s + 1)})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		for k, u := range pooledUnderCoverage(t, obj.String(), fit, sets, levels) {
			if !u {
				t.Errorf("%v: no significant under-coverage at level %.2f", obj, levels[k])
			}
		}
	}
	grid := func(int) sbi.Amortized { return archGrid{arch} }
	for k, u := range pooledUnderCoverage(t, "grid posterior", grid, sets, levels) {
		if u {
			t.Errorf("the exact (grid) posterior is flagged as under-covering at %.2f", levels[k])
		}
	}
}

// archSeeds fits of an objective, each checked on archPairs pairs, make the pooled
// under-coverage check of TestARCHUnderCoverage.
const archSeeds, archPairs = 4, 500

// pairSet is one set of test pairs (θ, x), one row each.
type pairSet struct{ theta, x *mat.Dense }

// pooledUnderCoverage estimates the expected HPD coverage of est(s) on sets[s] for every s,
// pools the covered pairs, and reports per level whether the pooled coverage is below the
// one-sided 0.001 binomial bound of the pooled number of pairs.
func pooledUnderCoverage(t *testing.T, name string, est func(s int) sbi.Amortized, sets []pairSet, levels []float64) []bool {
	t.Helper()
	covered := make([]float64, len(levels))
	var total int
	for s, p := range sets {
		m, _ := p.theta.Dims()
		cov, err := diag.RankCoverage(est(s), p.theta, p.x, diag.RankConfig{Levels: levels, Samples: 300, Seed: uint64(s + 1)})
		if err != nil {
			t.Fatal(err)
		}
		for k := range levels {
			covered[k] += math.Round(cov.Coverage[k] * float64(m))
		}
		total += m
	}
	under := make([]bool, len(levels))
	for k, l := range levels {
		c := covered[k] / float64(total)
		bound := l - 3.09*math.Sqrt(l*(1-l)/float64(total))
		under[k] = c < bound
		t.Logf("%s: pooled coverage %.3f at %.2f (under-coverage below %.3f, %d pairs in %d sets)", name, c, l, bound, total, len(sets))
	}
	return under
}

// TestTrainErrors: what an objective needs is checked before training.
func TestTrainErrors(t *testing.T) {
	if _, err := Train(simOnly{}, Config{Objective: ELBO}); err == nil {
		t.Error("ELBO without a likelihood was accepted")
	}
	if _, err := Train(simOnly{}, Config{Objective: FAVI, Steps: 5}); err != nil {
		t.Errorf("FAVI needs only the simulator: %v", err)
	}
	if _, err := Train(gammaPrior{}, Config{Objective: ELBO}); err == nil {
		t.Error("a Gamma prior without LogPriorTape was accepted by the ELBO")
	}
	for _, cfg := range []Config{{Objective: 7}, {Hidden: []int{0}}, {LearningRate: -1}} {
		if _, err := Train(linGauss{}, cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// simOnly is linGauss without its likelihood.
type simOnly struct{}

func (simOnly) Prior() dist.Distribution { return linGauss{}.Prior() }
func (simOnly) DataDim() int             { return 3 }
func (simOnly) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	linGauss{}.SimulateBatch(rng, theta, x)
}

// gammaPrior is linGauss with a Gamma prior.
type gammaPrior struct{ linGauss }

func (gammaPrior) Prior() dist.Distribution {
	return dist.NewGamma([]float64{2, 2}, []float64{1, 1})
}
