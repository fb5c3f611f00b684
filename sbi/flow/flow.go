package flow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/flow/transform"
	"github.com/gosbi/gosbi/sbi/internal/collapse"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Kind selects the univariate transform of every layer of a flow: a name registered with
// transform.Register. It is a string so that a literal such as "nsf" may stand for it; the
// empty kind is MAF.
type Kind string

const (
	// MAF uses affine autoregressive transforms y = x·scale + shift (transform.Affine).
	MAF Kind = "maf"
	// NSF uses monotonic rational-quadratic spline transforms with linear tails
	// (transform.Spline).
	NSF Kind = "nsf"
)

// ParseKind returns the kind of the given name ("maf", "nsf" or another registered one).
func ParseKind(name string) (Kind, error) {
	if _, err := Kind(name).registration(); err != nil {
		return "", err
	}
	return Kind(name), nil
}

// registration returns the kind's registration, or an error naming the kind and the known
// ones.
func (k Kind) registration() (transform.Registration, error) {
	r, err := transform.Lookup(string(k))
	if err != nil {
		return r, fmt.Errorf("flow: %w", err)
	}
	return r, nil
}

// Config describes a conditional flow. Zero fields take the defaults of sbi's
// posterior_nn: 5 transforms, two hidden layers of 50 units, 10 spline bins, tanh for MAF
// (sbi's MAF) and ReLU for NSF (nflows' and zuko's); the spline interval is zuko's [−5, 5]
// (sbi uses 3 on z-scored θ; 5 leaves more room where z-scoring is imperfect).
type Config struct {
	Kind       Kind          // MAF, NSF or another registered kind; "" means MAF
	Features   int           // dimension of θ (at least 1)
	Context    int           // dimension of the conditioning vector (0 for an unconditional flow)
	Transforms int           // number of autoregressive transforms
	Hidden     []int         // hidden widths of each MADE
	Bins       int           // spline bins (NSF)
	Bound      float64       // the spline acts on [−Bound, Bound] and is the identity outside (NSF); at most transform.MaxBound
	Activation nn.Activation // MADE activation; the zero value (Identity) selects the kind's default
}

// withDefaults fills in the zero fields; the activation's default is the registered kind's
// (an unknown kind keeps Identity, and validate reports the kind).
func (c Config) withDefaults() Config {
	if c.Kind == "" {
		c.Kind = MAF
	}
	if c.Transforms == 0 {
		c.Transforms = 5
	}
	if len(c.Hidden) == 0 {
		c.Hidden = []int{50, 50}
	}
	if c.Bins == 0 {
		c.Bins = 10
	}
	if c.Bound == 0 {
		c.Bound = 5
	}
	if r, err := c.Kind.registration(); err == nil && c.Activation == nn.Identity {
		c.Activation = r.Activation
	}
	return c
}

func (c Config) validate() error {
	if _, err := c.Kind.registration(); err != nil {
		return err
	}
	switch {
	case c.Features < 1:
		return fmt.Errorf("flow: Features = %d: set it to the dimension of θ (≥ 1)", c.Features)
	case c.Context < 0:
		return fmt.Errorf("flow: Context = %d: set it to the dimension of the conditioning vector, or 0", c.Context)
	case c.Transforms < 1:
		return fmt.Errorf("flow: Transforms = %d: want at least 1", c.Transforms)
	case c.Bins < 1 || c.Bins > transform.MaxBins:
		return fmt.Errorf("flow: Bins = %d: want 1…%d", c.Bins, transform.MaxBins)
	case !(c.Bound > 0 && c.Bound <= transform.MaxBound):
		return fmt.Errorf("flow: Bound = %v: want a value in (0, transform.MaxBound = %g], the half-width of the interval the spline acts on", c.Bound, transform.MaxBound)
	}
	for _, h := range c.Hidden {
		if h < 1 {
			return fmt.Errorf("flow: hidden widths %v: every width must be ≥ 1", c.Hidden)
		}
	}
	return nil
}

