package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/internal/collapse"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// NPEConfig describes the conditional flow of neural posterior estimation. Zero fields take
// the defaults of Python's sbi (posterior_nn): a MAF of 5 transforms, each a MADE with two
// hidden layers of 50 units, and 10 bins for NSF.
type NPEConfig struct {
	Flow       flow.Kind  // "maf" (affine, the default) or "nsf" (rational-quadratic splines)
	Transforms int        // autoregressive transforms; 0 means 5
	Hidden     int        // units per hidden layer of each MADE; 0 means 50
	Layers     int        // hidden layers of each MADE; 0 means 2
	Bins       int        // spline bins (NSF); 0 means 10
	Activation Activation // MADE activation; "" means tanh for MAF, relu for NSF; not Identity
	Embedding  Embedding  // optional network applied to x before it conditions the flow
}

// The kinds of flow of NPEConfig.Flow, named in this package too so that code that imports
// only sbi (a notebook) reaches them.
const (
	MAF = flow.MAF // affine autoregressive transforms
	NSF = flow.NSF // rational-quadratic spline transforms
)

func (c NPEConfig) withDefaults() NPEConfig {
	if c.Flow == "" {
		c.Flow = flow.MAF
	}
	if c.Transforms == 0 {
		c.Transforms = 5
	}
	if c.Hidden == 0 {
		c.Hidden = 50
	}
	if c.Layers == 0 {
		c.Layers = 2
	}
	if c.Bins == 0 {
		c.Bins = 10
	}
	return c
}

// flowConfig translates the configuration for package flow.
func (c NPEConfig) flowConfig(features, context int) (flow.Config, error) {
	return c.flowConfigFor("NPE", features, context)
}

// flowConfigFor is flowConfig with the estimator's name (the prefix of its errors): NLE and
// MNLE describe their flows with the same fields.
func (c NPEConfig) flowConfigFor(name string, features, context int) (flow.Config, error) {
	fc := flow.Config{Kind: c.Flow, Features: features, Context: context, Transforms: c.Transforms, Bins: c.Bins}
	if _, err := flow.ParseKind(string(c.Flow)); err != nil {
		return fc, fmt.Errorf("%s: %w", name, err)
	}
	if c.Hidden < 1 || c.Layers < 1 || c.Transforms < 1 {
		return fc, fmt.Errorf("%s: Hidden = %d, Layers = %d, Transforms = %d, expected each ≥ 1", name, c.Hidden, c.Layers, c.Transforms)
	}
	for i := 0; i < c.Layers; i++ {
		fc.Hidden = append(fc.Hidden, c.Hidden)
	}
	if c.Activation != "" {
		act, err := c.Activation.parse()
		if err != nil {
			return fc, fmt.Errorf("%s: %w", name, err)
		}
		if act == nn.Identity { // flow.Config reads Identity as "the default"
			return fc, fmt.Errorf("%s: Activation %q: a MADE needs a nonlinearity, use another activation or \"\" for the default", name, c.Activation)
		}
		fc.Activation = act
	}
	return fc, nil
}

// NPE is neural posterior estimation (Papamakarios & Murray 2016; Greenberg et al. 2019,
// single round): a conditional normalizing flow q(θ | x) trained by maximum likelihood on
// simulated pairs, −E[log q(θ | x)]. θ and x are standardized with statistics of the training
// data. It implements Amortized.
type NPE struct {
	estimator
	cfg NPEConfig
	fl  *flow.Flow
	apt aptState // the atomic loss of APT rounds (Sequential); off outside them
}

// aptState is the training mode of APT's rounds (Greenberg et al. 2019): while atoms > 1,
// batchLoss is the atomic loss with that many atoms per observation. The buffers are reused
// across steps.
type aptState struct {
	atoms              int
	thetaRows, ctxRows []int
	logPrior           []float64 // log p(θ) of every row of priorOf.theta
	priorOf            *trainData
	atomPrior          []float64 // log p of the atoms of one batch
}

