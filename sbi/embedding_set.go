package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

func init() { RegisterEmbedding("deepset", DeepSetEmbedding{}) }

// Pooling names how a set embedding reduces the features of a set's elements to one vector.
type Pooling string

// The poolings of DeepSetEmbedding.
const (
	MeanPooling Pooling = "mean"
	SumPooling  Pooling = "sum"
	MaxPooling  Pooling = "max"
)

// maxSetTrials bounds MaxTrials, so that a damaged file cannot set it without limit.
const maxSetTrials = 1 << 24

// DeepSetEmbedding is a permutation-invariant network for sets, such as i.i.d. trials of one
// parameter (DeepSets, Zaheer et al. 2017, Theorem 2; sbi's PermutationInvariantEmbedding):
// a network φ (Linear layers of widths TrialDim → Hidden… → Features, with Activation
// between them and none after the last, so that a mean of features can be a mean of linear
// statistics of the trials, the sufficient statistics of many models) is applied to every
// trial alike, the features are pooled over the trials (mean,
// sum or max), the logarithm of the number of trials is appended (a mean or a maximum does
// not tell how many trials there were, while a posterior narrows with their number), and a
// network ρ (Head… → Out) maps the result to the summaries. The summaries do not depend on the
// order of the trials.
//
// # Layout of x
//
// With MaxTrials 0 every observation holds the same number of trials, in/TrialDim, side by
// side: trial k is columns k·TrialDim up to (k+1)·TrialDim.
//
// With MaxTrials > 0 the number of trials varies from observation to observation, from 1 to
// MaxTrials: an observation is 1 + MaxTrials·TrialDim values, the number of trials n first,
// then the n trials side by side, then padding up to the width (any finite values; Pack and
// WithCounts write zeros). The padding is ignored by the network and by the standardization,
// which learns one mean and deviation per coordinate of a trial over the trials present, and
// leaves the count as it is (InputLayout). The count, not NaN, marks the trials present:
// padding that holds NaN or ±Inf (as sbi pads) is refused, by training and by posteriors,
// with an error that says so, while a trial that holds NaN makes its pair a failed simulation,
// dropped by training like any other. An observation whose count is not a whole number
// from 1 to MaxTrials is refused: training fails naming its row, LogProbPairs gives −Inf, its
// posterior refuses to sample. A posterior is asked with any number of trials up to MaxTrials
// by packing them (Pack); more than MaxTrials would ask the network for counts it was never
// trained on, and do not fit the width.
//
// A number of trials up to MaxTrials that no training observation held is an extrapolation
// too: the summaries of 40 trials from a network trained on 1 to 5 come out in the right
// shape, and no loss checked them. So an estimator records the range of the numbers of trials
// of its training observations (saved in its file), and a posterior, LogProbPairs, LogRatio,
// Summaries, ToBase or CheckObservation at an observation outside that range prints a warning
// naming the call, its number of trials and the range, then answers all the same. Train on
// the numbers of trials you will ask with (WithCounts). An estimator loaded from a file
// written before the range was stored does not know it, and does not warn; training it on
// with Resume leaves it unknown (the numbers of the resumed run alone would leave out those of
// the first training). An embedding of another package has its observations checked the same
// way by implementing TrialCounter, as DeepSetEmbedding does.
//
// Zero values take the defaults: trials of 1 value, φ of one hidden layer of 64 and 32
// features, mean pooling, ρ of one hidden layer of 64, 20 summaries, ReLU.
type DeepSetEmbedding struct {
	TrialDim   int        // values of one trial; 0 means 1
	MaxTrials  int        // 0: a fixed number of trials; > 0: a count first, up to MaxTrials trials
	Hidden     []int      // hidden widths of φ; nil means {64}, []int{} none
	Features   int        // output width of φ; 0 means 32
	Pool       Pooling    // "mean" (default), "sum" or "max"
	Head       []int      // hidden widths of ρ; nil means {64}, []int{} none
	Out        int        // summary size; 0 means 20
	Activation Activation // "" means ReLU
}

