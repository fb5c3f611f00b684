package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// The errors a caller of the estimators branches on, with errors.Is. The error forms wrap them,
// and the Must forms and shorthands (a posterior's Sample) panic with an error that wraps them.
var (
	// ErrUntrained: the estimator has no trained weights (never trained, or its training was
	// interrupted or failed before one epoch finished).
	ErrUntrained = errors.New("the estimator is not trained: call Train (or load a trained one) before using its posterior")
	// ErrLowAcceptance: fewer than MinAcceptanceRate of an NPE or FMPE posterior's draws fall
	// inside the prior's support, so rejection sampling would stall.
	ErrLowAcceptance = errors.New("low acceptance")
	// ErrNonFinite: data hold NaN or ±Inf where they cannot be dropped (an observation, every
	// training pair, or any pair under TrainConfig.RefuseNonFinite).
	ErrNonFinite = errors.New("non-finite values")
	// ErrDiverged: training reached no finite loss, or a flow's weights are no longer finite
	// or so large that its draws collapse to one value.
	ErrDiverged = errors.New("diverged")
)

// estimator is the core that NPE and NRE share, and that further amortized estimators build
// on: the prior, the standardization of θ and x, the optional embedding of x, and the
// preparation, training, saving and loading around the estimator's own network.
//
// Invariants: trained implies that zt has prior.Dim() entries, zx has xDim, and the network and
// emb are built for observations of xDim values. Train from fresh weights sets trained to false
// before it changes any of them, and to true once it succeeds; Train with Resume keeps the
// weights, the standardization and xDim.
type estimator struct {
	name   string // "NPE" or "NRE": the prefix of configuration errors
	label  string // the name in training results and progress, e.g. "NPE (maf)"
	kind   string // the kind in the file header: "npe" or "nre"
	prior  dist.Distribution
	cfgErr error // the configuration's error, reported by Train and Load
	// dropNote says, in the warning about dropped non-finite pairs, what dropping does to this
	// kind of estimator.
	dropNote string
	emb      EmbeddingNet
	layout   InputLayout  // the embedding's, nil for none
	counter  TrialCounter // the embedding's, nil for none
	zt, zx   zscore
	xDim     int
	trained  bool
	obs      *obsCheck // reservoir of training summaries for CheckObservation (obscheck.go)
	// trials is the range of the numbers of trials of the training observations, for a set
	// embedding of varying numbers of trials; nil for other embeddings, or unknown (a file of
	// format 2). See trialrange.go.
	trials *trialRange
	// proposal says where the parameters of the current weights' training came from when not
	// from the prior (Sequential's rounds after the first); "" for the prior or unknown.
	proposal string
}

// network is what the core needs of an estimator's own networks: the training view (all
// weights, the embedding's last, and the batch loss), the configured embedding of x, and a
// builder of the network that follows the embedding (the head: a flow, a classifier).
type network interface {
	model
	embedding() Embedding // nil for none
	// buildHead creates a fresh head for ctx conditioning values (the embedding's output, or x).
	buildHead(rng *rand.Rand, ctx int) error
}

// xDensity is a network that models the density of the first columns of x (a likelihood
// estimator's flow).
type xDensity interface {
	// modeledX is the number of leading columns of x, of xDim, whose density it models.
	modeledX(xDim int) int
}

// modeledX is the number of leading columns of x whose density m models: 0 unless m is an
// xDensity.
func modeledX(m network, xDim int) int {
	if d, ok := m.(xDensity); ok {
		return d.modeledX(xDim)
	}
	return 0
}

// trainSet is a training set checked and split by prepare.
type trainSet struct {
	cfg        TrainConfig // with defaults
	data       *trainData  // the finite pairs, in raw units
	train, val []int       // rows of data
	dropped    int         // pairs removed for NaN or ±Inf
	rng        *rand.Rand  // the stream of the split, then of the batch order and regularizers
}

// Prior returns the prior.
func (c *estimator) Prior() dist.Distribution { return c.prior }

// Trained reports whether the estimator has trained weights: a Train succeeded, or one that
// stopped (an interrupt, a regularizer's error) kept a finished epoch, or a load.
func (c *estimator) Trained() bool { return c.trained }

// knownXDim is the width of x the estimator was trained on, 0 when untrained.
func (c *estimator) knownXDim() int {
	if c.trained {
		return c.xDim
	}
	return 0
}

