package certify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/internal/draw"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Claim says what an observation's verdict is about.
type Claim string

// The claims of an observation's verdict.
const (
	// ClaimMarginal: the global verdict, about the expected coverage over the prior
	// predictive, applies at the observation (which the misspecification check and, where
	// it ran, the local test did not reject).
	ClaimMarginal Claim = "marginal"
	// ClaimLocal: the posterior at the observation was score-calibrated, and the verdict is
	// that of its own test: the expected coverage of the adjusted posterior over pairs
	// θ ~ π̄, x ~ p(x | θ), where π̄ is the estimator's posterior at the observation inflated
	// about its mean (the importance distribution of the calibration). That is coverage near
	// the observation, for the prior π̄; it is neither the marginal claim nor coverage
	// conditional on the observation itself.
	ClaimLocal Claim = "local (score-calibrated)"
)

// ScoreCalibrated is the score calibration of the posterior at one observation and the test
// that judges it.
type ScoreCalibrated struct {
	Map       AffineMap
	Datasets  int     // calibration datasets fitted (M less those dropped)
	Dropped   int     // calibration datasets dropped (non-finite simulations)
	Inflation float64 // of the importance distribution π̄ about the posterior mean
	// Draws is the number of draws of the estimator's posterior whose mean centres the map
	// at each x (calib.ScoreCalConfig.N); CentreSeed seeds them (with a hash of x).
	Draws      int
	CentreSeed uint64
	// Decision and Coverage are the test of the adjusted posterior on Coverage.N fresh pairs
	// from π̄ (see ClaimLocal); Before is the unadjusted estimator's coverage on the same pairs.
	Decision *Decision
	Coverage *diag.CoverageResult
	Before   *diag.CoverageResult
	// Local is the local test (L-C2ST) of the adjusted estimator at the observation, on the
	// same held-out calibration set as the estimator's; nil when the local test is off.
	Local *diag.LC2STResult
}

// AffineMap is the fitted map f(θ) = L(θ − μ̂) + μ̂ + b(μ̂) of score calibration, with μ̂ the
// mean of the estimator's posterior draws and b(μ̂) = B + Slope·(μ̂ − Centre) (Slope nil: b = B).
type AffineMap struct {
	Dim    int
	L      []float64 // Dim×Dim lower triangular, row-major, positive diagonal
	B      []float64
	Slope  []float64 `json:",omitempty"` // Dim×Dim row-major, or nil
	Centre []float64 `json:",omitempty"`
}

func affineMapOf(sc *calib.ScoreCalibration) AffineMap {
	d := len(sc.B)
	m := AffineMap{Dim: d, L: make([]float64, d*d), B: append([]float64(nil), sc.B...)}
	for j := range d {
		for k := range d {
			m.L[j*d+k] = sc.L.At(j, k)
		}
	}
	if sc.ShiftSlope != nil {
		m.Slope = make([]float64, d*d)
		for j := range d {
			for k := range d {
				m.Slope[j*d+k] = sc.ShiftSlope.At(j, k)
			}
		}
		m.Centre = append([]float64(nil), sc.ShiftCentre...)
	}
	return m
}

func (m AffineMap) check() error {
	if m.Dim < 1 || len(m.L) != m.Dim*m.Dim || len(m.B) != m.Dim ||
		(m.Slope != nil && (len(m.Slope) != m.Dim*m.Dim || len(m.Centre) != m.Dim)) {
		return fmt.Errorf("certify: a score-calibration map has inconsistent sizes (dim %d, %d L entries, %d b entries)", m.Dim, len(m.L), len(m.B))
	}
	for j := range m.Dim {
		if !(m.L[j*m.Dim+j] > 0) {
			return fmt.Errorf("certify: a score-calibration map has a non-positive diagonal entry %v", m.L[j*m.Dim+j])
		}
	}
	return nil
}