// copied returns e with slices of its own (copyEmbedding; nil stays nil).
func (e DeepSetEmbedding) copied() DeepSetEmbedding {
	e.Hidden, e.Head = slices.Clone(e.Hidden), slices.Clone(e.Head)
	return e
}

func (e DeepSetEmbedding) withDefaults() DeepSetEmbedding {
	if e.TrialDim == 0 {
		e.TrialDim = 1
	}
	if e.Hidden == nil {
		e.Hidden = []int{64}
	}
	if e.Features == 0 {
		e.Features = 32
	}
	if e.Pool == "" {
		e.Pool = MeanPooling
	}
	if e.Head == nil {
		e.Head = []int{64}
	}
	if e.Out == 0 {
		e.Out = 20
	}
	if e.Activation == "" {
		e.Activation = ReLU
	}
	return e
}

// check validates the configuration (with defaults) for in values and returns the number of
// trial slots of an observation.
func (e DeepSetEmbedding) check(in int) (slots int, err error) {
	const kind = "DeepSet"
	if _, err := e.Activation.parse(); err != nil {
		return 0, fmt.Errorf("embedding: %s: %w", kind, err)
	}
	switch e.Pool {
	case MeanPooling, SumPooling, MaxPooling:
	default:
		return 0, fmt.Errorf("embedding: %s: Pool %q, expected %q, %q or %q", kind, e.Pool, MeanPooling, SumPooling, MaxPooling)
	}
	d := e.TrialDim
	switch {
	case d < 1 || e.MaxTrials < 0 || e.MaxTrials > maxSetTrials:
		return 0, fmt.Errorf("embedding: %s: TrialDim %d and MaxTrials %d, expected TrialDim ≥ 1 and MaxTrials from 0 to %d", kind, d, e.MaxTrials, maxSetTrials)
	case e.Features < 1 || e.Out < 1:
		return 0, fmt.Errorf("embedding: %s: Features %d and Out %d, expected ≥ 1 each", kind, e.Features, e.Out)
	case e.MaxTrials == 0 && (in < d || in%d != 0):
		return 0, fmt.Errorf("embedding: %s: observations of %d values are not sets of trials of %d values (expected a positive multiple of TrialDim; set MaxTrials for a varying number of trials)", kind, in, d)
	case e.MaxTrials > 0 && in != satAdd(1, satMul(e.MaxTrials, d)): // saturating: a product that wraps must not match in
		return 0, fmt.Errorf("embedding: %s: observations of %d values, expected 1 + MaxTrials·TrialDim = %d (the count of trials, then %d trials of %d values): WithCounts(x, counts) lays out rows of MaxTrials trials (padded with NaN after the trials present, as sbi pads, or all simulated)", kind, in, satAdd(1, satMul(e.MaxTrials, d)), e.MaxTrials, d)
	}
	if err := checkWidths(kind, "Hidden widths", e.Hidden); err != nil {
		return 0, err
	}
	if err := checkWidths(kind, "Head widths", e.Head); err != nil {
		return 0, err
	}
	if e.MaxTrials > 0 {
		return e.MaxTrials, nil
	}
	return in / d, nil
}

func (e DeepSetEmbedding) sizes() (phi, rho []int) {
	phi = append(append([]int{e.TrialDim}, e.Hidden...), e.Features)
	rho = append(append([]int{e.Features + 1}, e.Head...), e.Out)
	return phi, rho
}