// NewNPE returns an untrained NPE for the prior. Configuration errors are reported by Train.
func NewNPE(prior dist.Distribution, cfg NPEConfig) *NPE {
	if prior == nil {
		panic("sbi: NewNPE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	cfg.Embedding = copyEmbedding(cfg.Embedding) // the caller's later changes must not reach the network
	_, err := cfg.flowConfig(prior.Dim(), 1)
	core := estimator{name: "NPE", label: "NPE (" + string(cfg.Flow) + ")", kind: "npe", prior: prior, cfgErr: err, dropNote: npeDropNote}
	return &NPE{estimator: core, cfg: cfg}
}

// Config returns the configuration with defaults filled in.
func (e *NPE) Config() NPEConfig {
	c := e.cfg
	c.Embedding = copyEmbedding(c.Embedding) // changes to what it returns must not reach e
	return c
}

// Train fits the flow to the pairs (θᵢ, xᵢ), one per row. The standardization of θ and x is
// learned from the training split; the weights of the epoch with the best validation loss are
// kept. The same seed gives the same estimator. It reports progress per epoch. A column of x
// that holds one value in every training pair (a constant summary) is only centred: it
// carries no information and does no harm (to NLE and MNLE it does: see NLE.Train). A column of θ that does is a parameter the
// simulations held fixed: the flow learns a point mass at that value, and the result warns.
//
// It stops when the host's context (runenv.Context) is cancelled — a notebook's interrupt —
// and keeps the best weights so far: the NPE is trained if one epoch finished, and the result
// and the error (which wraps context.Canceled) say "stopped at epoch k by interrupt; best
// epoch j kept". TrainContext takes the context instead; MustTrain is the form for cells. A
// regularizer's error (cfg.Regularizer) stops it the same way: the best epoch so far is kept,
// the NPE is trained if one epoch finished, and the error wraps the regularizer's and says
// "stopped at epoch k by an error; best epoch j kept".
//
// Pairs holding NaN or ±Inf (failed simulations) are dropped and counted in the result, with a
// warning above DropWarnFraction; cfg.RefuseNonFinite refuses them instead. What dropping does:
// the kept pairs are drawn from p(θ) p(x | θ) P(ok | θ, x) (ok: the simulation succeeded), so
// the flow learns p(θ | x, ok) ∝ p(θ | x) P(ok | θ, x). For a finite observation that is the
// posterior of the simulator together with its failures — right when the real observation
// passed through the same failure mechanism — and it equals the failure-free posterior
// p(θ | x) when P(ok | θ, x) does not depend on θ (for instance when failing is a function
// of x alone); otherwise it leans towards the parameters that fail less.
func (e *NPE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.train(runenv.Context(), (*npeModel)(e), theta, x, cfg)
}

// TrainContext is Train stopped by ctx instead of the host's context, so that two trainings
// with two contexts are cancelled separately.
func (e *NPE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.train(ctx, (*npeModel)(e), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it returns the result and panics with Train's error
// (an interrupted training keeps its best epoch before the panic).
func (e *NPE) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// npeDropNote is what dropping failed simulations does to NPE (see NPE.Train).
const npeDropNote = "NPE then learns the posterior given that the simulation succeeded, which is p(θ | x) only if the chance of failing does not depend on θ"

// npeModel is the training view of an NPE.
type npeModel NPE

// embedding implements network.
func (m *npeModel) embedding() Embedding { return m.cfg.Embedding }

// buildHead creates a fresh flow conditioned on ctx values.
func (m *npeModel) buildHead(rng *rand.Rand, ctx int) error {
	fc, err := m.cfg.flowConfig(m.prior.Dim(), ctx)
	if err != nil {
		return err
	}
	if m.fl, err = flow.New(rng, fc); err != nil {
		return fmt.Errorf("NPE: %w", err)
	}
	return nil
}

func (m *npeModel) params() []*nn.Param { return m.withEmbedding(m.fl.Params()) }

// batchLoss is −mean log q(θ | x) in raw units: the flow's log-density of standardized θ minus
// log|det| of the standardization, Σ log σ_θ.
func (m *npeModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	ctx := m.batchContext(tp, d, idx)
	lp := m.fl.LogProb(tp, tp.Gather(d.thetaZ, idx), ctx)
	logJac := m.zt.logJacobian()
	var loss *nn.Tensor
	if K := min(m.apt.atoms, len(idx)); K > 1 {
		loss = m.atomicLoss(tp, d, idx, ctx, K)
	}
	if rb != nil {
		m.fillRegBatch(rb, d, idx)
		rb.LogPost = func(theta *mat.Dense, rows []int) *nn.Tensor {
			c := m.contextRows(tp, d, idx, ctx, rows)
			return tp.AddScalar(m.fl.LogProb(tp, standardizedConst(tp, m.zt, theta), c), -logJac)
		}
		rb.PairLogPost = tp.AddScalar(lp, -logJac) // the loss's own log-densities, reused
	}
	if loss != nil {
		return loss
	}
	return tp.AddScalar(tp.Neg(tp.Mean(lp)), logJac)
}

// atomicLoss is APT's atomic loss (Greenberg et al. 2019, eq. 6 with atoms; sbi's SNPE-C
// default): for each observation xᵢ of the batch, the K atoms θᵢ, θ_{i+1}, …, θ_{i+K−1}
// (indices modulo the batch, a uniform draw of distinct others as the batch is a random
// permutation) and the logits L_ik = log q(θ_{i+k} | xᵢ) − log p(θ_{i+k}); the loss is
// mean over i of log Σₖ exp L_ik − L_i0, the cross-entropy of picking the atom that
// generated xᵢ. Its optimum is q(θ | x) = p(θ | x) whatever the proposal of θ. The Jacobian
// of the standardization is a constant of every logit and cancels.
func (m *npeModel) atomicLoss(tp *nn.Tape, d *trainData, idx []int, ctx *nn.Tensor, K int) *nn.Tensor {
	a := &m.apt
	if a.priorOf != d {
		a.logPrior, a.priorOf = m.prior.LogProb(d.theta), d
	}
	B := len(idx)
	if cap(a.thetaRows) < B*K {
		a.thetaRows, a.ctxRows, a.atomPrior = make([]int, B*K), make([]int, B*K), make([]float64, B*K)
	}
	th, cr, ap := a.thetaRows[:B*K], a.ctxRows[:B*K], a.atomPrior[:B*K]
	for i := range B {
		for k := range K {
			r := idx[(i+k)%B]
			th[i*K+k], cr[i*K+k], ap[i*K+k] = r, i, a.logPrior[r]
		}
	}
	lq := m.fl.LogProb(tp, tp.Gather(d.thetaZ, th), tp.GatherRows(ctx, cr))
	L := tp.Sub(tp.Reshape(lq, B, K), tp.Const(B, K, ap))
	return atomicNRELoss(tp, L)
}

// LogProbPairs returns log q(θᵢ | xᵢ) for every row pair, in raw units of θ, −Inf where θᵢ lies
// outside the prior's support or xᵢ holds NaN or ±Inf (or is not an observation the embedding's
// InputLayout can read); evaluated in parallel on all cores. On CPUs with AVX-512 the flow's
// MADEs multiply in float32 (PyTorch's precision, about twice as fast): the log-densities then
// carry float32 rounding, near 1e-6, and are the same for a pair whichever call or batch
// computes them (Posterior.LogProb included). It panics when the NPE is untrained or the shapes
// do not match.
func (e *NPE) LogProbPairs(theta, x *mat.Dense) []float64 {
	return e.checkedLogProbPairs(theta, x, true)
}

// checkedLogProbPairs is LogProbPairs; with warn false it leaves the warning about numbers of
// trials to the caller (an ensemble, which warns once for its members).
func (e *NPE) checkedLogProbPairs(theta, x *mat.Dense, warn bool) []float64 {
	e.mustTrained("LogProbPairs")
	checkEvalPairs("NPE.LogProbPairs", theta, x, e.prior.Dim(), e.xDim)
	if warn {
		e.warnUnseenTrials(e.label+" LogProbPairs", x)
	}
	return e.logProbPairs(theta, x, true)
}

// logProbPairs evaluates LogProbPairs, with the MADEs' products in float32 (where the CPU has
// the float32 kernel) or in float64.
func (e *NPE) logProbPairs(theta, x *mat.Dense, inFloat32 bool) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	logJac := e.zt.logJacobian()
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		th := theta.Slice(lo, hi, 0, e.prior.Dim()).(*mat.Dense)
		lp := e.fl.Eval(flow.EvalConfig{Float32: inFloat32}).LogProb(tp, standardizedConst(tp, e.zt, th), e.context(tp, x.Slice(lo, hi, 0, e.xDim).(*mat.Dense)))
		for i := range lp.Data {
			out[lo+i] = cleanLogProb(lp.Data[i]-logJac, e.prior, theta.RawRowView(lo+i))
			if !e.readableX(x.RawRowView(lo + i)) { // tanh saturates: an infinite x looks finite
				out[lo+i] = math.Inf(-1)
			}
		}
	})
	return out
}

// cleanLogProb maps NaN and points outside the prior's support to −Inf.
func cleanLogProb(v float64, prior dist.Distribution, theta []float64) float64 {
	if math.IsNaN(v) || !prior.InSupport(theta) {
		return math.Inf(-1)
	}
	return v
}

// checkEvalPairs panics unless theta and x are paired rows of the expected widths.
func checkEvalPairs(what string, theta, x *mat.Dense, dt, dx int) int {
	n, c := theta.Dims()
	nx, cx := x.Dims()
	if c != dt || cx != dx || n != nx {
		panic(fmt.Sprintf("sbi: %s: theta is %d×%d and x %d×%d, expected n×%d and n×%d", what, n, c, nx, cx, dt, dx))
	}
	return n
}

// Posterior returns q(θ | x) for the observation x. It panics when x has the wrong length.
func (e *NPE) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the acceptance rate.
func (e *NPE) PosteriorAt(x []float64) *NPEPosterior { return e.posteriorAt(x, true) }

// posteriorAt is PosteriorAt; with warn false it leaves the warnings about the observation (far
// outside the training simulations, or a number of trials outside those of training) to the
// caller (an ensemble, which warns once for its members).
func (e *NPE) posteriorAt(x []float64, warn bool) *NPEPosterior {
	p := &NPEPosterior{est: e, x: append([]float64(nil), x...)}
	if p.ctx, p.err = e.posteriorContext("NPE", p.x); p.err != nil {
		return p
	}
	if warn {
		e.warnIfOutside(x)
	}
	return p
}

// MinAcceptanceRate is the smallest share of flow draws inside the prior's support with which
// an NPE posterior keeps sampling: below it (measured on at least 10,000 draws) SampleContext
// returns an error wrapping ErrLowAcceptance instead of stalling.
const MinAcceptanceRate = 1e-3

// NPEPosterior is an NPE's posterior for one observation. Draws outside the prior's support
// (leakage of the flow's mass) are rejected, and the share accepted is reported. It is safe
// for concurrent use.
type NPEPosterior struct {
	est *NPE
	x   []float64
	ctx []float64
	err error

	count acceptance
}

// Dim is the number of parameters.
func (p *NPEPosterior) Dim() int { return p.est.prior.Dim() }

// AcceptanceRate is the share of the flow's draws that fell inside the prior's support over
// all draws so far (1 for an unbounded prior), NaN before the first draw.
func (p *NPEPosterior) AcceptanceRate() float64 { return p.count.rate() }

// LogProb is log q(θ | x) for every row of theta: −Inf outside the prior's support. The density
// is the flow's, not renormalized for the mass it puts outside the support (divide by
// AcceptanceRate for that). It is computed as LogProbPairs computes it (in float32 products on
// CPUs with AVX-512), and gives the same bits for the same pair.
func (p *NPEPosterior) LogProb(theta *mat.Dense) []float64 {
	if p.err != nil {
		panic(fmt.Errorf("sbi: NPE posterior LogProb: %w", p.err))
	}
	e := p.est
	n, c := theta.Dims()
	if c != e.prior.Dim() {
		panic(fmt.Sprintf("sbi: NPE posterior LogProb: theta has %d columns, expected %d", c, e.prior.Dim()))
	}
	out := make([]float64, n)
	logJac := e.zt.logJacobian()
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		ctx := tp.RepeatRows(tp.Const(1, len(p.ctx), p.ctx), hi-lo)
		lp := e.fl.Eval(flow.EvalConfig{Float32: true}).LogProb(tp, standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, c).(*mat.Dense)), ctx) // as LogProbPairs
		for i := range lp.Data {
			out[lo+i] = cleanLogProb(lp.Data[i]-logJac, e.prior, theta.RawRowView(lo+i))
		}
	})
	return out
}

