package variational

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/nn"
)

// Objective is the training objective of a variational posterior.
type Objective int

const (
	// FAVI is the forward KL on freshly simulated pairs, −E[log q(θ | x)] (NPE's loss).
	FAVI Objective = iota
	// ELBO is the evidence lower bound, maximized with the reparameterized gradient.
	ELBO
	// IWBO is the importance-weighted bound with Config.Particles particles.
	IWBO
)

func (o Objective) String() string {
	switch o {
	case ELBO:
		return "ELBO"
	case IWBO:
		return "IWBO"
	case FAVI:
		return "FAVI"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// Model is what training needs of a task: its prior and its simulator (every task.Task is one).
type Model interface {
	Prior() dist.Distribution
	DataDim() int
	// SimulateBatch writes the simulation for row i of theta into row i of x.
	SimulateBatch(rng *rand.Rand, theta, x *mat.Dense)
}

// Likelihood is a model whose log-likelihood can be recorded on a tape, as the ELBO and IWBO
// need: LogLikelihoodTape returns the n×1 column log p(xᵢ | θᵢ) for the rows of theta (n×d) and
// x (n×DataDim), differentiable in theta (task.ARCH has it).
type Likelihood interface {
	LogLikelihoodTape(tp *nn.Tape, theta, x *nn.Tensor) *nn.Tensor
}

// PriorTape is a model that records its prior's log density itself, for priors that have no
// tape form here (anything but BoxUniform, Normal and Independent products of them).
type PriorTape interface {
	LogPriorTape(tp *nn.Tape, theta *nn.Tensor) *nn.Tensor
}

// Config sets the training. The zero value is the default of every field.
type Config struct {
	Objective Objective
	Particles int   // K of the IWBO; default 10 (as for CANVI's ARCH)
	Hidden    []int // hidden widths of the MLP; nil means {64, 64}, an empty non-nil slice none
	// Diagonal restricts the covariance to a diagonal (mean-field) one.
	Diagonal     bool
	Steps        int     // optimizer steps; default 5000
	BatchSize    int     // observations per step; default 64
	LearningRate float64 // Adam's step size; default 1e-3
	// Observations is the size of the fixed set of simulated observations the ELBO and IWBO
	// are trained on, as in the authors' code for ARCH; default 1000. Fresh draws new ones at
	// every step instead. FAVI always simulates fresh pairs.
	Observations int
	Fresh        bool
	ClipGrad     float64 // bound on the gradient norm; default 10, negative for none
	Seed         uint64  // seed of the network's initialization, the simulations and the noise
}

func (c Config) withDefaults() Config {
	if c.Particles <= 0 {
		c.Particles = 10
	}
	if c.Hidden == nil {
		c.Hidden = []int{64, 64}
	}
	if c.Steps <= 0 {
		c.Steps = 5000
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 64
	}
	if c.LearningRate == 0 {
		c.LearningRate = 1e-3
	}
	if c.Observations <= 0 {
		c.Observations = 1000
	}
	if c.ClipGrad == 0 {
		c.ClipGrad = 10
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Objective < FAVI || c.Objective > IWBO {
		errs = append(errs, fmt.Errorf("variational: unknown objective %d; use FAVI, ELBO or IWBO", int(c.Objective)))
	}
	for _, h := range c.Hidden {
		if h < 1 {
			errs = append(errs, fmt.Errorf("variational: hidden widths %v, want all ≥ 1", c.Hidden))
			break
		}
	}
	if !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0) {
		errs = append(errs, fmt.Errorf("variational: learning rate %v, want a finite value > 0", c.LearningRate))
	}
	return errors.Join(errs...)
}

// Train fits an amortized Gaussian posterior to model with cfg.Objective (see the package
// documentation). The ELBO and IWBO need model to be a Likelihood. It returns an error for a
// bad setting, a model without what the objective needs, a simulator that keeps returning
// non-finite observations, a loss that stays non-finite, or an interrupt (the host's
// context). An interrupted training keeps nothing (the result is nil); its progress bar's last
// line says after how many steps it stopped.
func Train(model Model, cfg Config) (*Gaussian, error) {
	return TrainContext(runenv.Context(), model, cfg)
}

// MustTrain is Train for notebook cells: it panics with the error.
func MustTrain(model Model, cfg Config) *Gaussian {
	g, err := Train(model, cfg)
	if err != nil {
		panic(err)
	}
	return g
}

// TrainContext is Train stopped by ctx instead of the host's context.
func TrainContext(ctx context.Context, model Model, cfg Config) (*Gaussian, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if model == nil {
		return nil, errors.New("variational: Train needs a model")
	}
	prior := model.Prior()
	d := prior.Dim()
	tr := &trainer{model: model, cfg: cfg, d: d, prior: prior, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed))}
	if cfg.Objective != FAVI {
		lik, ok := model.(Likelihood)
		if !ok {
			return nil, fmt.Errorf("variational: the %v needs log p(x | θ) on a tape, but the model (%T) has no LogLikelihoodTape method; train it with FAVI, which needs only the simulator", cfg.Objective, model)
		}
		tr.lik = lik
		pt, err := priorTape(model, prior)
		if err != nil {
			return nil, err
		}
		tr.logPrior = pt
	}
	g := &Gaussian{Objective: cfg.Objective, Config: cfg, prior: prior, smap: dist.Unconstrain(prior), d: d, diagonal: cfg.Diagonal}
	g.identity = g.smap.Identity()
	sizes := append(append([]int{model.DataDim()}, cfg.Hidden...), outputs(d, cfg.Diagonal))
	g.net = nn.NewMLP(tr.rng, sizes, nn.ReLU)
	tr.g = g
	if err := tr.prepareData(); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := tr.run(ctx); err != nil {
		return nil, err
	}
	g.Duration = time.Since(start)
	return g, nil
}