func (e DeepSetEmbedding) layers(in int) ([]EmbeddingLayer, int, error) {
	e = e.withDefaults()
	slots, err := e.check(in)
	if err != nil {
		return nil, 0, err
	}
	phi, rho := e.sizes()
	var ls []EmbeddingLayer
	for _, l := range denseLayers(phi, e.Activation, false) {
		l.Layer = "per trial: " + l.Layer
		l.Output = fmt.Sprintf("trials × %s", l.Output)
		ls = append(ls, l)
	}
	trials := fmt.Sprintf("%d trials", slots)
	if e.MaxTrials > 0 {
		trials = fmt.Sprintf("1 to %d trials", slots)
	}
	ls = append(ls, EmbeddingLayer{Layer: fmt.Sprintf("%s pooling over %s, log count appended", e.Pool, trials), Output: fmt.Sprint(e.Features + 1)})
	ls = append(ls, denseLayers(rho, e.Activation, false)...)
	return ls, e.Out, nil
}

// Build implements Embedding.
func (e DeepSetEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	e = e.withDefaults()
	slots, err := e.check(in)
	if err != nil {
		return nil, err
	}
	act, _ := e.Activation.parse()
	phi, rho := e.sizes()
	n := &deepSetNet{cfg: e, in: in, slots: slots, phi: nn.NewMLP(rng, phi, act), rho: nn.NewMLP(rng, rho, act)}
	prefix(n.phi.Params(), "embed.phi.")
	prefix(n.rho.Params(), "embed.rho.")
	return n, nil
}

// Size implements SavableEmbedding.
func (e DeepSetEmbedding) Size(in int) (out, weights int, err error) { return sizeOf(e, in) }

// InputGroups implements InputLayout: one group per coordinate of a trial, over all trials;
// the count (MaxTrials > 0) is left as it is.
func (e DeepSetEmbedding) InputGroups(in int) ([]int, error) {
	e = e.withDefaults()
	if _, err := e.check(in); err != nil {
		return nil, err
	}
	g := make([]int, in)
	off := 0
	if e.MaxTrials > 0 {
		g[0], off = -1, 1
	}
	for j := off; j < in; j++ {
		g[j] = (j - off) % e.TrialDim
	}
	return g, nil
}

// InputUsed implements InputLayout: with MaxTrials > 0, the count and the trials it counts.
func (e DeepSetEmbedding) InputUsed(row []float64) (int, error) {
	e = e.withDefaults()
	if e.MaxTrials == 0 {
		return len(row), nil
	}
	if len(row) == 0 {
		return 0, fmt.Errorf("embedding: DeepSet: an empty observation, expected the count of trials first")
	}
	n := row[0]
	if !(n >= 1 && n <= float64(e.MaxTrials)) || n != math.Trunc(n) {
		return 0, fmt.Errorf("embedding: DeepSet: the observation says it holds %v trials (its first value), expected a whole number from 1 to MaxTrials = %d: pack observations with DeepSetEmbedding.Pack or WithCounts", n, e.MaxTrials)
	}
	return min(len(row), 1+int(n)*e.TrialDim), nil
}

// maxTrials implements trialBound.
func (e DeepSetEmbedding) maxTrials() int { return e.MaxTrials }

// TrialCount implements TrialCounter: with MaxTrials > 0, the count that the observation row
// begins with; false with MaxTrials 0 (every observation holds the same number of trials) or
// for a row the embedding cannot read.
func (e DeepSetEmbedding) TrialCount(row []float64) (int, bool) {
	if e.MaxTrials == 0 {
		return 0, false
	}
	if _, err := e.InputUsed(row); err != nil {
		return 0, false
	}
	return int(row[0]), true
}

// inputShape implements inputShaper.
func (e DeepSetEmbedding) inputShape(in int) string {
	e = e.withDefaults()
	if e.TrialDim < 1 {
		return ""
	}
	trial := text.Count(e.TrialDim, "value")
	if e.MaxTrials > 0 {
		return fmt.Sprintf("the count of trials, then up to %d trials of %s: pack the trials with DeepSetEmbedding.Pack", e.MaxTrials, trial)
	}
	if in%e.TrialDim != 0 {
		return ""
	}
	return fmt.Sprintf("a set of exactly %s of %s; to ask with another number of trials, train with MaxTrials set, on varying counts (DeepSetEmbedding.WithCounts)", text.Count(in/e.TrialDim, "trial"), trial)
}

