package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Remedy is a step Certify may take when a diagnosis fails.
type Remedy string

// The remedies, in the order DefaultRemedies applies them.
const (
	// RemedyRegularizer trains a fresh estimator from Config.New on the same training
	// simulations with the differentiable coverage regularizer of CalNPE/CalNRE
	// (calib.NewCoverageRegularizer; the two-sided objective, or the conservative one when the
	// target is Conservative). It needs Config.New (or the default NPE) and an estimator whose
	// Train accepts the regularizer; otherwise it is skipped and the certificate says why.
	RemedyRegularizer Remedy = "coverage regularizer"
	// RemedyConformal replaces the HPD regions of the best estimator so far by split-conformal
	// regions {θ : −log q(θ|x) ≤ τ_L}, one threshold per target level, calibrated on fresh
	// simulations (calib.NewConformal). Averaged over calibration sets their marginal coverage
	// is at least L whatever the estimator (at most L + 1/(n+1) with n calibration pairs); the
	// coverage of one calibration varies around it by about √(L(1−L)/n), so a check set of a
	// few hundred pairs may leave the final verdict undecided. It comes last, as the remedy that
	// does not depend on the estimator being good.
	RemedyConformal Remedy = "conformal regions"
)

// DefaultRemedies is the order of remedies when Config.Remedies is nil.
func DefaultRemedies() []Remedy { return []Remedy{RemedyRegularizer, RemedyConformal} }

// NoRemedies makes Certify judge the first estimator as it is.
func NoRemedies() []Remedy { return []Remedy{} }

// Config sets a certification. The zero value certifies a default NPE on 10,000 simulations at
// the levels DefaultLevels with tolerance ±0.05 and false-certification rate 0.05.
type Config struct {
	// Target is what is certified (levels, tolerance, false-certification rate, one- or
	// two-sided).
	Target Target

	// Simulations is the whole budget; 0 means 10,000. It is split, before anything runs, into
	// the training set, one check set per diagnosis or calibration (CheckSimulations each: one
	// to diagnose the first estimator, one per remedy) and one final test set (TestSimulations)
	// used once, for the verdict. Check sets a run does not need are not simulated.
	Simulations int
	// TestSimulations is the size of the final test set; 0 means a fifth of Simulations, at
	// least 500 (or what the budget allows).
	TestSimulations int
	// CheckSimulations is the size of each diagnosis and calibration set; 0 means a tenth of
	// Simulations, at least 300 (or what the budget allows).
	CheckSimulations int

	// New makes a fresh, untrained estimator; nil means sbi.NewNPE(prior, sbi.NPEConfig{}).
	New func() sbi.Estimator
	// Trained is an estimator trained elsewhere (any sbi.Amortized, e.g. a posterior made by
	// hand). Certify then trains nothing and skips the regularizer remedy; its training
	// simulations are not part of the budget. Certify draws its own check and test
	// simulations from streams of Seed, so the estimator has not seen them unless it was
	// trained on simulations drawn from those very streams.
	Trained sbi.Amortized
	// Train configures each training; its Seed is replaced by one derived from Seed, the same
	// for the first training and the regularized one, so that they differ by the regularizer.
	Train sbi.TrainConfig
	// Regularizer is the coverage regularizer's configuration; zero Lambda and Samples mean 5
	// and 16 (the values of Falkiewicz et al. 2023). Mixture is set from the target.
	Regularizer calib.CoverageRegularizerConfig

	// Remedies are tried in order while the diagnosis fails; nil means DefaultRemedies,
	// NoRemedies() means none.
	Remedies []Remedy

	// Samples is the number of posterior draws per test pair for the HPD ranks; 0 means 1000.
	Samples int
	// SBCSamples is the number of draws per test pair of the SBC and TARP shown beside the
	// verdict; 0 means 199, negative means neither.
	SBCSamples int
	// Misspecification configures the check of each observation; its Seed and Alpha come from
	// Seed and Target.Alpha when zero.
	Misspecification diag.MisspecConfig

	// Seed makes the run reproducible: every simulation set, training and diagnosis draws from a
	// stream derived from it.
	Seed uint64
}

