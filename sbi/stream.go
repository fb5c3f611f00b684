package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"github.com/gosbi/gosbi/sbi/simstore"
	"gonum.org/v1/gonum/mat"
)

// Training from a source of batches (a simulation store on disk) instead of matrices in
// memory: the same loop as Train (the same steps, early stopping and result), fed batch by
// batch, so that memory stays bounded by the source's own buffers and one batch whatever the
// number of simulations. The standardization of θ and x is learned in one streaming pass
// over the training source first (Welford's update, Welford 1962).

// TrainStream fits the flow to the pairs of train, streamed in batches (for sets larger
// than memory: a simstore.Store, or its parts from Split). Validation pairs come from val,
// scored once per epoch for early stopping and the choice of the best epoch; with val nil
// there is no validation (cfg.ValidationFraction is not used: split the store instead).
// Pairs holding NaN or ±Inf, in train or in val, are dropped, counted (TrainResult.Dropped)
// and warned about, or refused, as by Train; a val without a finite pair (or without pairs),
// and a val that reads a chunk train reads (simstore.Shared), are refused; each epoch visits the training pairs in an order drawn from cfg.Seed. An
// interrupt keeps the best epoch, as in Train; TrainStreamContext takes the context instead of
// the host's, and MustTrainStream is the form for cells. The estimator keeps no reservoir of training
// summaries afterwards: CheckObservation returns an error, and diag.Misspecification tests an
// observation against simulations of the store.
func (e *NPE) TrainStream(train, val simstore.Source, cfg TrainConfig) (*TrainResult, error) {
	return e.trainStream(runenv.Context(), (*npeModel)(e), train, val, cfg)
}

// TrainStreamContext is TrainStream stopped by ctx instead of the host's context.
func (e *NPE) TrainStreamContext(ctx context.Context, train, val simstore.Source, cfg TrainConfig) (*TrainResult, error) {
	return e.trainStream(ctx, (*npeModel)(e), train, val, cfg)
}

// MustTrainStream is TrainStream for notebook cells: it panics with TrainStream's error.
func (e *NPE) MustTrainStream(train, val simstore.Source, cfg TrainConfig) *TrainResult {
	return safe.Must(e.TrainStream(train, val, cfg))
}

// TrainStream fits the classifier to the pairs of train streamed in batches, as
// NPE.TrainStream does. The marginal pairs are formed within each batch, as in Train: a val
// of one finite pair is refused, and a validation batch left with one finite pair is not
// scored (TrainResult.ValRows counts the pairs scored).
func (e *NRE) TrainStream(train, val simstore.Source, cfg TrainConfig) (*TrainResult, error) {
	return e.trainStream(runenv.Context(), (*nreModel)(e), train, val, cfg)
}

// TrainStreamContext is TrainStream stopped by ctx instead of the host's context.
func (e *NRE) TrainStreamContext(ctx context.Context, train, val simstore.Source, cfg TrainConfig) (*TrainResult, error) {
	return e.trainStream(ctx, (*nreModel)(e), train, val, cfg)
}

// MustTrainStream is TrainStream for notebook cells: it panics with TrainStream's error.
func (e *NRE) MustTrainStream(train, val simstore.Source, cfg TrainConfig) *TrainResult {
	return safe.Must(e.TrainStream(train, val, cfg))
}

