package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// NREConfig describes the classifier of neural ratio estimation and its loss. Zero fields take
// defaults: two hidden layers of 50 units (the width of sbi's classifier) with ReLU, and the
// binary loss of NRE-A.
type NREConfig struct {
	Hidden     []int         // hidden widths of the classifier MLP; nil means {50, 50}
	Activation Activation    // "relu" (default), "elu", "tanh", …
	Embedding  Embedding     // optional network applied to x before the classifier
	Sampler    SamplerConfig // how Posterior samples (the zero value picks automatically)
	// Loss is the classification task the classifier is trained on: NREA (binary; "" means
	// NREA), NREB (which of K atoms) or NREC (contrastive: which of K, or none).
	Loss NRELoss `json:",omitempty"`
	// Classes is K: NRE-B's atoms per observation (0 means 10, sbi's num_atoms) or NRE-C's
	// classes (0 means 5, sbi's num_classes). NRE-A has none: leave it 0.
	Classes int `json:",omitempty"`
	// Gamma is NRE-C's γ, the odds of a set holding the parameters of x to one that does not
	// (0 means 1, sbi's default). Only NRE-C has it: leave it 0 otherwise.
	Gamma float64 `json:",omitempty"`
}

// NRELoss names the classification task of an NRE; see NREConfig.Loss.
type NRELoss string

// The losses of NREConfig.Loss.
const (
	// NREA is the binary task of Hermans et al. (2020): joint pair or marginal pair. Its
	// optimum is f = log r exactly.
	NREA NRELoss = "nre-a"
	// NREB is the atomic task of Durkan et al. (2020), sbi's default NRE: which of K
	// parameters generated x. Its optimum is f = log r + c(x), a constant in θ that depends
	// on x, so posteriors are right but log-ratios are not comparable across observations.
	NREB NRELoss = "nre-b"
	// NREC is the contrastive task of Miller et al. (2022): which of K parameters generated x,
	// or none, with odds γ. Its optimum is f = log r exactly, as for NRE-A.
	NREC NRELoss = "nre-c"
)

// parse returns the loss, NREA for "".
func (l NRELoss) parse() (NRELoss, error) {
	switch l {
	case "", NREA:
		return NREA, nil
	case NREB, NREC:
		return l, nil
	}
	return "", fmt.Errorf("NRE: Loss %q, expected %q, %q or %q", string(l), NREA, NREB, NREC)
}

func (c NREConfig) withDefaults() NREConfig {
	if c.Hidden == nil {
		c.Hidden = []int{50, 50}
	}
	if c.Activation == "" {
		c.Activation = ReLU
	}
	switch { // Loss "" stays "" (NRE-A), so that files of NRE-A are written as before NRE-B/C
	case c.Loss == NREB && c.Classes == 0:
		c.Classes = 10
	case c.Loss == NREC && c.Classes == 0:
		c.Classes = 5
	}
	if c.Loss == NREC && c.Gamma == 0 {
		c.Gamma = 1
	}
	return c
}

func (c NREConfig) validate() error {
	if _, err := c.Activation.parse(); err != nil {
		return fmt.Errorf("NRE: %w", err)
	}
	for _, h := range c.Hidden {
		if h < 1 {
			return fmt.Errorf("NRE: hidden widths %v, expected every width ≥ 1", c.Hidden)
		}
	}
	loss, err := c.Loss.parse()
	if err != nil {
		return err
	}
	switch {
	case loss == NREA && (c.Classes != 0 || c.Gamma != 0):
		return fmt.Errorf("NRE: Classes = %d and Gamma = %v with the NRE-A loss, which has neither: set Loss to %q or %q, or leave both 0", c.Classes, c.Gamma, NREB, NREC)
	case loss == NREB && c.Gamma != 0:
		return fmt.Errorf("NRE: Gamma = %v with the NRE-B loss, which has none: set Loss to %q or leave Gamma 0", c.Gamma, NREC)
	case loss == NREB && (c.Classes < 2 || c.Classes > maxNREClasses):
		return fmt.Errorf("NRE: Classes = %d with the NRE-B loss, expected 2…%d atoms (0 for sbi's 10)", c.Classes, maxNREClasses)
	case loss == NREC && (c.Classes < 1 || c.Classes > maxNREClasses):
		return fmt.Errorf("NRE: Classes = %d with the NRE-C loss, expected 1…%d (0 for sbi's 5)", c.Classes, maxNREClasses)
	case loss == NREC && (!(c.Gamma > 0) || math.IsInf(c.Gamma, 1)):
		return fmt.Errorf("NRE: Gamma = %v, expected a finite odds > 0 (0 for sbi's 1)", c.Gamma)
	}
	return c.Sampler.validate()
}