// trainer holds the state of one training run.
type trainer struct {
	model    Model
	lik      Likelihood
	logPrior func(tp *nn.Tape, theta *nn.Tensor) *nn.Tensor // nil when constant
	cfg      Config
	prior    dist.Distribution
	d        int
	rng      *rand.Rand
	g        *Gaussian

	xSet, xSetZ *mat.Dense // ELBO/IWBO: the fixed observations, raw and standardized
}

// simulate draws n pairs from prior × simulator whose observations are finite, redrawing the
// others up to 10 times.
func (tr *trainer) simulate(n int) (*mat.Dense, *mat.Dense, error) {
	theta := tr.prior.Sample(tr.rng, n)
	x := mat.NewDense(n, tr.model.DataDim(), nil)
	tr.model.SimulateBatch(tr.rng, theta, x)
	for i := range n {
		for try := 0; !finite(x.RawRowView(i)); try++ {
			if try == 10 {
				return nil, nil, fmt.Errorf("variational: the simulator returned a non-finite observation 10 times in a row at θ = %v", theta.RawRowView(i))
			}
			t := tr.prior.Sample(tr.rng, 1)
			xi := mat.NewDense(1, x.RawMatrix().Cols, nil)
			tr.model.SimulateBatch(tr.rng, t, xi)
			theta.SetRow(i, t.RawRowView(0))
			x.SetRow(i, xi.RawRowView(0))
		}
	}
	return theta, x, nil
}

// prepareData fixes the standardization of the observations (from 1000 simulations, or from
// the fixed training set) and simulates that set for the ELBO and IWBO.
func (tr *trainer) prepareData() error {
	n := 1000
	if tr.cfg.Objective != FAVI && !tr.cfg.Fresh {
		n = tr.cfg.Observations
	}
	_, x, err := tr.simulate(n)
	if err != nil {
		return err
	}
	c := tr.model.DataDim()
	g := tr.g
	cols, err := colstat.Fit(x, nil, 0)
	if err != nil {
		return fmt.Errorf("variational: standardizing the simulated x: %w", err)
	}
	g.xMean, g.xStd = make([]float64, c), make([]float64, c)
	for j, col := range cols {
		g.xMean[j], g.xStd[j] = col.Mean, col.Scale()
	}
	if tr.cfg.Objective != FAVI && !tr.cfg.Fresh {
		tr.xSet, tr.xSetZ = x, g.standardize(x)
	}
	return nil
}

