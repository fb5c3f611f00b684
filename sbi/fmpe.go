package sbi

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// FMPEConfig describes the vector field of flow-matching posterior estimation. Zero fields
// take the defaults of Python's sbi (FMPE with its "mlp" field: five hidden layers of 64 units
// with ELU, a time embedding of 3 frequencies, σ_min = 10⁻³, times uniform on [0, 1], and the
// ODE tolerances with which it integrates the field, RelTol 10⁻⁵ and AbsTol 10⁻⁶).
type FMPEConfig struct {
	Hidden      int        // units per hidden layer of the field's MLP; 0 means 64
	Layers      int        // hidden layers; 0 means 5
	Activation  Activation // hidden-layer activation; "" means elu; not Identity
	Frequencies int        // frequencies of the time embedding (cos kπt, sin kπt); 0 means 3
	// SigmaMin is σ_min of the optimal-transport path, in units of the standardized θ; 0
	// means 10⁻³.
	SigmaMin float64
	// TimeExponent is α of the time prior p(t) = (1+α)·t^α of Dax et al. (2023), which puts
	// more of the training on the times near the posterior; 0 (uniform, sbi's and lampe's)
	// is the default.
	TimeExponent float64
	// RelTol and AbsTol are the tolerances of the adaptive ODE solver of sampling and
	// log-densities, per component of the standardized θ; 0 means 10⁻⁵ and 10⁻⁶. Each must
	// lie in [flow.MinTolerance, 1) (10⁻¹⁴: finer is below float64's rounding). The solver
	// takes at most 10,000 steps per draw or log-density (flow.FieldConfig's MaxSteps): a
	// solve that needs more fails with an error saying so.
	RelTol, AbsTol float64
	Embedding      Embedding // optional network applied to x before it conditions the field
}

func (c FMPEConfig) withDefaults() FMPEConfig {
	if c.Hidden == 0 {
		c.Hidden = 64
	}
	if c.Layers == 0 {
		c.Layers = 5
	}
	if c.Activation == "" {
		c.Activation = ELU
	}
	if c.Frequencies == 0 {
		c.Frequencies = 3
	}
	if c.SigmaMin == 0 {
		c.SigmaMin = 1e-3
	}
	if c.RelTol == 0 {
		c.RelTol = 1e-5
	}
	if c.AbsTol == 0 {
		c.AbsTol = 1e-6
	}
	return c
}

// fieldConfig translates the configuration for package flow and checks it.
func (c FMPEConfig) fieldConfig(features, context int) (flow.FieldConfig, error) {
	fc := flow.FieldConfig{Features: features, Context: context, Frequencies: c.Frequencies, SigmaMin: c.SigmaMin,
		TimeExponent: c.TimeExponent, RelTol: c.RelTol, AbsTol: c.AbsTol}
	if c.Hidden < 1 || c.Layers < 1 {
		return fc, fmt.Errorf("FMPE: Hidden = %d, Layers = %d, expected each ≥ 1", c.Hidden, c.Layers)
	}
	act, err := c.Activation.parse()
	if err != nil {
		return fc, fmt.Errorf("FMPE: %w", err)
	}
	if act == nn.Identity { // flow.FieldConfig reads Identity as "the default"
		return fc, fmt.Errorf("FMPE: Activation %q: the field needs a nonlinearity, use another activation or \"\" for the default", c.Activation)
	}
	fc.Activation = act
	for i := 0; i < c.Layers; i++ {
		fc.Hidden = append(fc.Hidden, c.Hidden)
	}
	if err := fc.Validate(); err != nil {
		return fc, fmt.Errorf("FMPE: %w", err)
	}
	return fc, nil
}

// FMPE is flow-matching posterior estimation (Wildberger, Dax et al. 2023, "Flow matching for
// scalable simulation-based inference"; Lipman et al. 2023): a vector field v(θ_t, t, x) whose
// ODE carries a standard normal at t = 0 to q(θ | x) at t = 1 (a continuous normalizing
// flow, flow.Field), trained by regressing v on the velocity of the conditional
// optimal-transport path from a normal draw to each simulated θ — a least-squares loss, with no
// ODE solved in training. Sampling integrates the ODE, and log-densities integrate its exact
// divergence along the way back (see flow.Field). θ and x are standardized with statistics of
// the training data, as for NPE. It implements Estimator.
type FMPE struct {
	estimator
	cfg   FMPEConfig
	field *flow.Field
	// The draws of t and ε in training: noise is the stream of the training steps (seeded by
	// Train); validation pairs draw from valSrc seeded by (valSeed, pair), the same draws at
	// every epoch, so that validation losses differ by the weights only.
	noise   *rand.Rand
	valSrc  *rand.PCG
	valRand *rand.Rand
	valSeed uint64
}