// Sample draws n parameter vectors, stopped by the host's context; it panics with
// SampleContext's error (the shorthand of the package's naming rule).
func (p *NPEPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(p.SampleContext(runenv.Context(), rng, n))
}

// SampleChecked is SampleContext with the host's context.
//
// Deprecated: use SampleContext (or Sample in a notebook cell).
func (p *NPEPosterior) SampleChecked(rng *rand.Rand, n int) (*mat.Dense, error) {
	return p.SampleContext(runenv.Context(), rng, n)
}

// SampleContext draws n parameter vectors from the flow, rejecting those outside the prior's
// support, until ctx is done. It returns an error wrapping ErrUntrained when the estimator is
// untrained, ErrNonFinite for an observation with NaN or ±Inf, ErrDiverged when the flow's
// draws are not finite or when all the draws of one round share one value in a column of θ
// that varied in training (the flow collapsed numerically; a column constant in training, a
// point mass, is not checked; an NPE loaded from a file of format 4 or older, which does not
// record those columns, is checked for non-finite draws only: see EstimatorFormatVersion),
// and ErrLowAcceptance when fewer than MinAcceptanceRate of them land inside the support. On
// CPUs with AVX-512 the flow's MADEs multiply in float32 (as for LogProb); draws depend on the
// seed only, not on the number of cores. n·Dim may be at most 2²⁶ (67,108,864) values: a
// larger request returns an error before anything is drawn (draw in several calls).
func (p *NPEPosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if p.err != nil {
		return nil, fmt.Errorf("NPE posterior: %w", p.err)
	}
	if err := checkSampleSize("NPE posterior", n, p.est.prior.Dim()); err != nil {
		return nil, err
	}
	e := p.est
	r := rejection{
		name:    "NPE posterior",
		prior:   e.prior,
		count:   &p.count,
		round:   roundSize,
		draw:    func(m int) (*mat.Dense, error) { return e.drawFlow(rng, p.ctx, m) },
		stalled: func() string { return e.leakAdvice(p.x) },
	}
	return r.sample(ctx, n)
}