// prepare checks the configuration and the pairs, drops non-finite pairs and splits them. A
// pair whose x holds NaN or ±Inf only in the padding of the layout of emb is an error, not a
// failed simulation (paddingErr).
func (c *estimator) prepare(theta, x *mat.Dense, cfg TrainConfig, emb Embedding) (*trainSet, error) {
	s := &trainSet{cfg: cfg.withDefaults()}
	if err := s.cfg.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	if err := checkPairs("train "+c.label, theta, x, c.prior.Dim(), c.knownXDim()); err != nil {
		return nil, err
	}
	if err := checkPadding(emb, x); err != nil {
		return nil, fmt.Errorf("train %s: %w", c.label, err)
	}
	if err := checkPadding(emb, s.cfg.ValX); err != nil {
		return nil, fmt.Errorf("train %s: validation pairs (ValX): %w", c.label, err)
	}
	if _, cols := x.Dims(); s.cfg.Resume && c.trained && cols != c.xDim {
		return nil, fmt.Errorf("train %s: x has %d columns, the estimator was trained on %d (Resume keeps the network)", c.label, cols, c.xDim)
	}
	th, xx, dropped, first := dropNonFinite(theta, x)
	if dropped > 0 && s.cfg.RefuseNonFinite {
		return nil, fmt.Errorf("train %s: %w: %d of %d pairs hold NaN or ±Inf (the first is row %d) and RefuseNonFinite is set: fix or remove the failed simulations (sbi.DropInvalid), or unset RefuseNonFinite to drop them with a count",
			c.label, ErrNonFinite, dropped, theta.RawMatrix().Rows, first)
	}
	if th == nil {
		return nil, fmt.Errorf("train %s: %w: all %d pairs hold NaN or ±Inf", c.label, ErrNonFinite, dropped)
	}
	s.data, s.dropped = &trainData{theta: th, x: xx}, dropped
	s.rng = rand.New(rand.NewPCG(s.cfg.Seed, 0x7261696e))
	n, _ := th.Dims()
	if s.cfg.ValTheta != nil {
		return s, c.appendValidation(s)
	}
	var err error
	if s.train, s.val, err = splitRows(s.rng, n, s.cfg.ValidationFraction); err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	return s, nil
}

// appendValidation stacks the validation pairs of s.cfg (ValTheta, ValX) below the training
// pairs of s.data: the training rows are the first ones, in their order, the validation rows
// the rest.
func (c *estimator) appendValidation(s *trainSet) error {
	vt, vx := s.cfg.ValTheta, s.cfg.ValX
	if err := checkPairs("train "+c.label+": validation pairs (ValTheta, ValX)", vt, vx, c.prior.Dim(), c.knownXDim()); err != nil {
		return err
	}
	n, dt := s.data.theta.Dims()
	_, dx := s.data.x.Dims()
	nv, vcols := vx.Dims()
	if vcols != dx {
		return fmt.Errorf("train %s: ValX has %d columns, the training x %d, expected the same", c.label, vcols, dx)
	}
	if _, _, bad, first := dropNonFinite(vt, vx); bad > 0 {
		return fmt.Errorf("train %s: %w: %d of %d validation pairs hold NaN or ±Inf (the first is row %d): remove the failed simulations from ValTheta and ValX (sbi.DropInvalid)", c.label, ErrNonFinite, bad, nv, first)
	}
	if n < 2 {
		return fmt.Errorf("train %s: %d usable training pairs, expected at least 2: simulate more", c.label, n)
	}
	th, xx := mat.NewDense(n+nv, dt, nil), mat.NewDense(n+nv, dx, nil)
	th.Slice(0, n, 0, dt).(*mat.Dense).Copy(s.data.theta)
	th.Slice(n, n+nv, 0, dt).(*mat.Dense).Copy(vt)
	xx.Slice(0, n, 0, dx).(*mat.Dense).Copy(s.data.x)
	xx.Slice(n, n+nv, 0, dx).(*mat.Dense).Copy(vx)
	s.data.theta, s.data.x = th, xx
	s.train, s.val = make([]int, n), make([]int, nv)
	for i := range s.train {
		s.train[i] = i
	}
	for i := range s.val {
		s.val[i] = n + i
	}
	return nil
}