// NewFMPE returns an untrained FMPE for the prior. Configuration errors are reported by Train.
func NewFMPE(prior dist.Distribution, cfg FMPEConfig) *FMPE {
	if prior == nil {
		panic("sbi: NewFMPE: the prior is nil, expected a distribution (e.g. dist.NewUniformCube)")
	}
	cfg = cfg.withDefaults()
	cfg.Embedding = copyEmbedding(cfg.Embedding) // the caller's later changes must not reach the network
	_, err := cfg.fieldConfig(prior.Dim(), 1)
	core := estimator{name: "FMPE", label: "FMPE", kind: "fmpe", prior: prior, cfgErr: err, dropNote: fmpeDropNote}
	return &FMPE{estimator: core, cfg: cfg}
}

// Config returns the configuration with defaults filled in.
func (e *FMPE) Config() FMPEConfig {
	c := e.cfg
	c.Embedding = copyEmbedding(c.Embedding) // changes to what it returns must not reach e
	return c
}

// Train fits the field to the pairs (θᵢ, xᵢ), one per row, with the rules of NPE.Train
// (dropped non-finite pairs, standardization from the training split, the epoch with the best
// validation loss kept, the same estimator for the same seed, stopped by the host's context
// with the best epoch kept). The loss is the conditional
// flow-matching loss, a mean squared error in standardized units: its values are not
// log-densities and are not comparable with NPE's. Every training pair draws a fresh time
// and base point at every epoch; every validation pair draws the same ones at every epoch.
//
// A cfg.Regularizer sees the batch's prior, parameters and observations, but no
// log-densities (RegBatch.LogPost is nil): FMPE's log-density takes an ODE solve and is not
// differentiable here, so regularizers that need it (the coverage regularizer) return an
// error saying so.
func (e *FMPE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	return e.TrainContext(runenv.Context(), theta, x, cfg)
}

// TrainContext is Train stopped by ctx instead of the host's context.
func (e *FMPE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	e.noise = rand.New(rand.NewPCG(cfg.Seed, 0x666d7065))
	e.valSeed = cfg.Seed ^ 0x76616c6964
	if e.valSrc == nil {
		e.valSrc = &rand.PCG{}
		e.valRand = rand.New(e.valSrc)
	}
	return e.train(ctx, (*fmpeModel)(e), theta, x, cfg)
}

// MustTrain is Train for notebook cells: it returns the result and panics with Train's error.
func (e *FMPE) MustTrain(theta, x *mat.Dense, cfg TrainConfig) *TrainResult {
	return safe.Must(e.Train(theta, x, cfg))
}

// fmpeDropNote is what dropping failed simulations does to FMPE (as to NPE: see NPE.Train).
const fmpeDropNote = "FMPE then learns the posterior given that the simulation succeeded, which is p(θ | x) only if the chance of failing does not depend on θ"

// fmpeModel is the training view of an FMPE.
type fmpeModel FMPE

// embedding implements network.
func (m *fmpeModel) embedding() Embedding { return m.cfg.Embedding }

// buildHead creates a fresh field conditioned on ctx values.
func (m *fmpeModel) buildHead(rng *rand.Rand, ctx int) error {
	fc, err := m.cfg.fieldConfig(m.prior.Dim(), ctx)
	if err != nil {
		return err
	}
	if m.field, err = flow.NewField(rng, fc); err != nil {
		return fmt.Errorf("FMPE: %w", err)
	}
	return nil
}

func (m *fmpeModel) params() []*nn.Param { return m.withEmbedding(m.field.Params()) }

// batchLoss is the flow-matching loss of the pairs idx (flow.Field.Loss) in standardized
// units, with fresh draws of t and ε in training and the fixed draws of each pair in
// validation (a tape without gradients).
func (m *fmpeModel) batchLoss(tp *nn.Tape, d *trainData, idx []int, rb *RegBatch) *nn.Tensor {
	ctx := m.batchContext(tp, d, idx)
	D := m.prior.Dim()
	t, eps := tp.New(len(idx), 1), tp.New(len(idx), D)
	if tp.NoGrad {
		for j, i := range idx {
			m.valSrc.Seed(m.valSeed, uint64(i))
			m.field.DrawNoise(m.valRand, t.Data[j:j+1], eps.Data[j*D:(j+1)*D])
		}
	} else {
		m.field.DrawNoise(m.noise, t.Data, eps.Data)
	}
	if rb != nil {
		m.fillRegBatch(rb, d, idx) // no LogPost: see FMPE.Train
	}
	return m.field.Loss(tp, tp.Gather(d.thetaZ, idx), ctx, t, eps)
}