// maxNREClasses bounds NREConfig.Classes: the classifier is evaluated Classes (+1) times per
// pair of a batch.
const maxNREClasses = 1000

// pairsPerRow is the number of θ each observation of a batch is paired with: 2 for NRE-A (its
// own and its neighbour's), K for NRE-B, K + 1 for NRE-C.
func (c NREConfig) pairsPerRow() int {
	switch c.Loss {
	case NREB:
		return c.Classes
	case NREC:
		return c.Classes + 1
	}
	return 2
}

// label is the estimator's name in results and messages.
func (c NREConfig) label() string {
	switch c.Loss {
	case NREB:
		return fmt.Sprintf("NRE-B (K = %d)", c.Classes)
	case NREC:
		return fmt.Sprintf("NRE-C (K = %d, γ = %g)", c.Classes, c.Gamma)
	}
	return "NRE"
}

// NRE is neural ratio estimation: a classifier whose logit f(θ, x) estimates the log ratio
// log r(θ, x) = log p(x | θ)/p(x), so that log p̂(θ | x) = log p(θ) + f(θ, x). Config().Loss
// chooses what the classifier is trained to tell apart, in batches whose pairs (θᵢ, xᵢ) are
// drawn jointly; the other parameters paired with xᵢ are those of the next pairs in the
// shuffled batch, θ_{i+1}, θ_{i+2}, … (a uniform draw of distinct others, as sbi's draws
// without replacement):
//
//   - NRE-A (Hermans et al. 2020, AALR; Delaunoy et al. 2022, eq. 2), the default: joint pairs
//     (θᵢ, xᵢ) from marginal pairs (θ_{i−1}, xᵢ), by the binary cross-entropy
//     ½(mean −log σ(f_joint) + mean −log(1−σ(f_marginal))), the normalization of the BNRE
//     paper's Algorithm 1 and of Python's sbi. With calib.NewBalanceRegularizer(λ) it is BNRE.
//   - NRE-B (Durkan et al. 2020; sbi's default NRE): which of the K atoms θᵢ, θ_{i+1}, …,
//     θ_{i+K−1} generated xᵢ, by the cross-entropy −mean(f(θᵢ, xᵢ) − log Σₖ exp f(θ_{i+k}, xᵢ)).
//     Its optimum is log r + c(x) with an arbitrary c(x): the posterior p(θ)·exp f is right up
//     to its normalization for every x, but f is not a log ratio, and log-densities of two
//     observations are not comparable (no balancing, expected log density or conformal scores).
//   - NRE-C (Miller et al. 2022, contrastive): K + 1 classes — which of θᵢ, …, θ_{i+K−1}
//     generated xᵢ, or none of θ_{i+1}, …, θ_{i+K} — with odds γ of the joint classes to the
//     marginal one, q(k | Θ, x) = (γ/K) r̂ₖ / (1 + (γ/K) Σⱼ r̂ⱼ). The loss is sbi's,
//     −mean(p₀ log q(0 | Θ_marg, xᵢ) + p₁ log q(1 | Θ_joint, xᵢ)) with p₀ = 1/(1+γ) and
//     p₁ = γ/(1+γ). Its optimum is f = log r exactly (the marginal class fixes the constant
//     that NRE-B leaves free); K = 1, γ = 1 is NRE-A.
//
// Regularizers see the joint and marginal logits (RegBatch.JointLogits, MarginalLogits): for
// NRE-A f on the joint and the marginal pairs; for NRE-C the logits log (1/K) Σₖ r̂(θₖ, x) of
// the equal-odds classifier of sets, on the joint and the marginal sets, whose balance holds
// at the optimum (Delaunoy et al. 2023's balanced NRE-C; at γ = 1 this is lampe's BCNRELoss):
// so calib.NewBalanceRegularizer(λ) balances NRE-A and NRE-C. NRE-B has no such logits (its
// f is free by c(x)), and balancing refuses it.
//
// It implements Amortized; its log-densities are not normalized. PosteriorTrials serves
// observations of i.i.d. trials from an NRE trained on single trials, and Trials serves them to
// diagnostics.
type NRE struct {
	estimator
	cfg NREConfig
	net *nn.MLP
	// thetaRows and ctxRows are the batch's pairing, reused from batch to batch (training is
	// single-threaded): row j of the classifier's input pairs θ row thetaRows[j] of the
	// training data with conditioning row ctxRows[j] of the batch.
	thetaRows, ctxRows []int
}

