package flow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/internal/ode"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// FieldConfig describes a conditional flow-matching vector field. Zero fields take the
// defaults of sbi's FMPE (build_mlp_flowmatcher: an MLP of five hidden layers of 64 units with
// ELU, a time embedding of 3 frequencies, σ_min = 10⁻³, times uniform on [0, 1]) and the
// tolerances with which sbi integrates it (zuko's: RelTol 10⁻⁵, AbsTol 10⁻⁶).
type FieldConfig struct {
	Features int   // dimension of θ (at least 1)
	Context  int   // dimension of the conditioning vector (0 for an unconditional field)
	Hidden   []int // hidden widths of the MLP; nil means five layers of 64
	// Activation between the hidden layers; the zero value (Identity) selects ELU.
	Activation nn.Activation
	// Frequencies is the number F of frequencies of the time embedding
	// (cos kπt, sin kπt for k = 1…F); 0 means 3.
	Frequencies int
	// SigmaMin is σ_min of the optimal-transport path: the width of the Gaussian around θ
	// that the path reaches at t = 1; 0 means 10⁻³.
	SigmaMin float64
	// TimeExponent is α ≥ 0 of the time prior p(t) = (1+α)·t^α of Dax et al. (2023), which
	// weights the times near the data more (drawn as t = u^{1/(1+α)}); 0 is uniform.
	TimeExponent float64
	// RelTol and AbsTol are the tolerances of the adaptive ODE solver per component;
	// 0 means 10⁻⁵ and 10⁻⁶. Each must lie in [MinTolerance, 1): finer ones are below
	// float64's rounding of θ, which the solver cannot meet, and a tolerance of 1 or more
	// leaves the error as wide as the distribution itself.
	RelTol, AbsTol float64
	// MaxSteps bounds the solver's steps per row; 0 means 10,000.
	MaxSteps int
}

// MinTolerance is the smallest RelTol and AbsTol of a field's ODE solver: about 45 times
// float64's rounding of values near 1.
const MinTolerance = ode.MinTolerance