// Step is one diagnosis or remedy of a run, as the certificate shows it.
type Step struct {
	Name        string        // "initial estimator", a Remedy, "final test"
	Simulations int           // simulations it used (drawn for it)
	Decision    *Decision     // the diagnosis after the step; nil when it made none
	Note        string        // what happened, e.g. why a remedy was skipped
	Elapsed     time.Duration // wall time of the step
	Coverage    *diag.CoverageResult
}

// Certify trains an estimator for prior and simulator (or takes Config.Trained), diagnoses its
// coverage on fresh simulations, applies the remedies of Config.Remedies in order while the
// diagnosis does not certify, and judges the chosen posterior once on a final test set that
// nothing else used. Each row of observations (nil for none) is checked against the simulator
// (diag.Misspecification); an observation that the check rejects is refused whatever the
// global verdict. The certificate holds the posterior, the verdict and every number behind it.
//
// It returns an error for bad input, a failed simulation run or training, or an interrupt
// (the host's context; CertifyContext takes one). A certificate that is not Certified is not an
// error.
func Certify(prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) (*Certificate, error) {
	return CertifyContext(runenv.Context(), prior, simulator, observations, cfg)
}

// MustCertify is Certify for notebook cells: it returns the certificate and panics with
// Certify's error.
func MustCertify(prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) *Certificate {
	return safe.Must(Certify(prior, simulator, observations, cfg))
}

// CertifyContext is Certify stopped by ctx instead of the host's context.
func CertifyContext(ctx context.Context, prior dist.Distribution, simulator sbi.Simulator, observations *mat.Dense, cfg Config) (*Certificate, error) {
	r, err := newRun(ctx, prior, simulator, observations, cfg)
	if err != nil {
		return nil, err
	}
	return r.certify()
}

// stream numbers of the random streams derived from Config.Seed.
const (
	streamTrainSims = iota + 1
	streamTestSims
	streamTrain
	streamDiag
	streamSBC
	streamTARP
	streamMisspec
	streamCheckSims = 100 // + index of the check set
)

type run struct {
	ctx      context.Context
	prior    dist.Distribution
	sim      sbi.Simulator
	obs      *mat.Dense
	cfg      Config
	plan     Budget
	checks   int             // check sets drawn so far
	trainSet *sbi.Simulation // nil with Config.Trained
	first    *sbi.Simulation // the first check set; nil without remedies
	cert     *Certificate
}

func (c Config) withDefaults() Config {
	c.Target = c.Target.withDefaults()
	if c.Simulations == 0 {
		c.Simulations = 10_000
	}
	if c.Remedies == nil {
		c.Remedies = DefaultRemedies()
	}
	if c.Samples == 0 {
		c.Samples = 1000
	}
	if c.SBCSamples == 0 {
		c.SBCSamples = 199
	}
	if c.Regularizer.Lambda == 0 {
		c.Regularizer.Lambda = 5
	}
	if c.Regularizer.Samples == 0 {
		c.Regularizer.Samples = 16
	}
	if c.Target.Conservative {
		c.Regularizer.Mixture = 0
	} else {
		c.Regularizer.Mixture = 1
	}
	if c.Misspecification.Alpha == 0 {
		c.Misspecification.Alpha = c.Target.Alpha
	}
	if c.Misspecification.Seed == 0 {
		c.Misspecification.Seed = seedOf(c.Seed, streamMisspec)
	}
	return c
}

// Budget is how a run splits its simulations, fixed before anything runs.
type Budget struct {
	Total     int // Config.Simulations
	Train     int // training simulations (0 with Config.Trained)
	Check     int // size of each check set
	CheckSets int // check sets reserved: one for the first diagnosis, one per remedy
	Test      int // the final test set
	Reference int // simulations drawn only as the misspecification check's reference (see Certify)
	Used      int // simulations drawn by the end of the run
	Dropped   int // simulations that failed (NaN or ±Inf) and were left out
}