// NewNRE returns an untrained NRE for the prior. Configuration errors are reported by Train.
func NewNRE(prior dist.Distribution, cfg NREConfig) *NRE {
	if prior == nil {
		panic("sbi: NewNRE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	cfg.Embedding = copyEmbedding(cfg.Embedding) // the caller's later changes must not reach the network
	cfg.Hidden = slices.Clone(cfg.Hidden)
	core := estimator{name: "NRE", label: cfg.label(), kind: "nre", prior: prior, cfgErr: cfg.validate(), dropNote: nreDropNote}
	return &NRE{estimator: core, cfg: cfg}
}

// Config returns the configuration with defaults filled in.
func (e *NRE) Config() NREConfig {
	c := e.cfg
	c.Embedding = copyEmbedding(c.Embedding) // changes to what it returns must not reach e
	c.Hidden = slices.Clone(c.Hidden)
	return c
}

// Train fits the classifier to the pairs (θᵢ, xᵢ), one per row, with the same rules as
// NPE.Train (standardization from the training split, early stopping, determinism for a seed,
// an interrupt keeps the best epoch). cfg.Regularizer sees the joint and marginal logits.
// Validation, when there is any, needs at least 2 pairs, since the classifier scores each
// pair against the θ of another: a ValidationFraction or ValTheta that leaves one is refused.
//
// Pairs holding NaN or ±Inf (failed simulations) are dropped and counted, with a warning above
// DropWarnFraction; cfg.RefuseNonFinite refuses them instead. Dropping biases a ratio
// estimator unless simulations fail independently of θ: the classifier learns
// r = p(x | θ, ok)/p(x | ok) on the kept pairs (ok: the simulation succeeded), and
// p(θ)·r = p(θ | x, ok)·P(ok)/P(ok | θ), so the posterior is tilted by 1/P(ok | θ) towards the
// parameters whose simulations fail more often. Where failures depend on θ, make the failure
// an outcome the simulator returns (a finite code) rather than dropping it.
func (e *NRE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.TrainContext(runenv.Context(), theta, x, cfg)
}

// TrainContext is Train stopped by ctx instead of the host's context, so that two trainings
// with two contexts are cancelled separately.
func (e *NRE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	if e.cfgErr == nil {
		if b, need := cfg.withDefaults().BatchSize, e.cfg.pairsPerRow(); b < need {
			return nil, fmt.Errorf("train %s: BatchSize = %d, expected at least %d: each observation is paired with %d parameters of its batch", e.label, b, need, need)
		}
	}
	return e.train(ctx, (*nreModel)(e), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it returns the result and panics with Train's error
// (an interrupted training keeps its best epoch before the panic).
func (e *NRE) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// nreDropNote is what dropping failed simulations does to NRE (see NRE.Train).
const nreDropNote = "a ratio estimator is then biased, by 1/P(success | θ), unless simulations fail independently of θ"

// nreModel is the training view of an NRE.
type nreModel NRE

// embedding implements network.
func (m *nreModel) embedding() Embedding { return m.cfg.Embedding }

// buildHead creates a fresh classifier of θ and ctx conditioning values.
func (m *nreModel) buildHead(rng *rand.Rand, ctx int) error {
	act, _ := m.cfg.Activation.parse()
	sizes := append(append([]int{m.prior.Dim() + ctx}, m.cfg.Hidden...), 1)
	m.net = nn.NewMLP(rng, sizes, act)
	prefix(m.net.Params(), "classifier.")
	return nil
}

// pairsWithinBatch implements pairedModel: every loss scores a pair against other pairs' θ.
func (m *nreModel) pairsWithinBatch() {}

func (m *nreModel) params() []*nn.Param { return m.withEmbedding(m.net.Params()) }

// batchLoss is the loss of Config().Loss on the pairs idx of d (see NRE).
func (m *nreModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	B := len(idx)
	ctx := m.batchContext(tp, d, idx)
	var loss, joint, marginal, pair *nn.Tensor
	switch m.cfg.Loss {
	case NREB:
		L := m.pairLogits(tp, d, idx, ctx, min(m.cfg.Classes, B)) // a short last batch has fewer atoms, as sbi clamps them
		loss, pair = atomicNRELoss(tp, L), tp.Columns(L, 0, 1)
	case NREC:
		L := m.pairLogits(tp, d, idx, ctx, min(m.cfg.Classes+1, B))
		loss, joint, marginal = contrastiveNRELoss(tp, L, m.cfg.Gamma)
		pair = tp.Columns(L, 0, 1)
	default:
		// Algorithm 1's L of Delaunoy et al. (2022): ½(mean softplus(−f_joint) +
		// mean softplus(f_marginal)), with marginal pair i = (θ_{i−1}, xᵢ) in batch order.
		rolled := m.thetaRows[:0]
		for k := range idx {
			rolled = append(rolled, idx[(k+B-1)%B])
		}
		m.thetaRows = rolled
		joint = m.net.Forward(tp, tp.Concat(tp.Gather(d.thetaZ, idx), ctx))
		marginal = m.net.Forward(tp, tp.Concat(tp.Gather(d.thetaZ, rolled), ctx))
		loss = tp.Scale(tp.Add(tp.Mean(tp.Softplus(tp.Neg(joint))), tp.Mean(tp.Softplus(marginal))), 0.5)
		pair = joint
	}
	if rb != nil {
		m.fillRegBatch(rb, d, idx)
		rb.JointLogits, rb.MarginalLogits = joint, marginal
		lpJ := m.prior.LogProb(rb.Theta)
		rb.PairLogPost = tp.Add(pair, tp.Const(len(lpJ), 1, lpJ))
		rb.LogPost = func(theta *mat.Dense, rows []int) *nn.Tensor {
			c := m.contextRows(tp, d, idx, ctx, rows)
			f := m.net.Forward(tp, tp.Concat(standardizedConst(tp, m.zt, theta), c))
			lp := m.prior.LogProb(theta)
			return tp.Add(f, tp.Const(len(lp), 1, lp))
		}
	}
	return loss
}

// pairLogits evaluates the classifier on each observation i of the batch idx paired with the
// parameters of pairs i, i+1, …, i+J−1 (indices modulo the batch), and returns the B×J logits:
// the paired parameters of an observation are a uniform draw of distinct others, since the
// batch is a random permutation, as sbi's draws without replacement.
// ctx holds the batch's conditioning rows.
func (m *nreModel) pairLogits(tp *nn.Tape, d *trainData, idx []int, ctx *nn.Tensor, J int) *nn.Tensor {
	B := len(idx)
	if cap(m.thetaRows) < B*J {
		m.thetaRows, m.ctxRows = make([]int, B*J), make([]int, B*J)
	}
	th, cr := m.thetaRows[:B*J], m.ctxRows[:B*J]
	for i := range B {
		for k := range J {
			th[i*J+k], cr[i*J+k] = idx[(i+k)%B], i
		}
	}
	f := m.net.Forward(tp, tp.Concat(tp.Gather(d.thetaZ, th), tp.GatherRows(ctx, cr)))
	return tp.Reshape(f, B, J)
}

// atomicNRELoss is NRE-B's loss (Durkan et al. 2020, eq. 7; sbi's NRE_B) on the B×K logits L
// whose column 0 holds the joint pairs: mean over rows of log Σₖ exp L_ik − L_i0.
func atomicNRELoss(tp *nn.Tape, L *nn.Tensor) *nn.Tensor {
	return tp.Mean(tp.Sub(tp.LogSumExp(L), tp.Columns(L, 0, 1)))
}

// contrastiveNRELoss is NRE-C's loss (Miller et al. 2022, eq. 9; sbi's NRE_C) on the
// B×(K+1) logits L, L_ik = f(θ_{i+k}, xᵢ): the joint set of row i is columns 0…K−1 (θᵢ first),
// the marginal set columns 1…K. With a = log Σ_{k<K} exp L_ik + log(γ/K) and
// b = log Σ_{k≥1} exp L_ik + log(γ/K), the classes' log-probabilities are
//
//	log q(0 | Θ_marg, x) = −softplus(b),   log q(1 | Θ_joint, x) = L_i0 + log(γ/K) − softplus(a),
//
// and the loss is −mean(p₀ log q(0 | ·) + p₁ log q(1 | ·)) with p₀ = 1/(1+γ), p₁ = γ/(1+γ). It
// also returns the equal-odds set logits a − log γ and b − log γ (B×1) for the balancing
// regularizer.
func contrastiveNRELoss(tp *nn.Tape, L *nn.Tensor, gamma float64) (loss, joint, marginal *nn.Tensor) {
	K := L.Cols - 1
	joint = tp.AddScalar(tp.LogSumExp(tp.Columns(L, 0, K)), -math.Log(float64(K)))
	marginal = tp.AddScalar(tp.LogSumExp(tp.Columns(L, 1, K+1)), -math.Log(float64(K)))
	lg := mathx.Log(gamma)
	p0, p1 := 1/(1+gamma), gamma/(1+gamma)
	negLogQ0 := tp.Softplus(tp.AddScalar(marginal, lg))
	negLogQ1 := tp.Sub(tp.Softplus(tp.AddScalar(joint, lg)), tp.Columns(L, 0, 1))
	loss = tp.AddScalar(tp.Add(tp.Scale(tp.Mean(negLogQ0), p0), tp.Scale(tp.Mean(negLogQ1), p1)), -p1*(lg-math.Log(float64(K))))
	return loss, joint, marginal
}

// LogRatio returns the classifier's logit f(θᵢ, xᵢ) for every row pair, in parallel: the
// estimate of log r(θᵢ, xᵢ) = log p(xᵢ | θᵢ)/p(xᵢ) for NRE-A and NRE-C, and of
// log r(θᵢ, xᵢ) + c(xᵢ), with a constant c(x) the loss leaves free, for NRE-B; NaN where xᵢ
// holds NaN or ±Inf (a saturating activation would give a finite logit there) or is not an
// observation the embedding's InputLayout can read.
func (e *NRE) LogRatio(theta, x *mat.Dense) []float64 {
	return e.logRatio("LogRatio", true, theta, x)
}

// logRatio is LogRatio for the public method named method, which its panics and its warning
// about unseen numbers of trials name; with warn false it leaves that warning to the caller
// (an ensemble, which warns once for its members).
func (e *NRE) logRatio(method string, warn bool, theta, x *mat.Dense) []float64 {
	e.mustTrained(method)
	n := checkEvalPairs("NRE."+method, theta, x, e.prior.Dim(), e.xDim)
	if warn {
		e.warnUnseenTrials(e.label+" "+method, x)
	}
	out := make([]float64, n)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		th := standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, e.prior.Dim()).(*mat.Dense))
		f := e.net.Forward(tp, tp.Concat(th, e.context(tp, x.Slice(lo, hi, 0, e.xDim).(*mat.Dense))))
		copy(out[lo:hi], f.Data)
		for i := lo; i < hi; i++ {
			if !e.readableX(x.RawRowView(i)) {
				out[i] = math.NaN()
			}
		}
	})
	return out
}

