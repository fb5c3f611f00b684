package sbi

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// MNLEConfig describes the networks of mixed neural likelihood estimation and how its
// posterior is sampled. Zero fields take the defaults of Python's sbi (build_mnle): one
// discrete column, the last of x; categorical networks with two hidden layers of 50 units;
// for the continuous columns an NSF of 2 transforms with 5 bins and MADEs of two hidden layers
// of 50 units, conditioned on θ and the discrete values through two layers of 50 units.
type MNLEConfig struct {
	// Discrete is the number of discrete columns, the last ones of x (sbi's convention: the
	// continuous columns first, e.g. a reaction time, then the discrete ones, e.g. a
	// choice); 0 means 1. At least one column must stay continuous.
	Discrete int
	// Categories holds the number of categories of every discrete column, whose values must
	// be the integers 0 … Categories[k]−1; nil means one more than the largest value in the
	// training data (at most MaxCategories).
	Categories []int
	// LogTransform models the logarithm of the continuous columns (sbi's log_transform_x),
	// for positive data such as reaction times; the density is still of x itself.
	LogTransform bool

	Flow       flow.Kind  // flow of the continuous columns: "nsf" (the default) or "maf"
	Transforms int        // autoregressive transforms; 0 means 2
	Hidden     int        // units per hidden layer of every network; 0 means 50
	Layers     int        // hidden layers of the MADEs and the categorical networks; 0 means 2
	Bins       int        // spline bins (NSF); 0 means 5
	Activation Activation // MADE activation; "" means tanh for MAF, relu for NSF; not Identity

	Sampler SamplerConfig // how Posterior samples (the zero value picks automatically)
}

// MaxCategories is the most categories a discrete column of an MNLE may have.
const MaxCategories = 1000

func (c MNLEConfig) withDefaults() MNLEConfig {
	if c.Discrete == 0 {
		c.Discrete = 1
	}
	if c.Flow == "" {
		c.Flow = flow.NSF
	}
	if c.Transforms == 0 {
		c.Transforms = 2
	}
	if c.Hidden == 0 {
		c.Hidden = 50
	}
	if c.Layers == 0 {
		c.Layers = 2
	}
	if c.Bins == 0 {
		c.Bins = 5
	}
	return c
}

func (c MNLEConfig) validate() error {
	if c.Discrete < 1 {
		return fmt.Errorf("MNLE: Discrete = %d, expected at least 1 discrete column (0 for the default 1)", c.Discrete)
	}
	if c.Categories != nil {
		if len(c.Categories) != c.Discrete {
			return fmt.Errorf("MNLE: Categories %v has %d entries for %d discrete columns, expected one per column (or nil to learn them)", c.Categories, len(c.Categories), c.Discrete)
		}
		for _, k := range c.Categories {
			if k < 1 || k > MaxCategories {
				return fmt.Errorf("MNLE: Categories %v, expected every count in 1…%d", c.Categories, MaxCategories)
			}
		}
	}
	if _, err := c.flowConfig(1, 1); err != nil {
		return err
	}
	return c.Sampler.validate()
}

// flowConfig is the flow of the continuous columns (features values) given the combined
// embedding of θ and the discrete values (context values).
func (c MNLEConfig) flowConfig(features, context int) (flow.Config, error) {
	s := NPEConfig{Flow: c.Flow, Transforms: c.Transforms, Hidden: c.Hidden, Layers: c.Layers, Bins: c.Bins, Activation: c.Activation}
	return s.flowConfigFor("MNLE", features, context)
}