func plan(cfg Config, trained, observations bool) (Budget, error) {
	b := Budget{Total: cfg.Simulations}
	if b.Total < 0 || cfg.TestSimulations < 0 || cfg.CheckSimulations < 0 {
		return b, fmt.Errorf("certify: simulation counts must be ≥ 0, got Simulations %d, TestSimulations %d, CheckSimulations %d",
			cfg.Simulations, cfg.TestSimulations, cfg.CheckSimulations)
	}
	b.Test = cfg.TestSimulations
	if b.Test == 0 {
		b.Test = max(b.Total/5, min(500, b.Total/2))
	}
	b.Check = cfg.CheckSimulations
	if b.Check == 0 {
		b.Check = max(b.Total/10, min(300, b.Total/6))
	}
	if len(cfg.Remedies) > 0 {
		b.CheckSets = 1 + len(cfg.Remedies)
		if trained {
			b.CheckSets = 1 + countConformal(cfg.Remedies)
		}
	}
	if trained && observations && b.CheckSets == 0 {
		// No training set and no check set to compare the observations with: reserve one.
		b.Reference = b.Check
	}
	if !trained {
		b.Train = b.Total - b.Test - b.CheckSets*b.Check
	}
	need := b.Test + b.CheckSets*b.Check + b.Train + b.Reference
	if b.Train < 0 || (!trained && b.Train < 100) || need > b.Total {
		return b, fmt.Errorf("certify: a budget of %d simulations cannot hold a test set of %d, %d check sets of %d, %d reference simulations and at least 100 training simulations; raise Simulations or lower TestSimulations/CheckSimulations",
			b.Total, b.Test, b.CheckSets, b.Check, b.Reference)
	}
	return b, nil
}

func countConformal(rs []Remedy) int {
	n := 0
	for _, r := range rs {
		if r == RemedyConformal {
			n++
		}
	}
	return n
}

func newRun(ctx context.Context, prior dist.Distribution, sim sbi.Simulator, obs *mat.Dense, cfg Config) (*run, error) {
	if prior == nil || sim == nil {
		return nil, errors.New("certify: a prior and a simulator are required")
	}
	cfg = cfg.withDefaults()
	if err := cfg.Target.check(); err != nil {
		return nil, err
	}
	for _, r := range cfg.Remedies {
		if r != RemedyRegularizer && r != RemedyConformal {
			return nil, fmt.Errorf("certify: unknown remedy %q; use RemedyRegularizer or RemedyConformal", r)
		}
	}
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("certify: Samples must be ≥ 1 (0 means 1000), got %d", cfg.Samples)
	}
	if obs != nil {
		if _, c := obs.Dims(); c != sim.DataDim() {
			return nil, fmt.Errorf("certify: observations have %d columns but the simulator produces %d values; give one observation per row", c, sim.DataDim())
		}
	}
	if t, ok := cfg.Trained.(interface{ Trained() bool }); ok && !t.Trained() {
		return nil, fmt.Errorf("certify: Config.Trained is an untrained estimator; train it first or give Config.New instead: %w", sbi.ErrUntrained)
	}
	b, err := plan(cfg, cfg.Trained != nil, obs != nil)
	if err != nil {
		return nil, err
	}
	if cfg.Trained == nil && cfg.New == nil {
		cfg.New = func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{}) }
	}
	return &run{ctx: ctx, prior: prior, sim: sim, obs: obs, cfg: cfg, plan: b}, nil
}