func (c FieldConfig) withDefaults() FieldConfig {
	if c.Hidden == nil {
		c.Hidden = []int{64, 64, 64, 64, 64}
	}
	if c.Activation == nn.Identity {
		c.Activation = nn.ELU
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
	if c.MaxSteps == 0 {
		c.MaxSteps = 10000
	}
	return c
}

// Validate returns the error NewField would return for the configuration (with its zero
// fields taking the defaults), without building anything.
func (c FieldConfig) Validate() error { return c.withDefaults().validate() }

func (c FieldConfig) validate() error {
	switch {
	case c.Features < 1:
		return fmt.Errorf("flow: field Features = %d: set it to the dimension of θ (≥ 1)", c.Features)
	case c.Context < 0:
		return fmt.Errorf("flow: field Context = %d: set it to the dimension of the conditioning vector, or 0", c.Context)
	case len(c.Hidden) == 0:
		return errors.New("flow: field Hidden is empty: the field needs at least one hidden layer (nil means five of 64)")
	case c.Frequencies < 0:
		return fmt.Errorf("flow: field Frequencies = %d, expected ≥ 0 (0 for the default 3)", c.Frequencies)
	case !(c.SigmaMin > 0 && c.SigmaMin < 1):
		return fmt.Errorf("flow: field SigmaMin = %v, expected a value in (0, 1) (0 for the default 10⁻³)", c.SigmaMin)
	case !(c.TimeExponent >= 0) || math.IsInf(c.TimeExponent, 0):
		return fmt.Errorf("flow: field TimeExponent = %v, expected a finite α ≥ 0 (0 for uniform times)", c.TimeExponent)
	}
	if _, err := nn.ParseActivation(c.Activation.String()); err != nil {
		return fmt.Errorf("flow: field Activation: %w", err)
	}
	for _, h := range c.Hidden {
		if h < 1 {
			return fmt.Errorf("flow: field hidden widths %v: every width must be ≥ 1", c.Hidden)
		}
	}
	if _, err := c.odeConfig().WithDefaults(); err != nil {
		return fmt.Errorf("flow: field ODE settings: %w", err)
	}
	return c.checkTolerances()
}

// checkTolerances refuses tolerances (with defaults filled in) of 1 or more; the solver
// refuses those below MinTolerance.
func (c FieldConfig) checkTolerances() error {
	for _, tol := range []struct {
		name string
		v    float64
	}{{"RelTol", c.RelTol}, {"AbsTol", c.AbsTol}} {
		if tol.v >= 1 {
			return fmt.Errorf("flow: field %s = %v, expected less than 1 (0 for the default): the solver's error would be as wide as the distribution", tol.name, tol.v)
		}
	}
	return nil
}

func (c FieldConfig) odeConfig() ode.Config {
	return ode.Config{RelTol: c.RelTol, AbsTol: c.AbsTol, MaxSteps: c.MaxSteps}
}

// inputs is the width of the network's input: θ_t, the time embedding, the context.
func (c FieldConfig) inputs() int { return c.Features + 2*c.Frequencies + c.Context }

// Field is a conditional flow-matching vector field v(θ_t, t, context) (Lipman et al. 2023,
// "Flow matching for generative modeling"; as a posterior estimator, FMPE: Wildberger, Dax et
// al. 2023, "Flow matching for scalable simulation-based inference"). It is an MLP on
// [θ_t, cos kπt, sin kπt (k = 1…F), context] with F = Frequencies.
//
// Time runs from the base to the data, as in Lipman et al. and Dax et al.: at t = 0 θ_t is
// standard normal, at t = 1 it is the target (Python's sbi and lampe run the other way,
// t = 0 at the data; the two are the same flow with t ↦ 1 − t). The conditional
// optimal-transport path from a base draw ε to a target θ is
//
//	θ_t = (1 − (1 − σ_min)·t)·ε + t·θ,    with velocity u_t = θ − (1 − σ_min)·ε,
//
// and Loss regresses v on u_t (the conditional flow-matching loss, Lipman et al. eq. 9 with
// the path of their eq. 20–23). Sample integrates dθ/dt = v from a standard normal draw at
// t = 0 to t = 1; LogProb integrates the instantaneous change of variables backwards from
// θ at t = 1,
//
//	log q(θ | c) = log N(θ_0; 0, I) − ∫₀¹ ∇·v(θ_t, t, c) dt,
//
// with the divergence exact: the Jacobian-vector products of the MLP along the Features unit
// directions, propagated forward through the layers together with the values (one matrix
// product per layer on Features tangent rows per row). Both use package ode's adaptive
// Dormand–Prince solver with a step size per row (RelTol, AbsTol) and evaluate the network
// once per stage on all rows.
//
// A Field is safe for concurrent evaluation (LogProb, Sample and the Rows forms read the
// weights only); Loss and Velocity on distinct tapes are safe while no Backward runs
// concurrently.
type Field struct {
	cfg   FieldConfig
	net   *nn.MLP
	freqs []float64 // kπ, k = 1…F (the recurrence of embedTime computes their sines and cosines)
}

// NewField returns a field with weights initialized from rng (PyTorch's initialization of
// linear layers).
func NewField(rng *rand.Rand, cfg FieldConfig) (*Field, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	sizes := append(append([]int{cfg.inputs()}, cfg.Hidden...), cfg.Features)
	f := &Field{cfg: cfg, net: nn.NewMLP(rng, sizes, cfg.Activation)}
	for _, p := range f.net.Params() {
		p.Name = "field." + p.Name
	}
	for k := 1; k <= cfg.Frequencies; k++ {
		f.freqs = append(f.freqs, float64(k)*math.Pi)
	}
	return f, nil
}

// Config returns the field's configuration with defaults filled in.
func (f *Field) Config() FieldConfig { return f.cfg }

// Params returns the trainable parameters.
func (f *Field) Params() []*nn.Param { return f.net.Params() }

// embedTime writes the time embedding cos kπt (k = 1…F), then sin kπt, into dst (2F values):
// cos πt and sin πt, then the angle-addition recurrence cos (k+1)x = cos kx cos x − sin kx
// sin x, sin (k+1)x = sin kx cos x + cos kx sin x (exact to a few ulps for the F of a time
// embedding, and the same function on and off the tape).
func (f *Field) embedTime(dst []float64, t float64) {
	F := len(f.freqs)
	if F == 0 {
		return
	}
	s1, c1 := math.Sincos(math.Pi * t)
	c, s := c1, s1
	for k := 0; k < F; k++ {
		dst[k], dst[F+k] = c, s
		c, s = c*c1-s*s1, s*c1+c*s1
	}
}

// Velocity returns v(θ_t, t, context) on the tape (n×Features), differentiable with respect
// to the weights and the context: thetaT is n×Features, t is n×1, context n×Context (nil
// without context).
func (f *Field) Velocity(tp *nn.Tape, thetaT, t, context *nn.Tensor) *nn.Tensor {
	d, F := f.cfg.Features, len(f.freqs)
	n := thetaT.Rows
	f.checkShapes("Velocity", thetaT, context)
	if t.Rows != n || t.Cols != 1 {
		panic(fmt.Sprintf("flow: Field.Velocity: t is %d×%d, expected %d×1", t.Rows, t.Cols, n))
	}
	head := tp.New(n, d+2*F)
	for i := 0; i < n; i++ {
		row := head.Row(i)
		copy(row, thetaT.Row(i))
		f.embedTime(row[d:], t.Data[i])
	}
	in := head
	if f.cfg.Context > 0 {
		in = tp.Concat(head, context)
	}
	return f.net.Forward(tp, in)
}

func (f *Field) checkShapes(what string, theta, context *nn.Tensor) {
	if theta.Cols != f.cfg.Features {
		panic(fmt.Sprintf("flow: Field.%s: θ has %d columns, expected %d", what, theta.Cols, f.cfg.Features))
	}
	switch {
	case f.cfg.Context == 0 && context != nil:
		panic(fmt.Sprintf("flow: Field.%s: a context was given to a field without context", what))
	case f.cfg.Context > 0 && (context == nil || context.Rows != theta.Rows || context.Cols != f.cfg.Context):
		rows, cols := 0, 0
		if context != nil {
			rows, cols = context.Rows, context.Cols
		}
		panic(fmt.Sprintf("flow: Field.%s: context is %d×%d, expected %d×%d", what, rows, cols, theta.Rows, f.cfg.Context))
	}
}

// DrawNoise fills t (n values) with times from the time prior and eps (n×Features) with
// standard normal draws, from rng.
func (f *Field) DrawNoise(rng *rand.Rand, t, eps []float64) {
	if len(eps) != len(t)*f.cfg.Features {
		panic(fmt.Sprintf("flow: Field.DrawNoise: %d times and %d noise values, expected %d per time", len(t), len(eps), f.cfg.Features))
	}
	for i := range t {
		t[i] = f.timeQuantile(rng.Float64())
	}
	for i := range eps {
		eps[i] = rng.NormFloat64()
	}
}

// timeQuantile maps u ~ U(0, 1) to a draw of the time prior, t = u^{1/(1+α)}.
func (f *Field) timeQuantile(u float64) float64 {
	if f.cfg.TimeExponent == 0 {
		return u
	}
	return math.Pow(u, 1/(1+f.cfg.TimeExponent))
}

// Loss returns the conditional flow-matching loss of the batch on the tape (1×1):
//
//	mean over rows i and features k of (v(θ_t,i, t_i, c_i) − u_t,i)²,
//	θ_t = (1 − (1 − σ_min)·t)·ε + t·θ,  u_t = θ − (1 − σ_min)·ε,
//
// the mean over all n·Features squared errors, as sbi and lampe take it. theta and eps are
// n×Features, t is n×1 (DrawNoise draws t and ε), context n×Context or nil; theta, t and eps
// are constants, the loss is differentiable with respect to the weights and the context.
func (f *Field) Loss(tp *nn.Tape, theta, context, t, eps *nn.Tensor) *nn.Tensor {
	n, d := theta.Rows, f.cfg.Features
	f.checkShapes("Loss", theta, context)
	if t.Rows != n || t.Cols != 1 || eps.Rows != n || eps.Cols != d {
		panic(fmt.Sprintf("flow: Field.Loss: t is %d×%d and ε %d×%d, expected %d×1 and %d×%d", t.Rows, t.Cols, eps.Rows, eps.Cols, n, n, d))
	}
	thetaT, target := tp.New(n, d), tp.New(n, d)
	f.path(thetaT.Data, target.Data, theta.Data, t.Data, eps.Data)
	v := f.Velocity(tp, thetaT, t, context)
	return tp.Mean(tp.Square(tp.Sub(v, target)))
}

// path sets the points θ_t and the target velocities u_t of the conditional
// optimal-transport path for the rows of theta, t and eps.
func (f *Field) path(thetaT, target, theta, t, eps []float64) {
	d := f.cfg.Features
	s := 1 - f.cfg.SigmaMin
	for i, ti := range t {
		a := 1 - s*ti
		for k := i * d; k < (i+1)*d; k++ {
			thetaT[k] = a*eps[k] + ti*theta[k]
			target[k] = theta[k] - s*eps[k]
		}
	}
}

// ErrFieldODE is wrapped by the errors of a field's evaluations when the ODE of a row cannot
// be integrated (the field is not finite along the path, or the solver's step limit is
// reached).
var ErrFieldODE = ode.ErrODE

// MapRows carries the n base points z (n×Features, row-major, changed in place) along the ODE
// from t = 0 to t = 1, giving draws of q(θ | context). context holds n rows of Context values,
// or one row that conditions every point. It returns the calls of the network (each on all n
// rows) and, when the ODE of some rows failed (their rows are then NaN), an error wrapping
// ErrFieldODE.
func (f *Field) MapRows(z, context []float64) (calls int, err error) {
	d := f.cfg.Features
	n := f.checkRows("MapRows", len(z), context)
	ev := f.newEvaluator(n, context, false)
	rhs := func(t, y, dy []float64) { ev.eval(t, y, d, dy, d, nil, 0) }
	res, err := ode.SolveRows(rhs, n, d, 0, 1, z, f.cfg.odeConfig())
	if err != nil {
		return res.Calls, err
	}
	return res.Calls, res.Err()
}

// LogProbRows sets dst[i] = log q(θ_i | context_i) for the n rows of theta (n×Features),
// with context as for MapRows. Rows whose ODE failed get NaN, and the error (wrapping
// ErrFieldODE) says how many; it also returns the calls of the network.
func (f *Field) LogProbRows(dst, theta, context []float64) (calls int, err error) {
	d := f.cfg.Features
	n := f.checkRows("LogProbRows", len(theta), context)
	if len(dst) != n {
		panic(fmt.Sprintf("flow: Field.LogProbRows: dst has %d values for %d rows", len(dst), n))
	}
	// The state of row i is (θ_t, ℓ) at s = 1 − t, integrated from s = 0 (θ_1 = θ, ℓ = 0) to
	// s = 1: dθ/ds = −v(θ, 1 − s), dℓ/ds = −∇·v(θ, 1 − s), so that ℓ(1) = −∫₀¹ ∇·v dt.
	w := d + 1
	y := make([]float64, n*w)
	for i := 0; i < n; i++ {
		copy(y[i*w:i*w+d], theta[i*d:(i+1)*d])
	}
	ev := f.newEvaluator(n, context, true)
	tt := make([]float64, n)
	rhs := func(s, y, dy []float64) {
		for i, si := range s {
			tt[i] = 1 - si
		}
		ev.eval(tt, y, w, dy, w, dy[d:], w)
		for i := range dy {
			dy[i] = -dy[i]
		}
	}
	res, err := ode.SolveRows(rhs, n, w, 0, 1, y, f.cfg.odeConfig())
	if err != nil {
		return res.Calls, err
	}
	logNorm := -0.5 * float64(d) * math.Log(2*math.Pi)
	for i := 0; i < n; i++ {
		row := y[i*w : (i+1)*w]
		var sq float64
		for _, v := range row[:d] {
			sq += v * v
		}
		dst[i] = logNorm - 0.5*sq + row[d] // NaN for a failed row
	}
	return res.Calls, res.Err()
}

// checkRows returns the number of rows of a Rows call and panics on mismatched lengths.
func (f *Field) checkRows(what string, values int, context []float64) int {
	d, c := f.cfg.Features, f.cfg.Context
	n := values / d
	if values%d != 0 || c == 0 && len(context) != 0 || c > 0 && len(context) != c && len(context) != n*c {
		panic(fmt.Sprintf("flow: Field.%s: %d values of θ and %d of context, expected n×%d and n×%d (or one row of %d)", what, values, len(context), d, c, c))
	}
	return n
}

// Sample draws n samples of q(θ | context) (context: Context values, nil without context) on
// the calling goroutine and returns them as an n×Features matrix.
func (f *Field) Sample(rng *rand.Rand, n int, context []float64) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("flow: Field.Sample: n = %d, expected at least 1", n)
	}
	z := make([]float64, n*f.cfg.Features)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	if _, err := f.MapRows(z, context); err != nil {
		return nil, fmt.Errorf("flow: Field.Sample: %w", err)
	}
	return mat.NewDense(n, f.cfg.Features, z), nil
}

// LogProb returns log q(θ_i | context) for every row of theta, on the calling goroutine;
// rows whose ODE failed are NaN, and the error says so.
func (f *Field) LogProb(theta *mat.Dense, context []float64) ([]float64, error) {
	n, c := theta.Dims()
	if c != f.cfg.Features {
		panic(fmt.Sprintf("flow: Field.LogProb: θ has %d columns, expected %d", c, f.cfg.Features))
	}
	raw := make([]float64, 0, n*c)
	for i := 0; i < n; i++ {
		raw = append(raw, theta.RawRowView(i)...)
	}
	out := make([]float64, n)
	if _, err := f.LogProbRows(out, raw, context); err != nil {
		return out, fmt.Errorf("flow: Field.LogProb: %w", err)
	}
	return out, nil
}
