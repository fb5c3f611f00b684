package sbi

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// NLEConfig describes the conditional flow of neural likelihood estimation and how its
// posterior is sampled. Zero fields take the defaults of Python's sbi (likelihood_nn): a MAF of
// 5 transforms, each a MADE with two hidden layers of 50 units, and 10 bins for NSF.
type NLEConfig struct {
	Flow       flow.Kind     // "maf" (affine, the default) or "nsf" (rational-quadratic splines)
	Transforms int           // autoregressive transforms; 0 means 5
	Hidden     int           // units per hidden layer of each MADE; 0 means 50
	Layers     int           // hidden layers of each MADE; 0 means 2
	Bins       int           // spline bins (NSF); 0 means 10
	Activation Activation    // MADE activation; "" means tanh for MAF, relu for NSF; not Identity
	Sampler    SamplerConfig // how Posterior samples (the zero value picks automatically)
	// Embedding, optional, is a network applied to the standardized θ before it conditions
	// the flow, trained with it (sbi's embedding_net of likelihood_nn). θ is a flat vector,
	// so the embedding must take one, as MLPEmbedding does; embeddings that read x as a
	// series, an image or a set (those with an InputLayout: CNN1DEmbedding, DeepSetEmbedding,
	// …) are refused.
	Embedding Embedding
}

func (c NLEConfig) withDefaults() NLEConfig {
	f := c.flowSettings().withDefaults()
	c.Flow, c.Transforms, c.Hidden, c.Layers, c.Bins = f.Flow, f.Transforms, f.Hidden, f.Layers, f.Bins
	return c
}

// flowSettings returns the flow's fields in an NPEConfig, which knows how to translate them.
func (c NLEConfig) flowSettings() NPEConfig {
	return NPEConfig{Flow: c.Flow, Transforms: c.Transforms, Hidden: c.Hidden, Layers: c.Layers, Bins: c.Bins, Activation: c.Activation}
}

// flowConfig is the flow of x (features values) given θ (context values).
func (c NLEConfig) flowConfig(features, context int) (flow.Config, error) {
	return c.flowSettings().flowConfigFor("NLE", features, context)
}

// NLE is neural likelihood estimation (Papamakarios, Sterratt & Murray 2019, single round; sbi's
// NLE_A): a conditional normalizing flow q(x | θ) trained by maximum likelihood on simulated
// pairs, −E[log q(x | θ)], with x and θ standardized by statistics of the training data. The
// posterior p̂(θ | x) ∝ p(θ)·q(x | θ) is sampled as a ratio estimator's is (SamplerConfig: an
// exact grid, slice MCMC over many chains, or importance resampling from the prior), and since
// the likelihood of independent trials is the product of theirs, PosteriorTrials serves any
// number of i.i.d. trials from an estimator trained on single trials (Trials serves them to
// diagnostics). It implements Amortized; its posterior log-densities are unnormalized (they
// lack −log p(x)).
type NLE struct {
	estimator
	cfg  NLEConfig
	fl   *flow.Flow
	temb EmbeddingNet // the embedding of θ (cfg.Embedding), nil for none
}

