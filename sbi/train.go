package sbi

import (
	"context"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// TrainConfig sets how an estimator is trained. Zero fields take the defaults of Python's sbi
// (Adam with learning rate 5·10⁻⁴, batches of 200, 10% validation, early stopping after 20
// epochs without improvement, gradient-norm clipping at 5).
type TrainConfig struct {
	Epochs             int         // most epochs to run; 0 means 1000 (early stopping usually ends sooner)
	BatchSize          int         // pairs per step; 0 means 200
	LearningRate       float64     // Adam's step size; 0 means 5e-4
	WeightDecay        float64     // decoupled weight decay (AdamW); 0 means none
	ValidationFraction float64     // share of pairs held out for early stopping (rounded, at least 1; an NRE needs 2); 0 means 0.1 (none with ValTheta), negative means none
	Patience           int         // epochs without a better validation loss before stopping; 0 means 20
	ClipNorm           float64     // largest gradient norm; 0 means 5, negative means no clipping
	Seed               uint64      // seeds the initial weights, the split and the batch order
	Regularizer        Regularizer // an extra loss term per batch (BNRE's balance, coverage, …); nil for none
	// Select is what the validation pairs are scored by, to keep the best epoch and to stop
	// early; the zero value scores the regularized loss when a Regularizer is set.
	Select Selection
	// Resume continues from the current weights and standardization of an estimator that was
	// trained before, instead of starting from fresh weights.
	Resume bool
	// RefuseNonFinite makes Train return an error wrapping ErrNonFinite when a pair holds NaN
	// or ±Inf. By default (false) such pairs — failed simulations — are dropped, counted in
	// TrainResult.Dropped, and warned about above DropWarnFraction. Dropping is not neutral:
	// each estimator's Train says what it does to its estimate.
	RefuseNonFinite bool
	// ValTheta and ValX are validation pairs kept apart from the training pairs, as when a
	// study draws them from a pool outside its simulation budget (the coverage regularizer's
	// authors do). When they are set every pair given to Train trains, these pairs score the
	// epochs (early stopping, the best epoch), the standardization is learned from the
	// training pairs alone, and ValidationFraction must be 0. Nil (the default) holds
	// ValidationFraction of the training pairs out instead. They must be finite: a failed
	// simulation among them is an error, not dropped. TrainStream takes its validation as a
	// source and refuses them.
	ValTheta, ValX *mat.Dense
}

// Selection is the validation score by which training keeps its best epoch and stops early.
type Selection int

const (
	// SelectDefault is SelectRegularized when TrainConfig.Regularizer is set, SelectLoss
	// otherwise.
	SelectDefault Selection = iota
	// SelectRegularized scores an epoch by the objective it trains: the validation loss plus
	// the regularizer's penalty on the validation pairs (batched as in training, with the same
	// random draws at every epoch so that epochs differ only by their weights). For the
	// coverage regularizer this is the authors' rule: their NPE keeps the state with the best
	// validation NLL + γ·R.
	SelectRegularized
	// SelectLoss scores an epoch by the estimator's own validation loss (NPE: −log q; NRE: the
	// classifier's cross-entropy), without the regularizer.
	SelectLoss
)

// String returns "default", "regularized" or "loss".
func (s Selection) String() string {
	switch s {
	case SelectDefault:
		return "default"
	case SelectRegularized:
		return "regularized"
	case SelectLoss:
		return "loss"
	}
	return fmt.Sprintf("Selection(%d)", int(s))
}

func (c TrainConfig) withDefaults() TrainConfig {
	if c.Epochs == 0 {
		c.Epochs = 1000
	}
	if c.BatchSize == 0 {
		c.BatchSize = 200
	}
	if c.LearningRate == 0 {
		c.LearningRate = 5e-4
	}
	if c.ValidationFraction == 0 && c.ValTheta == nil && c.ValX == nil {
		c.ValidationFraction = 0.1
	}
	if c.Patience == 0 {
		c.Patience = 20
	}
	if c.ClipNorm == 0 {
		c.ClipNorm = 5
	}
	if c.Select == SelectDefault {
		c.Select = SelectLoss
		if c.Regularizer != nil {
			c.Select = SelectRegularized
		}
	}
	return c
}

// validate checks a configuration after withDefaults: every number must be finite and in its
// range, so that no NaN or infinity reaches the training loop.
func (c TrainConfig) validate() error {
	switch {
	case c.Epochs < 1:
		return fmt.Errorf("train: Epochs = %d, expected ≥ 1 (or 0 for the default 1000)", c.Epochs)
	case c.BatchSize < 2:
		return fmt.Errorf("train: BatchSize = %d, expected ≥ 2 (or 0 for the default 200)", c.BatchSize)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("train: LearningRate = %v, expected a finite value > 0", c.LearningRate)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return fmt.Errorf("train: WeightDecay = %v, expected a finite value ≥ 0 (0 for none)", c.WeightDecay)
	case !(c.ValidationFraction < 1) || math.IsInf(c.ValidationFraction, 0):
		return fmt.Errorf("train: ValidationFraction = %v, expected a share below 1 (0.1 is usual; negative for no validation)", c.ValidationFraction)
	case math.IsNaN(c.ClipNorm) || math.IsInf(c.ClipNorm, 0):
		return fmt.Errorf("train: ClipNorm = %v, expected a finite gradient norm > 0 (0 for the default 5, negative for no clipping)", c.ClipNorm)
	case c.Patience < 1:
		return fmt.Errorf("train: Patience = %d, expected ≥ 1 (or 0 for the default 20)", c.Patience)
	case c.Select != SelectRegularized && c.Select != SelectLoss:
		return fmt.Errorf("train: Select = %v, expected SelectDefault, SelectRegularized or SelectLoss", c.Select)
	case (c.ValTheta == nil) != (c.ValX == nil):
		return fmt.Errorf("train: only one of ValTheta and ValX is set, expected both (the validation pairs) or neither")
	case c.ValTheta != nil && c.ValidationFraction != 0:
		return fmt.Errorf("train: ValidationFraction = %v with ValTheta set, expected 0: the validation pairs are given, none are held out of the training pairs", c.ValidationFraction)
	case c.Select == SelectRegularized && c.Regularizer == nil:
		return fmt.Errorf("train: Select = SelectRegularized needs a Regularizer; use SelectDefault without one")
	}
	return nil
}

// TrainResult reports a training run.
type TrainResult struct {
	Estimator   string    // e.g. "NPE (nsf)" or "NRE"
	TrainLoss   []float64 // mean training loss per epoch (without the regularizer)
	ValLoss     []float64 // validation loss per epoch (without the regularizer); nil without validation
	RegName     string    // the regularizer's name; "" without one
	RegTerm     []float64 // mean regularizer term per epoch (already weighted); nil without one
	BestEpoch   int       // the epoch (1-based) whose weights were kept (without validation the last with a finite loss)
	BestLoss    float64   // its score under Select (its training loss without validation)
	Epochs      int       // epochs run
	Stopped     bool      // true when early stopping ended training before Epochs
	Duration    time.Duration
	Dropped     int // pairs removed because θ or x held NaN or ±Inf
	TrainRows   int // pairs trained on
	ValRows     int // pairs held out for validation
	SkippedStep int // steps skipped because a gradient was NaN or infinite
	// Select is the score that chose BestEpoch: SelectLoss (the validation loss) or
	// SelectRegularized (the validation loss plus ValRegTerm).
	Select Selection
	// ValRegTerm is the mean regularizer term on the validation pairs per epoch; nil unless
	// Select is SelectRegularized with validation.
	ValRegTerm []float64
	// Interrupted is true when the training's context was cancelled (a notebook's interrupt,
	// TrainContext's ctx) during epoch Epochs+1. The weights of BestEpoch were kept: the
	// estimator is trained if BestEpoch ≥ 1 (or it was trained before a Resume).
	Interrupted bool
	// Warnings are what the caller should know about the run (dropped non-finite pairs above
	// DropWarnFraction, columns of θ that held one value in every training pair), one
	// sentence each; String and MIMEBundle show them.
	Warnings []string
	// Members holds the result of each member of an ensemble, in order; nil for a single
	// estimator. An ensemble's own result then carries only the summary: the members' total
	// Duration, whether one was interrupted, and the data counts and warnings of member 0.
	Members []*TrainResult
}

// DroppedFraction is the share of the pairs given to Train that were dropped for NaN or ±Inf.
func (r *TrainResult) DroppedFraction() float64 {
	n := r.Dropped + r.TrainRows + r.ValRows
	if n == 0 {
		return 0
	}
	return float64(r.Dropped) / float64(n)
}

// stopNote says where a training stopped by cause ("interrupt", "an error") stopped and what
// it kept; trained is whether the estimator is trained afterwards.
func (r *TrainResult) stopNote(cause string, trained bool) string {
	none := "no epoch finished"
	if r.Epochs > 0 {
		none = "no epoch reached a finite loss"
	}
	switch {
	case r.BestEpoch > 0:
		return fmt.Sprintf("stopped at epoch %d by %s; best epoch %d kept", r.Epochs+1, cause, r.BestEpoch)
	case trained:
		return fmt.Sprintf("stopped at epoch %d by %s; %s, the weights from before are kept", r.Epochs+1, cause, none)
	}
	return fmt.Sprintf("stopped at epoch %d by %s; %s, the estimator is not trained", r.Epochs+1, cause, none)
}

// callerNote is stopNote of an interrupt under cancel.CallerKeeps: where the training stopped,
// without a claim of what it kept, which is the caller's to make.
func (r *TrainResult) callerNote() string {
	return fmt.Sprintf("stopped at epoch %d by interrupt", r.Epochs+1)
}

// String is a one-line summary, then one line per warning. The summary says that more epochs
// may help when the epoch limit (TrainConfig.Epochs) ended a training whose validation score
// was still falling: its best epoch is the last, and over its last k = min(5, Epochs−1) ≥ 3
// epochs the score fell by more than twice the spread its epoch-to-epoch changes would give
// by chance (v[E−k] − v[E] > 2·s·√k, s the standard deviation of those k changes) and by more
// than 1% of its whole fall since the first epoch.
func (r *TrainResult) String() string {
	if r == nil {
		return "no training result"
	}
	s := r.Estimator + ": " + r.summary()
	for _, w := range r.Warnings {
		s += "\nwarning: " + w
	}
	return s
}

// summary is the one-line summary without the estimator's name.
func (r *TrainResult) summary() string {
	if r.Members != nil {
		var best []string
		for _, m := range r.Members {
			best = append(best, fmt.Sprint(m.BestEpoch))
		}
		s := fmt.Sprintf("%d members trained in %s (best epochs %s), %d training / %d validation pairs",
			len(r.Members), r.Duration.Round(time.Millisecond), strings.Join(best, ", "), r.TrainRows, r.ValRows)
		if r.Interrupted {
			s += ", stopped by interrupt"
		}
		return s
	}
	what := "loss"
	if r.ValRegTerm != nil {
		what = "loss + " + r.RegName
	}
	var s string
	if r.Interrupted {
		s = r.stopNote("interrupt", r.BestEpoch > 0)
		if r.BestEpoch > 0 { // the note names the best epoch; its loss follows it
			s += fmt.Sprintf(" (%s %.4f)", what, r.BestLoss)
		}
		s += ", "
	}
	s += fmt.Sprintf("%d epochs in %s", r.Epochs, r.Duration.Round(time.Millisecond))
	if r.BestEpoch > 0 && !r.Interrupted {
		s += fmt.Sprintf(", best epoch %d (%s %.4f)", r.BestEpoch, what, r.BestLoss)
	}
	s += fmt.Sprintf(", %d training / %d validation pairs", r.TrainRows, r.ValRows)
	if r.Stopped {
		s += ", stopped early"
	}
	if r.stillFalling() {
		s += fmt.Sprintf("; the validation %s was still falling when the epoch limit (TrainConfig.Epochs = %d) ended the training: more epochs may help", what, r.Epochs)
	}
	if r.Dropped > 0 {
		s += fmt.Sprintf(", %d non-finite pairs dropped (%.1f%%)", r.Dropped, 100*r.DroppedFraction())
	}
	if r.SkippedStep > 0 {
		s += fmt.Sprintf(", %d steps skipped (non-finite gradient)", r.SkippedStep)
	}
	return s
}

// fallingWindow is the number of last epoch-to-epoch changes of the validation score that
// stillFalling weighs.
const fallingWindow = 5

// stillFalling reports whether the training ran to the epoch limit while its validation score
// (the loss, plus ValRegTerm under SelectRegularized) was still falling. It holds when the
// training was neither stopped early nor interrupted, the best epoch is the last one, and over
// the last k = min(5, Epochs−1) epochs (k ≥ 3) the score fell by more than twice its
// epoch-to-epoch noise: v[E−k] − v[E] > 2·s·√k, where s is the standard deviation of the k
// changes v[i] − v[i−1] about their mean (a score that only wanders, by steps of that size,
// strays by about s·√k in k epochs), and by more than 1% of its whole fall since the first
// epoch, v[1] − v[E] (a converged score that still creeps down by steady, tiny steps gains
// nothing from more epochs). Without validation it does not hold: the training loss says
// nothing of overfitting.
func (r *TrainResult) stillFalling() bool {
	e := r.Epochs
	k := min(fallingWindow, e-1)
	if r.Members != nil || r.Stopped || r.Interrupted || k < 3 || len(r.ValLoss) != e || r.BestEpoch != e {
		return false
	}
	d := make([]float64, k)
	for j := range d {
		i := e - k + j // d[j] is the change into epoch i (0-based)
		d[j] = r.valScore(i) - r.valScore(i-1)
	}
	fall := r.valScore(e-k-1) - r.valScore(e-1)
	mean := fall / -float64(k)
	var ss float64
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(k-1))
	material := fall > materialFall*(r.valScore(0)-r.valScore(e-1))
	return material && fall > 2*sd*math.Sqrt(float64(k))
}