// LogProbPairs returns log p(θᵢ) + log r̂(θᵢ, xᵢ) for every row pair (an unnormalized posterior
// log-density, −Inf outside the prior's support and where xᵢ holds NaN or ±Inf or is not an
// observation the embedding's InputLayout can read), in parallel. For NRE-A and NRE-C it
// estimates log p(θᵢ | xᵢ) itself (their optimum is normalized); for NRE-B it is off by
// c(xᵢ), so compare its values only between pairs of one observation.
func (e *NRE) LogProbPairs(theta, x *mat.Dense) []float64 {
	lr := e.logRatio("LogProbPairs", true, theta, x)
	lp := e.prior.LogProb(theta)
	for i := range lr {
		lr[i] = cleanLogProb(lp[i]+lr[i], e.prior, theta.RawRowView(i))
		if !e.readableX(x.RawRowView(i)) {
			lr[i] = math.Inf(-1)
		}
	}
	return lr
}

// ratioAt returns the function θ ↦ log r̂(θ, x) for one observation, its context computed once.
// With warn false it leaves the warnings about the observation (far outside the training
// simulations, or a number of trials outside those of training) to the caller (an ensemble,
// which warns once for its members).
func (e *NRE) ratioAt(x []float64, warn bool) (func(theta *mat.Dense) []float64, error) {
	if !e.trained {
		return nil, ErrUntrained
	}
	if len(x) != e.xDim {
		hint := ""
		if e.layout == nil {
			hint = trialsHint("NRE", len(x), e.xDim)
		}
		panic(fmt.Sprintf("sbi: NRE.Posterior: x has %d values, expected %s%s", len(x), e.expectedX(), hint))
	}
	if err := e.observationErr(x); err != nil {
		return nil, err
	}
	if warn {
		e.warnIfOutside(x)
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	ctx := append([]float64(nil), e.context(tp, mat.NewDense(1, len(x), append([]float64(nil), x...))).Data...)
	D := e.prior.Dim()
	return func(theta *mat.Dense) []float64 {
		n, c := theta.Dims()
		if c != D {
			panic(fmt.Sprintf("sbi: NRE posterior: theta has %d columns, expected %d", c, D))
		}
		out := make([]float64, n)
		parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
			tp := getTape()
			defer putTape(tp)
			th := standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, D).(*mat.Dense))
			f := e.net.Forward(tp, tp.Concat(th, tp.RepeatRows(tp.Const(1, len(ctx), ctx), hi-lo)))
			copy(out[lo:hi], f.Data)
		})
		return out
	}, nil
}

// Posterior returns p̂(θ | x) ∝ p(θ)·r̂(θ, x), sampled as Config().Sampler says. It panics when
// x has the wrong length.
func (e *NRE) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the sampling method and
// the effective sample size of importance sampling.
func (e *NRE) PosteriorAt(x []float64) *RatioPosterior { return e.PosteriorWith(x, e.cfg.Sampler) }

// PosteriorWith is PosteriorAt with a given sampler configuration.
func (e *NRE) PosteriorWith(x []float64, cfg SamplerConfig) *RatioPosterior {
	lr, err := e.ratioAt(x, true)
	return newRatioPosterior(e.label, x, e.prior, lr, err, cfg)
}