// LogProbPairs returns log q(θᵢ | xᵢ) for every row pair, in raw units of θ, by integrating
// the field's divergence (flow.Field); −Inf where θᵢ lies outside the prior's support or
// xᵢ holds NaN or ±Inf or is not an observation the embedding's InputLayout can read (such
// pairs are not integrated). Evaluated in parallel on all cores;
// a pair's value does not depend on the other pairs. It panics when the FMPE is untrained,
// the shapes do not match, or the ODE of a pair cannot be integrated: a field whose weights
// are not finite, or a field too steep at θ for the solver (a θ far beyond the training
// data); the panic says which, and how far θ lies from the training mean.
func (e *FMPE) LogProbPairs(theta, x *mat.Dense) []float64 {
	e.mustTrained("LogProbPairs")
	n := checkEvalPairs("FMPE.LogProbPairs", theta, x, e.prior.Dim(), e.xDim)
	e.warnUnseenTrials(e.label+" LogProbPairs", x)
	out := make([]float64, n)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		tp := getTape()
		defer putTape(tp)
		xs := x.Slice(lo, hi, 0, e.xDim).(*mat.Dense)
		ctx := e.context(tp, xs)
		skip := make([]bool, hi-lo)
		for i := range skip {
			skip[i] = !e.readableX(x.RawRowView(lo + i))
			if skip[i] {
				clear(ctx.Row(i)) // a placeholder: the pair is not integrated
			}
		}
		e.logProbRows(out[lo:hi], theta.Slice(lo, hi, 0, e.prior.Dim()).(*mat.Dense), ctx.Data, skip)
	})
	return out
}

// logProbRows sets dst[i] = log q(θ_i | context) for the rows of theta, with context one
// row for all or a row per θ; rows marked in skip, outside the prior's support or not finite
// get −Inf without integration.
func (e *FMPE) logProbRows(dst []float64, theta *mat.Dense, context []float64, skip []bool) {
	n, D := theta.Dims()
	z := make([]float64, n*D)
	out := make([]bool, n)
	for i := 0; i < n; i++ {
		row := theta.RawRowView(i)
		out[i] = (skip != nil && skip[i]) || !finite(row) || !e.prior.InSupport(row)
		if !out[i] {
			e.zt.applyRow(z[i*D:(i+1)*D], row)
		}
	}
	if _, err := e.field.LogProbRows(dst, z, context); err != nil {
		for i, v := range dst {
			if math.IsNaN(v) && !out[i] {
				panic(fmt.Errorf("sbi: FMPE log-density at θ = %v (%.3g standardized units from the training mean): %w",
					theta.RawRowView(i), maxAbs(z[i*D:(i+1)*D]), e.fieldFailure(err)))
			}
		}
	}
	logJac := e.zt.logJacobian()
	for i := range dst {
		if out[i] {
			dst[i] = math.Inf(-1)
		} else {
			dst[i] -= logJac
		}
	}
}

// Posterior returns q(θ | x) for the observation x. It panics when x has the wrong length.
func (e *FMPE) Posterior(x []float64) Posterior { return e.PosteriorAt(x) }

// PosteriorAt is Posterior with the concrete type, which also reports the acceptance rate.
func (e *FMPE) PosteriorAt(x []float64) *FMPEPosterior {
	p := &FMPEPosterior{est: e, x: append([]float64(nil), x...)}
	if p.ctx, p.err = e.posteriorContext("FMPE", p.x); p.err != nil {
		return p
	}
	e.warnIfOutside(x)
	return p
}

// FMPEPosterior is an FMPE's posterior for one observation. Draws outside the prior's support
// are rejected, and the share accepted is reported, as for NPEPosterior. It is safe for
// concurrent use.
type FMPEPosterior struct {
	est *FMPE
	x   []float64
	ctx []float64
	err error

	count acceptance
}

// Dim is the number of parameters.
func (p *FMPEPosterior) Dim() int { return p.est.prior.Dim() }