// NewNLE returns an untrained NLE for the prior. Configuration errors are reported by Train.
func NewNLE(prior dist.Distribution, cfg NLEConfig) *NLE {
	if prior == nil {
		panic("sbi: NewNLE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	cfg.Embedding = copyEmbedding(cfg.Embedding) // the caller's later changes must not reach the network
	_, err := cfg.flowConfig(1, prior.Dim())
	if err == nil {
		err = cfg.Sampler.validate()
	}
	if err == nil {
		err = checkThetaEmbedding(cfg.Embedding, prior.Dim())
	}
	core := estimator{name: "NLE", label: "NLE (" + string(cfg.Flow) + ")", kind: "nle", prior: prior, cfgErr: err}
	return &NLE{estimator: core, cfg: cfg}
}

// Config returns the configuration with defaults filled in.
func (e *NLE) Config() NLEConfig {
	c := e.cfg
	c.Embedding = copyEmbedding(c.Embedding) // changes to what it returns must not reach e
	return c
}

// Train fits the flow q(x | θ) to the pairs (θᵢ, xᵢ), one per row, with the rules of NPE.Train:
// pairs holding NaN or ±Inf are dropped and counted, the standardization of θ and x is learned
// from the training split, the weights of the epoch with the best validation loss are kept,
// and the same seed gives the same estimator. Dropping failed simulations biases a likelihood
// estimator towards the parameters whose simulations succeed, unless failures are independent
// of θ. cfg.Regularizer sees LogPost = log p(θ) + log q(x | θ), the unnormalized posterior:
// calib's coverage and KCCSD regularizers apply; balancing needs a classifier and refuses.
// A column of x that holds one value in every training pair is, to the flow, a point mass:
// the result warns, since an observation with another value there has a likelihood near zero
// for every θ (MNLE's continuous columns likewise).
func (e *NLE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.train(runenv.Context(), (*nleModel)(e), theta, x, cfg)
}

// TrainContext is Train stopped by ctx instead of the host's context.
func (e *NLE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.train(ctx, (*nleModel)(e), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it returns the result and panics with Train's error
// (an interrupted training keeps its best epoch before the panic).
func (e *NLE) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// nleModel is the training view of an NLE.
type nleModel NLE

// embedding implements network: the flow models x itself, so nothing embeds it.
func (m *nleModel) embedding() Embedding { return nil }

// thetaEmbedding implements thetaEmbedder: the file stores the embedding of θ.
func (m *nleModel) thetaEmbedding() Embedding { return m.cfg.Embedding }

// checkThetaEmbedding refuses an embedding that cannot take θ, a flat vector of dim values.
func checkThetaEmbedding(e Embedding, dim int) error {
	if e == nil {
		return nil
	}
	if layoutOf(e) != nil {
		return fmt.Errorf("NLE: Embedding %T reads a structured observation (a series, an image or a set: it has an InputLayout), but NLE embeds θ, a flat vector of %d parameters: use an MLPEmbedding, or no embedding", e, dim)
	}
	if se, ok := e.(SavableEmbedding); ok {
		if _, _, err := se.Size(dim); err != nil {
			return fmt.Errorf("NLE: Embedding %T cannot take θ of %d parameters: %w", e, dim, err)
		}
	}
	return nil
}

// buildHead creates a fresh embedding of θ (when configured), then a flow of xDim values (ctx,
// as the core counts them) conditioned on the embedded θ.
func (m *nleModel) buildHead(rng *rand.Rand, xDim int) error {
	ctx := m.prior.Dim()
	m.temb = nil
	if m.cfg.Embedding != nil {
		emb, err := m.cfg.Embedding.Build(rng, ctx)
		if err != nil {
			return fmt.Errorf("NLE: embedding of θ: %w", err)
		}
		if err := checkEmbeddingNet(m.cfg.Embedding, emb, make([]float64, ctx)); err != nil { // θ at its training mean
			return fmt.Errorf("NLE: embedding of θ: %w", err)
		}
		m.temb, ctx = emb, emb.Out()
	}
	fc, err := m.cfg.flowConfig(xDim, ctx)
	if err != nil {
		return err
	}
	if m.fl, err = flow.New(rng, fc); err != nil {
		return fmt.Errorf("NLE: %w", err)
	}
	return nil
}

// modeledX implements xDensity: the flow models every column of x.
func (m *nleModel) modeledX(xDim int) int { return xDim }

// params returns the flow's weights, then the embedding's.
func (m *nleModel) params() []*nn.Param {
	ps := m.fl.Params()
	if m.temb != nil {
		ps = append(append([]*nn.Param(nil), ps...), m.temb.Params()...)
	}
	return ps
}

// thetaContext returns the flow's conditioning rows for the standardized θ on tp: θ itself,
// or its embedding.
func (e *NLE) thetaContext(tp *nn.Tape, thetaZ *nn.Tensor) *nn.Tensor {
	if e.temb == nil {
		return thetaZ
	}
	return e.temb.Forward(tp, thetaZ)
}

// batchLoss is −mean log q(x | θ) in raw units: the flow's log-density of standardized x given
// standardized θ, minus log|det| of the standardization of x, Σ log σ_x.
func (m *nleModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	e := (*NLE)(m)
	lp := m.fl.LogProb(tp, tp.Gather(d.xZ, idx), e.thetaContext(tp, tp.Gather(d.thetaZ, idx)))
	logJac := m.zx.logJacobian()
	if rb != nil {
		m.fillRegBatch(rb, d, idx)
		lpJ := m.prior.LogProb(rb.Theta)
		rb.PairLogPost = tp.Add(tp.AddScalar(lp, -logJac), tp.Const(len(lpJ), 1, lpJ))
		rb.LogPost = func(theta *mat.Dense, rows []int) *nn.Tensor {
			xr := make([]int, len(rows))
			for j, r := range rows {
				if r < 0 || r >= len(idx) {
					panic(fmt.Sprintf("sbi: LogPost: row index %d outside the batch of %d pairs", r, len(idx)))
				}
				xr[j] = idx[r]
			}
			ll := m.fl.LogProb(tp, tp.Gather(d.xZ, xr), e.thetaContext(tp, standardizedConst(tp, m.zt, theta)))
			lp := m.prior.LogProb(theta)
			return tp.Add(tp.AddScalar(ll, -logJac), tp.Const(len(lp), 1, lp))
		}
	}
	return tp.AddScalar(tp.Neg(tp.Mean(lp)), logJac)
}

// LogLikelihood returns log q(xᵢ | θᵢ) for every row pair, in raw units of x, −Inf where xᵢ
// holds NaN or ±Inf; evaluated in parallel on all cores. On CPUs with AVX-512 the flow's MADEs
// multiply in float32, as for NPE.LogProbPairs. It panics when the NLE is untrained or the
// shapes do not match.
func (e *NLE) LogLikelihood(theta, x *mat.Dense) []float64 {
	e.mustTrained("LogLikelihood")
	n := checkEvalPairs("NLE.LogLikelihood", theta, x, e.prior.Dim(), e.xDim)
	out := make([]float64, n)
	logJac := e.zx.logJacobian()
	D := e.prior.Dim()
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		xs := standardizedConst(tp, e.zx, x.Slice(lo, hi, 0, e.xDim).(*mat.Dense))
		th := e.thetaContext(tp, standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, D).(*mat.Dense)))
		lp := e.fl.Eval(evalFloat32).LogProb(tp, xs, th)
		for i, v := range lp.Data {
			out[lo+i] = cleanLogLik(v-logJac, x.RawRowView(lo+i))
		}
	})
	return out
}

