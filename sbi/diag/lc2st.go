package diag

import (
	"context"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/internal/mmd"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/sat"
	"github.com/gosbi/gosbi/sbi/nn"
)

// LC2STStatistic names the test statistic of L-C2ST.
type LC2STStatistic string

// The statistics of L-C2ST, computed from the classifier's predicted probabilities d(θₙ, x_o)
// that a point is a draw of the estimator, at the evaluation draws θₙ:
const (
	// LC2STMSE is (1/N)·Σₙ (d(θₙ, x_o) − ½)², Linhart et al. (2023) eq. 9, the default.
	LC2STMSE LC2STStatistic = "mse"
	// LC2STMax is maxₙ |d(θₙ, x_o) − ½|, the sup-norm form of the same null hypothesis
	// (d = ½ everywhere exactly when q(· | x_o) = p(· | x_o), Linhart et al. 2023, Thm. 1).
	LC2STMax LC2STStatistic = "max"
)

// LC2STConfig configures NewLC2ST. The zero value is the default: sbi's settings (100 null
// classifiers, MLPs with two hidden layers of 10·dim(θ) units, 10,000 evaluation draws).
type LC2STConfig struct {
	Seed      uint64
	Statistic LC2STStatistic // "mse" (default) or "max"
	// Null is the number of classifiers trained under the null hypothesis; 0 means 100. Each
	// is kept: NewLC2ST trains Null + 1 networks, Workers at a time.
	Null int
	// Evals is the number of draws at x_o on which the classifiers are evaluated; 0 means
	// 10,000. Test holds the Evals × dim(θ) draws, the (Null + 1) × Evals predicted
	// probabilities, and per worker the Evals × (dim(θ) + dim(x)) classifier inputs with the
	// network's activations (Evals × each hidden width). Sizes whose products an int cannot
	// count are an error of NewLC2ST. Classifiers that would hold more than MaxLC2STValues are
	// one too when they do so one at a time, or Workers at a time with Workers set here; with
	// Workers left 0, NewLC2ST trains fewer at a time instead.
	Evals int
	Alpha float64 // level of the verdict; 0 means 0.05
	// Hidden are the classifier's hidden widths; nil means two layers of 10·dim(θ) (at least 10).
	Hidden    []int
	MaxEpochs int // cap on training epochs per classifier; 0 means 1000 (sbi's max_iter)
	// LearningRate and BatchSize set Adam's step and the minibatch; 0 means scikit-learn's
	// 1e-3 and 200 rows. Small calibration sets train faster with larger steps.
	LearningRate float64
	BatchSize    int
	// Workers is the number of classifiers trained and evaluated at a time; 0 means
	// GOMAXPROCS, or fewer where that many would hold more than MaxLC2STValues. A Workers
	// set here that would is an error. The result does not depend on it.
	Workers int
	// Features, when set, is what the classifiers see of the observations: a function from
	// rows of x to rows of summaries (the same number of rows, a fixed width), such as summary
	// statistics of a high-dimensional x or an estimator's Summaries. nil means x itself. A
	// classifier learns the local difference from few pairs far more easily from a few
	// informative summaries than from many raw values; the test stays exact for any Features
	// (the randomization keeps the pairs), but differences invisible in the summaries go unseen.
	Features func(x *mat.Dense) *mat.Dense
	// Flow selects L-C2ST-NF (Linhart et al. 2023, §3.2): the test runs in the base space of a
	// normalizing-flow estimator, which must implement sbi.BaseMapper (NPE does). It needs no
	// posterior draws, and its null classifiers depend neither on the estimator nor on x_o.
	Flow bool
}

func (c LC2STConfig) withDefaults(dim int) LC2STConfig {
	if c.Statistic == "" {
		c.Statistic = LC2STMSE
	}
	if c.Null == 0 {
		c.Null = 100
	}
	if c.Evals == 0 {
		c.Evals = 10000
	}
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.Hidden == nil {
		h := max(10, 10*dim)
		c.Hidden = []int{h, h}
	}
	if c.MaxEpochs == 0 {
		c.MaxEpochs = 1000
	}
	if c.Workers <= 0 {
		c.Workers = runtimeProcs()
	}
	return c
}

func (c LC2STConfig) validate() error {
	switch c.Statistic {
	case LC2STMSE, LC2STMax:
	default:
		return fmt.Errorf("diag: L-C2ST: Statistic %q, expected %q or %q", string(c.Statistic), LC2STMSE, LC2STMax)
	}
	if c.LearningRate < 0 || c.BatchSize < 0 {
		return fmt.Errorf("diag: L-C2ST: LearningRate = %v, BatchSize = %d, expected ≥ 0 (0 takes the default)", c.LearningRate, c.BatchSize)
	}
	if c.Null < 1 || c.Evals < 1 || c.MaxEpochs < 1 {
		return fmt.Errorf("diag: L-C2ST: Null = %d, Evals = %d, MaxEpochs = %d, expected each ≥ 1 (0 takes the default)", c.Null, c.Evals, c.MaxEpochs)
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		return fmt.Errorf("diag: L-C2ST: Alpha = %v, expected a level in (0, 1)", c.Alpha)
	}
	for _, h := range c.Hidden {
		if h < 1 {
			return fmt.Errorf("diag: L-C2ST: hidden widths %v, expected each ≥ 1", c.Hidden)
		}
	}
	return nil
}