// AcceptanceRate is the share of the field's draws that fell inside the prior's support over
// all draws so far (1 for an unbounded prior), NaN before the first draw.
func (p *FMPEPosterior) AcceptanceRate() float64 { return p.count.rate() }

// LogProb is log q(θ | x) for every row of theta: −Inf outside the prior's support, not
// renormalized for the mass outside it (divide by AcceptanceRate for that). It is computed in
// parallel as LogProbPairs computes it.
func (p *FMPEPosterior) LogProb(theta *mat.Dense) []float64 {
	if p.err != nil {
		panic(fmt.Errorf("sbi: FMPE posterior LogProb: %w", p.err))
	}
	n, c := theta.Dims()
	if c != p.Dim() {
		panic(fmt.Sprintf("sbi: FMPE posterior LogProb: theta has %d columns, expected %d", c, p.Dim()))
	}
	out := make([]float64, n)
	parallelChunks(n, chunkFor(n), func(_, lo, hi int) {
		p.est.logProbRows(out[lo:hi], theta.Slice(lo, hi, 0, c).(*mat.Dense), p.ctx, nil)
	})
	return out
}

// Sample draws n parameter vectors, stopped by the host's context; it panics with
// SampleContext's error (the shorthand of the package's naming rule).
func (p *FMPEPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	return safe.Must(p.SampleContext(runenv.Context(), rng, n))
}

// SampleContext draws n parameter vectors by integrating the field's ODE from standard normal
// draws, rejecting those outside the prior's support, until ctx is done. It returns an error
// wrapping ErrUntrained when the estimator is untrained, ErrNonFinite for an observation with
// NaN or ±Inf, ErrDiverged when the field's weights are not finite, flow.ErrFieldODE when
// its ODE cannot be integrated with finite weights (a field too steep for the solver),
// and ErrLowAcceptance when fewer than MinAcceptanceRate of the draws land inside the
// support. Draws depend on the seed only, not on the number of cores. n·Dim may be at most
// 2²⁶ (67,108,864) values: a larger request returns an error before anything is drawn (draw
// in several calls).
func (p *FMPEPosterior) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if p.err != nil {
		return nil, fmt.Errorf("FMPE posterior: %w", p.err)
	}
	if err := checkSampleSize("FMPE posterior", n, p.est.prior.Dim()); err != nil {
		return nil, err
	}
	e := p.est
	r := rejection{
		name:  "FMPE posterior",
		prior: e.prior,
		count: &p.count,
		round: fmpeRoundSize,
		draw:  func(m int) (*mat.Dense, error) { return e.drawField(rng, p.ctx, m) },
		stalled: func() string {
			return "the field carries its mass out of the support (train longer or with more simulations, or sample an NRE)"
		},
	}
	return r.sample(ctx, n)
}

// fmpeRoundSize is roundSize for FMPE, whose first round integrates exactly the draws
// missing: every draw is an ODE solve, and a prior of full support makes no rejection.
func fmpeRoundSize(missing, proposed, accepted, dim int) int {
	if proposed == 0 {
		return missing
	}
	return roundSize(missing, proposed, accepted, dim)
}

// drawField draws m points from the field's flow given the context vector, in raw units, in
// parallel chunks of evalChunk rows with their own streams derived from rng.
func (e *FMPE) drawField(rng *rand.Rand, ctx []float64, m int) (*mat.Dense, error) {
	D := e.prior.Dim()
	out := mat.NewDense(m, D, nil)
	s := newStreams(rng)
	var (
		mu  sync.Mutex
		err error // the first chunk's failure
	)
	parallelChunks(m, evalChunk, func(c, lo, hi int) {
		r := chunkRand(s, c)
		z := out.RawMatrix().Data[lo*D : hi*D]
		for i := range z {
			z[i] = r.NormFloat64()
		}
		if _, ferr := e.field.MapRows(z, ctx); ferr != nil {
			mu.Lock()
			if err == nil {
				err = ferr
			}
			mu.Unlock()
		}
		for i := lo; i < hi; i++ {
			e.zt.invertRow(out.RawRowView(i))
		}
	})
	if err != nil {
		return nil, e.fieldFailure(err)
	}
	return out, nil
}