// train fits m to the pairs (θᵢ, xᵢ) as NPE.Train documents: from fresh weights and a
// standardization learned on the training split, or from the current ones with cfg.Resume. It
// stops when ctx is done, keeping the best epoch's weights.
func (c *estimator) train(ctx context.Context, m network, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	if c.cfgErr != nil {
		return nil, c.cfgErr
	}
	s, err := c.prepare(theta, x, cfg, m.embedding())
	if err != nil {
		return nil, err
	}
	if err := checkValidationSize(c.label, m, len(s.val), "simulate more, raise ValidationFraction or give more ValTheta rows, or set ValidationFraction negative for no validation"); err != nil {
		return nil, err
	}
	if err := checkInputRows(m.embedding(), x); err != nil {
		return nil, fmt.Errorf("train %s: %w", c.label, err)
	}
	if vx := s.cfg.ValX; vx != nil {
		if err := checkInputRows(m.embedding(), vx); err != nil {
			return nil, fmt.Errorf("train %s: validation pairs: %w", c.label, err)
		}
	}
	d := s.data
	seen, err := seenTrials(counterOf(m.embedding()), d.x, s.train)
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", c.label, err)
	}
	var constWarn []string
	resumed := s.cfg.Resume && c.trained
	if !resumed {
		zt, err := fitZScore("θ", d.theta, s.train)
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", c.label, err)
		}
		zx, err := fitXScore(m.embedding(), d.x, s.train)
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", c.label, err)
		}
		c.trained = false // until fit succeeds: the standardization and networks change now
		c.zt, c.zx, c.trials, c.proposal = zt, zx, nil, ""
		constWarn = constantWarnings(zt, zx, modeledX(m, d.x.RawMatrix().Cols))
		if err := c.build(m, rand.New(rand.NewPCG(s.cfg.Seed, 1)), d.x.RawMatrix().Cols, d.x.RawRowView(s.train[0])); err != nil {
			return nil, err
		}
	}
	d.thetaZ, d.xZ = c.zt.apply(d.theta), c.zx.apply(d.x)
	res := &TrainResult{Estimator: c.label, Dropped: s.dropped}
	if w := c.dropWarning(s.dropped, theta.RawMatrix().Rows); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	res.Warnings = append(res.Warnings, constWarn...)
	err = fit(ctx, res, m, d, s.train, s.val, s.cfg, s.rng, c.trained)
	err = c.afterFit(ctx, res, err)
	c.recordTrials(resumed, seen)
	if c.trained {
		c.keepReservoir(d, s.train, s.val, s.cfg.Seed)
	}
	return res, err
}

// afterFit sets whether the estimator is trained after a training loop ended with err, and
// returns the error Train reports. The loop restored the best epoch's weights whatever stopped
// it, so an interrupt or an error (a regularizer's, a source's) that came after an epoch with
// a finite score leaves the estimator trained with that epoch; without one the weights are
// the fresh (untrained) ones, or those the estimator had before a resumed training. The error
// says where training stopped and what it kept; under cancel.CallerKeeps an interrupted
// training's error says only where, as its last progress line does, since the caller's error
// says what the caller keeps.
func (c *estimator) afterFit(ctx context.Context, res *TrainResult, err error) error {
	if err == nil {
		c.trained = true
		return nil
	}
	if errors.Is(err, ErrDiverged) && !res.Interrupted && res.BestEpoch == 0 {
		return err // the loop ran to its end: no epoch to keep
	}
	c.trained = c.trained || res.BestEpoch > 0 && !math.IsNaN(res.BestLoss) && !math.IsInf(res.BestLoss, 0)
	cause := "an error"
	if res.Interrupted {
		cause = "interrupt"
	}
	note := res.stopNote(cause, c.trained)
	if res.Interrupted && cancel.ByCaller(ctx) {
		note = res.callerNote()
	}
	return fmt.Errorf("train %s: %s: %w", c.label, note, err)
}

// DropWarnFraction is the share of training pairs dropped for NaN or ±Inf above which Train
// warns, in the result's text and in its progress bar's last message, that the estimate may
// be biased (see TrainConfig.RefuseNonFinite).
const DropWarnFraction = 0.01

// dropWarning returns the warning about dropped pairs, or "" when they are DropWarnFraction of
// the n pairs or fewer.
func (c *estimator) dropWarning(dropped, n int) string {
	if n == 0 || float64(dropped) <= DropWarnFraction*float64(n) {
		return ""
	}
	return fmt.Sprintf("%d of %d pairs (%.1f%%) held NaN or ±Inf and were dropped: %s; set TrainConfig.RefuseNonFinite to refuse them",
		dropped, n, 100*float64(dropped)/float64(n), c.dropNote)
}