// leakAdvice says why the flow's mass at x leaks out of the prior's support and what helps:
// at an observation outside the simulated data the flow extrapolates and more training cannot
// help; among them the flow is not yet fitted well.
func (e *NPE) leakAdvice(x []float64) string {
	chk, err := e.checkObservation(x, "") // the posterior warned
	switch {
	case err != nil:
		return "the flow leaks its mass out of the support; if the observation may lie outside the simulated data, test it with diag.Misspecification (the estimator keeps no reservoir to check it); otherwise train longer or with more simulations, or sample an NRE"
	case chk.Outside || chk.PValue <= 0.05:
		return fmt.Sprintf("the observation lies outside the simulated data (farther from the training simulations than %d of %d held-back ones, p = %.3g), where the flow extrapolates and leaks its mass out of the support; more training does not help there: check the observation and the simulator (misspecification, preprocessing), or simulate with a prior that produces data like it and train again",
			int(math.Round((1-chk.PValue)*float64(chk.Calibration+1))), chk.Calibration, chk.PValue)
	}
	return fmt.Sprintf("the observation lies among the simulated data (p = %.3g against the held-back simulations), but the flow leaks its mass out of the support: train longer or with more simulations, or sample an NRE", chk.PValue)
}

// errNonFiniteDraws is drawFlow's error for draws that are not finite.
var errNonFiniteDraws = fmt.Errorf("%w: the flow produced non-finite draws: its weights are not finite", ErrDiverged)