// scoreAdjusted is the estimator whose posterior at x is the map applied to the base
// estimator's posterior at x, centred on the mean of Draws of its draws. It is amortized, as
// score calibration applies its map to every calibration dataset.
type scoreAdjusted struct {
	base  sbi.Amortized
	m     AffineMap
	draws int
	seed  uint64
}

func (a *scoreAdjusted) Posterior(x []float64) sbi.Posterior {
	base := a.base.Posterior(x)
	rng := rand.New(rand.NewPCG(a.seed, hashFloats(x)))
	dr := base.Sample(rng, a.draws)
	d := a.m.Dim
	mu := make([]float64, d)
	n, _ := dr.Dims()
	for i := range n {
		for j, v := range dr.RawRowView(i) {
			mu[j] += v / float64(n)
		}
	}
	// f(θ) = Lθ + s with s = μ̂ + b(μ̂) − Lμ̂.
	s := make([]float64, d)
	logdet := 0.0
	for j := range d {
		s[j] = mu[j] + a.m.B[j]
		for k := range d {
			if a.m.Slope != nil {
				s[j] += a.m.Slope[j*d+k] * (mu[k] - a.m.Centre[k])
			}
			if k <= j {
				s[j] -= a.m.L[j*d+k] * mu[k]
			}
		}
		logdet += mathx.Log(a.m.L[j*d+j])
	}
	return &adjustedPosterior{base: base, m: a.m, shift: s, logdet: logdet}
}

// paddedAdjusted is a scoreAdjusted whose base reads NaN padding (calib.Unpadder:
// sbi.AmortizedTrials): it reads x as its base does, so that the diagnoses of the adjusted
// posterior keep the padded pairs the base's keep.
type paddedAdjusted struct {
	*scoreAdjusted
	u calib.Unpadder
}

func (a paddedAdjusted) Unpadded(x []float64) ([]float64, error) { return a.u.Unpadded(x) }

// diagnosed is a as the diagnoses read it: reading NaN padding where its base does, and only
// then.
func (a *scoreAdjusted) diagnosed() sbi.Amortized {
	if u, ok := a.base.(calib.Unpadder); ok {
		return paddedAdjusted{a, u}
	}
	return a
}

func (a *scoreAdjusted) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = a.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, a.m.Dim).(*mat.Dense))[0]
	}
	return out
}

// hashFloats is FNV-1a of the bits of v: the stream of the map's centre draws at x.
func hashFloats(v []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, f := range v {
		b := math.Float64bits(f)
		for range 8 {
			h ^= b & 0xff
			h *= 1099511628211
			b >>= 8
		}
	}
	return h
}

// adjustedPosterior is f_#q(· | x) for f(θ) = Lθ + shift: its density is
// q(f⁻¹(θ) | x)/det L (L lower triangular with a positive diagonal).
type adjustedPosterior struct {
	base   sbi.Posterior
	m      AffineMap
	shift  []float64
	logdet float64
}

func (p *adjustedPosterior) Dim() int { return p.m.Dim }

func (p *adjustedPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	dr := p.base.Sample(rng, n)
	d := p.m.Dim
	out := mat.NewDense(n, d, nil)
	for i := range n {
		src, dst := dr.RawRowView(i), out.RawRowView(i)
		for j := range d {
			v := p.shift[j]
			for k := 0; k <= j; k++ {
				v += p.m.L[j*d+k] * src[k]
			}
			dst[j] = v
		}
	}
	return out
}

func (p *adjustedPosterior) LogProb(theta *mat.Dense) []float64 {
	n, d := theta.Dims()
	inv := mat.NewDense(n, d, nil)
	for i := range n {
		src, dst := theta.RawRowView(i), inv.RawRowView(i)
		// Forward substitution: L·dst = src − shift.
		for j := range d {
			v := src[j] - p.shift[j]
			for k := range j {
				v -= p.m.L[j*d+k] * dst[k]
			}
			dst[j] = v / p.m.L[j*d+j]
		}
	}
	lp := p.base.LogProb(inv)
	for i := range lp {
		lp[i] -= p.logdet
	}
	return lp
}