func seedOf(seed uint64, stream uint64) uint64 {
	// SplitMix64 of seed and stream: distinct, well-mixed seeds for the sub-streams.
	z := seed + stream*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// simulate draws n parameters from the prior and simulates them on stream.
func (r *run) simulate(n int, stream uint64) (*sbi.Simulation, error) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, stream))
	theta := r.prior.Sample(rng, n)
	s, err := sbi.SimulateBatchContext(r.ctx, rng, r.sim, theta)
	if err != nil {
		return nil, fmt.Errorf("certify: simulating %d pairs: %w", n, err)
	}
	r.plan.Used += n
	r.plan.Dropped += s.Dropped
	if s.Theta == nil || s.Theta.RawMatrix().Rows == 0 {
		return nil, fmt.Errorf("certify: all %d simulations failed (NaN or ±Inf)", n)
	}
	return s, nil
}

func (r *run) nextCheckSet() (*sbi.Simulation, error) {
	if r.checks >= r.plan.CheckSets {
		return nil, nil
	}
	r.checks++
	return r.simulate(r.plan.Check, streamCheckSims+uint64(r.checks))
}

func (r *run) diagnose(est sbi.Amortized, s *sbi.Simulation, stream uint64) (*diag.CoverageResult, *Decision, error) {
	cov, err := diag.RankCoverageContext(r.ctx, est, s.Theta, s.X, diag.RankConfig{
		Levels: r.cfg.Target.Levels, Samples: r.cfg.Samples, Seed: seedOf(r.cfg.Seed, stream)})
	if err != nil {
		return nil, nil, fmt.Errorf("certify: coverage: %w", err)
	}
	d, err := Decide(cov, r.cfg.Target)
	if err != nil {
		return nil, nil, err
	}
	return cov, d, nil
}

// candidate is a posterior the run may choose: an estimator and, after the conformal remedy,
// its per-level thresholds.
type candidate struct {
	name      string
	est       sbi.Amortized
	conformal []*calib.Conformal
	calTheta  *mat.Dense // the conformal calibration pairs
	calX      *mat.Dense
	decision  *Decision // on its check set; nil for conformal (guaranteed by construction)
}

// worst is the largest |coverage − level| of a candidate's diagnosis (0 for none).
func (c *candidate) worst() float64 {
	if c.decision == nil {
		return 0
	}
	w := 0.0
	for _, l := range c.decision.Checks {
		w = max(w, math.Abs(l.Coverage-l.Level))
	}
	return w
}

func (r *run) certify() (*Certificate, error) {
	start := time.Now()
	r.cert = &Certificate{Target: r.cfg.Target, Seed: r.cfg.Seed, Remedies: append([]Remedy(nil), r.cfg.Remedies...)}
	best, err := r.initial()
	if err != nil {
		return nil, err
	}
	for _, rem := range r.cfg.Remedies {
		if best.decision != nil && best.decision.Verdict == Certified {
			break
		}
		var next *candidate
		switch rem {
		case RemedyRegularizer:
			next, err = r.regularize(best)
		case RemedyConformal:
			next, err = r.conformalize(best)
		}
		if err != nil {
			return nil, err
		}
		r.cert.Tried++
		if next != nil && (next.decision == nil || best.decision == nil || next.worst() < best.worst()) {
			best = next
		}
	}
	if err := r.final(best); err != nil {
		return nil, err
	}
	if err := r.observations(); err != nil {
		return nil, err
	}
	r.cert.Budget = r.plan
	r.cert.Elapsed = time.Since(start)
	r.cert.Versions = versions()
	return r.cert, nil
}