// evalFloat32 evaluates the likelihood estimators' flows as NPE evaluates its flow: the MADEs'
// products in float32 where the CPU has the float32 kernel, the same for a pair whichever
// call or batch computes it.
var evalFloat32 = flow.EvalConfig{Float32: true}

// cleanLogLik maps NaN, and any value for an observation that is not finite, to −Inf.
func cleanLogLik(v float64, x []float64) float64 {
	if math.IsNaN(v) || !finite(x) {
		return math.Inf(-1)
	}
	return v
}

// LogProbPairs returns log p(θᵢ) + log q(xᵢ | θᵢ) for every row pair: the unnormalized
// posterior log-density, as Posterior(xᵢ).LogProb gives it, −Inf outside the prior's support
// and where xᵢ holds NaN or ±Inf; evaluated in parallel.
func (e *NLE) LogProbPairs(theta, x *mat.Dense) []float64 {
	ll := e.LogLikelihood(theta, x)
	lp := e.prior.LogProb(theta)
	for i := range ll {
		ll[i] = cleanLogProb(lp[i]+ll[i], e.prior, theta.RawRowView(i))
	}
	return ll
}

// Posterior returns p̂(θ | x) ∝ p(θ)·q(x | θ), sampled as Config().Sampler says. It panics when
// x has the wrong length.
func (e *NLE) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the sampling method and
// the effective sample size of importance sampling.
func (e *NLE) PosteriorAt(x []float64) *RatioPosterior { return e.PosteriorWith(x, e.cfg.Sampler) }

// PosteriorWith is PosteriorAt with a given sampler configuration.
func (e *NLE) PosteriorWith(x []float64, s SamplerConfig) *RatioPosterior {
	if !e.trained {
		return newRatioPosterior(e.label, x, e.prior, nil, ErrUntrained, s)
	}
	if len(x) != e.xDim {
		panic(fmt.Sprintf("sbi: NLE.Posterior: x has %d values, expected %d%s", len(x), e.xDim, trialsHint("NLE", len(x), e.xDim)))
	}
	e.warnIfOutside(x)
	ll, err := e.likelihoodAt(mat.NewDense(1, len(x), append([]float64(nil), x...)))
	return newRatioPosterior(e.label, x, e.prior, ll, err, s)
}