// Flow is a conditional normalizing flow q(θ | context). Create it with New; it is safe to
// call LogProb with distinct tapes from several goroutines only when no Backward runs
// concurrently (gradients accumulate into shared parameters).
type Flow struct {
	cfg    Config
	tr     transform.Univariate // the transform of every layer
	made   []*MADE              // the conditioner of every layer
	perm   []int                // column permutation applied after every transform but the last (reversal)
	perP   int                  // parameters per feature
	params []*nn.Param
}

// New returns a flow with weights initialized from rng.
func New(rng *rand.Rand, cfg Config) (*Flow, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r, _ := cfg.Kind.registration() // validate checked it
	tr, err := r.New(transform.Settings{Bins: cfg.Bins, Bound: cfg.Bound})
	if err != nil {
		return nil, fmt.Errorf("flow: kind %q: %w", cfg.Kind, err)
	}
	f := &Flow{cfg: cfg, tr: tr, perP: tr.Params()}
	if f.perP < 1 {
		return nil, fmt.Errorf("flow: kind %q: its transform has %d parameters per feature, want at least 1", cfg.Kind, f.perP)
	}
	for k := 0; k < cfg.Transforms; k++ {
		m := NewMADE(rng, cfg.Features, cfg.Context, cfg.Hidden, f.perP, cfg.Activation)
		for _, p := range m.Params() {
			p.Name = fmt.Sprintf("flow.%d.%s", k, p.Name)
		}
		if s := r.OutputScale; s != 0 && s != 1 { // e.g. start every spline near the identity
			last := m.Layers[len(m.Layers)-1]
			for i := range last.W.Data {
				last.W.Data[i] *= s
			}
		}
		f.made = append(f.made, m)
		f.params = append(f.params, m.Params()...)
	}
	f.perm = make([]int, cfg.Features)
	for j := range f.perm {
		f.perm[j] = cfg.Features - 1 - j
	}
	return f, nil
}

// Config returns the flow's configuration with defaults filled in.
func (f *Flow) Config() Config { return f.cfg }

// Params returns the trainable parameters.
func (f *Flow) Params() []*nn.Param { return f.params }

// Transform returns the univariate transform of the flow's layers.
func (f *Flow) Transform() transform.Univariate { return f.tr }

// layer applies layer k to h: its MADE computes the transform's parameters, the transform
// maps h. It returns y and the n×1 log-determinant.
func (f *Flow) layer(tp *nn.Tape, k int, h, context *nn.Tensor, ev EvalConfig) (*nn.Tensor, *nn.Tensor) {
	return f.tr.Forward(tp, h, f.made[k].forward(tp, h, context, ev))
}

// Forward maps θ (n×Features) given context (n×Context, nil without context) to the base
// space and returns z (n×Features) and log|det ∂z/∂θ| (n×1).
func (f *Flow) Forward(tp *nn.Tape, theta, context *nn.Tensor) (z, logDet *nn.Tensor) {
	return f.forward(tp, theta, context, EvalConfig{})
}

func (f *Flow) forward(tp *nn.Tape, theta, context *nn.Tensor, ev EvalConfig) (z, logDet *nn.Tensor) {
	f.checkShapes(theta, context)
	h := theta
	for k := range f.made {
		y, ld := f.layer(tp, k, h, context, ev)
		if logDet == nil {
			logDet = ld
		} else {
			logDet = tp.Add(logDet, ld)
		}
		h = y
		if k+1 < len(f.made) && f.cfg.Features > 1 {
			h = tp.PermuteColumns(h, f.perm)
		}
	}
	return h, logDet
}

// LogProb returns the n×1 log-densities log q(θ_i | context_i) on the tape:
// log N(z; 0, I) + log|det ∂z/∂θ| (change of variables).
func (f *Flow) LogProb(tp *nn.Tape, theta, context *nn.Tensor) *nn.Tensor {
	return f.logProb(tp, theta, context, EvalConfig{})
}