func (g *Gaussian) standardize(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	z := mat.NewDense(n, c, nil)
	for i := range n {
		row, src := z.RawRowView(i), x.RawRowView(i)
		for j := range c {
			row[j] = colstat.Standardize(src[j], g.xMean[j], g.xStd[j])
		}
	}
	return z
}

// run is the optimization loop.
func (tr *trainer) run(ctx context.Context) error {
	cfg, g := tr.cfg, tr.g
	tp := nn.NewTape()
	opt := nn.NewAdam(g.net.Params(), cfg.LearningRate)
	progress := sbi.NewProgress(fmt.Sprintf("variational training (%v)", cfg.Objective), cfg.Steps)
	defer progress.Finish()
	stretch := max(1, cfg.Steps/100)
	var sum float64
	var count, bad int
	idx := make([]int, cfg.BatchSize)
	for step := 0; step < cfg.Steps; step++ {
		if err := ctx.Err(); err != nil {
			// TrainContext returns only the error: a cell whose MustTrain an interrupt stopped
			// shows this line, not the error.
			progress.Set(step, cancel.Note(step, cfg.Steps, "steps", cancel.NothingKept))
			return fmt.Errorf("variational training interrupted at step %d: %w", step, err)
		}
		loss, err := tr.loss(tp, idx)
		if err != nil {
			return err
		}
		v := loss.Item()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad++
			if bad > 100 {
				return fmt.Errorf("variational: the %v loss was non-finite at 100 steps (last at step %d); lower LearningRate or check the likelihood", cfg.Objective, step)
			}
			tp.Reset()
			continue
		}
		tp.Backward(loss)
		if cfg.ClipGrad > 0 {
			nn.ClipGradNorm(opt.Params(), cfg.ClipGrad)
		}
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
		sum += v
		count++
		if (step+1)%stretch == 0 || step+1 == cfg.Steps {
			if count > 0 {
				g.Losses = append(g.Losses, sum/float64(count))
			}
			sum, count = 0, 0
		}
		progress.Add(1)
	}
	return nil
}

// loss records one step's loss on tp.
func (tr *trainer) loss(tp *nn.Tape, idx []int) (*nn.Tensor, error) {
	cfg, g, d := tr.cfg, tr.g, tr.d
	B := cfg.BatchSize
	if cfg.Objective == FAVI {
		theta, x, err := tr.simulate(B)
		if err != nil {
			return nil, err
		}
		u := mat.NewDense(B, d, nil)
		for i := range B {
			if !g.smap.Inverse(theta.RawRowView(i), u.RawRowView(i)) && !g.identity {
				return nil, fmt.Errorf("variational: the prior drew θ = %v on the boundary of its support", theta.RawRowView(i))
			}
		}
		out := g.net.Forward(tp, tp.FromDense(g.standardize(x)))
		return tp.Neg(tp.Mean(tr.logQ(tp, out, tp.FromDense(u)))), nil
	}
	var xRaw, xZ *nn.Tensor
	if cfg.Fresh {
		_, x, err := tr.simulate(B)
		if err != nil {
			return nil, err
		}
		xRaw, xZ = tp.FromDense(x), tp.FromDense(g.standardize(x))
	} else {
		n, _ := tr.xSet.Dims()
		for i := range idx {
			idx[i] = tr.rng.IntN(n)
		}
		xRaw, xZ = tp.Gather(tr.xSet, idx), tp.Gather(tr.xSetZ, idx)
	}
	K := 1
	if cfg.Objective == IWBO {
		K = cfg.Particles
	}
	out := g.net.Forward(tp, xZ)
	if K > 1 {
		out = tp.RepeatRows(out, K)
		xRaw = tp.RepeatRows(xRaw, K)
	}
	// Reparameterized draws u = μ + Lε; log q(u | x) = −Σ log Lⱼⱼ − ½‖ε‖² − (d/2) log 2π.
	eps := make([]float64, B*K*d)
	for i := range eps {
		eps[i] = tr.rng.NormFloat64()
	}
	e := tp.Const(B*K, d, eps)
	u := tr.reparameterize(tp, out, e)
	theta, logJac := tr.toTheta(tp, u)
	logW := tr.lik.LogLikelihoodTape(tp, theta, xRaw)
	if logW.Rows != B*K || logW.Cols != 1 {
		return nil, fmt.Errorf("variational: LogLikelihoodTape returned %d×%d for %d rows, want %d×1", logW.Rows, logW.Cols, B*K, B*K)
	}
	if tr.logPrior != nil {
		logW = tp.Add(logW, tr.logPrior(tp, theta))
	}
	if logJac != nil {
		logW = tp.Add(logW, logJac)
	}
	// − log q(u): + Σ log Lⱼⱼ + ½‖ε‖² + (d/2) log 2π per row.
	logW = tp.Add(logW, tp.RowSum(tp.Columns(out, d, 2*d)))
	eSq := tp.Scale(tp.RowSum(tp.Square(e)), 0.5)
	logW = tp.AddScalar(tp.Add(logW, eSq), 0.5*float64(d)*math.Log(2*math.Pi))
	if K == 1 {
		return tp.Neg(tp.Mean(logW)), nil
	}
	bound := tp.AddScalar(tp.LogSumExp(tp.Reshape(logW, B, K)), -math.Log(float64(K)))
	return tp.Neg(tp.Mean(bound)), nil
}