// observations judges each observation: the misspecification check (refused when it
// rejects), the local test (not certified when it rejects), and score calibration where the
// verdict is not Certified and the plan reserved it.
func (r *run) observations() error {
	if r.obs == nil {
		return nil
	}
	// The reference: the first check set, else a set reserved for it; simulations no estimator
	// trained on, on which alone the check's level holds for a learned embedding. Never the
	// final test set.
	ref := r.first
	if ref == nil {
		var err error
		ref, err = r.simulate(r.plan.Reference, streamMisspec, "the reference set of the misspecification checks")
		if err != nil {
			return err
		}
	}
	lt, localSet, err := r.localTest()
	if err != nil {
		return err
	}
	n, _ := r.obs.Dims()
	for i := range n {
		xo := mat.Row(nil, i, r.obs)
		o := ObservationCheck{X: xo}
		m, err := diag.Misspecification(r.cert.Estimator, ref.X, xo, r.cfg.Misspecification)
		switch {
		case err != nil:
			o.Verdict, o.Reason = Inconclusive, fmt.Sprintf("the misspecification check could not run: %v", err)
			r.cert.Observations = append(r.cert.Observations, o)
			continue
		case m.Reject():
			o.Misspec = m
			ps, as := pvalue.Format(m.PValue, m.Alpha)
			o.Verdict, o.Reason = NotCertified, fmt.Sprintf("refused: the simulator does not produce data like this observation (MMD² = %.3g, p = %s ≤ %s on %d reference and %d calibration simulations); the posterior there is an extrapolation",
				m.Statistic, ps, as, m.Reference, m.Calibration)
			r.cert.Observations = append(r.cert.Observations, o)
			continue
		case !m.CanReject():
			// A check that cannot reject at its level would admit any observation.
			o.Misspec = m
			o.Verdict, o.Reason = Inconclusive, "the misspecification check cannot decide here, so the global verdict is not carried over: "+m.Verdict()
			r.cert.Observations = append(r.cert.Observations, o)
			continue
		}
		o.Misspec = m
		o.Claim = ClaimMarginal
		o.Verdict = r.cert.Final.Verdict
		ps, as := pvalue.Format(m.PValue, m.Alpha)
		o.Reason = fmt.Sprintf("the misspecification check does not reject it (p = %s > %s); the global verdict applies: %s", ps, as, r.cert.Final.Verdict)
		if lt != nil {
			res, err := lt.Test(xo)
			switch {
			case err != nil:
				o.Reason += fmt.Sprintf("; the local test could not run here: %v", err)
			case res.Reject():
				o.Local = res
				o.Verdict, o.Reason = NotCertified, "local test rejects: "+res.Verdict()
			default:
				o.Local = res
				o.Reason += "; local test: " + res.Verdict()
			}
		}
		if o.Verdict != Certified && r.plan.ScoreCal > 0 {
			if err := r.scoreCalibrate(&o, i, localSet); err != nil {
				return err
			}
		}
		r.cert.Observations = append(r.cert.Observations, o)
	}
	return nil
}

// localTest trains L-C2ST for the chosen estimator on a calibration set drawn for it alone;
// nil when the plan has none or it cannot run (the certificate's notes say why).
func (r *run) localTest() (*diag.LC2ST, *sbi.Simulation, error) {
	if r.plan.Local == 0 {
		return nil, nil, nil
	}
	t0 := time.Now()
	s, err := r.simulate(r.plan.Local, streamLocalSims, "the calibration set of the local test")
	if err != nil {
		return nil, nil, err
	}
	step := Step{Name: "local test (L-C2ST)", Simulations: r.plan.Local}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	lt, err := diag.NewLC2STContext(r.ctx, r.cert.Estimator, s.Theta, s.X, r.cfg.LocalTest)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, nil, fmt.Errorf("certify: local test: %w", err)
		}
		step.Note = fmt.Sprintf("not run: %v", err)
		r.cert.Notes = append(r.cert.Notes, "local test (L-C2ST) not run: "+err.Error())
		return nil, nil, nil
	}
	c := r.cfg.LocalTest
	step.Note = fmt.Sprintf("classifiers of the %s trained on %d fresh pairs (%d null classifiers, level %.3g); tested at each observation", r.cert.Chosen, s.Theta.RawMatrix().Rows, c.Null, c.Alpha)
	return lt, s, nil
}