// likelihoodAt returns θ ↦ Σₜ log q(xₜ | θ) over the trials xₜ, the rows of xs (their
// standardization computed once), or the reason the posterior cannot be evaluated.
func (e *NLE) likelihoodAt(xs *mat.Dense) (func(theta *mat.Dense) []float64, error) {
	if !e.trained {
		return nil, ErrUntrained
	}
	if err := checkFiniteTrials(xs); err != nil {
		return nil, err
	}
	T, _ := xs.Dims()
	xz := e.zx.apply(xs)
	logJac := e.zx.logJacobian()
	D := e.prior.Dim()
	return func(theta *mat.Dense) []float64 {
		n, c := theta.Dims()
		if c != D {
			panic(fmt.Sprintf("sbi: NLE posterior: theta has %d columns, expected %d", c, D))
		}
		return sumOverTrials(n, T, func(tp *nn.Tape, lo, hi int) []float64 {
			th := e.thetaContext(tp, standardizedConst(tp, e.zt, theta.Slice(lo, hi, 0, D).(*mat.Dense)))
			lp := e.fl.Eval(evalFloat32).LogProb(tp, tiledRows(tp, xz, hi-lo), tp.RepeatRows(th, T))
			for i := range lp.Data {
				lp.Data[i] -= logJac
			}
			return lp.Data
		})
	}, nil
}

// nleModel implements fileNetwork.
func (e *NLE) fileNetwork() fileNetwork { return (*nleModel)(e) }

func (e *NLE) fileConfig() any { return e.cfg }

// headWeights counts the weights of the embedding of θ (a SavableEmbedding, as every one a
// file holds) and of the flow of xDim values given the embedded θ.
func (m *nleModel) headWeights(xDim int) (int, error) {
	ctx, embW := m.prior.Dim(), 0
	if m.cfg.Embedding != nil {
		se, ok := m.cfg.Embedding.(SavableEmbedding)
		if !ok {
			return 0, fmt.Errorf("NLE: the embedding %T cannot be counted before it is built (not a SavableEmbedding)", m.cfg.Embedding)
		}
		out, w, err := se.Size(ctx)
		if err != nil {
			return 0, fmt.Errorf("NLE: embedding of θ: %w", err)
		}
		if out < 1 {
			return 0, fmt.Errorf("NLE: an embedding of θ with %d outputs", out)
		}
		ctx, embW = out, w
	}
	fc, err := m.cfg.flowConfig(xDim, ctx)
	if err != nil {
		return 0, err
	}
	w, err := flowWeights("NLE", fc)
	return satAdd(w, embW), err
}

// flowWeights counts the weights of the MADEs of a flow: per transform, layers of widths
// features + context → Hidden… → features · parameters per feature.
func flowWeights(name string, fc flow.Config) (int, error) {
	per := transform.AffineParams
	if fc.Kind == flow.NSF {
		if fc.Bins < 1 || fc.Bins > transform.MaxBins {
			return 0, fmt.Errorf("%s: Bins = %d, expected 1…%d", name, fc.Bins, transform.MaxBins)
		}
		per = transform.SplineParams(fc.Bins)
	}
	sizes := append(append([]int{satAdd(fc.Features, fc.Context)}, fc.Hidden...), satMul(fc.Features, per))
	w, err := mlpWeights(sizes)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return satMul(w, fc.Transforms), nil
}

func init() {
	registerEstimator(estimatorKind{kind: "nle", loader: "LoadNLE",
		decode: func(prior dist.Distribution, config []byte, emb Embedding) (savable, error) {
			var cfg NLEConfig
			if err := decodeStrict(config, &cfg); err != nil {
				return nil, fmt.Errorf("NLE: %w", err)
			}
			cfg.Embedding = emb // of θ
			if cfg.Layers > maxFileLayers {
				return nil, fmt.Errorf("NLE: Layers = %d, expected at most %d in a file", cfg.Layers, maxFileLayers)
			}
			if err := checkFileSampler(cfg.Sampler, prior.Dim()); err != nil {
				return nil, err
			}
			return NewNLE(prior, cfg), nil
		}})
}

// Save writes the trained NLE (configuration, embedding of θ, prior, standardization and
// weights) to w in the format EstimatorFormatVersion describes, as NPE.Save does.
func (e *NLE) Save(w io.Writer) error { return saveEstimator(w, e) }

// SaveFile writes the NLE to the file at path (see Save), atomically like NPE.SaveFile.
func (e *NLE) SaveFile(path string) error { return saveFile(path, e.Save) }

// LoadNLE reads an NLE written by Save, with the rules of LoadNPE for the prior.
func LoadNLE(r io.Reader, prior dist.Distribution) (*NLE, error) {
	e, err := loadEstimator(r, prior, "nle")
	if err != nil {
		return nil, err
	}
	return e.(*NLE), nil
}

// LoadNLEFile reads an NLE from the file at path (see LoadNLE).
func LoadNLEFile(path string, prior dist.Distribution) (*NLE, error) {
	var e *NLE
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadNLE(r, prior); return err })
	return e, err
}