// drawFlow draws m points from the flow given the context vector, in raw units, in parallel
// chunks with their own streams derived from rng. It returns an error wrapping ErrDiverged
// where a draw is not finite, or where m ≥ 2 draws all share one value in a column of θ that
// varied in training: the flow is a bijection of its base draws, which are distinct, so equal
// draws there mean that its transforms collapsed numerically. A column constant in training
// legitimately gives equal draws (the flow learned a point mass); where those columns are
// unknown (an estimator loaded from a file of format 4 or older) only finiteness is checked.
func (e *NPE) drawFlow(rng *rand.Rand, ctx []float64, m int) (*mat.Dense, error) {
	D := e.prior.Dim()
	out := mat.NewDense(m, D, nil)
	s := newStreams(rng)
	var bad atomicFlag
	inv := e.fl.Eval(flow.EvalConfig{Float32: true}).Inverter(ctx) // the MADEs' products in float32, as for log-densities
	parallelChunks(m, evalChunk, func(c, lo, hi int) {
		r := chunkRand(s, c)
		tp := getTape()
		defer putTape(tp)
		z := tp.New(hi-lo, D)
		for i := range z.Data {
			z.Data[i] = r.NormFloat64()
		}
		th := inv.Map(tp, z, nil)
		for i := 0; i < hi-lo; i++ {
			copy(out.RawRowView(lo+i), th.Row(i)) // standardized until the collapse check
		}
	})
	if !finite(out.RawMatrix().Data) {
		return nil, errNonFiniteDraws
	}
	if j, ok := e.collapsedColumn(out); ok {
		return nil, e.collapseError(out, j)
	}
	parallelChunks(m, evalChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			row := out.RawRowView(i)
			e.zt.invertRow(row)
			if !finite(row) {
				bad.set()
			}
		}
	})
	if bad.get() {
		return nil, errNonFiniteDraws
	}
	return out, nil
}

// collapsedColumn returns the first column of the standardized draws z, all finite, among
// those of θ that varied in training, whose values are all equal, when z has at least two rows
// and the constant columns of training are known.
func (e *NPE) collapsedColumn(z *mat.Dense) (int, bool) {
	if !e.zt.constKnown {
		return 0, false
	}
	raw := z.RawMatrix()
	return collapse.Column(raw.Data, raw.Rows, raw.Cols, raw.Stride, e.zt.constant)
}

// collapseError says that every draw of θ column j (standardized in z) is the same value, why
// that is wrong and what to do.
func (e *NPE) collapseError(z *mat.Dense, j int) error {
	n, _ := z.Dims()
	v := z.At(0, j)*e.zt.Std[j] + e.zt.Mean[j]
	return fmt.Errorf("%w: the flow's draws collapsed: %s: train again with a smaller learning rate (TrainConfig.LearningRate), and check that x is of moderate scale",
		ErrDiverged, collapse.Describe(n, j, v, fmt.Sprintf("θ column %d varied in the training pairs", j)))
}