// scoreCalibrate fits score calibration at observation i and judges the adjusted posterior
// on fresh pairs from the importance distribution, then (when the local test runs) by L-C2ST
// at the observation. The verdict of o becomes that of the adjusted posterior, with the
// local claim.
func (r *run) scoreCalibrate(o *ObservationCheck, i int, localSet *sbi.Simulation) error {
	t0 := time.Now()
	cfg := r.cfg.ScoreCalibration
	step := Step{Name: fmt.Sprintf("%s at observation %d", RemedyScoreCalibration, i)}
	defer func() { step.Elapsed = time.Since(t0); r.cert.Steps = append(r.cert.Steps, step) }()
	est := r.cert.Estimator
	if u, ok := est.(calib.Unpadder); ok && cfg.Padding == nil {
		cfg.Padding = u // padded datasets are kept, as the diagnoses of this run keep them
	}
	stream := uint64(streamScoreCal + 4*i)
	rng := rand.New(rand.NewPCG(r.cfg.Seed, stream))
	var obsDraws *mat.Dense
	err := safe.Call("certify: score calibration: the posterior at the observation", func() error {
		var err error
		obsDraws, err = draw.Context(r.ctx, est.Posterior(o.X), rng, cfg.N)
		return err
	})
	if err != nil {
		if r.ctx.Err() != nil {
			return fmt.Errorf("certify: score calibration at observation %d: %w", i, err)
		}
		step.Note = fmt.Sprintf("skipped: %v", err)
		o.Reason += "; score calibration could not run: " + err.Error()
		return nil
	}
	simulate := func(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
		n, _ := theta.Dims()
		x := mat.NewDense(n, r.sim.DataDim(), nil)
		r.sim.SimulateBatch(rng, theta, x)
		return x
	}
	sc, err := calib.ScoreCalibrateRefitContext(r.ctx, rng, obsDraws, simulate, calib.RefitAmortizedContext(est), cfg)
	r.plan.Used += cfg.M
	step.Simulations = cfg.M
	if err != nil {
		if r.ctx.Err() != nil {
			return fmt.Errorf("certify: score calibration at observation %d: %w", i, err)
		}
		step.Note = fmt.Sprintf("failed: %v", err)
		o.Reason += "; score calibration failed: " + err.Error()
		return nil
	}
	r.plan.Dropped += sc.Dropped
	adj := &scoreAdjusted{base: est, m: affineMapOf(sc), draws: cfg.N, seed: seedOf(r.cfg.Seed, stream+3)}
	mu := make([]float64, len(adj.m.B))
	for k := range cfg.N {
		for j, v := range obsDraws.RawRowView(k) {
			mu[j] += v / float64(cfg.N)
		}
	}
	ntest := r.plan.ScoreCal - cfg.M
	j, err := r.judgeLocal(adj, o.X, mu, ntest, stream)
	if err != nil {
		return fmt.Errorf("certify: score calibration at observation %d: %w", i, err)
	}
	step.Simulations += ntest
	if j == nil {
		step.Note = "failed: every test simulation failed (NaN or ±Inf)"
		o.Reason += "; score calibration could not be tested: every test simulation failed"
		return nil
	}
	cov, d, before := j.cov, j.decision, j.before
	res := &ScoreCalibrated{Map: adj.m, Datasets: sc.ThetaBar.RawMatrix().Rows, Dropped: sc.Dropped, Inflation: cfg.Inflation,
		Draws: cfg.N, CentreSeed: adj.seed, Decision: d, Coverage: cov, Before: before}
	step.Decision, step.Coverage = d, cov
	o.ScoreCal, o.Claim, o.Verdict = res, ClaimLocal, d.Verdict
	claim := fmt.Sprintf("the claim is local: coverage over θ from the posterior here inflated ×%g and data simulated from it (%d fresh pairs), not over the prior predictive and not conditional on this observation alone", cfg.Inflation, d.N)
	o.Reason = fmt.Sprintf("score-calibrated here (%d datasets): %s: %s; %s", res.Datasets, d.Verdict, d.Reason, claim)
	if localSet != nil {
		lt, err := diag.NewLC2STContext(r.ctx, adj.diagnosed(), localSet.Theta, localSet.X, r.cfg.LocalTest)
		if err == nil {
			res.Local, err = lt.Test(o.X)
		}
		switch {
		case err != nil && r.ctx.Err() != nil:
			return fmt.Errorf("certify: local test of the score-calibrated posterior: %w", err)
		case err != nil:
			o.Reason += fmt.Sprintf("; the local test of the adjusted posterior could not run: %v", err)
			if o.Verdict == Certified {
				o.Verdict = Inconclusive
			}
		case res.Local.Reject():
			o.Verdict = NotCertified
			o.Reason = "local test rejects the score-calibrated posterior: " + res.Local.Verdict() + "; " + o.Reason
		default:
			o.Reason += "; local test of the adjusted posterior: " + res.Local.Verdict()
		}
	}
	step.Note = fmt.Sprintf("observation %d: map fitted on %d datasets from the posterior inflated ×%g, tested on %d fresh pairs from the same distribution",
		i, res.Datasets, cfg.Inflation, d.N)
	return nil
}