func (r *run) initial() (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: "initial estimator"}
	c := &candidate{name: "initial estimator", est: r.cfg.Trained}
	if c.est == nil {
		s, err := r.simulate(r.plan.Train, streamTrainSims)
		if err != nil {
			return nil, err
		}
		r.trainSet = s
		est := r.cfg.New()
		tc := r.cfg.Train
		tc.Seed = seedOf(r.cfg.Seed, streamTrain)
		if _, err := est.TrainContext(r.ctx, s.Theta, s.X, tc); err != nil {
			return nil, fmt.Errorf("certify: training the initial estimator: %w", err)
		}
		c.est = est
		step.Simulations = r.plan.Train
		step.Note = fmt.Sprintf("trained %s on %d simulations", est, s.Theta.RawMatrix().Rows)
	} else {
		step.Note = "estimator given (Config.Trained); not trained here"
	}
	if len(r.cfg.Remedies) > 0 {
		s, err := r.nextCheckSet()
		if err != nil {
			return nil, err
		}
		r.first = s
		cov, d, err := r.diagnose(c.est, s, streamDiag)
		if err != nil {
			return nil, err
		}
		c.decision, step.Decision, step.Coverage = d, d, cov
		step.Simulations += r.plan.Check
		r.cert.Before = cov
	}
	step.Elapsed = time.Since(t0)
	r.cert.Steps = append(r.cert.Steps, step)
	return c, nil
}

func (r *run) regularize(best *candidate) (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: string(RemedyRegularizer)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	if r.cfg.New == nil || r.trainSet == nil {
		step.Note = "skipped: the estimator was given trained (Config.Trained), so there is nothing to retrain"
		return nil, nil
	}
	est := r.cfg.New()
	tc := r.cfg.Train
	tc.Seed = seedOf(r.cfg.Seed, streamTrain)
	tc.Regularizer = calib.NewCoverageRegularizer(r.cfg.Regularizer)
	if _, err := est.TrainContext(r.ctx, r.trainSet.Theta, r.trainSet.X, tc); err != nil {
		if r.ctx.Err() != nil {
			return nil, fmt.Errorf("certify: training with the coverage regularizer: %w", err)
		}
		step.Note = fmt.Sprintf("skipped: %s cannot be trained with the coverage regularizer: %v", est, err)
		return nil, nil
	}
	s, err := r.nextCheckSet()
	if err != nil {
		return nil, err
	}
	if s == nil {
		step.Note = "skipped: no check set left in the budget to diagnose the retrained estimator"
		return nil, nil
	}
	cov, d, err := r.diagnose(est, s, streamDiag+1)
	if err != nil {
		return nil, err
	}
	step.Decision, step.Coverage, step.Simulations = d, cov, r.plan.Check
	step.Note = fmt.Sprintf("retrained on the same %d training simulations with λ = %g, %d draws per pair, mixture %g",
		r.trainSet.Theta.RawMatrix().Rows, r.cfg.Regularizer.Lambda, r.cfg.Regularizer.Samples, r.cfg.Regularizer.Mixture)
	return &candidate{name: "regularized estimator", est: est, decision: d}, nil
}