// checkSizes refuses a test whose evaluation at an observation would hold more values than an
// int can count: Evals rows of dim + df classifier inputs, and Null + 1 classifiers'
// probabilities at the Evals draws.
func (c LC2STConfig) checkSizes(dim, df int) error {
	if sat.Mul(c.Evals, sat.Add(dim, df)) >= sat.Max || sat.Mul(sat.Add(c.Null, 1), c.Evals) >= sat.Max {
		return fmt.Errorf("diag: L-C2ST: Evals = %d draws of %d inputs (θ and x), for Null = %d null classifiers and the data's, are more values than an int can count: use fewer Evals or Null",
			c.Evals, dim+df, c.Null)
	}
	return nil
}

// MaxLC2STValues bounds the float64 values the classifiers of L-C2ST hold at once (1 GiB). With
// n calibration pairs, D = dim(θ) + dim(x) inputs (the width of Features in place of dim(x)), H
// the sum of the hidden widths, B the minibatch (BatchSize, at most 2n rows) and P = Σ (wᵢ + 1)·wᵢ₊₁
// the parameters of one classifier over its widths D, Hidden…, 1, each of the
// C = min(Workers, Null + 1) classifiers at work holds
//
//	training:   2n·(3D + 1) + 2B·(D + H + 1) + 4P
//	evaluation: Evals·(3D + H + 2)
//
// (rows × width: the 2n rows of inputs, their standardized copy and, for L-C2ST-NF's null
// classifiers, base draws, with their labels; a minibatch's activations and their gradients;
// the parameters with their gradients and Adam's moments; the Evals rows of inputs three times
// and every layer's activations), and the Null + 1 trained classifiers are kept with their
// probabilities at an observation, (Null + 1)·(P + Evals + PPGrid). The bound is on
// C·max(training, evaluation) + (Null + 1)·(P + Evals + PPGrid); the calibration pairs and the
// Evals posterior draws themselves, whose sizes the caller chose, are not counted. NewLC2ST
// checks it before it draws or trains anything: with the default Workers it runs fewer
// classifiers at a time, and a test that does not fit with one at a time, or with the Workers
// asked for, is an error that says what to reduce.
const MaxLC2STValues = 1 << 27

// lc2stSizes are the terms of MaxLC2STValues for one configuration.
type lc2stSizes struct {
	train, eval, kept float64 // one classifier's training and evaluation, and the kept ones
}

// sizes returns the terms of MaxLC2STValues for n calibration pairs, dim parameters and df
// observation features (c with its defaults applied).
func (c LC2STConfig) sizes(n, dim, df int) lc2stSizes {
	d := float64(dim) + float64(df)
	widths := append(append([]int{dim + df}, c.Hidden...), 1)
	var h, p float64
	for i, w := range widths[1:] {
		p += (float64(widths[i]) + 1) * float64(w)
		h += float64(w)
	}
	h-- // the output unit is counted apart
	batch := c.BatchSize
	if batch == 0 {
		batch = 200
	}
	rows, b := 2*float64(n), float64(min(batch, 2*n))
	return lc2stSizes{
		train: rows*(3*d+1) + 2*b*(d+h+1) + 4*p,
		eval:  float64(c.Evals) * (3*d + h + 2),
		kept:  (float64(c.Null) + 1) * (p + float64(c.Evals) + PPGrid),
	}
}

// fitWorkers checks the values the classifiers would hold against MaxLC2STValues and returns
// the Workers to use: c.Workers when they fit, fewer with auto (Workers not set), else an error.
func (c LC2STConfig) fitWorkers(n, dim, df int, auto bool) (int, error) {
	s := c.sizes(n, dim, df)
	one := math.Max(s.train, s.eval)
	at := min(c.Workers, c.Null+1)
	if float64(at)*one+s.kept <= MaxLC2STValues {
		return c.Workers, nil
	}
	most := math.Floor((MaxLC2STValues - s.kept) / one)
	what := fmt.Sprintf("diag: L-C2ST: %d calibration pairs of %d inputs, hidden widths %v, Null = %d and Evals = %d", n, dim+df, c.Hidden, c.Null, c.Evals)
	if most < 1 {
		return 0, fmt.Errorf("%s hold %.4g values with one classifier at a time (training %.4g, evaluation %.4g, the %d kept classifiers %.4g; see MaxLC2STValues), more than MaxLC2STValues = %d (1 GiB): "+
			"use fewer calibration pairs or Evals, narrower Hidden, fewer Null, or Features that summarize x", what, one+s.kept, s.train, s.eval, c.Null+1, s.kept, MaxLC2STValues)
	}
	if auto {
		return int(most), nil
	}
	return 0, fmt.Errorf("%s hold %.4g values with %d classifiers at a time (Workers), more than MaxLC2STValues = %d (1 GiB): use at most Workers = %d, or 0 to let NewLC2ST choose",
		what, float64(at)*one+s.kept, at, MaxLC2STValues, int(most))
}