func (f *Flow) logProb(tp *nn.Tape, theta, context *nn.Tensor, ev EvalConfig) *nn.Tensor {
	z, ld := f.forward(tp, theta, context, ev)
	half := -0.5 * float64(f.cfg.Features) * math.Log(2*math.Pi)
	base := tp.AddScalar(tp.Scale(tp.RowSum(tp.Square(z)), -0.5), half)
	return tp.Add(base, ld)
}

// EvalConfig says how a flow evaluates without gradients (Flow.Eval); the zero value
// evaluates as a training step does, in float64.
type EvalConfig struct {
	// Float32 runs the MADEs' matrix products and hidden activations (nn.ReLU, nn.Tanh) in
	// float32 (PyTorch's precision) where the CPU has the float32 kernel (AVX-512; see
	// Float32Kernel): density evaluation and sampling run about twice as fast, and their
	// results carry float32 rounding (see made32.go). A row whose θ or context is so large
	// that a float32 sum of the MADE could overflow (float32 ends near 3.4e38; the bound
	// follows from the weights) is evaluated in float64 instead, never to NaN or to a
	// saturated value. It takes effect on tapes with NoGrad set only, and on MADEs with those
	// activations; the transforms and everything else stay float64.
	Float32 bool
}

// Evaluator evaluates a flow without gradients as its EvalConfig says. It is a value that
// refers to the flow; it holds no state of its own.
type Evaluator struct {
	f  *Flow
	ev EvalConfig
}

// Eval returns an evaluator of the flow with the given configuration.
func (f *Flow) Eval(cfg EvalConfig) Evaluator { return Evaluator{f: f, ev: cfg} }

// Forward is Flow.Forward evaluated as configured.
func (e Evaluator) Forward(tp *nn.Tape, theta, context *nn.Tensor) (z, logDet *nn.Tensor) {
	return e.f.forward(tp, theta, context, e.ev)
}

// LogProb is Flow.LogProb evaluated as configured.
func (e Evaluator) LogProb(tp *nn.Tape, theta, context *nn.Tensor) *nn.Tensor {
	return e.f.logProb(tp, theta, context, e.ev)
}

// Inverter is Flow.Inverter evaluating its MADEs as configured.
func (e Evaluator) Inverter(context []float64) *Inverter { return e.f.inverter(context, e.ev) }

func (f *Flow) checkShapes(theta, context *nn.Tensor) {
	if theta.Cols != f.cfg.Features {
		panic(fmt.Sprintf("flow: θ has %d columns, want %d", theta.Cols, f.cfg.Features))
	}
	if f.cfg.Context > 0 && (context == nil || context.Rows != theta.Rows || context.Cols != f.cfg.Context) {
		panic(fmt.Sprintf("flow: context %v, want %d×%d", context, theta.Rows, f.cfg.Context))
	}
}

// Inverse maps base-space points z (n×Features) back to θ given context, without gradients,
// and returns θ and log|det ∂θ/∂z| (n×1). It inverts each autoregressive transform one
// feature at a time: the MADE output for feature d depends on features 0…d−1 only.
func (f *Flow) Inverse(tp *nn.Tape, z, context *nn.Tensor) (theta, logDet *nn.Tensor) {
	f.checkShapes(z, context)
	var ctx []float64
	if context != nil {
		ctx = context.Data
	}
	return f.inverter(nil, EvalConfig{}).inverse(tp, z, ctx, true)
}

// Inverter holds, for every transform and feature, the part of the MADE that computes that
// feature's transform parameters (see MADEFeature), ready for repeated inversions. It
// copies the weights: make a new one after the flow's parameters change.
type Inverter struct {
	f     *Flow
	nets  [][]*MADEFeature // nets[k][d]
	fixed [][][]float64    // fixed[k][d]: the parameters of a feature that depends on the context alone, or nil
	bound bool
	ev    EvalConfig // how nets are evaluated
}