// MNLE is mixed neural likelihood estimation (Boelts, Lueckmann, Gao & Macke 2022; sbi's
// MNLE) for simulators whose output mixes continuous columns c and discrete columns d (the
// last Discrete columns of x):
//
//	q(x | θ) = Πₖ p(dₖ | θ, d₁ … dₖ₋₁) · q(c | θ, d),
//
// each p(dₖ | ·) a categorical distribution whose logits an MLP computes, and q(c | θ, d) a
// conditional flow on the (optionally log-transformed) continuous columns whose context is an
// MLP embedding of θ and d. All networks train together by maximum likelihood; θ and the
// continuous columns are standardized with statistics of the training data. Its posterior
// p̂(θ | x) ∝ p(θ)·q(x | θ) is sampled as NLE's, PosteriorTrials serves i.i.d. trials, and
// Trials serves them to diagnostics. It implements Amortized; its posterior log-densities are
// unnormalized.
type MNLE struct {
	estimator
	cfg     MNLEConfig // with defaults; Categories as given
	cats    []int      // categories in use: configured, or learned by the last Train
	catNets []*nn.MLP  // logits of discrete column k from θ and the discrete columns before it
	embed   *nn.MLP    // context of the flow from the discrete columns and θ
	fl      *flow.Flow

	// Buffers of a training step (training is single-threaded), so that it allocates nothing:
	// the indicator tensors of the discrete columns, and the batch whose rows batchRow reads.
	oneHotBuf []*nn.Tensor
	batchRows []int
	batchData *trainData

	// buildCats are the categories of the networks a Train from fresh weights is about to
	// build: they become cats when buildHead builds those networks, so that a Train that
	// fails before it leaves the categories of the networks in place.
	buildCats []int
}