// column returns column j of a as an n×1 tensor.
func column(tp *nn.Tape, a *nn.Tensor, j int) *nn.Tensor { return tp.Columns(a, j, j+1) }

// concatColumns joins n×1 columns into one tensor.
func concatColumns(tp *nn.Tape, cols []*nn.Tensor) *nn.Tensor {
	out := cols[0]
	for _, c := range cols[1:] {
		out = tp.Concat(out, c)
	}
	return out
}

// reparameterize records u = μ + Lε for the network outputs out (n×P) and constant ε (n×d).
func (tr *trainer) reparameterize(tp *nn.Tape, out, eps *nn.Tensor) *nn.Tensor {
	d := tr.d
	cols := make([]*nn.Tensor, d)
	diag := tp.Exp(tp.Columns(out, d, 2*d))
	for j := range d {
		uj := tp.Add(column(tp, out, j), tp.Mul(column(tp, diag, j), column(tp, eps, j)))
		if !tr.cfg.Diagonal {
			for k := range j {
				uj = tp.Add(uj, tp.Mul(column(tp, out, offIndex(d, j, k)), column(tp, eps, k)))
			}
		}
		cols[j] = uj
	}
	return concatColumns(tp, cols)
}

// logQ records log N(u; μ, LLᵀ) per row for constant u (n×d): forward substitution
// εⱼ = (uⱼ − μⱼ − Σ_{k<j} Lⱼₖεₖ)/Lⱼⱼ.
func (tr *trainer) logQ(tp *nn.Tape, out, u *nn.Tensor) *nn.Tensor {
	d := tr.d
	logDiag := tp.Columns(out, d, 2*d)
	diag := tp.Exp(logDiag)
	eps := make([]*nn.Tensor, d)
	var sq *nn.Tensor
	for j := range d {
		r := tp.Sub(column(tp, u, j), column(tp, out, j))
		if !tr.cfg.Diagonal {
			for k := range j {
				r = tp.Sub(r, tp.Mul(column(tp, out, offIndex(d, j, k)), eps[k]))
			}
		}
		eps[j] = tp.Div(r, column(tp, diag, j))
		s := tp.Square(eps[j])
		if sq == nil {
			sq = s
		} else {
			sq = tp.Add(sq, s)
		}
	}
	lp := tp.Neg(tp.Add(tp.RowSum(logDiag), tp.Scale(sq, 0.5)))
	return tp.AddScalar(lp, -0.5*float64(d)*math.Log(2*math.Pi))
}