func (c *estimator) trainStream(ctx context.Context, m network, train, val simstore.Source, cfg TrainConfig) (*TrainResult, error) {
	if c.cfgErr != nil {
		return nil, c.cfgErr
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	if train == nil {
		return nil, fmt.Errorf("train %s: no training source, expected one (e.g. a simstore.Store)", c.label)
	}
	for _, src := range []struct {
		what string
		s    simstore.Source
	}{{"training", train}, {"validation", val}} {
		if v := reflect.ValueOf(src.s); src.s != nil && v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("train %s: the %s source is a nil %T, expected an open store (was the error of its Open or Split read?); give nil itself for no validation", c.label, src.what, src.s)
		}
	}
	if cfg.ValTheta != nil || cfg.ValX != nil {
		return nil, fmt.Errorf("train %s: TrainConfig.ValTheta and ValX are set, expected nil: TrainStream takes its validation pairs as the source val", c.label)
	}
	pt, dx := train.Dims()
	switch {
	case pt != c.prior.Dim():
		return nil, fmt.Errorf("train %s: the source's θ has %s, the prior has %s%s", c.label, text.Count(pt, "column"), text.Count(c.prior.Dim(), "parameter"), swapHint(pt, dx, c.prior.Dim(), c.knownXDim(), streamOrder))
	case val != nil && func() bool { vp, vx := val.Dims(); return vp != pt || vx != dx }():
		vp, vx := val.Dims()
		return nil, fmt.Errorf("train %s: validation pairs of %d and %d values, training pairs of %d and %d", c.label, vp, vx, pt, dx)
	case cfg.Resume && c.trained && dx != c.xDim:
		return nil, fmt.Errorf("train %s: x has %d columns, the estimator was trained on %d (Resume keeps the network)", c.label, dx, c.xDim)
	}
	if path, shared := simstore.Shared(train, val); val != nil && shared {
		return nil, fmt.Errorf("train %s: the validation source shares the chunk %s with the training source, so validation would score pairs that training sees (early stopping and the best epoch would favour overfitting): give disjoint sources, e.g. the two parts of simstore's Split", c.label, path)
	}
	if val != nil && val.Len() == 0 {
		return nil, fmt.Errorf("train %s: the validation source holds no pairs, expected at least one: give nil for no validation, or Refresh a store that its jobs appended to after it was opened", c.label)
	}
	zt, zx, usable, dropped, seen, err := streamZScore(train, cfg.BatchSize, m.embedding())
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", c.label, err)
	}
	valRows, valDropped, err := scanSource(val, cfg.BatchSize, m.embedding())
	if err != nil {
		return nil, fmt.Errorf("train %s: validation %w", c.label, err)
	}
	switch {
	case dropped+valDropped > 0 && cfg.RefuseNonFinite:
		return nil, fmt.Errorf("train %s: %w: %d of %d training pairs and %d of %d validation pairs hold NaN or ±Inf and RefuseNonFinite is set: remove the failed simulations from the sources, or unset RefuseNonFinite to drop them with a count",
			c.label, ErrNonFinite, dropped, usable+dropped, valDropped, valRows+valDropped)
	case val != nil && valRows == 0:
		return nil, fmt.Errorf("train %s: %w: all %d validation pairs hold NaN or ±Inf, none can score an epoch: give a source of finite simulations as val, or nil for no validation", c.label, ErrNonFinite, valDropped)
	case usable < 2:
		return nil, fmt.Errorf("train %s: %d usable training pairs (%d dropped for NaN or ±Inf), expected at least 2", c.label, usable, dropped)
	}
	if err := checkValidationSize(c.label, m, valRows, "give a larger validation source, or nil for no validation"); err != nil {
		return nil, err
	}
	// The reservoir's summaries were made with the standardization and the embedding that this
	// training replaces or changes: a check against them would test another estimator.
	c.obs = nil
	resumed := cfg.Resume && c.trained
	if !resumed {
		c.trained = false
		c.zt, c.zx, c.trials, c.proposal = zt, zx, nil, ""
		probe, err := firstFinite(train, cfg.BatchSize)
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", c.label, err)
		}
		if err := c.build(m, rand.New(rand.NewPCG(cfg.Seed, 1)), dx, probe); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7261696e))
	res := &TrainResult{Estimator: c.label, Dropped: dropped + valDropped, TrainRows: usable, ValRows: valRows}
	if w := c.dropWarning(dropped+valDropped, usable+dropped+valRows+valDropped); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	if !(cfg.Resume && c.trained) {
		res.Warnings = append(res.Warnings, constantWarnings(zt, zx, modeledX(m, dx))...)
	}
	err = c.fitStream(ctx, res, m, train, val, cfg, rng)
	err = c.afterFit(ctx, res, err)
	c.recordTrials(resumed, seen)
	return res, err
}