func (r *run) conformalize(best *candidate) (*candidate, error) {
	t0 := time.Now()
	step := Step{Name: string(RemedyConformal)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	s, err := r.nextCheckSet()
	if err != nil {
		return nil, err
	}
	if s == nil {
		step.Note = "skipped: no calibration set left in the budget"
		return nil, nil
	}
	levels := r.cfg.Target.Levels
	confs, err := conformalAt(best.est, s.Theta, s.X, levels)
	if err != nil {
		return nil, err
	}
	base := confs[0]
	for i, l := range levels {
		if math.IsInf(confs[i].Threshold, 1) {
			step.Note = fmt.Sprintf("skipped: %d calibration pairs are too few for a finite region at level %.3g", base.N, l)
			return nil, nil
		}
	}
	step.Simulations = r.plan.Check
	step.Note = fmt.Sprintf("regions of the %s calibrated on %d fresh pairs: over calibration sets their coverage is at least L and at most L + %.4f on average; a given calibration's coverage varies by about ±%.3f (at level 0.5)",
		best.name, base.N, 1/float64(base.N+1), math.Sqrt(0.25/float64(base.N)))
	return &candidate{name: best.name + " + conformal regions", est: best.est, conformal: confs, calTheta: s.Theta, calX: s.X}, nil
}

func (r *run) final(c *candidate) error {
	t0 := time.Now()
	s, err := r.simulate(r.plan.Test, streamTestSims)
	if err != nil {
		return err
	}
	var cov *diag.CoverageResult
	if c.conformal == nil {
		cov, _, err = r.diagnose(c.est, s, streamDiag+100)
		if err != nil {
			return err
		}
	} else {
		scores := calib.ConformalScores(c.est, s.Theta, s.X)
		th := make([]float64, len(c.conformal))
		for i, cf := range c.conformal {
			th[i] = cf.Threshold
		}
		cov, err = diag.RegionCoverage(scores, th, r.cfg.Target.Levels)
		if err != nil {
			return fmt.Errorf("certify: coverage of the conformal regions: %w", err)
		}
	}
	cov.Label = c.name
	d, err := Decide(cov, r.cfg.Target)
	if err != nil {
		return err
	}
	r.cert.Chosen = c.name
	r.cert.Estimator = c.est
	r.cert.Conformal, r.cert.calTheta, r.cert.calX = c.conformal, c.calTheta, c.calX
	r.cert.Final, r.cert.After = d, cov
	if r.cfg.SBCSamples > 0 {
		sbc, err := diag.SBCContext(r.ctx, c.est, s.Theta, s.X, diag.RankConfig{Samples: r.cfg.SBCSamples, Seed: seedOf(r.cfg.Seed, streamSBC)})
		if err != nil {
			return fmt.Errorf("certify: SBC: %w", err)
		}
		r.cert.SBC = sbc
		tarp, err := diag.TARPContext(r.ctx, c.est, s.Theta, s.X, diag.RankConfig{Samples: r.cfg.SBCSamples, Seed: seedOf(r.cfg.Seed, streamTARP)})
		if err != nil {
			return fmt.Errorf("certify: TARP: %w", err)
		}
		r.cert.TARP = tarp
	}
	r.cert.Steps = append(r.cert.Steps, Step{Name: "final test", Simulations: r.plan.Test, Decision: d, Coverage: cov,
		Elapsed: time.Since(t0), Note: fmt.Sprintf("the %s judged once on %d fresh pairs", c.name, s.Theta.RawMatrix().Rows)})
	return nil
}

func (r *run) observations() error {
	if r.obs == nil {
		return nil
	}
	// The reference: the training simulations, which the estimator saw; else the first check
	// set; else a set reserved for it. Never the final test set.
	ref := r.trainSet
	if ref == nil {
		ref = r.first
	}
	if ref == nil {
		var err error
		ref, err = r.simulate(r.plan.Reference, streamMisspec)
		if err != nil {
			return err
		}
	}
	n, _ := r.obs.Dims()
	for i := range n {
		xo := mat.Row(nil, i, r.obs)
		o := ObservationCheck{X: xo}
		m, err := diag.Misspecification(r.cert.Estimator, ref.X, xo, r.cfg.Misspecification)
		switch {
		case err != nil:
			o.Verdict, o.Reason = Inconclusive, fmt.Sprintf("the misspecification check could not run: %v", err)
		case m.Reject():
			o.Misspec = m
			o.Verdict, o.Reason = NotCertified, fmt.Sprintf("refused: the simulator does not produce data like this observation (MMD² = %.3g, p = %.3g < %.3g on %d reference and %d calibration simulations); the posterior there is an extrapolation",
				m.Statistic, m.PValue, m.Alpha, m.Reference, m.Calibration)
		default:
			o.Misspec = m
			o.Verdict = r.cert.Final.Verdict
			o.Reason = fmt.Sprintf("the misspecification check does not reject it (p = %.3g ≥ %.3g); the global verdict applies: %s", m.PValue, m.Alpha, r.cert.Final.Verdict)
		}
		r.cert.Observations = append(r.cert.Observations, o)
	}
	return nil
}

func versions() string {
	v := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gosbi/gosbi" {
				return "gosbi " + d.Version + ", " + v
			}
		}
		if bi.Main.Path == "github.com/gosbi/gosbi" {
			return "gosbi " + bi.Main.Version + ", " + v
		}
	}
	return v
}