// NewMNLE returns an untrained MNLE for the prior. Configuration errors are reported by Train.
func NewMNLE(prior dist.Distribution, cfg MNLEConfig) *MNLE {
	if prior == nil {
		panic("sbi: NewMNLE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	cfg.Categories = slices.Clone(cfg.Categories) // the caller's later changes must not reach e (nil stays nil: learn them)
	core := estimator{name: "MNLE", label: "MNLE (" + string(cfg.Flow) + ")", kind: "mnle", prior: prior, cfgErr: cfg.validate()}
	e := &MNLE{estimator: core, cfg: cfg}
	e.cats = append([]int(nil), cfg.Categories...)
	return e
}

// Config returns the configuration with defaults filled in; once trained, Categories holds the
// categories in use (learned from the data when the configuration left them nil).
func (e *MNLE) Config() MNLEConfig {
	c := e.cfg
	c.Categories = slices.Clone(c.Categories) // changes to what it returns must not reach e
	if e.trained {
		c.Categories = append([]int(nil), e.cats...)
	}
	return c
}

// Train fits the networks to the pairs (θᵢ, xᵢ), one per row, with the rules of NLE.Train.
// The discrete columns must hold integers 0 … K−1 (K configured, or learned as one more than
// the largest value, at most MaxCategories); with LogTransform the continuous columns must be
// positive. Rows holding NaN or ±Inf are dropped and counted; other values that break these
// rules are an error that names the first of them.
func (e *MNLE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.TrainContext(runenv.Context(), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it returns the result and panics with Train's error
// (an interrupted training keeps its best epoch before the panic).
func (e *MNLE) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// TrainContext is Train stopped by ctx instead of the host's context.
func (e *MNLE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	if e.cfgErr != nil {
		return nil, e.cfgErr
	}
	if err := checkPairs("train "+e.label, theta, x, e.prior.Dim(), e.knownXDim()); err != nil {
		return nil, err
	}
	_, cols := x.Dims()
	if cols <= e.cfg.Discrete {
		return nil, fmt.Errorf("train %s: x has %d columns and Discrete = %d, expected at least one continuous column before the discrete ones", e.label, cols, e.cfg.Discrete)
	}
	resume := cfg.Resume && e.trained
	cats := e.cats
	if !resume {
		cats = append([]int(nil), e.cfg.Categories...)
	}
	cats, err := e.checkData(x, cats)
	if err != nil {
		return nil, err
	}
	if !resume {
		e.buildCats = cats
		defer func() { e.buildCats = nil }()
	}
	if cfg.ValX != nil {
		if _, vcols := cfg.ValX.Dims(); vcols != cols {
			return nil, fmt.Errorf("train %s: ValX has %d columns, the training x %d, expected the same", e.label, vcols, cols)
		}
		if _, err := e.checkData(cfg.ValX, cats); err != nil {
			return nil, fmt.Errorf("validation pairs (ValX): %w", err)
		}
		cfg.ValX = e.transformed(cfg.ValX)
	}
	return e.estimator.train(ctx, (*mnleModel)(e), theta, e.transformed(x), cfg)
}

// checkData checks the discrete and continuous columns of the finite rows of x and returns the
// categories: cats, or learned from x when cats is nil.
func (e *MNLE) checkData(x *mat.Dense, cats []int) ([]int, error) {
	n, cols := x.Dims()
	K, first := e.cfg.Discrete, cols-e.cfg.Discrete
	learn := cats == nil
	if learn {
		cats = make([]int, K)
	}
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		if !finite(row) {
			continue
		}
		if e.cfg.LogTransform {
			for j, v := range row[:first] {
				if !(v > 0) {
					return nil, fmt.Errorf("train %s: row %d, continuous column %d holds %v: LogTransform needs positive values (unset it, or shift the data)", e.label, i, j, v)
				}
			}
		}
		for k, v := range row[first:] {
			limit := MaxCategories
			if !learn {
				limit = cats[k]
			}
			if v != math.Trunc(v) || v < 0 || v >= float64(limit) {
				return nil, fmt.Errorf("train %s: row %d, discrete column %d (column %d of x) holds %v, expected an integer in 0…%d: the discrete columns are the last %d columns of x (MNLEConfig.Discrete, 0 meaning 1), after the continuous ones; for data without discrete columns use NLE",
					e.label, i, k, first+k, v, limit-1, K)
			}
			if learn {
				cats[k] = max(cats[k], int(v)+1)
			}
		}
	}
	return cats, nil
}

// CheckObservation tests whether x lies among the MNLE's training simulations, as
// NPE.CheckObservation does, in the coordinates the networks see (the continuous columns
// log-transformed when LogTransform is set). With LogTransform, a continuous value ≤ 0 is an
// error naming it: the networks cannot see it.
func (e *MNLE) CheckObservation(x []float64) (*ObservationCheck, error) {
	if !e.trained || len(x) != e.xDim {
		return e.estimator.CheckObservation(x) // panics saying it is untrained, or naming the expected length
	}
	if e.cfg.LogTransform && finite(x) {
		for j, v := range x[:len(x)-e.cfg.Discrete] {
			if !(v > 0) {
				return nil, fmt.Errorf("%s: the observation holds %v in continuous column %d: with LogTransform the networks see log x, which needs positive values", e.name, v, j)
			}
		}
	}
	t := e.transformed(mat.NewDense(1, len(x), append([]float64(nil), x...)))
	return e.estimator.CheckObservation(t.RawRowView(0))
}

// transformed returns x with the logarithm of its continuous columns when LogTransform is set
// (non-positive values become NaN), x itself otherwise.
func (e *MNLE) transformed(x *mat.Dense) *mat.Dense {
	if !e.cfg.LogTransform {
		return x
	}
	out := mat.DenseCopyOf(x)
	n, cols := out.Dims()
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j := range row[:cols-e.cfg.Discrete] {
			if row[j] > 0 {
				row[j] = mathx.Log(row[j])
			} else {
				row[j] = math.NaN()
			}
		}
	}
	return out
}

// mnleModel is the training view of an MNLE.
type mnleModel MNLE

// embedding implements network: x is modelled, not embedded.
func (m *mnleModel) embedding() Embedding { return nil }

// buildHead creates fresh networks for observations of xDim values, with the categories of the
// Train that builds them (buildCats; a load builds with those of the file, already in cats).
func (m *mnleModel) buildHead(rng *rand.Rand, xDim int) error {
	if m.buildCats != nil {
		m.cats = m.buildCats
	}
	if err := m.checkShape(xDim); err != nil {
		return err
	}
	D, K := m.prior.Dim(), m.cfg.Discrete
	fc, err := m.cfg.flowConfig(xDim-K, m.cfg.Hidden)
	if err != nil {
		return err
	}
	m.catNets = make([]*nn.MLP, K)
	for k := range m.catNets {
		m.catNets[k] = nn.NewMLP(rng, m.catSizes(k), nn.ReLU)
		prefix(m.catNets[k].Params(), fmt.Sprintf("categorical.%d.", k))
	}
	m.embed = nn.NewMLP(rng, []int{K + D, m.cfg.Hidden, m.cfg.Hidden}, nn.ReLU)
	m.embed.OutActivation = nn.ReLU
	prefix(m.embed.Params(), "embedding.")
	if m.fl, err = flow.New(rng, fc); err != nil {
		return fmt.Errorf("MNLE: %w", err)
	}
	return nil
}

// checkShape checks that xDim leaves a continuous column and that the categories are known.
func (m *mnleModel) checkShape(xDim int) error {
	if xDim <= m.cfg.Discrete {
		return fmt.Errorf("MNLE: %d values of x and Discrete = %d, expected at least one continuous column", xDim, m.cfg.Discrete)
	}
	if len(m.cats) != m.cfg.Discrete {
		return fmt.Errorf("MNLE: %d category counts for %d discrete columns", len(m.cats), m.cfg.Discrete)
	}
	for _, k := range m.cats {
		if k < 1 || k > MaxCategories {
			return fmt.Errorf("MNLE: categories %v, expected every count in 1…%d", m.cats, MaxCategories)
		}
	}
	return nil
}

// catSizes are the layer widths of the categorical network of discrete column k: θ and the
// k discrete values before it → Layers × Hidden → its categories.
func (m *mnleModel) catSizes(k int) []int {
	sizes := []int{m.prior.Dim() + k}
	for l := 0; l < m.cfg.Layers; l++ {
		sizes = append(sizes, m.cfg.Hidden)
	}
	return append(sizes, m.cats[k])
}

// modeledX implements xDensity: the flow models the continuous columns, the first ones.
func (m *mnleModel) modeledX(xDim int) int { return xDim - m.cfg.Discrete }

func (m *mnleModel) params() []*nn.Param {
	var ps []*nn.Param
	for _, c := range m.catNets {
		ps = append(ps, c.Params()...)
	}
	ps = append(ps, m.embed.Params()...)
	return append(ps, m.fl.Params()...)
}

// logLik builds log Πₖ p(dₖ | θ, d₍<ₖ₎) + log q(c | θ, d) on tp for n rows, with the flow's
// density from fl, in the units the networks see: xz holds the standardized (transformed) x, thz the standardized θ, oneHot[k]
// the n×Kₖ indicators of the categories of discrete column k. The Jacobians of the
// standardization and the log transform are the caller's.
func (m *mnleModel) logLik(tp *nn.Tape, fl flowLogProb, xz, thz *nn.Tensor, oneHot []*nn.Tensor) *nn.Tensor {
	K := m.cfg.Discrete
	first := xz.Cols - K
	disc := tp.Columns(xz, first, xz.Cols)
	var total *nn.Tensor
	for k, net := range m.catNets {
		in := thz
		if k > 0 {
			in = tp.Concat(thz, tp.Columns(disc, 0, k))
		}
		lp := tp.RowSum(tp.Mul(tp.LogSoftmax(net.Forward(tp, in)), oneHot[k]))
		if total == nil {
			total = lp
		} else {
			total = tp.Add(total, lp)
		}
	}
	ctx := m.embed.Forward(tp, tp.Concat(disc, thz))
	return tp.Add(total, fl.LogProb(tp, tp.Columns(xz, 0, first), ctx))
}

// flowLogProb is a flow's log-density as training records it (*flow.Flow) or as evaluation
// computes it (flow.Evaluator).
type flowLogProb interface {
	LogProb(tp *nn.Tape, x, context *nn.Tensor) *nn.Tensor
}

// oneHots fills out[k], for every discrete column k, with the n×Kₖ indicators of the
// categories of the raw rows row(i) of x (i < n), on tp, and ok[i] (when ok is not nil) with
// whether row i's discrete values are all categories.
func (m *mnleModel) oneHots(tp *nn.Tape, n int, row func(i int) []float64, out []*nn.Tensor, ok []bool) {
	K := m.cfg.Discrete
	for k := range out {
		out[k] = tp.New(n, m.cats[k])
	}
	for i := 0; i < n; i++ {
		r := row(i)
		first := len(r) - K
		if ok != nil {
			ok[i] = true
		}
		for k, v := range r[first:] {
			if v != math.Trunc(v) || !(v >= 0) || v >= float64(m.cats[k]) {
				if ok != nil {
					ok[i] = false
				}
				continue
			}
			out[k].Data[i*m.cats[k]+int(v)] = 1
		}
	}
}

// jacobian returns log|det| of the map from raw x to what the flow models, for the raw row r:
// Σ log σⱼ over the continuous columns, plus Σ log cⱼ with LogTransform.
func (m *mnleModel) jacobian(r []float64) float64 {
	first := len(r) - m.cfg.Discrete
	s := 0.0
	for j := 0; j < first; j++ {
		s += mathx.Log(m.zx.Std[j])
		if m.cfg.LogTransform {
			s += mathx.Log(r[j])
		}
	}
	return s
}

// batchLoss is −mean log q(x | θ) in raw units of x.
func (m *mnleModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	// d.x holds the transformed x: its discrete columns are raw, and with LogTransform its
	// continuous columns are the logarithms log cⱼ, whose sum is the transform's Jacobian.
	if len(m.oneHotBuf) != m.cfg.Discrete {
		m.oneHotBuf = make([]*nn.Tensor, m.cfg.Discrete)
	}
	m.batchRows, m.batchData = idx, d
	m.oneHots(tp, len(idx), m.batchRow, m.oneHotBuf, nil)
	ll := m.logLik(tp, m.fl, tp.Gather(d.xZ, idx), tp.Gather(d.thetaZ, idx), m.oneHotBuf)
	m.batchRows, m.batchData = nil, nil
	jac := tp.Scratch(len(idx))
	var meanJac float64
	for i, r := range idx {
		jac[i] = m.trainJacobian(d.x.RawRowView(r))
		meanJac += jac[i] / float64(len(idx))
	}
	if rb != nil {
		m.fillRegBatch(rb, d, idx)
		lpJ := m.prior.LogProb(rb.Theta)
		for i := range lpJ {
			lpJ[i] -= jac[i]
		}
		rb.PairLogPost = tp.Add(ll, tp.Const(len(lpJ), 1, lpJ))
		rb.LogPost = func(theta *mat.Dense, rows []int) *nn.Tensor {
			xr := make([]int, len(rows))
			for j, r := range rows {
				if r < 0 || r >= len(idx) {
					panic(fmt.Sprintf("sbi: LogPost: row index %d outside the batch of %d pairs", r, len(idx)))
				}
				xr[j] = idx[r]
			}
			oh := make([]*nn.Tensor, m.cfg.Discrete)
			m.oneHots(tp, len(xr), func(i int) []float64 { return d.x.RawRowView(xr[i]) }, oh, nil)
			l := m.logLik(tp, m.fl, tp.Gather(d.xZ, xr), standardizedConst(tp, m.zt, theta), oh)
			lp := m.prior.LogProb(theta)
			for j, r := range xr {
				lp[j] -= m.trainJacobian(d.x.RawRowView(r))
			}
			return tp.Add(l, tp.Const(len(lp), 1, lp))
		}
	}
	return tp.AddScalar(tp.Neg(tp.Mean(ll)), meanJac)
}

// batchRow returns row i of the batch being built: a method value made once per model, not a
// closure per step.
func (m *mnleModel) batchRow(i int) []float64 { return m.batchData.x.RawRowView(m.batchRows[i]) }

// trainJacobian is jacobian for a row of the transformed training data (whose continuous
// columns hold log cⱼ with LogTransform).
func (m *mnleModel) trainJacobian(r []float64) float64 {
	first := len(r) - m.cfg.Discrete
	s := 0.0
	for j := 0; j < first; j++ {
		s += mathx.Log(m.zx.Std[j])
		if m.cfg.LogTransform {
			s += r[j]
		}
	}
	return s
}

// evalRows returns log q(xᵢ | θᵢ) in raw units for the rows of raw x and θ on tp (−Inf where
// xᵢ is outside the support: not finite, a discrete value that is no category, a
// non-positive value under LogTransform).
func (m *mnleModel) evalRows(tp *nn.Tape, theta, x *mat.Dense) []float64 {
	n, _ := x.Dims()
	oneHot, ok := make([]*nn.Tensor, m.cfg.Discrete), make([]bool, n)
	m.oneHots(tp, n, x.RawRowView, oneHot, ok)
	xt := (*MNLE)(m).transformed(x)
	ll := m.logLik(tp, m.fl.Eval(evalFloat32), standardizedConst(tp, m.zx, xt), standardizedConst(tp, m.zt, theta), oneHot)
	out := make([]float64, n)
	for i := range out {
		r := x.RawRowView(i)
		if !ok[i] || !finite(xt.RawRowView(i)) || math.IsNaN(ll.Data[i]) {
			out[i] = math.Inf(-1)
			continue
		}
		out[i] = ll.Data[i] - m.jacobian(r)
	}
	return out
}

// LogLikelihood returns log q(xᵢ | θᵢ) for every row pair, in raw units of x, −Inf where xᵢ
// holds NaN or ±Inf, a discrete value that is not one of its column's categories, or (with
// LogTransform) a continuous value ≤ 0; evaluated in parallel on all cores. It panics when
// the MNLE is untrained or the shapes do not match.
func (e *MNLE) LogLikelihood(theta, x *mat.Dense) []float64 {
	e.mustTrained("LogLikelihood")
	n := checkEvalPairs("MNLE.LogLikelihood", theta, x, e.prior.Dim(), e.xDim)
	out := make([]float64, n)
	D := e.prior.Dim()
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		v := (*mnleModel)(e).evalRows(tp, theta.Slice(lo, hi, 0, D).(*mat.Dense), x.Slice(lo, hi, 0, e.xDim).(*mat.Dense))
		copy(out[lo:hi], v)
	})
	return out
}