// Pack returns the observation of the trials given one per row (TrialDim columns) in the
// embedding's layout: with MaxTrials > 0 the count, the trials and zeros up to
// 1 + MaxTrials·TrialDim values; with MaxTrials 0 the trials side by side. It returns an error
// for a configuration that Train refuses (checked before anything is allocated), for trials of
// another width, or for none or more than MaxTrials of them.
func (e DeepSetEmbedding) Pack(trials *mat.Dense) ([]float64, error) {
	e = e.withDefaults()
	in := e.TrialDim // observations of one trial; with MaxTrials > 0 the width of every observation
	if e.MaxTrials > 0 {
		in = satAdd(1, satMul(e.MaxTrials, e.TrialDim))
	}
	if _, err := e.check(in); err != nil {
		return nil, fmt.Errorf("DeepSet Pack: %w (Train refuses this configuration too: change the setting it names)", err)
	}
	if trials == nil || trials.IsEmpty() {
		return nil, fmt.Errorf("DeepSet Pack: trials is nil or empty, expected one trial of TrialDim = %d values per row, at least one%s", e.TrialDim, e.atMost())
	}
	n, d := trials.Dims()
	switch {
	case d != e.TrialDim:
		return nil, fmt.Errorf("DeepSet Pack: trials of %d values, the embedding reads trials of TrialDim = %d", d, e.TrialDim)
	case e.MaxTrials > 0 && n > e.MaxTrials:
		return nil, fmt.Errorf("DeepSet Pack: %d trials, more than MaxTrials = %d that the embedding was built for (posteriors beyond the training counts would be extrapolations)", n, e.MaxTrials)
	}
	if e.MaxTrials == 0 {
		out := make([]float64, 0, n*d)
		for i := 0; i < n; i++ {
			out = append(out, trials.RawRowView(i)...)
		}
		return out, nil
	}
	out := make([]float64, 1+e.MaxTrials*d)
	out[0] = float64(n)
	for i := 0; i < n; i++ {
		copy(out[1+i*d:], trials.RawRowView(i))
	}
	return out, nil
}

// atMost says how many trials an observation holds at most, for Pack's errors: nothing for a
// fixed number (MaxTrials 0).
func (e DeepSetEmbedding) atMost() string {
	if e.MaxTrials > 0 {
		return fmt.Sprintf(" and at most MaxTrials = %d", e.MaxTrials)
	}
	return ""
}

// MustPack is Pack for notebook cells: it panics with Pack's error.
func (e DeepSetEmbedding) MustPack(trials *mat.Dense) []float64 {
	x, err := e.Pack(trials)
	if err != nil {
		panic(err)
	}
	return x
}