// toTheta records θ = f(u) and log|det ∂f/∂u| (nil for the identity) coordinate by coordinate
// (see dist.SupportMap).
func (tr *trainer) toTheta(tp *nn.Tape, u *nn.Tensor) (*nn.Tensor, *nn.Tensor) {
	g := tr.g
	if g.identity {
		return u, nil
	}
	cols := make([]*nn.Tensor, tr.d)
	var logJac *nn.Tensor
	for j := range tr.d {
		uj := column(tp, u, j)
		lo, hi := g.smap.Low[j], g.smap.High[j]
		var lj *nn.Tensor
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			cols[j] = tp.AddScalar(tp.Scale(tp.Sigmoid(uj), hi-lo), lo)
			lj = tp.AddScalar(tp.Add(tp.LogSigmoid(uj), tp.LogSigmoid(tp.Neg(uj))), mathx.Log(hi-lo))
		case !math.IsInf(lo, 0):
			cols[j] = tp.AddScalar(tp.Exp(uj), lo)
			lj = uj
		case !math.IsInf(hi, 0):
			cols[j] = tp.AddScalar(tp.Neg(tp.Exp(tp.Neg(uj))), hi)
			lj = tp.Neg(uj)
		default:
			cols[j] = uj
		}
		if lj != nil {
			if logJac == nil {
				logJac = lj
			} else {
				logJac = tp.Add(logJac, lj)
			}
		}
	}
	return concatColumns(tp, cols), logJac
}

// priorTape returns the prior's log density as a tape function of θ (n×d → n×1), nil when it is
// constant on the support (BoxUniform), or an error for a prior it cannot record.
func priorTape(model Model, prior dist.Distribution) (func(tp *nn.Tape, theta *nn.Tensor) *nn.Tensor, error) {
	if pt, ok := model.(PriorTape); ok {
		return pt.LogPriorTape, nil
	}
	type part struct {
		from, to int
		f        func(tp *nn.Tape, theta *nn.Tensor) *nn.Tensor
	}
	var parts []part
	var add func(p dist.Distribution, from int) error
	add = func(p dist.Distribution, from int) error {
		switch p := p.(type) {
		case *dist.BoxUniform:
			return nil // constant inside the support, where θ = f(u) always lies
		case *dist.Normal:
			mean, std := p.Mean(), p.Std()
			var c float64
			for _, s := range std {
				c -= mathx.Log(s) + 0.5*math.Log(2*math.Pi)
			}
			parts = append(parts, part{from, from + p.Dim(), func(tp *nn.Tape, th *nn.Tensor) *nn.Tensor {
				z := tp.Div(tp.Sub(th, tp.Const(1, len(mean), mean)), tp.Const(1, len(std), std))
				return tp.AddScalar(tp.Scale(tp.RowSum(tp.Square(z)), -0.5), c)
			}})
			return nil
		case *dist.Independent:
			at := from
			for _, q := range p.Parts() {
				if err := add(q, at); err != nil {
					return err
				}
				at += q.Dim()
			}
			return nil
		}
		return fmt.Errorf("variational: the ELBO and IWBO need log p(θ) on a tape, which is recorded for BoxUniform and Normal priors and Independent products of them, not for %T; give the model a LogPriorTape method", p)
	}
	if err := add(prior, 0); err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, nil
	}
	d := prior.Dim()
	return func(tp *nn.Tape, theta *nn.Tensor) *nn.Tensor {
		var sum *nn.Tensor
		for _, p := range parts {
			th := theta
			if p.from != 0 || p.to != d {
				th = tp.Columns(theta, p.from, p.to)
			}
			v := p.f(tp, th)
			if sum == nil {
				sum = v
			} else {
				sum = tp.Add(sum, v)
			}
		}
		return sum
	}, nil
}

func finite(v []float64) bool {
	for _, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return false
		}
	}
	return true
}