// LogProbPairs returns log p(θᵢ) + log q(xᵢ | θᵢ) for every row pair: the unnormalized
// posterior log-density, as Posterior(xᵢ).LogProb gives it, −Inf outside the prior's support
// and where LogLikelihood is −Inf; evaluated in parallel.
func (e *MNLE) LogProbPairs(theta, x *mat.Dense) []float64 {
	ll := e.LogLikelihood(theta, x)
	lp := e.prior.LogProb(theta)
	for i := range ll {
		ll[i] = cleanLogProb(lp[i]+ll[i], e.prior, theta.RawRowView(i))
	}
	return ll
}

// Posterior returns p̂(θ | x) ∝ p(θ)·q(x | θ), sampled as Config().Sampler says. It panics when
// x has the wrong length.
func (e *MNLE) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type.
func (e *MNLE) PosteriorAt(x []float64) *RatioPosterior { return e.PosteriorWith(x, e.cfg.Sampler) }

// PosteriorWith is PosteriorAt with a given sampler configuration.
func (e *MNLE) PosteriorWith(x []float64, s SamplerConfig) *RatioPosterior {
	if !e.trained {
		return newRatioPosterior(e.label, x, e.prior, nil, ErrUntrained, s)
	}
	if len(x) != e.xDim {
		panic(fmt.Sprintf("sbi: MNLE.Posterior: x has %d values, expected %d%s", len(x), e.xDim, trialsHint("MNLE", len(x), e.xDim)))
	}
	if finite(x) {
		e.warnIfOutside(e.transformed(mat.NewDense(1, len(x), append([]float64(nil), x...))).RawRowView(0))
	}
	ll, err := e.likelihoodAt(mat.NewDense(1, len(x), append([]float64(nil), x...)))
	return newRatioPosterior(e.label, x, e.prior, ll, err, s)
}