// streamZScore learns the standardization of θ and x from one pass over src, counts the
// usable (finite) and dropped pairs, and finds the range of their numbers of trials (nil
// unless emb is a TrialCounter that counts them). x is standardized as fitXScore does for
// the embedding emb (nil for none); a finite row that emb's InputLayout refuses, or of which
// it counts fewer than 1 trial, is an error.
func streamZScore(src simstore.Source, batch int, emb Embedding) (zt, zx zscore, usable, dropped int, trials *trialRange, err error) {
	pt, dx := src.Dims()
	var wt, wx colstat.Accumulator
	var gs *groupScaler
	l, tc := layoutOf(emb), counterOf(emb)
	if l != nil {
		if gs, err = newGroupScaler(l, dx); err != nil {
			return zt, zx, 0, 0, nil, err
		}
	}
	var span trialSpan
	it := src.Batches(batch, 0)
	defer it.Close()
	for it.Next() {
		theta, x := it.Batch()
		n, _ := theta.Dims()
		for i := 0; i < n; i++ {
			if err := paddingErr(l, x.RawRowView(i)); err != nil {
				return zt, zx, 0, 0, nil, fmt.Errorf("a training pair with x = %s: %w", leading(x.RawRowView(i)), err)
			}
			if !finite(theta.RawRowView(i)) || !finite(x.RawRowView(i)) {
				dropped++
				continue
			}
			if err := wt.Add(theta.RawRowView(i)); err != nil {
				return zt, zx, 0, 0, nil, fmt.Errorf("standardizing θ: %w", err)
			}
			if gs == nil {
				if err := wx.Add(x.RawRowView(i)); err != nil {
					return zt, zx, 0, 0, nil, fmt.Errorf("standardizing x: %w", err)
				}
			} else if err := gs.add(x.RawRowView(i)); err != nil {
				return zt, zx, 0, 0, nil, fmt.Errorf("a training pair with x = %s: %w", leading(x.RawRowView(i)), err)
			}
			if k, ok := countTrials(tc, x.RawRowView(i)); ok {
				if k < 1 {
					return zt, zx, 0, 0, nil, fmt.Errorf("a training pair with x = %s: %w", leading(x.RawRowView(i)), badCount(tc, k))
				}
				span.add(k)
			}
			usable++
		}
	}
	if err := it.Err(); err != nil {
		return zt, zx, 0, 0, nil, fmt.Errorf("reading the training pairs: %w", err)
	}
	ct, err := wt.Columns(pt, 1)
	if err != nil {
		return zt, zx, 0, 0, nil, fmt.Errorf("standardizing θ: %w", err)
	}
	if gs != nil {
		zx, err = gs.zscore()
		if err != nil {
			return zt, zx, 0, 0, nil, fmt.Errorf("standardizing x: %w", err)
		}
		return zscoreOf(ct), zx, usable, dropped, span.rangeOf(), nil
	}
	cx, err := wx.Columns(dx, 1)
	if err != nil {
		return zt, zx, 0, 0, nil, fmt.Errorf("standardizing x: %w", err)
	}
	return zscoreOf(ct), zscoreOf(cx), usable, dropped, span.rangeOf(), nil
}

// scanSource reads the pairs of src (nil: none) once and counts the usable (finite) ones and
// those dropped for NaN or ±Inf, as streamZScore counts the training pairs; a finite x row that
// the InputLayout of emb refuses is an error naming it.
func scanSource(src simstore.Source, batch int, emb Embedding) (usable, dropped int, err error) {
	if src == nil {
		return 0, 0, nil
	}
	l := layoutOf(emb)
	it := src.Batches(batch, 0)
	defer it.Close()
	for it.Next() {
		theta, x := it.Batch()
		n, _ := x.Dims()
		for i := 0; i < n; i++ {
			r := x.RawRowView(i)
			if err := paddingErr(l, r); err != nil {
				return 0, 0, fmt.Errorf("pair with x = %s: %w", leading(r), err)
			}
			if !finite(theta.RawRowView(i)) || !finite(r) {
				dropped++
				continue
			}
			if l != nil {
				if _, err := l.InputUsed(r); err != nil {
					return 0, 0, fmt.Errorf("pair with x = %s: %w", leading(r), err)
				}
			}
			usable++
		}
	}
	if err := it.Err(); err != nil {
		return 0, 0, fmt.Errorf("pairs: %w", err)
	}
	return usable, dropped, nil
}