// LC2ST is the local classifier two-sample test of an amortized posterior estimator
// (Linhart, Gramfort and Rodrigues, "L-C2ST: Local Diagnostics for Posterior Approximations in
// Simulation-Based Inference", NeurIPS 2023), trained once on calibration pairs and evaluated
// at any observation with Test.
//
// The classifier. For calibration pairs (θᵢ, xᵢ) from the joint and one draw θ̃ᵢ ~ q(· | xᵢ)
// of the estimator per pair, a classifier d(θ, x) is trained to tell the rows (θ̃ᵢ, xᵢ)
// (label 1, "estimator") from (θᵢ, xᵢ) (label 0, "true"). If q(· | x) is the true posterior
// the two classes have the same law and the Bayes-optimal d is ½ everywhere; at an observation
// x_o, d(θ, x_o) ≠ ½ on the draws θ ~ q(· | x_o) shows where q departs from the posterior.
// The statistic (LC2STStatistic) measures how far the predicted probabilities at x_o are from
// ½.
//
// The null distribution. Each null classifier is trained on the same rows with the labels of
// the two rows that share xᵢ swapped with probability ½, independently per pair (a
// randomization of the labels). When q(· | x) is the true posterior for every x, θ̃ᵢ and θᵢ are
// exchangeable given xᵢ, so the observed and the null statistics are exchangeable and the
// p-value (1 + #{null ≥ observed})/(Null + 1) is exact: P(p ≤ α) ≤ α. (sbi permutes the rows
// of both classes freely, which does not keep the pairing and is only approximately valid.)
// A correct posterior at x_o alone, with errors elsewhere, may be rejected: the level holds for
// the global null, as in the paper.
//
// L-C2ST-NF (Flow). For a flow q(θ | x) = T(z; x)_#N(0, I), the test compares (zᵢ = T⁻¹(θᵢ; xᵢ),
// xᵢ) (label 0) with (z̃ᵢ ~ N(0, I), xᵢ) (label 1) and evaluates at base draws z ~ N(0, I) with x_o:
// no posterior is sampled. The null classifiers see two independent N(0, I) samples with the
// same xᵢ, a draw of the data under the null hypothesis itself, so the p-value is exact too.
//
// Inputs are z-scored with the mean and standard deviation of each classifier's own training
// rows (both classes pooled; the same statistic for every randomization), so the scale of θ and
// x does not matter. Classifiers train in parallel, each from its own random stream
// (seed, trial): the result depends on the seed only.
type LC2ST struct {
	est     sbi.Amortized
	cfg     LC2STConfig
	dim, dx int // θ and x widths
	df      int // width of what the classifiers see of x (dx without Features)
	n       int // calibration pairs
	dropped int
	nets    []*lc2stNet // [0] is the classifier of the data, [1:] the null classifiers
	xcheck  *mmd.Reference
	xz      zscoreCols      // of the calibration x, for the x_o check
	ctx     context.Context // cancels the training of the classifiers
}

// lc2stNet is one trained classifier with the standardization of its inputs.
type lc2stNet struct {
	net    *nn.MLP
	z      zscoreCols
	epochs int
}

// zscoreCols holds column means and the divisors of the standardization.
type zscoreCols struct{ mean, sd []float64 }

// fitZ learns the standardization of the columns of m with population standard deviations,
// at any finite scale of the data (package colstat; a constant column is only centred). It
// returns an error naming a column that holds NaN or ±Inf or whose spread exceeds float64.
func fitZ(m *mat.Dense) (zscoreCols, error) {
	cols, err := colstat.Fit(m, nil, 0)
	if err != nil {
		return zscoreCols{}, fmt.Errorf("standardizing: %w", err)
	}
	z := zscoreCols{mean: make([]float64, len(cols)), sd: make([]float64, len(cols))}
	for j, c := range cols {
		z.mean[j], z.sd[j] = c.Mean, c.Scale()
	}
	return z, nil
}

func (z zscoreCols) apply(m *mat.Dense) *mat.Dense {
	n, d := m.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		src, dst := m.RawRowView(i), out.RawRowView(i)
		for j := range d {
			dst[j] = colstat.Standardize(src[j], z.mean[j], z.sd[j])
		}
	}
	return out
}