// PosteriorTrials returns p̂(θ | x₁ … x_T) ∝ p(θ)·Πₜ q(xₜ | θ) for the trials xₜ, the rows of
// xs, with the rules of NLE.PosteriorTrials.
func (e *MNLE) PosteriorTrials(xs *mat.Dense) *RatioPosterior {
	return e.PosteriorTrialsWith(xs, e.cfg.Sampler)
}

// PosteriorTrialsWith is PosteriorTrials with a given sampler configuration.
func (e *MNLE) PosteriorTrialsWith(xs *mat.Dense, s SamplerConfig) *RatioPosterior {
	if !e.trained {
		return newRatioPosterior(e.label+" trials", nil, e.prior, nil, ErrUntrained, s).ofTrials(xs)
	}
	checkTrials("MNLE.PosteriorTrials", xs, e.xDim)
	ll, err := e.likelihoodAt(mat.DenseCopyOf(xs))
	return newRatioPosterior(e.label+" trials", nil, e.prior, ll, err, s).ofTrials(xs)
}

// likelihoodAt returns θ ↦ Σₜ log q(xₜ | θ) over the rows of xs, or the reason no θ can
// explain them.
func (e *MNLE) likelihoodAt(xs *mat.Dense) (func(theta *mat.Dense) []float64, error) {
	if err := checkFiniteTrials(xs); err != nil {
		return nil, err
	}
	m := (*mnleModel)(e)
	T, cols := xs.Dims()
	first := cols - e.cfg.Discrete
	for t := 0; t < T; t++ {
		r := xs.RawRowView(t)
		for k, v := range r[first:] {
			if v != math.Trunc(v) || v < 0 || v >= float64(e.cats[k]) {
				return nil, fmt.Errorf("the observation (trial %d) holds %v in discrete column %d, expected one of its categories 0…%d", t, v, k, e.cats[k]-1)
			}
		}
		if e.cfg.LogTransform {
			for j, v := range r[:first] {
				if !(v > 0) {
					return nil, fmt.Errorf("the observation (trial %d) holds %v in continuous column %d: with LogTransform the likelihood is zero for values ≤ 0", t, v, j)
				}
			}
		}
	}
	D := e.prior.Dim()
	return func(theta *mat.Dense) []float64 {
		n, c := theta.Dims()
		if c != D {
			panic(fmt.Sprintf("sbi: MNLE posterior: theta has %d columns, expected %d", c, D))
		}
		return sumOverTrials(n, T, func(tp *nn.Tape, lo, hi int) []float64 {
			th := mat.NewDense((hi-lo)*T, D, nil)
			xx := mat.NewDense((hi-lo)*T, cols, nil)
			for i := lo; i < hi; i++ {
				for t := 0; t < T; t++ {
					th.SetRow((i-lo)*T+t, theta.RawRowView(i))
					xx.SetRow((i-lo)*T+t, xs.RawRowView(t))
				}
			}
			return m.evalRows(tp, th, xx)
		})
	}, nil
}