// firstFinite returns a copy of the first x of src whose pair is finite (nil when there is
// none), read in batches of batch pairs.
func firstFinite(src simstore.Source, batch int) ([]float64, error) {
	it := src.Batches(batch, 0)
	defer it.Close()
	for it.Next() {
		theta, x := it.Batch()
		n, _ := x.Dims()
		for i := 0; i < n; i++ {
			if finite(theta.RawRowView(i)) && finite(x.RawRowView(i)) {
				return append([]float64(nil), x.RawRowView(i)...), nil
			}
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("reading the training pairs: %w", err)
	}
	return nil, nil
}

// leading formats the first values of row, for messages about a pair whose position in a
// shuffled source means nothing.
func leading(row []float64) string {
	if len(row) <= 4 {
		return fmt.Sprint(row)
	}
	return fmt.Sprintf("%v … (%d values)", row[:4], len(row))
}

// streamBatch is a batch of the source as the training loop's trainData: the finite pairs in
// raw and standardized units, in buffers reused from batch to batch.
type streamBatch struct {
	d   trainData
	idx []int
	buf [2][]float64
}

// load fills b with the finite pairs of (theta, x) and returns their number.
func (b *streamBatch) load(c *estimator, theta, x *mat.Dense) int {
	th, xx, _, _ := dropNonFinite(theta, x)
	if th == nil {
		return 0
	}
	n, pt := th.Dims()
	_, dx := xx.Dims()
	for a, w := range []int{pt, dx} {
		if cap(b.buf[a]) < n*w {
			b.buf[a] = make([]float64, n*w)
		}
		b.buf[a] = b.buf[a][:n*w]
	}
	b.d = trainData{theta: th, x: xx, thetaZ: mat.NewDense(n, pt, b.buf[0]), xZ: mat.NewDense(n, dx, b.buf[1])}
	for i := 0; i < n; i++ {
		c.zt.applyRow(b.d.thetaZ.RawRowView(i), th.RawRowView(i))
		c.zx.applyRow(b.d.xZ.RawRowView(i), xx.RawRowView(i))
	}
	for len(b.idx) < n {
		b.idx = append(b.idx, len(b.idx))
	}
	return n
}

// fitStream is fit's loop over the batches of a source: the same steps, scores, early
// stopping and restoring of the best weights.
func (c *estimator) fitStream(ctx context.Context, res *TrainResult, m model, train, val simstore.Source, cfg TrainConfig, rng *rand.Rand) error {
	start := time.Now()
	res.Select = cfg.Select
	ps := m.params()
	opt, best, progress := startFit(res, ps, c.label, cfg, val != nil)
	defer progress.Finish()
	// c.trained: the weights an interrupt before the first epoch keeps (see fit)
	defer endFit(ctx, res, c.trained, start, progress)
	tp := nn.NewTape()
	var b streamBatch
	fail := func(err error) error {
		restore(ps, best)
		return err
	}
	sinceBest := 0
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		var sum, regSum float64
		var rows int
		it := train.Batches(cfg.BatchSize, rng.Uint64())
		for it.Next() {
			if err := cancel.Check(ctx, "train "+c.label); err != nil {
				it.Close()
				res.Interrupted = true
				return fail(err)
			}
			theta, x := it.Batch()
			n := b.load(c, theta, x)
			if n < 2 { // a batch of one pair has no marginal pair and a noisy gradient
				continue
			}
			st := step{tp: tp, m: m, d: &b.d, reg: cfg.Regularizer, rng: rng, opt: opt, clip: cfg.ClipNorm}
			loss, pen, ok, err := st.run(b.idx[:n])
			if err != nil {
				it.Close()
				return fail(fmt.Errorf("train %s: regularizer %q: %w", c.label, res.RegName, err))
			}
			if !ok {
				res.SkippedStep++
			}
			sum += loss * float64(n)
			regSum += pen * float64(n)
			rows += n
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fail(fmt.Errorf("train %s: reading the training pairs: %w", c.label, err))
		}
		if rows == 0 {
			return fail(fmt.Errorf("train %s: the training source gave no batch of two or more finite pairs", c.label))
		}
		monitored := sum / float64(rows)
		var valLoss, valPen float64
		if val != nil {
			var reg Regularizer
			if cfg.Select == SelectRegularized {
				reg = cfg.Regularizer
			}
			v, pen, n, err := c.evalStream(m, val, cfg.BatchSize, reg, cfg.Seed)
			if err != nil {
				return fail(fmt.Errorf("train %s: validation pairs: %w", c.label, err))
			}
			res.ValRows, valLoss, valPen = n, v, pen
		}
		// An epoch that the interrupt reached is not scored (see fit).
		if err := cancel.Check(ctx, "train "+c.label); err != nil {
			res.Interrupted = true
			return fail(err)
		}
		res.TrainLoss = append(res.TrainLoss, monitored)
		if cfg.Regularizer != nil {
			res.RegTerm = append(res.RegTerm, regSum/float64(rows))
		}
		if val != nil {
			res.ValLoss = append(res.ValLoss, valLoss)
			monitored = valLoss
			if cfg.Select == SelectRegularized && cfg.Regularizer != nil {
				res.ValRegTerm = append(res.ValRegTerm, valPen)
				monitored += valPen
			}
		}
		res.Epochs = epoch + 1
		// Without validation the last epoch is kept, unless its training loss is not finite
		// (a batch overflowed): then the last epoch with a finite one stays.
		if monitored < res.BestLoss || val == nil && !math.IsNaN(monitored) && !math.IsInf(monitored, 0) {
			res.BestLoss, res.BestEpoch, sinceBest = monitored, epoch+1, 0
			best = snapshot(ps, best)
		} else {
			sinceBest++
		}
		msg := fmt.Sprintf("epoch %d  train loss %.4f", epoch+1, res.TrainLoss[epoch])
		if val != nil {
			msg += fmt.Sprintf("  val loss %.4f", res.ValLoss[epoch])
		}
		progress.Set(epoch+1, msg)
		if val != nil && sinceBest >= cfg.Patience {
			res.Stopped = epoch+1 < cfg.Epochs
			if res.Stopped {
				progress.stopEarly()
			}
			break
		}
	}
	restore(ps, best)
	if math.IsInf(res.BestLoss, 0) || math.IsNaN(res.BestLoss) {
		res.BestEpoch = 0
		return fmt.Errorf("train %s: %w: no epoch reached a finite loss: lower the learning rate or check the simulations", c.label, ErrDiverged)
	}
	return nil
}