// Inverter returns an inverter of the flow. With a non-nil context (Context values) it is
// bound to that one observation: the context's contribution is computed once, and the first
// feature of every transform, which depends on the context alone, once per transform.
func (f *Flow) Inverter(context []float64) *Inverter { return f.inverter(context, EvalConfig{}) }

// inverter returns an inverter whose MADE evaluations follow ev; the parameters of features
// that depend on the context alone are computed in float64 whatever ev says.
func (f *Flow) inverter(context []float64, ev EvalConfig) *Inverter {
	if context != nil && len(context) != f.cfg.Context {
		panic(fmt.Sprintf("flow: Inverter: context has %d values, the flow is conditioned on %d", len(context), f.cfg.Context))
	}
	inv := &Inverter{f: f, bound: context != nil || f.cfg.Context == 0, ev: ev}
	tp := nn.NewTape()
	for _, m := range f.made {
		nets := make([]*MADEFeature, f.cfg.Features)
		fixed := make([][]float64, f.cfg.Features)
		for d := range nets {
			nets[d] = m.Feature(d)
			if inv.bound && f.cfg.Context > 0 {
				nets[d] = nets[d].WithContext(context)
			}
			if nets[d].Constant() {
				fixed[d] = make([]float64, f.perP)
				nets[d].Eval(tp, fixed[d], make([]float64, f.cfg.Features), nil, 1)
			}
		}
		inv.nets = append(inv.nets, nets)
		inv.fixed = append(inv.fixed, fixed)
	}
	return inv
}

// Inverse maps z (n×Features) to θ as Flow.Inverse does. context is nil for a bound
// inverter and n×Context otherwise.
func (inv *Inverter) Inverse(tp *nn.Tape, z, context *nn.Tensor) (theta, logDet *nn.Tensor) {
	return inv.inverse(tp, z, inv.contextOf("Inverse", z, context), true)
}

// Map is Inverse without the log-determinant, for sampling: it returns θ only and skips the
// log-determinant's logarithms.
func (inv *Inverter) Map(tp *nn.Tape, z, context *nn.Tensor) *nn.Tensor {
	theta, _ := inv.inverse(tp, z, inv.contextOf("Map", z, context), false)
	return theta
}

// contextOf checks the shapes of an inversion and returns the context rows (nil for a bound
// inverter).
func (inv *Inverter) contextOf(what string, z, context *nn.Tensor) []float64 {
	if !inv.bound {
		inv.f.checkShapes(z, context)
		return context.Data
	}
	if z.Cols != inv.f.cfg.Features || context != nil {
		panic(fmt.Sprintf("flow: Inverter.%s: z has %d columns (want %d); a bound inverter takes a nil context", what, z.Cols, inv.f.cfg.Features))
	}
	return nil
}

func (inv *Inverter) inverse(tp *nn.Tape, z *nn.Tensor, ctx []float64, wantLogDet bool) (theta, logDet *nn.Tensor) {
	f := inv.f
	noGrad := tp.NoGrad
	tp.NoGrad = true
	defer func() { tp.NoGrad = noGrad }()
	n, D, P := z.Rows, f.cfg.Features, f.perP
	logDet = tp.New(n, 1)
	perm := make([]int, D)
	for j, p := range f.perm {
		perm[p] = j
	}
	params := tp.New(n, P)
	h := z
	for k := len(f.made) - 1; k >= 0; k-- {
		if k+1 < len(f.made) && D > 1 {
			h = tp.PermuteColumns(h, perm)
		}
		x := tp.New(n, D)
		var ld []float64
		if wantLogDet {
			ld = logDet.Data
		}
		for d := 0; d < D; d++ {
			// by column: one transform per row, or the context-only one for all
			ps, u := P, params.Data
			if fixed := inv.fixed[k][d]; fixed != nil {
				ps, u = 0, fixed
			} else {
				inv.nets[k][d].eval(tp, params.Data, x.Data, ctx, n, inv.ev)
			}
			f.tr.InverseColumn(x.Data[d:], h.Data[d:], D, n, u, ps, ld)
		}
		h = x
	}
	return h, logDet
}