// NewLC2ST trains the L-C2ST classifier and its Null null classifiers on the calibration pairs
// (rows of theta and x, drawn from the joint and not used to train est). Pairs holding NaN or
// ±Inf are dropped and counted. It draws one posterior sample per pair from est (or, with
// cfg.Flow, maps the pairs to the flow's base space). It reports progress, honours
// cancellation and returns an error for bad input or an estimator that fails.
//
// Cost: Null + 1 classifiers, each trained like one fold of C2STWith on 2n rows of
// dim(θ) + dim(x) inputs.
func NewLC2ST(est sbi.Amortized, theta, x *mat.Dense, cfg LC2STConfig) (*LC2ST, error) {
	return NewLC2STContext(runenv.Context(), est, theta, x, cfg)
}

// NewLC2STContext is NewLC2ST cancelled by ctx alone (the host's context is not read).
func NewLC2STContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg LC2STConfig) (*LC2ST, error) {
	th, xx, dropped, err := checkPairs("L-C2ST", est, theta, x)
	if err != nil {
		return nil, err
	}
	if r, bad := firstNonFiniteRow(xx); bad {
		return nil, fmt.Errorf("diag: L-C2ST: the observation of calibration pair %d is padded with NaN: its classifier reads the values of x, which must be numbers: check the observations of k trials apart, with the estimator's Trials(k)", r)
	}
	n, dim := th.Dims()
	_, dx := xx.Dims()
	autoWorkers := cfg.Workers <= 0
	cfg = cfg.withDefaults(dim)
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if n < 10 {
		return nil, fmt.Errorf("diag: L-C2ST needs at least 10 calibration pairs, got %d; use thousands (sbi recommends 10,000)", n)
	}
	l := &LC2ST{est: est, cfg: cfg, dim: dim, dx: dx, df: dx, n: n, dropped: dropped, ctx: ctx}
	feat := xx
	if cfg.Features != nil {
		l.df = 0 // set by the first call
		if feat, err = l.features(xx); err != nil {
			return nil, err
		}
		_, l.df = feat.Dims()
	}
	if err := cfg.checkSizes(dim, l.df); err != nil {
		return nil, err
	}
	if l.cfg.Workers, err = cfg.fitWorkers(n, dim, l.df, autoWorkers); err != nil {
		return nil, err
	}
	var estRows, trueRows *mat.Dense // θ̃ᵢ or z̃ᵢ (label 1) and θᵢ or zᵢ (label 0)
	if cfg.Flow {
		bm, ok := est.(sbi.BaseMapper)
		if !ok {
			return nil, fmt.Errorf("diag: L-C2ST-NF needs an estimator whose posterior is a normalizing flow (sbi.BaseMapper, e.g. *sbi.NPE); %T is not one: use the default L-C2ST", est)
		}
		err = safe.Call("diag: L-C2ST-NF: base transform", func() error {
			trueRows = bm.ToBase(th, xx)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if r, bad := firstNonFiniteRow(trueRows); bad {
			return nil, fmt.Errorf("diag: L-C2ST-NF: the flow maps calibration pair %d to a non-finite base point %v", r, trueRows.RawRowView(r))
		}
		estRows = normalDraws(rand.New(rand.NewPCG(cfg.Seed, 0x4e46)), n, dim)
	} else {
		estRows, err = onePosteriorDraw(ctx, est, xx, cfg.Seed)
		if err != nil {
			return nil, err
		}
		trueRows = th
	}
	if err := l.train(estRows, trueRows, feat); err != nil {
		return nil, err
	}
	// The reference for the check that x_o lies among the calibration simulations, in the
	// space the classifiers see.
	if l.xz, err = fitZ(feat); err != nil {
		return nil, fmt.Errorf("diag: L-C2ST: x of the calibration pairs: %w", err)
	}
	xs := l.xz.apply(feat)
	perm := rand.New(rand.NewPCG(cfg.Seed, 0x78)).Perm(n)
	h := min(500, n/2)
	if n >= minObservationCheckPairs {
		l.xcheck, _ = mmd.New(rowsAt(xs, perm[:h]), rowsAt(xs, perm[h:min(n, 2*h)]))
	}
	return l, nil
}

// features applies cfg.Features to the rows of x and checks its result.
func (l *LC2ST) features(x *mat.Dense) (*mat.Dense, error) {
	var f *mat.Dense
	err := safe.Call("diag: L-C2ST: Features", func() error {
		f = l.cfg.Features(x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	if f == nil {
		return nil, fmt.Errorf("diag: L-C2ST: Features returned nil for %d rows", n)
	}
	r, c := f.Dims()
	if r != n || (l.df != 0 && c != l.df) || c == 0 {
		return nil, fmt.Errorf("diag: L-C2ST: Features returned %d×%d for %d rows, expected one row per row of x and a fixed width", r, c, n)
	}
	if i, bad := firstNonFiniteRow(f); bad {
		return nil, fmt.Errorf("diag: L-C2ST: Features of row %d hold NaN or infinite values: %v", i, f.RawRowView(i))
	}
	return f, nil
}

// minCalibrationPoints is the fewest calibration points for a p-value that can reach 0.05.
const minCalibrationPoints = 19

// minObservationCheckPairs is the fewest calibration pairs with which NewLC2ST checks an
// observation against them: h = ⌊n/2⌋ of them (at most 500) are the check's reference, and
// the n − h = ⌈n/2⌉ others must number at least minCalibrationPoints.
const minObservationCheckPairs = 2*minCalibrationPoints - 1

func rowsAt(m *mat.Dense, idx []int) *mat.Dense {
	_, c := m.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for k, i := range idx {
		out.SetRow(k, m.RawRowView(i))
	}
	return out
}

func normalDraws(rng *rand.Rand, n, d int) *mat.Dense {
	out := mat.NewDense(n, d, nil)
	for i := range out.RawMatrix().Data {
		out.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return out
}

// onePosteriorDraw draws one sample of est's posterior at every row of x, in parallel, pair i
// from the stream (seed, i).
func onePosteriorDraw(ctx context.Context, est sbi.Amortized, x *mat.Dense, seed uint64) (*mat.Dense, error) {
	n, _ := x.Dims()
	var out *mat.Dense
	var mu sync.Mutex
	err := forEachPair(ctx, "L-C2ST posterior draws", "calibration pairs", n, 0, func(i int) error {
		s, err := sampleOne(est.Posterior(rowCopy(x, i)), rand.New(rand.NewPCG(seed^0x6c6332, uint64(i))))
		if err != nil {
			return fmt.Errorf("diag: L-C2ST: calibration pair %d: %w", i, err)
		}
		mu.Lock()
		if out == nil {
			_, d := s.Dims()
			out = mat.NewDense(n, d, nil)
		}
		mu.Unlock()
		out.SetRow(i, s.RawRowView(0))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sampleOne draws one sample, through SampleChecked when the posterior has it.
func sampleOne(p sbi.Posterior, rng *rand.Rand) (*mat.Dense, error) { return sampleN(p, rng, 1) }

// sampleN draws n samples, through SampleChecked when the posterior has it (an error instead
// of a panic), checking the shape of the draws and that they are finite.
func sampleN(p sbi.Posterior, rng *rand.Rand, n int) (*mat.Dense, error) {
	var s *mat.Dense
	if c, ok := p.(interface {
		SampleChecked(*rand.Rand, int) (*mat.Dense, error)
	}); ok {
		var err error
		if s, err = c.SampleChecked(rng, n); err != nil {
			return nil, err
		}
	} else {
		s = p.Sample(rng, n)
	}
	if r, c := s.Dims(); r != n || c != p.Dim() {
		return nil, fmt.Errorf("Sample(rng, %d) returned %d×%d draws, want %d×%d", n, r, c, n, p.Dim())
	}
	if j, bad := firstNonFiniteRow(s); bad {
		return nil, nonFiniteDraw(j, n, s.RawRowView(j))
	}
	return s, nil
}

// nonFiniteDraw is the error for posterior draw j of n that holds NaN or ±Inf: such a draw
// compares false with every number, so ranks, distances and classifiers would count it
// wherever the comparison happens to fall.
func nonFiniteDraw(j, n int, v []float64) error {
	return fmt.Errorf("posterior draw %d of %d is %v: it holds NaN or ±Inf values, which no diagnostic can place; "+
		"the estimator's sampler failed there (check its training, or a bijection that overflows at the edge of the support)", j, n, v)
}

// train fits the data classifier (trial 0) and the null classifiers (trials 1…Null).
func (l *LC2ST) train(estRows, trueRows, x *mat.Dense) error {
	cfg := l.cfg
	trials := cfg.Null + 1
	l.nets = make([]*lc2stNet, trials)
	errs := make([]error, trials)
	prog := sbi.NewProgress("L-C2ST classifiers", trials)
	sem := make(chan struct{}, cfg.Workers)
	var wg sync.WaitGroup
	for k := range trials {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			defer safe.Recover(&errs[k], fmt.Sprintf("diag: L-C2ST classifier %d", k))
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
			a, b := estRows, trueRows
			swap := k > 0 && !cfg.Flow
			if k > 0 && cfg.Flow { // the null: two N(0, I) samples
				a, b = normalDraws(rng, l.n, l.dim), normalDraws(rng, l.n, l.dim)
			}
			l.nets[k], errs[k] = l.fit(rng, a, b, x, swap)
			prog.Add(1)
		}()
	}
	wg.Wait()
	return finishTrials(l.ctx, prog, errs, "classifiers")
}

// fit trains one classifier: rows (a_i, x_i) with label 1 and (b_i, x_i) with label 0, the two
// labels of pair i swapped with probability ½ when swap is set.
func (l *LC2ST) fit(rng *rand.Rand, a, b, x *mat.Dense, swap bool) (*lc2stNet, error) {
	n := l.n
	d := l.dim + l.df
	data := mat.NewDense(2*n, d, nil)
	labels := mat.NewDense(2*n, 1, nil)
	for i := range n {
		ra, rb := data.RawRowView(i), data.RawRowView(n+i)
		copy(ra, a.RawRowView(i))
		copy(ra[l.dim:], x.RawRowView(i))
		copy(rb, b.RawRowView(i))
		copy(rb[l.dim:], x.RawRowView(i))
		la, lb := 1.0, 0.0
		if swap && rng.IntN(2) == 1 {
			la, lb = 0, 1
		}
		labels.Set(i, 0, la)
		labels.Set(n+i, 0, lb)
	}
	z, err := fitZ(data)
	if err != nil {
		return nil, fmt.Errorf("diag: L-C2ST: %w", err)
	}
	rows := make([]int, 2*n)
	for i := range rows {
		rows[i] = i
	}
	cc := classifierConfig{hidden: l.cfg.Hidden, maxEpochs: l.cfg.MaxEpochs, lr: l.cfg.LearningRate, batch: l.cfg.BatchSize}
	net, epochs, err := trainClassifier(l.ctx, rng, z.apply(data), labels, rows, cc, "L-C2ST")
	if err != nil {
		return nil, err
	}
	return &lc2stNet{net: net, z: z, epochs: epochs}, nil
}

// probabilities returns the predicted probability of the estimator class at the rows (θₙ, x_o).
func (c *lc2stNet) probabilities(eval *mat.Dense, xo []float64) []float64 {
	n, dim := eval.Dims()
	data := mat.NewDense(n, dim+len(xo), nil)
	for i := range n {
		r := data.RawRowView(i)
		copy(r, eval.RawRowView(i))
		copy(r[dim:], xo)
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	out := c.net.Forward(tp, tp.Const(n, dim+len(xo), c.z.apply(data).RawMatrix().Data))
	p := make([]float64, n)
	for i, v := range out.Data {
		p[i] = 1 / (1 + math.Exp(-v))
	}
	return p
}

func statistic(kind LC2STStatistic, p []float64) float64 {
	var s float64
	for _, v := range p {
		e := v - 0.5
		if kind == LC2STMax {
			s = math.Max(s, math.Abs(e))
		} else {
			s += e * e / float64(len(p))
		}
	}
	return s
}

// PPGrid is the number of points of the grid on [0, 1] on which an LC2STResult holds the
// distribution functions of the predicted probabilities.
const PPGrid = 101

// LC2STResult is the L-C2ST at one observation.
type LC2STResult struct {
	Statistic LC2STStatistic
	Value     float64   // the statistic of the trained classifier at x_o
	Null      []float64 // the statistic of each null classifier at x_o
	PValue    float64   // (1 + #{Null ≥ Value})/(len(Null) + 1)
	Alpha     float64   // level of Reject and Verdict
	Flow      bool      // L-C2ST-NF
	N         int       // calibration pairs
	Dropped   int       // calibration pairs left out for NaN or ±Inf
	Evals     int       // evaluation draws at x_o

	Observation []float64
	// Probs are the trained classifier's predicted probabilities that an evaluation draw comes
	// from the estimator, sorted: all ½ for a classifier that cannot tell the classes apart.
	Probs []float64
	// Grid holds PPGrid points on [0, 1]; CDF[k] is the share of Probs ≤ Grid[k] (the
	// PP-plot of Linhart et al. 2023, Fig. 3), and NullLower, NullUpper the pointwise
	// α/2 and 1 − α/2 quantiles of the same share over the null classifiers: the band in which
	// the curve of an exact posterior lies at each point with probability about 1 − α.
	Grid, CDF, NullLower, NullUpper []float64

	// ObservationPValue is the MMD test of x_o against the calibration simulations (see
	// Misspecification); when x_o lies beyond all of them (Outside) the classifiers
	// extrapolate and the verdict is inconclusive. NaN with too few calibration pairs.
	ObservationPValue float64
	Outside           bool
}

// Test evaluates the classifiers at the observation xo: it draws Evals samples of the
// estimator's posterior at xo (with Flow, of N(0, I)) from the stream (Seed, xo-independent),
// computes the statistic of every classifier and the p-value. It returns an error when xo has
// the wrong length or holds NaN or ±Inf, the posterior cannot be sampled or gives a draw that
// holds NaN or ±Inf, or a classifier's statistic is NaN.
func (l *LC2ST) Test(xo []float64) (*LC2STResult, error) {
	if err := checkLC2STObservation(xo, l.dx); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(l.cfg.Seed, 0x65766c))
	var eval *mat.Dense
	if l.cfg.Flow {
		eval = normalDraws(rng, l.cfg.Evals, l.dim)
	} else {
		err := safe.Call("diag: L-C2ST: posterior at the observation", func() (err error) {
			eval, err = sampleN(l.est.Posterior(append([]float64(nil), xo...)), rng, l.cfg.Evals)
			if err != nil {
				return fmt.Errorf("diag: L-C2ST: the posterior at the observation: %w", err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	fo := xo
	if l.cfg.Features != nil {
		f, err := l.features(mat.NewDense(1, len(xo), append([]float64(nil), xo...)))
		if err != nil {
			return nil, err
		}
		fo = f.RawRowView(0)
	}
	trials := len(l.nets)
	probs := make([][]float64, trials)
	err := forEachPair(l.ctx, "L-C2ST evaluation", "classifiers", trials, l.cfg.Workers, func(k int) error {
		probs[k] = l.nets[k].probabilities(eval, fo)
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := &LC2STResult{Statistic: l.cfg.Statistic, Alpha: l.cfg.Alpha, Flow: l.cfg.Flow, N: l.n, Dropped: l.dropped,
		Evals: l.cfg.Evals, Observation: append([]float64(nil), xo...), Null: make([]float64, trials-1)}
	r.Value = statistic(r.Statistic, probs[0])
	above := 0
	for k := range trials {
		v := r.Value
		if k > 0 {
			v = statistic(r.Statistic, probs[k])
		}
		if math.IsNaN(v) {
			// NaN is ≥ nothing: it would count as beyond every null statistic, or below the observed.
			return nil, fmt.Errorf("diag: L-C2ST: the statistic of classifier %d (0 is the data classifier, the others null classifiers) is NaN at the observation: "+
				"its predicted probabilities there are NaN, so no p-value can be formed; retrain (another Seed, fewer MaxEpochs or a smaller LearningRate)", k)
		}
		if k > 0 {
			r.Null[k-1] = v
			if v >= r.Value {
				above++
			}
		}
	}
	r.PValue = float64(1+above) / float64(trials)
	r.Probs = append([]float64(nil), probs[0]...)
	sort.Float64s(r.Probs)
	r.setPP(probs[1:])
	r.ObservationPValue = math.NaN()
	if l.xcheck != nil {
		xs := l.xz.apply(mat.NewDense(1, len(fo), append([]float64(nil), fo...)))
		r.ObservationPValue = l.xcheck.PValue(l.xcheck.Statistic(xs.RawRowView(0)))
		_, m := l.xcheck.Sizes()
		r.Outside = !(r.ObservationPValue > 1/float64(m+1)) // a NaN p-value is no sign of being inside
	}
	return r, nil
}

// setPP fills the PP-plot arrays from the trained classifier's sorted probabilities and the
// null classifiers' probabilities.
func (r *LC2STResult) setPP(null [][]float64) {
	r.Grid = make([]float64, PPGrid)
	for k := range r.Grid {
		r.Grid[k] = float64(k) / float64(PPGrid-1)
	}
	r.CDF = cdfOnGrid(r.Probs, r.Grid)
	r.NullLower, r.NullUpper = make([]float64, PPGrid), make([]float64, PPGrid)
	if len(null) == 0 {
		copy(r.NullLower, r.CDF)
		copy(r.NullUpper, r.CDF)
		return
	}
	cdfs := make([][]float64, len(null))
	for k, p := range null {
		s := append([]float64(nil), p...)
		sort.Float64s(s)
		cdfs[k] = cdfOnGrid(s, r.Grid)
	}
	col := make([]float64, len(null))
	for g := range r.Grid {
		for k := range cdfs {
			col[k] = cdfs[k][g]
		}
		sort.Float64s(col)
		r.NullLower[g] = quantile.Sorted(col, r.Alpha/2)
		r.NullUpper[g] = quantile.Sorted(col, 1-r.Alpha/2)
	}
}

// cdfOnGrid is the share of the sorted values ≤ each grid point.
func cdfOnGrid(sorted, grid []float64) []float64 {
	out := make([]float64, len(grid))
	for k, g := range grid {
		out[k] = float64(sort.Search(len(sorted), func(i int) bool { return sorted[i] > g })) / float64(len(sorted))
	}
	return out
}

// Reject reports whether the test rejects q(· | x_o) = p(· | x_o) at level Alpha (p ≤ Alpha)
// at an observation inside the calibration simulations.
func (r *LC2STResult) Reject() bool { return r.PValue <= r.Alpha && !r.Outside }

// Verdict says what the numbers support: "rejected: …" (the estimator differs from the
// posterior at x_o), "no evidence against the estimator at x_o: …" (which is not a proof that
// it is right), or "inconclusive: …" when x_o lies outside the calibration simulations or the
// number of null classifiers cannot give a p-value as small as Alpha.
func (r *LC2STResult) Verdict() string {
	name := "L-C2ST"
	if r.Flow {
		name = "L-C2ST-NF"
	}
	switch {
	case r.Outside:
		return fmt.Sprintf("inconclusive: the observation lies outside the %d calibration simulations (p = %.3g), where the classifiers extrapolate; %s cannot judge the posterior there, and the estimator was likely not trained there either (see the misspecification check)",
			r.N, r.ObservationPValue, name)
	case 1/float64(len(r.Null)+1) > r.Alpha:
		least, alpha := pvalue.Format(1/float64(len(r.Null)+1), r.Alpha)
		return fmt.Sprintf("inconclusive: with %d null classifiers the smallest p-value is %s > α = %s; use at least %d",
			len(r.Null), least, alpha, int(math.Ceil(1/r.Alpha))-1)
	}
	p, alpha := pvalue.Format(r.PValue, r.Alpha)
	if r.PValue <= r.Alpha {
		return fmt.Sprintf("rejected: the estimator's posterior at this observation differs from the true posterior (%s %s %.3g, p = %s ≤ α = %s against %d null classifiers trained on %d calibration pairs)",
			name, r.Statistic, r.Value, p, alpha, len(r.Null), r.N) + r.uncheckedNote()
	}
	return fmt.Sprintf("no evidence against the estimator at this observation: %s %s %.3g, p = %s > α = %s (%d calibration pairs; a larger set detects smaller errors, and no test shows a posterior to be exact)",
		name, r.Statistic, r.Value, p, alpha, r.N) + r.uncheckedNote()
}

// uncheckedNote is what a verdict adds when the observation was not checked against the
// calibration simulations (too few of them): an observation beyond them all, where the
// classifiers extrapolate, would not have been seen.
func (r *LC2STResult) uncheckedNote() string {
	if !math.IsNaN(r.ObservationPValue) {
		return ""
	}
	return fmt.Sprintf("; whether the observation lies among the calibration simulations was not checked (%d calibration pairs, the check needs at least %d), so the classifiers may have judged it by extrapolation",
		r.N, minObservationCheckPairs)
}

// String is a text summary.
func (r *LC2STResult) String() string {
	name := "L-C2ST"
	if r.Flow {
		name = "L-C2ST-NF"
	}
	return fmt.Sprintf("%s at x_o (%s statistic %.4g; null median %.4g, 95%% quantile %.4g): %s",
		name, r.Statistic, r.Value, medianOfCopy(r.Null), quantileOf(r.Null, 0.95), r.Verdict())
}

// MIMEBundle shows the result as HTML and text; viz.LC2ST draws the PP-plot. The table's
// p-value is written as the verdict writes it, with the digits that keep it on its side of
// Alpha.
func (r *LC2STResult) MIMEBundle() map[string]any {
	color := ""
	if r.Reject() {
		color = ` style="color:#D55E00"`
	}
	var b strings.Builder
	name := "L-C2ST"
	if r.Flow {
		name = "L-C2ST-NF"
	}
	fmt.Fprintf(&b, "<div><b>%s</b> at x_o: <i%s>%s</i>", name, color, html.EscapeString(r.Verdict()))
	p, _ := pvalue.Format(r.PValue, r.Alpha)
	fmt.Fprintf(&b, `<table style="font-size:90%%"><tr><th>statistic (%s)</th><td>%.4g</td></tr><tr><th>null median / 95%%</th><td>%.4g / %.4g</td></tr><tr><th>p-value</th><td>%s</td></tr><tr><th>calibration pairs</th><td>%d</td></tr><tr><th>evaluation draws</th><td>%d</td></tr></table></div>`,
		html.EscapeString(string(r.Statistic)), r.Value, medianOfCopy(r.Null), quantileOf(r.Null, 0.95), p, r.N, r.Evals)
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

func medianOfCopy(v []float64) float64 { return quantileOf(v, 0.5) }

func quantileOf(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return quantile.Sorted(s, p)
}

// checkLC2STObservation returns an error unless xo holds dx finite values, as the calibration
// simulations do.
func checkLC2STObservation(xo []float64, dx int) error {
	if len(xo) != dx {
		return fmt.Errorf("diag: L-C2ST: the observation has %d values, expected %d like each calibration simulation (a row of x)", len(xo), dx)
	}
	if !pairs.AllFinite(xo) {
		return fmt.Errorf("diag: L-C2ST: the observation holds NaN or infinite values (%v); expected finite values, as L-C2ST tests the posterior at a real observation", xo)
	}
	return nil
}

// LocalC2ST trains L-C2ST on the calibration pairs and tests it at xo: NewLC2ST then Test.
// Keep the LC2ST of NewLC2ST to test several observations with one training.
func LocalC2ST(est sbi.Amortized, theta, x *mat.Dense, xo []float64, cfg LC2STConfig) (*LC2STResult, error) {
	return LocalC2STContext(runenv.Context(), est, theta, x, xo, cfg)
}

// LocalC2STContext is LocalC2ST cancelled by ctx alone (the host's context is not read).
func LocalC2STContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, xo []float64, cfg LC2STConfig) (*LC2STResult, error) {
	if x != nil {
		if _, dx := x.Dims(); dx > 0 {
			// before the training, which an observation it cannot test would waste
			if err := checkLC2STObservation(xo, dx); err != nil {
				return nil, err
			}
		}
	}
	l, err := NewLC2STContext(ctx, est, theta, x, cfg)
	if err != nil {
		return nil, err
	}
	return l.Test(xo)
}

// Epochs returns the training epochs of the data classifier and of each null classifier.
func (l *LC2ST) Epochs() []int {
	out := make([]int, len(l.nets))
	for k, c := range l.nets {
		out[k] = c.epochs
	}
	return out
}