// WithCounts returns the observations of x (one per row, MaxTrials trials of TrialDim values
// side by side, as a simulator of MaxTrials trials returns them) cut to counts[i] trials each,
// in the layout of MaxTrials > 0: the count first, then the first counts[i] trials, then
// zeros. Training on counts drawn from 1 to MaxTrials teaches the estimator every number of
// trials it will be asked with. The values after a row's counts[i] trials are not read, so
// sets padded with NaN after their trials, as Python's sbi pads them, take this layout too.
func (e DeepSetEmbedding) WithCounts(x *mat.Dense, counts []int) (*mat.Dense, error) {
	e = e.withDefaults()
	if e.MaxTrials < 1 {
		return nil, fmt.Errorf("DeepSet WithCounts: MaxTrials = %d, expected ≥ 1 (counts are for sets of varying size)", e.MaxTrials)
	}
	if e.TrialDim < 1 {
		return nil, fmt.Errorf("DeepSet WithCounts: TrialDim = %d, expected ≥ 1", e.TrialDim)
	}
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("DeepSet WithCounts: x is nil or empty, expected one observation of MaxTrials·TrialDim values per row")
	}
	n, c := x.Dims()
	w := satMul(e.MaxTrials, e.TrialDim) // saturating: a product that wraps must not match c
	switch {
	case c != w:
		return nil, fmt.Errorf("DeepSet WithCounts: x has %d columns, expected MaxTrials·TrialDim = %d", c, w)
	case len(counts) != n:
		return nil, fmt.Errorf("DeepSet WithCounts: %d counts for %d observations", len(counts), n)
	}
	out := mat.NewDense(n, 1+w, nil)
	for i, k := range counts {
		if k < 1 || k > e.MaxTrials {
			return nil, fmt.Errorf("DeepSet WithCounts: counts[%d] = %d, expected 1 to MaxTrials = %d", i, k, e.MaxTrials)
		}
		row := out.RawRowView(i)
		row[0] = float64(k)
		copy(row[1:1+k*e.TrialDim], x.RawRowView(i))
	}
	return out, nil
}

// MustWithCounts is WithCounts for notebook cells: it panics with WithCounts' error.
func (e DeepSetEmbedding) MustWithCounts(x *mat.Dense, counts []int) *mat.Dense {
	out, err := e.WithCounts(x, counts)
	if err != nil {
		panic(err)
	}
	return out
}

// deepSetNet is a built DeepSetEmbedding.
type deepSetNet struct {
	cfg      DeepSetEmbedding // with defaults
	in       int
	slots    int // trial slots of an observation
	phi, rho *nn.MLP
}

// count returns the number of trials of observation row (its raw count, or every slot). A
// count the layout refuses (the estimator gives such rows −Inf or an error and never uses
// their summaries) is clamped, so that evaluating a batch that holds one cannot fail.
func (n *deepSetNet) count(row []float64) int {
	if n.cfg.MaxTrials == 0 {
		return n.slots
	}
	v := math.Round(row[0])
	if !(v >= 1) {
		return 1
	}
	return int(math.Min(v, float64(n.slots)))
}

// Forward maps standardized observations (n × in; the count, unscaled, first when MaxTrials >
// 0) to n × Out summaries: the trials present become the rows of one tensor, segment by
// observation, that φ, the pooling and ρ work on.
func (n *deepSetNet) Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	rows, d := x.Rows, n.cfg.TrialDim
	offsets := tp.ScratchInts(rows + 1)
	logn := tp.New(rows, 1)
	offsets[0] = 0
	for i := 0; i < rows; i++ {
		k := n.count(x.Row(i))
		offsets[i+1] = offsets[i] + k
		logn.Data[i] = math.Log(float64(k))
	}
	trials := x
	if n.cfg.MaxTrials > 0 {
		trials = tp.Columns(x, 1, x.Cols)
	}
	elems := tp.Reshape(trials, rows*n.slots, d)
	if total := offsets[rows]; total < rows*n.slots {
		pick := tp.ScratchInts(total)
		for i := 0; i < rows; i++ {
			for k := 0; k < offsets[i+1]-offsets[i]; k++ {
				pick[offsets[i]+k] = i*n.slots + k
			}
		}
		elems = tp.GatherRows(elems, pick)
	}
	f := n.phi.Forward(tp, elems)
	var pooled *nn.Tensor
	switch n.cfg.Pool {
	case SumPooling:
		pooled = tp.SegmentSum(f, offsets)
	case MaxPooling:
		pooled = tp.SegmentMax(f, offsets)
	default:
		pooled = tp.SegmentMean(f, offsets)
	}
	return n.rho.Forward(tp, tp.Concat(pooled, logn))
}

func (n *deepSetNet) Params() []*nn.Param { return append(n.phi.Params(), n.rho.Params()...) }

func (n *deepSetNet) Out() int { return n.cfg.Out }
