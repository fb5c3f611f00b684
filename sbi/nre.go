package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// NREConfig describes the classifier of neural ratio estimation. Zero fields take defaults:
// two hidden layers of 50 units (the width of sbi's classifier) with ReLU.
type NREConfig struct {
	Hidden     []int         // hidden widths of the classifier MLP; nil means {50, 50}
	Activation Activation    // "relu" (default), "elu", "tanh", …
	Embedding  Embedding     // optional network applied to x before the classifier
	Sampler    SamplerConfig // how Posterior samples (the zero value picks automatically)
}

func (c NREConfig) withDefaults() NREConfig {
	if c.Hidden == nil {
		c.Hidden = []int{50, 50}
	}
	if c.Activation == "" {
		c.Activation = ReLU
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
	return c.Sampler.validate()
}

// NRE is neural ratio estimation (Hermans et al. 2020, AALR; Delaunoy et al. 2022, eq. 2): a
// classifier d̂ = σ(f(θ, x)) trained with binary cross-entropy to tell joint pairs (θᵢ, xᵢ) from
// marginal pairs (θ_{i−1}, xᵢ), formed by rolling θ within the shuffled batch, so that
// f = log r̂(θ, x) ≈ log p(x | θ)/p(x) and log p̂(θ | x) = log p(θ) + log r̂(θ, x). The loss is
// ½(mean −log σ(f_joint) + mean −log(1−σ(f_marginal))), the normalization of the BNRE paper's
// Algorithm 1 and of Python's sbi. With calib.NewBalanceRegularizer(λ) as regularizer it is BNRE.
// It implements Amortized; its log-densities are not normalized.
type NRE struct {
	estimator
	cfg     NREConfig
	net     *nn.MLP
	rollBuf []int // marginal-pair indices of the current batch (training is single-threaded)
}

// NewNRE returns an untrained NRE for the prior. Configuration errors are reported by Train.
func NewNRE(prior dist.Distribution, cfg NREConfig) *NRE {
	if prior == nil {
		panic("sbi: NewNRE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	core := estimator{name: "NRE", label: "NRE", kind: "nre", prior: prior, cfgErr: cfg.validate(), dropNote: nreDropNote}
	return &NRE{estimator: core, cfg: cfg}
}

// Config returns the configuration with defaults filled in.
func (e *NRE) Config() NREConfig { return e.cfg }

// Prior returns the prior.
func (e *NRE) Prior() dist.Distribution { return e.prior }

// Trained reports whether Train has succeeded at least once.
func (e *NRE) Trained() bool { return e.trained }

// Train fits the classifier to the pairs (θᵢ, xᵢ), one per row, with the same rules as
// NPE.Train (standardization from the training split, early stopping, determinism for a seed,
// an interrupt keeps the best epoch). cfg.Regularizer sees the joint and marginal logits.
//
// Pairs holding NaN or ±Inf (failed simulations) are dropped and counted, with a warning above
// DropWarnFraction; cfg.RefuseNonFinite refuses them instead. Dropping biases a ratio
// estimator unless simulations fail independently of θ: the classifier learns
// r = p(x | θ, ok)/p(x | ok) on the kept pairs (ok: the simulation succeeded), and
// p(θ)·r = p(θ | x, ok)·P(ok)/P(ok | θ), so the posterior is tilted by 1/P(ok | θ) towards the
// parameters whose simulations fail more often. Where failures depend on θ, make the failure
// an outcome the simulator returns (a finite code) rather than dropping it.
func (e *NRE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.train(runenv.Context(), (*nreModel)(e), theta, x, cfg)
}

// TrainContext is Train stopped by ctx instead of the host's context, so that two trainings
// with two contexts are cancelled separately.
func (e *NRE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
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

func (m *nreModel) params() []*nn.Param { return m.withEmbedding(m.net.Params()) }

// batchLoss is Algorithm 1's L of Delaunoy et al. (2022): ½(mean softplus(−f_joint) +
// mean softplus(f_marginal)), with marginal pair i = (θ_{i−1}, xᵢ) in batch order.
func (m *nreModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	B := len(idx)
	if cap(m.rollBuf) < B {
		m.rollBuf = make([]int, B)
	}
	rolled := m.rollBuf[:B]
	for k := range idx {
		rolled[k] = idx[(k+B-1)%B]
	}
	ctx := m.batchContext(tp, d, idx)
	fJ := m.net.Forward(tp, tp.Concat(tp.Gather(d.thetaZ, idx), ctx))
	fM := m.net.Forward(tp, tp.Concat(tp.Gather(d.thetaZ, rolled), ctx))
	loss := tp.Scale(tp.Add(tp.Mean(tp.Softplus(tp.Neg(fJ))), tp.Mean(tp.Softplus(fM))), 0.5)
	if rb != nil {
		m.fillRegBatch(rb, d, idx)
		rb.JointLogits, rb.MarginalLogits = fJ, fM
		lpJ := m.prior.LogProb(rb.Theta)
		rb.PairLogPost = tp.Add(fJ, tp.Const(len(lpJ), 1, lpJ))
		rb.LogPost = func(theta *mat.Dense, rows []int) *nn.Tensor {
			c := m.contextRows(tp, d, idx, ctx, rows)
			f := m.net.Forward(tp, tp.Concat(standardizedConst(tp, m.zt, theta), c))
			lp := m.prior.LogProb(theta)
			return tp.Add(f, tp.Const(len(lp), 1, lp))
		}
	}
	return loss
}

// LogRatio returns log r̂(θᵢ, xᵢ) = log p̂(xᵢ | θᵢ)/p(xᵢ) for every row pair, in parallel;
// NaN where xᵢ is finite but not an observation the embedding's InputLayout can read.
func (e *NRE) LogRatio(theta, x *mat.Dense) []float64 {
	e.mustTrained("LogRatio")
	n := checkEvalPairs("NRE.LogRatio", theta, x, e.prior.Dim(), e.xDim)
	out := make([]float64, n)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		th := standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, e.prior.Dim()).(*mat.Dense))
		f := e.net.Forward(tp, tp.Concat(th, e.context(tp, x.Slice(lo, hi, 0, e.xDim).(*mat.Dense))))
		copy(out[lo:hi], f.Data)
		if e.layout != nil {
			for i := lo; i < hi; i++ {
				if row := x.RawRowView(i); finite(row) && !e.readableX(row) {
					out[i] = math.NaN()
				}
			}
		}
	})
	return out
}

// LogProbPairs returns log p(θᵢ) + log r̂(θᵢ, xᵢ) for every row pair (an unnormalized posterior
// log-density, −Inf outside the prior's support and where xᵢ holds NaN or ±Inf or is not an
// observation the embedding's InputLayout can read), in parallel.
func (e *NRE) LogProbPairs(theta, x *mat.Dense) []float64 {
	lr := e.LogRatio(theta, x)
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
func (e *NRE) ratioAt(x []float64) (func(theta *mat.Dense) []float64, error) {
	if !e.trained {
		return nil, ErrUntrained
	}
	if len(x) != e.xDim {
		panic(fmt.Sprintf("sbi: NRE.Posterior: x has %d values, expected %d", len(x), e.xDim))
	}
	if err := e.observationErr(x); err != nil {
		return nil, err
	}
	e.warnIfOutside(x)
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
	lr, err := e.ratioAt(x)
	return newRatioPosterior(e.label, x, e.prior, lr, err, cfg)
}