func (e *MNLE) fileNetwork() fileNetwork { return (*mnleModel)(e) }

// fileConfig stores the categories in use, so that a loaded MNLE knows them.
func (e *MNLE) fileConfig() any { return e.Config() }

// headWeights counts the weights of the categorical networks, the embedding and the flow for
// observations of xDim values.
func (m *mnleModel) headWeights(xDim int) (int, error) {
	if err := m.checkShape(xDim); err != nil {
		return 0, err
	}
	if m.cfg.Layers > maxFileLayers {
		return 0, fmt.Errorf("MNLE: Layers = %d, expected at most %d in a file", m.cfg.Layers, maxFileLayers)
	}
	D, K := m.prior.Dim(), m.cfg.Discrete
	fc, err := m.cfg.flowConfig(xDim-K, m.cfg.Hidden)
	if err != nil {
		return 0, err
	}
	n, err := flowWeights("MNLE", fc)
	if err != nil {
		return 0, err
	}
	w, err := mlpWeights([]int{K + D, m.cfg.Hidden, m.cfg.Hidden})
	if err != nil {
		return 0, fmt.Errorf("MNLE: %w", err)
	}
	n = satAdd(n, w)
	for k := 0; k < K; k++ {
		w, err := mlpWeights(m.catSizes(k))
		if err != nil {
			return 0, fmt.Errorf("MNLE: %w", err)
		}
		n = satAdd(n, w)
	}
	return n, nil
}