// materialFall is the part of the validation score's whole fall that its fall over the last
// epochs must exceed for stillFalling.
const materialFall = 0.01

// valScore is the validation score of epoch i (0-based) that chose the best epoch.
func (r *TrainResult) valScore(i int) float64 {
	v := r.ValLoss[i]
	if r.ValRegTerm != nil {
		v += r.ValRegTerm[i]
	}
	return v
}

// MIMEBundle shows the summary, the warnings and the last epochs as HTML and text.
func (r *TrainResult) MIMEBundle() map[string]any {
	if r == nil {
		return map[string]any{"text/plain": r.String()}
	}
	var b strings.Builder
	b.WriteString("<div><b>" + html.EscapeString(r.Estimator) + "</b> " + html.EscapeString(r.summary()))
	for _, w := range r.Warnings {
		b.WriteString(`<div style="color:#D55E00"><b>warning:</b> ` + html.EscapeString(w) + "</div>")
	}
	if r.Members != nil {
		b.WriteString("<table><tr><th>member</th><th>summary</th></tr>")
		for k, m := range r.Members {
			fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td></tr>", k, html.EscapeString(m.summary()))
		}
		b.WriteString("</table></div>")
		return map[string]any{"text/html": b.String(), "text/plain": r.String()}
	}
	b.WriteString("<table><tr><th>epoch</th><th>train</th><th>validation</th>")
	if r.RegName != "" {
		b.WriteString("<th>" + html.EscapeString(r.RegName) + "</th>")
	}
	if r.ValRegTerm != nil {
		b.WriteString("<th>validation " + html.EscapeString(r.RegName) + "</th>")
	}
	b.WriteString("</tr>")
	from := max(0, len(r.TrainLoss)-5)
	for e := from; e < len(r.TrainLoss); e++ {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%.4f</td><td>%s</td>", e+1, r.TrainLoss[e], fmtAt(r.ValLoss, e))
		if r.RegName != "" {
			fmt.Fprintf(&b, "<td>%s</td>", fmtAt(r.RegTerm, e))
		}
		if r.ValRegTerm != nil {
			fmt.Fprintf(&b, "<td>%s</td>", fmtAt(r.ValRegTerm, e))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

func fmtAt(v []float64, i int) string {
	if i < len(v) {
		return fmt.Sprintf("%.4f", v[i])
	}
	return "–"
}

// trainData holds the finite pairs in raw and standardized units.
type trainData struct {
	theta, x   *mat.Dense // raw
	thetaZ, xZ *mat.Dense // standardized
}

// model is what the training loop needs of an estimator.
type model interface {
	params() []*nn.Param
	// batchLoss builds the mean loss of the pairs idx of d on tp. When rb is non-nil it also
	// fills the regularizer's view of the batch (Tape, Theta, X, LogPost and, for ratio
	// estimators, the logits).
	batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor
}

// pairedModel is a model whose loss scores each pair of a batch against the θ of other pairs
// of the same batch (a ratio estimator's classifier): a batch of one pair has no other, and
// its loss is degenerate (NRE-A's marginal pair is the joint one, NRE-B's only atom is the
// right one, NRE-C has no marginal atom).
type pairedModel interface {
	model
	pairsWithinBatch()
}

// minBatchPairs is the fewest pairs a batch of m must hold to be scored: 2 for a pairedModel,
// 1 otherwise.
func minBatchPairs(m model) int {
	if _, ok := m.(pairedModel); ok {
		return 2
	}
	return 1
}

// checkValidationSize returns an error when nv validation pairs (0 for none) are too few for
// m to score; advice says how to get more.
func checkValidationSize(label string, m model, nv int, advice string) error {
	if need := minBatchPairs(m); nv > 0 && nv < need {
		return fmt.Errorf("train %s: %d validation pair, expected at least %d (or none): the classifier scores each pair against the θ of another, which one pair lacks, so its validation loss would not measure the fit; %s",
			label, nv, need, advice)
	}
	return nil
}

// dropNonFinite returns the pairs whose θ and x rows are all finite, the number removed and the
// first row removed (−1 for none).
func dropNonFinite(theta, x *mat.Dense) (th, xx *mat.Dense, dropped, first int) {
	n, dt := theta.Dims()
	_, dx := x.Dims()
	var kept []int
	first = -1
	for i := 0; i < n; i++ {
		if finite(theta.RawRowView(i)) && finite(x.RawRowView(i)) {
			kept = append(kept, i)
		} else if first < 0 {
			first = i
		}
	}
	if len(kept) == n {
		return theta, x, 0, -1
	}
	if len(kept) == 0 {
		return nil, nil, n, first
	}
	th, xx = mat.NewDense(len(kept), dt, nil), mat.NewDense(len(kept), dx, nil)
	for k, i := range kept {
		copy(th.RawRowView(k), theta.RawRowView(i))
		copy(xx.RawRowView(k), x.RawRowView(i))
	}
	return th, xx, n - len(kept), first
}

// checkPairs validates the shapes of a training set; xDim is the width x must have, 0 when
// not known (an untrained estimator).
func checkPairs(what string, theta, x *mat.Dense, paramDim, xDim int) error {
	if theta == nil || x == nil {
		return fmt.Errorf("%s: theta and x must both be given (one row per simulation)", what)
	}
	n, dt := theta.Dims()
	nx, dx := x.Dims()
	switch {
	case dt == 1 && paramDim > 1 && n == nx*paramDim:
		return fmt.Errorf("%s: theta has %d rows and x %d, expected one x row per θ row (%s)", what, n, nx, oneColumnHint(paramDim))
	case n > nx:
		return fmt.Errorf("%s: theta has %d rows and x %d, expected one x row per θ row (sbi.Simulate drops the simulations that fail: pass its Theta, the rows kept, with its X)", what, n, nx)
	case n != nx:
		return fmt.Errorf("%s: theta has %d rows and x %d, expected one x row per θ row", what, n, nx)
	case dt != paramDim:
		hint := swapHint(dt, dx, paramDim, xDim, trainOrder)
		if hint == "" && dt == 1 {
			hint = " (" + oneColumnHint(paramDim) + ")"
		}
		return fmt.Errorf("%s: theta has %s, the prior has %s%s", what, text.Count(dt, "column"), text.Count(paramDim, "parameter"), hint)
	}
	return nil
}

// oneColumnHint names the likely cause of θ in one column for a prior of paramDim > 1
// parameters: an array saved 1-D, which package npy reads as a column.
func oneColumnHint(paramDim int) string {
	return fmt.Sprintf("a 1-D .npy array loads as one column: save θ as one row of %d per simulation, e.g. theta.reshape(-1, %d) in NumPy", paramDim, paramDim)
}

// The orders of θ and x that swapHint names: Train's arguments, and a store's widths and
// pairs (TrainStream).
const (
	trainOrder  = "Train takes theta first"
	streamOrder = "simstore.Create takes the width of θ first, then that of x, and Append takes theta first"
)

// swapHint asks whether θ and x were given in each other's place when x has the prior's
// width and θ the width x must have (any width other than the prior's when that is not
// known), reminding of the order (trainOrder, streamOrder), and is "" otherwise.
func swapHint(dt, dx, paramDim, xDim int, order string) string {
	if dx != paramDim || dt == paramDim || xDim > 0 && dt != xDim {
		return ""
	}
	return fmt.Sprintf(" (x has %s, as many as the prior's parameters: are θ and x swapped? %s, then x)", text.Count(dx, "column"), order)
}

// splitRows shuffles 0…n−1 with rng and returns the training and validation rows.
func splitRows(rng *rand.Rand, n int, frac float64) (train, val []int, err error) {
	perm := rng.Perm(n)
	nv := 0
	if frac > 0 {
		nv = int(math.Round(frac * float64(n)))
		nv = max(nv, 1)
	}
	if n-nv < 2 {
		return nil, nil, fmt.Errorf("train: %d usable pairs leave %d for training, expected at least 2: simulate more", n, n-nv)
	}
	return perm[nv:], perm[:nv], nil
}

// fit runs the training loop of m on d (standardization already applied) and fills res; the
// best weights (by validation loss) are restored at the end, and when ctx is done, at once
// (res.Interrupted, and the error wraps ctx.Err()).
// trained says whether the estimator holds weights of an earlier training, which an interrupt
// before the first epoch leaves in place (see lastMessage).
func fit(ctx context.Context, res *TrainResult, m model, d *trainData, train, val []int, cfg TrainConfig, rng *rand.Rand, trained bool) error {
	start := time.Now()
	label := res.Estimator
	res.TrainRows, res.ValRows, res.Select = len(train), len(val), cfg.Select
	ps := m.params()
	opt, best, progress := startFit(res, ps, label, cfg, len(val) > 0)
	defer progress.Finish()
	defer endFit(ctx, res, trained, start, progress)
	tp := nn.NewTape()
	order := append([]int(nil), train...)
	sinceBest := 0
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum, regSum float64
		var batches int
		for lo := 0; lo < len(order); lo += cfg.BatchSize {
			hi := min(lo+cfg.BatchSize, len(order))
			if hi-lo < 2 { // a last batch of one pair has no marginal pair and a noisy gradient
				continue
			}
			if err := cancel.Check(ctx, "train "+label); err != nil {
				restore(ps, best)
				res.Interrupted = true
				return err
			}
			st := step{tp: tp, m: m, d: d, reg: cfg.Regularizer, rng: rng, opt: opt, clip: cfg.ClipNorm}
			loss, pen, ok, err := st.run(order[lo:hi])
			if err != nil {
				restore(ps, best)
				return fmt.Errorf("train %s: regularizer %q: %w", label, res.RegName, err)
			}
			if !ok {
				res.SkippedStep++
			}
			sum += loss * float64(hi-lo)
			regSum += pen * float64(hi-lo)
			batches += hi - lo
		}
		monitored := sum / float64(batches)
		var valLoss, valPen float64
		if len(val) > 0 {
			var reg Regularizer
			if cfg.Select == SelectRegularized {
				reg = cfg.Regularizer
			}
			var err error
			if valLoss, valPen, err = evalLoss(m, d, val, cfg.BatchSize, reg, cfg.Seed); err != nil {
				restore(ps, best)
				return fmt.Errorf("train %s: regularizer %q on the validation pairs: %w", label, res.RegName, err)
			}
		}
		// An epoch that the interrupt reached is not scored: a regularizer written in a notebook
		// cell is stopped midway by the cell's interrupt (the interpreter's calls of it return
		// zeros), so its losses could make it the best epoch.
		if err := cancel.Check(ctx, "train "+label); err != nil {
			restore(ps, best)
			res.Interrupted = true
			return err
		}
		res.TrainLoss = append(res.TrainLoss, monitored)
		if cfg.Regularizer != nil {
			res.RegTerm = append(res.RegTerm, regSum/float64(batches))
		}
		if len(val) > 0 {
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
		if monitored < res.BestLoss || len(val) == 0 && !math.IsNaN(monitored) && !math.IsInf(monitored, 0) {
			res.BestLoss, res.BestEpoch, sinceBest = monitored, epoch+1, 0
			best = snapshot(ps, best)
		} else {
			sinceBest++
		}
		msg := fmt.Sprintf("epoch %d  train loss %.4f", epoch+1, res.TrainLoss[epoch])
		if len(val) > 0 {
			msg += fmt.Sprintf("  val loss %.4f", res.ValLoss[epoch])
		}
		if res.ValRegTerm != nil {
			msg += fmt.Sprintf("  val %s %.4f", res.RegName, res.ValRegTerm[epoch])
		}
		progress.Set(epoch+1, msg)
		if len(val) > 0 && sinceBest >= cfg.Patience {
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
		return fmt.Errorf("train %s: %w: no epoch reached a finite loss: lower the learning rate or check the simulations", label, ErrDiverged)
	}
	return nil
}

// startFit sets up a training loop (fit, fitStream) of the estimator named label: it names
// the regularizer in res and sets no best loss yet, and returns the optimizer over ps (AdamW
// when cfg has weight decay, Adam otherwise), the weights of ps as the best so far, and the
// epochs' progress bar, whose time left is a bound when validation can stop the training early.
func startFit(res *TrainResult, ps []*nn.Param, label string, cfg TrainConfig, validates bool) (*nn.Adam, [][]float64, *Progress) {
	if cfg.Regularizer != nil {
		res.RegName = cfg.Regularizer.Name()
	}
	var opt *nn.Adam
	if cfg.WeightDecay > 0 {
		opt = nn.NewAdamW(ps, cfg.LearningRate, cfg.WeightDecay)
	} else {
		opt = nn.NewAdam(ps, cfg.LearningRate)
	}
	res.BestLoss = math.Inf(1)
	progress := NewProgress("train "+label, cfg.Epochs)
	if validates && cfg.Patience < cfg.Epochs {
		progress.estimate(runenv.EstimateAtMost) // the time left is a bound
	}
	return opt, snapshot(ps, nil), progress
}

// endFit ends a training loop that started at start: it records the duration in res and
// shows on the progress bar what the training ended with (see lastMessage).
func endFit(ctx context.Context, res *TrainResult, trained bool, start time.Time, progress *Progress) {
	res.Duration = time.Since(start)
	if msg := lastMessage(ctx, res, trained); msg != "" {
		progress.Set(res.Epochs, msg)
	}
}

// lastMessage is the last message of a training's progress bar, or "": where an interrupt
// stopped it and what it kept, then the warnings. A notebook shows it where the result is not
// shown: a cell whose MustTrain an interrupt stopped ends as interrupted before MustTrain
// panics with the error that says what was kept. trained is as for fit. Under
// cancel.CallerKeeps it says only where the interrupt stopped it.
func lastMessage(ctx context.Context, res *TrainResult, trained bool) string {
	var parts []string
	if res.Interrupted {
		note := res.stopNote("interrupt", trained)
		if cancel.ByCaller(ctx) {
			note = res.callerNote()
		}
		parts = append(parts, note)
	}
	if len(res.Warnings) > 0 {
		parts = append(parts, "warning: "+strings.Join(res.Warnings, "; "))
	}
	return strings.Join(parts, "; ")
}

// step is one optimization step of a model on a batch.
type step struct {
	tp   *nn.Tape
	m    model
	d    *trainData
	reg  Regularizer
	rng  *rand.Rand
	opt  nn.Optimizer
	clip float64
}

// run builds the loss of the batch idx (plus the regularizer's penalty), back-propagates,
// clips and updates. It returns the loss and the penalty, and false when the optimizer skipped
// the update because a gradient was not finite.
func (s step) run(idx []int) (loss, pen float64, ok bool, err error) {
	tp := s.tp
	defer tp.Reset()
	var rb *RegBatch
	if s.reg != nil {
		rb = &RegBatch{Tape: tp, Rng: s.rng}
	}
	l := s.m.batchLoss(tp, s.d, idx, rb)
	total := l
	if rb != nil {
		p, err := s.reg.Penalty(rb)
		if err != nil {
			return 0, 0, false, err
		}
		if p.Rows != 1 || p.Cols != 1 {
			panic(fmt.Sprintf("sbi: regularizer %q returned a %d×%d penalty, expected 1×1", s.reg.Name(), p.Rows, p.Cols))
		}
		pen = p.Item()
		total = tp.Add(l, p)
	}
	loss = l.Item()
	tp.Backward(total)
	ps := s.opt.Params()
	if s.clip > 0 {
		nn.ClipGradNorm(ps, s.clip)
	}
	ok = s.opt.Step()
	s.opt.ZeroGrad()
	return loss, pen, ok, nil
}

// evalLoss is the mean loss over rows, in batches of the training size, without gradients, and
// with reg non-nil the mean of reg's penalty over the same batches (weighted by batch size, as
// the training term). The penalty draws from a stream fixed by seed, the same at every call,
// so that scores of different epochs differ by the weights only.
func evalLoss(m model, d *trainData, rows []int, batch int, reg Regularizer, seed uint64) (loss, pen float64, err error) {
	tp := nn.NewTape()
	tp.NoGrad = true
	defer tp.Reset()
	var rng *rand.Rand
	if reg != nil {
		rng = rand.New(rand.NewPCG(seed, 0x76616c))
	}
	var n int
	for lo := 0; lo < len(rows); lo += batch {
		hi := min(lo+batch, len(rows))
		if hi-lo < 2 && n > 0 {
			break
		}
		var rb *RegBatch
		if reg != nil {
			rb = &RegBatch{Tape: tp, Rng: rng}
		}
		loss += m.batchLoss(tp, d, rows[lo:hi], rb).Item() * float64(hi-lo)
		if rb != nil {
			p, err := reg.Penalty(rb)
			if err != nil {
				return 0, 0, err
			}
			pen += p.Item() * float64(hi-lo)
		}
		n += hi - lo
		tp.Reset()
	}
	return loss / float64(n), pen / float64(n), nil
}

// snapshot copies the parameter values into dst (allocated when nil).
func snapshot(ps []*nn.Param, dst [][]float64) [][]float64 {
	if dst == nil {
		dst = make([][]float64, len(ps))
		for i, p := range ps {
			dst[i] = make([]float64, len(p.Data))
		}
	}
	for i, p := range ps {
		copy(dst[i], p.Data)
	}
	return dst
}

func restore(ps []*nn.Param, src [][]float64) {
	for i, p := range ps {
		copy(p.Data, src[i])
	}
}

// gatherRows returns the rows `rows` of t on tp, differentiably (row j is row rows[j] of t).
func gatherRows(tp *nn.Tape, t *nn.Tensor, rows []int) *nn.Tensor {
	for _, r := range rows {
		if r < 0 || r >= t.Rows {
			panic(fmt.Sprintf("sbi: LogPost: row index %d outside the batch of %d pairs", r, t.Rows))
		}
	}
	return tp.GatherRows(t, rows)
}

// standardizedConst returns the rows of raw (in raw units) standardized by z as a tape constant.
func standardizedConst(tp *nn.Tape, z zscore, raw *mat.Dense) *nn.Tensor {
	r, c := raw.Dims()
	if c != len(z.Mean) {
		panic(fmt.Sprintf("sbi: θ has %d columns, expected %d", c, len(z.Mean)))
	}
	t := tp.New(r, c)
	for i := 0; i < r; i++ {
		z.applyRow(t.Row(i), raw.RawRowView(i))
	}
	return t
}

// rowsOf copies the rows idx of m.
func rowsOf(m *mat.Dense, idx []int) *mat.Dense {
	_, c := m.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for k, i := range idx {
		copy(out.RawRowView(k), m.RawRowView(i))
	}
	return out
}