// Sample draws n samples of θ from q(θ | context) and returns them as an n×Features matrix.
// context must have Context values (nil or empty for an unconditional flow). It returns an
// error where the flow's transforms fail numerically: a draw that is not finite, or (n ≥ 2)
// a column whose draws are all equal.
func (f *Flow) Sample(rng *rand.Rand, n int, context []float64) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("flow: Sample: n = %d, want ≥ 1", n)
	}
	if len(context) != f.cfg.Context {
		return nil, fmt.Errorf("flow: Sample: context has %d values, the flow is conditioned on %d", len(context), f.cfg.Context)
	}
	if f.cfg.Context == 0 {
		context = nil
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	inv := f.Inverter(context)
	return sampleWith(rng, tp, n, f.cfg.Features, func(z *nn.Tensor) *nn.Tensor {
		return inv.Map(tp, z, nil)
	})
}

// SampleEach draws one sample of θ for every row of contexts (one row per sample), with the
// errors of Sample.
func (f *Flow) SampleEach(rng *rand.Rand, contexts *mat.Dense) (*mat.Dense, error) {
	n, c := contexts.Dims()
	if c != f.cfg.Context {
		return nil, fmt.Errorf("flow: SampleEach: contexts have %d columns, the flow is conditioned on %d", c, f.cfg.Context)
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	ctx := tp.FromDense(contexts)
	return sampleWith(rng, tp, n, f.cfg.Features, func(z *nn.Tensor) *nn.Tensor {
		theta, _ := f.Inverse(tp, z, ctx)
		return theta
	})
}

// sampleWith draws n standard normal points of dimension d and maps them with inverse. It
// returns an error where a draw is not finite, or where n ≥ 2 draws all share one value in a
// column: the flow is a bijection of its base draws, which are distinct, so equal draws mean
// that its transforms collapsed numerically.
func sampleWith(rng *rand.Rand, tp *nn.Tape, n, d int, inverse func(z *nn.Tensor) *nn.Tensor) (*mat.Dense, error) {
	z := tp.New(n, d)
	for i := range z.Data {
		z.Data[i] = rng.NormFloat64()
	}
	theta := inverse(z)
	for _, v := range theta.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("flow: sampling produced non-finite values: the flow's parameters are not finite, or so large that its transforms overflow (was training diverging?)")
		}
	}
	if j, ok := collapse.Column(theta.Data, theta.Rows, theta.Cols, theta.Cols, nil); ok {
		return nil, fmt.Errorf("flow: sampling collapsed: %s: retrain with a smaller learning rate, and check that θ and the context are of moderate scale (standardize them); a flow fitted to a column that never varies learns a point mass: leave such a column out",
			collapse.Describe(n, j, theta.Data[j], ""))
	}
	return theta.Dense(), nil
}

// LogProbValues returns log q(θ_i | context) for every row of theta, without gradients.
// context must have Context values.
func (f *Flow) LogProbValues(theta *mat.Dense, context []float64) ([]float64, error) {
	n, d := theta.Dims()
	if d != f.cfg.Features {
		return nil, fmt.Errorf("flow: LogProbValues: θ has %d columns, want %d", d, f.cfg.Features)
	}
	if len(context) != f.cfg.Context {
		return nil, fmt.Errorf("flow: LogProbValues: context has %d values, the flow is conditioned on %d", len(context), f.cfg.Context)
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	var ctx *nn.Tensor
	if f.cfg.Context > 0 {
		ctx = tp.RepeatRows(tp.Const(1, f.cfg.Context, context), n)
	}
	lp := f.LogProb(tp, tp.FromDense(theta), ctx)
	out := make([]float64, n)
	copy(out, lp.Data)
	return out, nil
}