// fieldFailure says why the field's ODE failed with err: an error wrapping ErrDiverged when
// the weights (the field's and the embedding's) are not finite; otherwise err itself, which
// wraps flow.ErrFieldODE, with the tolerances.
func (e *FMPE) fieldFailure(err error) error {
	for _, p := range (*fmpeModel)(e).params() {
		if !finite(p.Data) {
			return fmt.Errorf("%w: the field's weights are not finite (did training diverge?): %v", ErrDiverged, err)
		}
	}
	return fmt.Errorf("the field's ODE could not be integrated although its weights are finite, with RelTol = %g and AbsTol = %g (the field is too steep there: far from the training data, or after a training that went astray): %w",
		e.cfg.RelTol, e.cfg.AbsTol, err)
}

// maxAbs is the largest magnitude in v.
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// The kind of estimator of this file in the estimator file format.
func init() {
	registerEstimator(estimatorKind{kind: "fmpe", loader: "LoadFMPE",
		decode: func(prior dist.Distribution, config []byte, emb Embedding) (savable, error) {
			var cfg FMPEConfig
			if err := decodeStrict(config, &cfg); err != nil {
				return nil, fmt.Errorf("FMPE: %w", err)
			}
			if cfg.Layers > maxFileLayers {
				return nil, fmt.Errorf("FMPE: Layers = %d, expected at most %d in a file", cfg.Layers, maxFileLayers)
			}
			cfg.Embedding = emb
			return NewFMPE(prior, cfg), nil
		}})
}

func (e *FMPE) fileNetwork() fileNetwork { return (*fmpeModel)(e) }

func (e *FMPE) fileConfig() any { return e.cfg }

// headWeights counts the weights of the field's MLP: θ-dim + 2·Frequencies + ctx → Hidden
// (Layers times) → θ-dim.
func (m *fmpeModel) headWeights(ctx int) (int, error) {
	fc, err := m.cfg.fieldConfig(m.prior.Dim(), ctx)
	if err != nil {
		return 0, err
	}
	D := m.prior.Dim()
	sizes := append(append([]int{satAdd(satAdd(D, satMul(2, fc.Frequencies)), ctx)}, fc.Hidden...), D)
	w, err := mlpWeights(sizes)
	if err != nil {
		return 0, fmt.Errorf("FMPE: %w", err)
	}
	return w, nil
}

// Save writes the trained FMPE to w, as NPE.Save does.
func (e *FMPE) Save(w io.Writer) error { return saveEstimator(w, e) }

// SaveFile writes the FMPE to the file at path (see Save), atomically like NPE.SaveFile.
func (e *FMPE) SaveFile(path string) error { return saveFile(path, e.Save) }

// LoadFMPE reads an FMPE written by Save, with the rules of LoadNPE for the prior.
func LoadFMPE(r io.Reader, prior dist.Distribution) (*FMPE, error) {
	e, err := loadEstimator(r, prior, "fmpe")
	if err != nil {
		return nil, err
	}
	return e.(*FMPE), nil
}

// MustSaveFile is SaveFile for notebook cells: it panics with SaveFile's error.
func (e *FMPE) MustSaveFile(path string) { mustDo(e.SaveFile(path)) }

// LoadFMPEFile reads an FMPE from the file at path (see LoadFMPE).
func LoadFMPEFile(path string, prior dist.Distribution) (*FMPE, error) {
	var e *FMPE
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadFMPE(r, prior); return err })
	return e, err
}

// MustLoadFMPEFile is LoadFMPEFile for notebook cells: it panics with LoadFMPEFile's error.
func MustLoadFMPEFile(path string, prior dist.Distribution) *FMPE {
	return safe.Must(LoadFMPEFile(path, prior))
}

// String says what the FMPE is: its field, its dimensions and whether it is trained.
func (e *FMPE) String() string {
	c := e.cfg
	return fmt.Sprintf("%s: vector field of %d×%d hidden units (%s), %s", e.label, c.Layers, c.Hidden, c.Activation, e.state())
}

// MIMEBundle shows the summary as HTML and text.
func (e *FMPE) MIMEBundle() map[string]any { return summaryBundle(e.label, e.String()) }

// String says what the posterior is, for which observation, and its acceptance rate so far.
func (p *FMPEPosterior) String() string {
	s := fmt.Sprintf("%s posterior at x = %s, %d parameters", p.est.label, fmtVec(p.x), p.Dim())
	if p.err != nil {
		return s + ": " + p.err.Error()
	}
	return s + p.count.describe("field")
}

// MIMEBundle shows the summary as HTML and text.
func (p *FMPEPosterior) MIMEBundle() map[string]any {
	return summaryBundle(p.est.label+" posterior", p.String())
}