// evalStream is evalLoss over the batches of a source (in a fixed order, the penalty's draws
// from a stream fixed by seed): the mean loss and penalty per pair, and the number of finite
// pairs scored. A batch with fewer finite pairs than m scores (minBatchPairs: a classifier's
// batch of one pair) is left out.
func (c *estimator) evalStream(m model, src simstore.Source, batch int, reg Regularizer, seed uint64) (loss, pen float64, rows int, err error) {
	it := src.Batches(batch, seed)
	defer it.Close()
	var b streamBatch
	tp := nn.NewTape() // one tape for every batch: a pass leaves no garbage per batch
	tp.NoGrad = true
	var rng *rand.Rand
	if reg != nil {
		rng = rand.New(rand.NewPCG(seed, 0x76616c))
	}
	for it.Next() {
		theta, x := it.Batch()
		n := b.load(c, theta, x)
		if n < minBatchPairs(m) { // none, or one pair that a classifier cannot score alone
			continue
		}
		var rb *RegBatch
		if reg != nil {
			rb = &RegBatch{Tape: tp, Rng: rng}
		}
		loss += m.batchLoss(tp, &b.d, b.idx[:n], rb).Item() * float64(n)
		if rb != nil {
			p, err := reg.Penalty(rb)
			if err != nil {
				tp.Reset()
				return 0, 0, 0, err
			}
			pen += p.Item() * float64(n)
		}
		rows += n
		tp.Reset()
	}
	if err := it.Err(); err != nil {
		return 0, 0, 0, err
	}
	if rows == 0 {
		return 0, 0, 0, fmt.Errorf("no batch with %d or more finite pairs to score", minBatchPairs(m))
	}
	return loss / float64(rows), pen / float64(rows), rows, nil
}