// build creates fresh networks of m, the embedding then the head, for observations of xDim
// values. probe, a training observation in raw units (nil: none, for a load), is passed
// through an embedding of another package to check that its network gives Out() values.
func (c *estimator) build(m network, rng *rand.Rand, xDim int, probe []float64) error {
	c.emb, c.layout, c.counter = nil, nil, nil
	ctx := xDim
	if e := m.embedding(); e != nil {
		c.layout, c.counter = layoutOf(e), counterOf(e)
		emb, err := e.Build(rng, xDim)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if probe != nil {
			row := make([]float64, len(probe))
			c.zx.applyRow(row, probe)
			if err := checkEmbeddingNet(e, emb, row); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		c.emb, ctx = emb, emb.Out()
	}
	if err := m.buildHead(rng, ctx); err != nil {
		return err
	}
	c.xDim = xDim
	return nil
}

// readableX reports whether the observation row can be evaluated: finite, and readable by the
// embedding's InputLayout where it has one.
func (c *estimator) readableX(row []float64) bool {
	return finite(row) && (c.layout == nil || readable(c.layout, row) == nil)
}

// observationErr returns why the observation x cannot be evaluated, nil when it can.
func (c *estimator) observationErr(x []float64) error {
	if !finite(x) {
		if err := paddingErr(c.layout, x); err != nil {
			return fmt.Errorf("the observation: %w: %w", ErrNonFinite, err)
		}
		return fmt.Errorf("the observation: %w: %s", ErrNonFinite, whereNonFinite(x))
	}
	if c.layout != nil {
		if err := readable(c.layout, x); err != nil {
			return fmt.Errorf("the observation cannot be read by the embedding: %w", err)
		}
	}
	return nil
}

// posteriorContext checks the observation x of a posterior of the named estimator (it panics
// where x has the wrong length, a programming error), and returns x's embedded context, or
// why x cannot be evaluated (ErrUntrained, or observationErr's error).
func (c *estimator) posteriorContext(name string, x []float64) ([]float64, error) {
	switch {
	case !c.trained:
		return nil, ErrUntrained
	case len(x) != c.xDim:
		panic(fmt.Sprintf("sbi: %s.Posterior: x has %d values, expected %s", name, len(x), c.expectedX()))
	}
	if err := c.observationErr(x); err != nil {
		return nil, err
	}
	tp := getTape()
	defer putTape(tp)
	ctx := c.context(tp, mat.NewDense(1, len(x), x))
	return append([]float64(nil), ctx.Data...), nil
}

// whereNonFinite says where the observation x holds NaN or ±Inf, how many such values it has,
// and what to do, without printing x whole (a series or an image holds thousands of values).
func whereNonFinite(x []float64) string {
	first, count := -1, 0
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return fmt.Sprintf("value %d of %d is %v (%d of the values are NaN or ±Inf; x = %s): a posterior conditions on every value, so replace or remove the failed or missing ones before asking for it",
		first, len(x), x[first], count, fmtVec(x))
}

// checkEvalRows panics, naming the first, when a row of x cannot be evaluated (observationErr):
// method names the caller. Without the check a row the layout refuses would be read with its
// count clamped, and an infinite one pass a saturating network as a finite value, each giving
// the value of another observation.
func (c *estimator) checkEvalRows(method string, x *mat.Dense) {
	n, _ := x.Dims()
	for i := 0; i < n; i++ {
		if err := c.observationErr(x.RawRowView(i)); err != nil {
			panic(fmt.Sprintf("sbi: %s.%s: row %d of x: %v", c.name, method, i, err))
		}
	}
}

// withEmbedding returns the weights of the network, then those of the embedding.
func (c *estimator) withEmbedding(net []*nn.Param) []*nn.Param {
	ps := append([]*nn.Param(nil), net...)
	if c.emb != nil {
		ps = append(ps, c.emb.Params()...)
	}
	return ps
}

// context returns the conditioning rows of the raw observations x on tp: x standardized, then
// embedded when there is an embedding.
func (c *estimator) context(tp *nn.Tape, x *mat.Dense) *nn.Tensor {
	ctx := standardizedConst(tp, c.zx, x)
	if c.emb != nil {
		ctx = c.emb.Forward(tp, ctx)
	}
	return ctx
}

// batchContext returns the conditioning rows of the training pairs idx of d on tp.
func (c *estimator) batchContext(tp *nn.Tape, d *trainData, idx []int) *nn.Tensor {
	ctx := tp.Gather(d.xZ, idx)
	if c.emb != nil {
		ctx = c.emb.Forward(tp, ctx)
	}
	return ctx
}

// fillRegBatch sets the prior and the raw pairs idx of d in rb, what a regularizer sees of
// every estimator's batch.
func (c *estimator) fillRegBatch(rb *RegBatch, d *trainData, idx []int) {
	rb.Prior, rb.Theta, rb.X = c.prior, rowsOf(d.theta, idx), rowsOf(d.x, idx)
}

// contextRows returns the conditioning rows of the batch pairs rows (indices into idx) for
// RegBatch.LogPost: taken differentiably from the batch's embedded context ctx, or gathered
// again from the standardized x of d without an embedding.
func (c *estimator) contextRows(tp *nn.Tape, d *trainData, idx []int, ctx *nn.Tensor, rows []int) *nn.Tensor {
	if c.emb != nil {
		return gatherRows(tp, ctx, rows)
	}
	mapped := make([]int, len(rows))
	for j, r := range rows {
		mapped[j] = idx[r]
	}
	return tp.Gather(d.xZ, mapped)
}

// mustTrained panics unless the estimator is trained; what names the method called. The panic
// value is an error wrapping ErrUntrained.
func (c *estimator) mustTrained(what string) {
	if !c.trained {
		panic(fmt.Errorf("sbi: %s.%s: %w", c.name, what, ErrUntrained))
	}
}