func init() {
	registerEstimator(estimatorKind{kind: "mnle", loader: "LoadMNLE",
		decode: func(prior dist.Distribution, config []byte, emb Embedding) (savable, error) {
			var cfg MNLEConfig
			if err := decodeStrict(config, &cfg); err != nil {
				return nil, fmt.Errorf("MNLE: %w", err)
			}
			if emb != nil {
				return nil, fmt.Errorf("MNLE: the file holds an embedding, which a likelihood estimator does not have")
			}
			if cfg.Categories == nil {
				return nil, fmt.Errorf("MNLE: the file holds no categories")
			}
			if cfg.Layers > maxFileLayers {
				return nil, fmt.Errorf("MNLE: Layers = %d, expected at most %d in a file", cfg.Layers, maxFileLayers)
			}
			if err := checkFileSampler(cfg.Sampler, prior.Dim()); err != nil {
				return nil, err
			}
			return NewMNLE(prior, cfg), nil
		}})
}

// Save writes the trained MNLE (configuration with its categories, prior, standardization and
// weights) to w in the format EstimatorFormatVersion describes, as NPE.Save does.
func (e *MNLE) Save(w io.Writer) error { return saveEstimator(w, e) }

// SaveFile writes the MNLE to the file at path (see Save), atomically like NPE.SaveFile.
func (e *MNLE) SaveFile(path string) error { return saveFile(path, e.Save) }

// LoadMNLE reads an MNLE written by Save, with the rules of LoadNPE for the prior.
func LoadMNLE(r io.Reader, prior dist.Distribution) (*MNLE, error) {
	e, err := loadEstimator(r, prior, "mnle")
	if err != nil {
		return nil, err
	}
	return e.(*MNLE), nil
}

// LoadMNLEFile reads an MNLE from the file at path (see LoadMNLE).
func LoadMNLEFile(path string, prior dist.Distribution) (*MNLE, error) {
	var e *MNLE
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadMNLE(r, prior); return err })
	return e, err
}