// localJudgement is the test of a score-calibrated posterior on pairs from π̄.
type localJudgement struct {
	cov, before *diag.CoverageResult
	decision    *Decision
}

// judgeLocal tests the adjusted posterior adj of the chosen estimator at observation xo on
// ntest fresh pairs θ ~ π̄, x ~ p(x | θ), where π̄ is the estimator's posterior at xo inflated
// by Config.ScoreCalibration.Inflation about mu (the mean the fit used), drawn from the
// streams stream+1 (pairs) and stream+2 (ranks). It returns the adjusted posterior's coverage
// and its Decision against the target (the verdict of ClaimLocal before the local test), and
// the unadjusted estimator's coverage on the same pairs; nil when every simulation failed.
func (r *run) judgeLocal(adj *scoreAdjusted, xo, mu []float64, ntest int, stream uint64) (*localJudgement, error) {
	est := adj.base
	trng := rand.New(rand.NewPCG(r.cfg.Seed, stream+1))
	src := est.Posterior(xo).Sample(trng, ntest)
	infl := r.cfg.ScoreCalibration.Inflation
	for k := range ntest {
		row := src.RawRowView(k)
		for j := range row {
			row[j] = infl*(row[j]-mu[j]) + mu[j]
		}
	}
	pairs, err := r.simulateAt(trng, src)
	if err != nil {
		return nil, fmt.Errorf("simulating the test pairs: %w", err)
	}
	r.plan.Used += ntest
	r.plan.Dropped += pairs.Dropped
	if pairs.Theta == nil || pairs.Theta.RawMatrix().Rows == 0 {
		return nil, nil
	}
	cov, d, err := r.diagnose(adj.diagnosed(), pairs, stream+2)
	if err != nil {
		return nil, err
	}
	before, _, err := r.diagnose(est, pairs, stream+2)
	if err != nil {
		return nil, err
	}
	return &localJudgement{cov: cov, before: before, decision: d}, nil
}
