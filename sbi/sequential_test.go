package sbi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// glSimulator makes sbitest.GaussianLinear an sbi.Simulator; every failEvery-th row of a
// batch (when failEvery > 0) fails with NaN.
type glSimulator struct {
	g         *sbitest.GaussianLinear
	failEvery int
}

func (s glSimulator) DataDim() int { return s.g.DataDim() }

func (s glSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	x.Copy(s.g.Simulate(rng, theta))
	if s.failEvery > 0 {
		n, _ := x.Dims()
		for i := 0; i < n; i += s.failEvery {
			x.Set(i, 0, math.NaN())
		}
	}
}

// exactGL is an estimator whose posterior is GaussianLinear's closed form whatever it is
// trained on: it isolates what Sequential does around the estimator (proposals, records,
// the configurations it trains with) from the estimator's own error. It records the pairs
// and configurations of every Train.
type exactGL struct {
	g       *sbitest.GaussianLinear
	scale   float64 // when not 0 or 1, the posterior's standard deviations are scaled by it
	configs []sbi.TrainConfig
	pairs   []int
}

func (e *exactGL) Posterior(x []float64) sbi.Posterior { return e.post(x) }

func (e *exactGL) post(x []float64) *dist.MultivariateNormal {
	q := e.g.Posterior(x)
	if e.scale == 0 || e.scale == 1 {
		return q
	}
	var c mat.SymDense
	c.ScaleSym(e.scale*e.scale, q.Covariance())
	return dist.NewMultivariateNormal(q.Mean(), &c)
}

func (e *exactGL) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range out {
		out[i] = e.post(x.RawRowView(i)).LogProb(mat.NewDense(1, 2, theta.RawRowView(i)))[0]
	}
	return out
}
func (e *exactGL) Prior() dist.Distribution { return e.g.Prior() }
func (e *exactGL) Trained() bool            { return len(e.configs) > 0 }
func (e *exactGL) Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	return e.TrainContext(context.Background(), theta, x, cfg)
}
func (e *exactGL) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.configs = append(e.configs, cfg)
	n, _ := theta.Dims()
	e.pairs = append(e.pairs, n)
	return &sbi.TrainResult{Estimator: "exact", Epochs: 1, BestEpoch: 1}, nil
}
func (e *exactGL) MustTrain(theta, x *mat.Dense, cfg sbi.TrainConfig) *sbi.TrainResult {
	r, err := e.Train(theta, x, cfg)
	if err != nil {
		panic(err)
	}
	return r
}
func (e *exactGL) Save(io.Writer) error       { return errors.New("exactGL: not savable") }
func (e *exactGL) SaveFile(string) error      { return errors.New("exactGL: not savable") }
func (e *exactGL) MustSaveFile(string)        { panic("exactGL: not savable") }
func (e *exactGL) String() string             { return "exact GaussianLinear posterior" }
func (e *exactGL) MIMEBundle() map[string]any { return map[string]any{"text/plain": e.String()} }

// glObservation simulates the observation of the tests from a parameter drawn from the prior.
func glObservation(g *sbitest.GaussianLinear, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 5))
	return g.Simulate(rng, g.Prior().Sample(rng, 1)).RawRowView(0)
}

// mahalanobis2 is (θ − μ)ᵀ Σ⁻¹ (θ − μ) for the rows of theta under the Gaussian q.
func mahalanobis2(q *dist.MultivariateNormal, theta *mat.Dense) []float64 {
	mu, cov := q.Mean(), q.Covariance()
	var inv mat.Dense
	if err := inv.Inverse(cov); err != nil {
		panic(err)
	}
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range out {
		d := []float64{theta.At(i, 0) - mu[0], theta.At(i, 1) - mu[1]}
		out[i] = d[0]*d[0]*inv.At(0, 0) + 2*d[0]*d[1]*inv.At(0, 1) + d[1]*d[1]*inv.At(1, 1)
	}
	return out
}

// With the exact posterior, the truncated region {log q ≥ threshold} of a 2-D Gaussian is the
// ellipse r² ≤ c with P(r² > c) = exp(−c/2) = ε. The test takes ε = 0.1 (the ε-quantile of
// 10,000 draws is then estimated to ±0.003) and checks: every proposal of round 2 lies in the
// region; the posterior mass outside the threshold, on 20,000 fresh draws, is ε within 5
// standard errors; the acceptance equals the prior mass of the exact ellipse (by 400,000 prior
// draws) within 5 standard errors of its binomial error and of the threshold's (derived
// below); and the records.
func TestSequentialTruncatedRegion(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	q := g.Posterior(xo)
	est := &exactGL{g: g}
	const n, eps = 3000, 0.1
	res, err := sbi.Sequential(est, glSimulator{g: g, failEvery: 100}, xo, sbi.SequentialConfig{
		Method: sbi.TruncatedProposals, Rounds: 3, Simulations: n, Epsilon: eps, Seed: 3,
		Train: sbi.TrainConfig{Seed: 10},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 3 || res.Region == nil || res.Posterior == nil {
		t.Fatalf("got %d rounds, region %v, posterior %v; want 3 rounds, a region and a posterior", len(res.Rounds), res.Region, res.Posterior)
	}
	dropped := 0 // rows 0, 100, … of each chunk of ChunkRows rows fail
	for lo := 0; lo < n; lo += sbi.ChunkRows {
		dropped += (min(lo+sbi.ChunkRows, n) - lo + 99) / 100
	}
	for i, rd := range res.Rounds {
		wantProp := "truncated prior"
		if i == 0 {
			wantProp = "prior"
		}
		if rd.Round != i+1 || rd.Proposal != wantProp || rd.Simulations != n || rd.Dropped != dropped || rd.Pairs != (i+1)*(n-dropped) || rd.Train == nil {
			t.Errorf("round %d record %+v: want round %d, proposal %q, %d simulations, %d dropped, %d pairs, a training result", i+1, rd, i+1, wantProp, n, dropped, (i+1)*(n-dropped))
		}
		if est.pairs[i] != rd.Pairs {
			t.Errorf("round %d trained on %d pairs, recorded %d", i+1, est.pairs[i], rd.Pairs)
		}
		if c := est.configs[i]; c.Seed != uint64(10+i) || c.Resume != (i > 0) {
			t.Errorf("round %d trained with seed %d, resume %v; want %d, %v", i+1, c.Seed, c.Resume, 10+i, i > 0)
		}
		if i == 0 && (rd.Acceptance != 1 || !math.IsNaN(rd.Threshold)) {
			t.Errorf("round 1: acceptance %g, threshold %g; want 1 and NaN", rd.Acceptance, rd.Threshold)
		}
	}
	if r, _ := res.Theta.Dims(); r != 3*(n-dropped) {
		t.Errorf("the result holds %d pairs, want %d", r, 3*(n-dropped))
	}

	// Round 2's and 3's parameters lie in their regions.
	for i := 1; i < 3; i++ {
		rd := res.Rounds[i]
		th, x := res.RoundPairs(i + 1)
		if r, _ := th.Dims(); r != n-dropped || !mat.Equal(th, res.Theta.Slice(rd.Pairs-r, rd.Pairs, 0, 2)) || !mat.Equal(x, res.X.Slice(rd.Pairs-r, rd.Pairs, 0, 3)) {
			t.Fatalf("round %d: RoundPairs gives %d rows, not the round's %d of Theta and X", i+1, r, n-dropped)
		}
		lq := q.LogProb(th)
		for j, v := range lq {
			if v < rd.Threshold {
				t.Fatalf("round %d: pair %d has log q %g below the threshold %g", i+1, j, v, rd.Threshold)
			}
		}
	}

	// The posterior mass outside the region is ε.
	rng := rand.New(rand.NewPCG(7, 7))
	const m = 20_000
	lq := q.LogProb(q.Sample(rng, m))
	out := 0
	for _, v := range lq {
		if v < res.Region.Threshold {
			out++
		}
	}
	// The threshold's own error in mass (from 10,000 draws) and that of the m draws.
	se := math.Sqrt(eps * (1 - eps) * (1.0/10_000 + 1.0/m))
	if got := float64(out) / m; math.Abs(got-eps) > 5*se {
		t.Errorf("posterior mass outside the region %.4f, want ε = %g ± %.4f (5 SE)", got, eps, 5*se)
	}

	// The acceptance is the prior mass of the exact region r² ≤ −2 log ε.
	c := -2 * math.Log(eps)
	const big = 400_000
	r2 := mahalanobis2(q, g.Prior().Sample(rng, big))
	inside := 0
	for _, v := range r2 {
		if v <= c {
			inside++
		}
	}
	mass := float64(inside) / big
	acc := res.Rounds[2].Acceptance
	// Round 3's acceptance errs from the mass of the exact region in two ways. (1) It is the
	// share of round 3's prior draws (at least n/mass of them) inside its region, and mass
	// that of the big draws: binomial, seBin. (2) Its region is r² ≤ ĉ, where ĉ, the (1 − ε)-quantile of r²
	// over the 10,000 posterior draws that set the threshold (log q = const − r²/2), errs from
	// c: r² is χ²₂ under q, with survival S(c) = exp(−c/2), and the sample quantile has
	// S(ĉ) = ε ± √(ε(1 − ε)/10,000), so ĉ = c ± δc with δc = √(ε(1 − ε)/10,000)/|S′(c)| =
	// 2√(ε(1 − ε)/10,000)/ε (0.06 at ε = 0.1). That moves the region's prior mass by
	// mass′(c)·δc, where mass′(c) is the prior's density integrated around the ellipse's
	// boundary (regionMassRate; a prior flat over the region would give mass/c, 2% less
	// here). The tolerance is 5 standard errors of the two together, 13% of the mass: an
	// acceptance that counted only the n draws kept (20% low) fails it.
	seBin := math.Sqrt(mass*(1-mass)*mass/n + mass*(1-mass)/big)
	dc := 2 * math.Sqrt(eps*(1-eps)/10_000) / eps
	seThr := regionMassRate(g.Prior(), q, c) * dc
	tol := 5 * math.Hypot(seBin, seThr)
	if math.Abs(acc-mass) > tol {
		t.Errorf("acceptance %.4f, want the prior mass of the region %.4f ± %.4f (5 SE: binomial %.5f, threshold %.5f)", acc, mass, tol, seBin, seThr)
	}
	t.Logf("acceptance %.4f, prior mass of the exact region %.4f ± %.4f; outside share %.4f", acc, mass, tol, float64(out)/m)
	if s := res.String(); !strings.Contains(s, "truncated prior") || !strings.Contains(s, "round") {
		t.Errorf("String() = %q: want the table of rounds", s)
	}
}

// regionMassRate is d/dc of the prior mass of the ellipse {θ : (θ − μ)ᵀ Σ⁻¹ (θ − μ) ≤ c} of the
// Gaussian q = N(μ, Σ): with θ = μ + L z (L Lᵀ = Σ) in polar coordinates z = r·(cos φ, sin φ),
// dθ = √det Σ · r dr dφ and r dr = dc/2, so the rate is (√det Σ / 2) ∮ prior(μ + √c L u(φ)) dφ,
// integrated by the trapezoid rule on 720 angles (exact to rounding for a smooth periodic
// integrand).
func regionMassRate(prior dist.Distribution, q *dist.MultivariateNormal, c float64) float64 {
	const K = 720
	mu, cov := q.Mean(), q.Covariance()
	l11 := math.Sqrt(cov.At(0, 0))
	l21 := cov.At(1, 0) / l11
	l22 := math.Sqrt(cov.At(1, 1) - l21*l21)
	pts := mat.NewDense(K, 2, nil)
	r := math.Sqrt(c)
	for k := 0; k < K; k++ {
		u0, u1 := math.Cos(2*math.Pi*float64(k)/K), math.Sin(2*math.Pi*float64(k)/K)
		pts.Set(k, 0, mu[0]+r*l11*u0)
		pts.Set(k, 1, mu[1]+r*(l21*u0+l22*u1))
	}
	var sum float64
	for _, lp := range prior.LogProb(pts) {
		sum += math.Exp(lp)
	}
	return l11 * l22 / 2 * sum * 2 * math.Pi / K
}

// Posterior proposals draw round 2's parameters from the current posterior: their mean and
// covariance agree with the closed form's within sampling error.
func TestSequentialPosteriorProposals(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 2)
	q := g.Posterior(xo)
	est := &exactGL{g: g}
	const n = 4000
	res, err := sbi.Sequential(est, glSimulator{g: g}, xo, sbi.SequentialConfig{Rounds: 2, Simulations: n, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != sbi.PosteriorProposals || res.Region != nil {
		t.Fatalf("method %q, region %v: want posterior proposals by default for a non-NPE estimator and no region", res.Method, res.Region)
	}
	rd := res.Rounds[1]
	if rd.Proposal != "posterior" || !math.IsNaN(rd.Acceptance) || rd.Pairs != 2*n {
		t.Errorf("round 2 record %+v: want posterior proposals, NaN acceptance, %d pairs", rd, 2*n)
	}
	checkMoments(t, res.Theta.Slice(n, 2*n, 0, 2).(*mat.Dense), q, 0)
}

// momentErrors compares the sample moments of draws with q's: means within (allowance +
// 4/√n) posterior standard deviations, standard deviations within a fraction allowance +
// 4/√(2n), the correlation within allowance + 4(1 − ρ²)/√n. It returns one line per moment
// outside its tolerance.
func momentErrors(draws *mat.Dense, q *dist.MultivariateNormal, allowance float64) []string {
	n, _ := draws.Dims()
	mu, cov := q.Mean(), q.Covariance()
	sn := math.Sqrt(float64(n))
	col := func(j int) []float64 { return mat.Col(nil, j, draws) }
	var errs []string
	for j := 0; j < 2; j++ {
		sd := math.Sqrt(cov.At(j, j))
		m, s := stat.MeanStdDev(col(j), nil)
		if tol := allowance + 4/sn; math.Abs(m-mu[j]) > tol*sd {
			errs = append(errs, fmt.Sprintf("mean of θ%d: %.4f, closed form %.4f ± %.4f", j, m, mu[j], tol*sd))
		}
		if tol := allowance + 4/math.Sqrt(2*float64(n)); math.Abs(s/sd-1) > tol {
			errs = append(errs, fmt.Sprintf("sd of θ%d: %.4f, closed form %.4f (relative tolerance %.3f)", j, s, sd, tol))
		}
	}
	rho := cov.At(0, 1) / math.Sqrt(cov.At(0, 0)*cov.At(1, 1))
	r := stat.Correlation(col(0), col(1), nil)
	if tol := allowance + 4*(1-rho*rho)/sn; math.Abs(r-rho) > tol {
		errs = append(errs, fmt.Sprintf("correlation: %.4f, closed form %.4f ± %.4f", r, rho, tol))
	}
	return errs
}

// checkMoments fails t for every moment of draws outside its tolerance (momentErrors).
func checkMoments(t *testing.T, draws *mat.Dense, q *dist.MultivariateNormal, allowance float64) {
	t.Helper()
	for _, e := range momentErrors(draws, q, allowance) {
		t.Error(e)
	}
}

// TSNPE with a real NPE on the conjugate task: after two rounds the posterior's moments at
// the observation agree with the closed form within the conformance suite's allowance plus
// sampling error (level). The same check rejects exact draws of posteriors that are off by
// what the allowance is meant to catch (power): the mean shifted by half a standard
// deviation, the standard deviations scaled by 0.5 (a region cut at half the posterior's
// mass), 1.5 (an untruncated proposal's width).
func TestSequentialTSNPEGaussian(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	q := g.Posterior(xo)
	npe := sbi.NewNPE(g.Prior(), sbi.NPEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2})
	res, err := sbi.Sequential(npe, glSimulator{g: g}, xo, sbi.SequentialConfig{
		Rounds: 2, Simulations: 2000, Seed: 1,
		Train: sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != sbi.TruncatedProposals || res.Rounds[1].Proposal != "truncated prior" {
		t.Fatalf("method %q, round 2 from %q: want truncated proposals by default for NPE", res.Method, res.Rounds[1].Proposal)
	}
	if a := res.Rounds[1].Acceptance; !(a > 0 && a < 1) {
		t.Errorf("round 2 acceptance %g, want a share in (0, 1)", a)
	}
	t.Logf("\n%s", res)
	const n = 4000
	checkMoments(t, res.Posterior.Sample(rand.New(rand.NewPCG(2, 2)), n), q, sbitest.DefaultAllowance)

	mu, cov := q.Mean(), q.Covariance()
	for _, c := range []struct {
		name  string
		shift float64 // in posterior standard deviations of θ0
		scale float64
	}{{"shifted", 0.5, 1}, {"narrow", 0, 0.5}, {"wide", 0, 1.5}} {
		m := []float64{mu[0] + c.shift*math.Sqrt(cov.At(0, 0)), mu[1]}
		var sc mat.SymDense
		sc.ScaleSym(c.scale*c.scale, cov)
		off := dist.NewMultivariateNormal(m, &sc)
		if errs := momentErrors(off.Sample(rand.New(rand.NewPCG(3, 3)), n), q, sbitest.DefaultAllowance); len(errs) == 0 {
			t.Errorf("draws of a posterior %s passed the check: it has no power", c.name)
		}
	}
}

// NRE with posterior proposals on the conjugate task: after two rounds its posterior's moments
// agree with the closed form (the check's power is shown in TestSequentialTSNPEGaussian).
func TestSequentialNREGaussian(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	nre := sbi.NewNRE(g.Prior(), sbi.NREConfig{Hidden: []int{32, 32}})
	res, err := sbi.Sequential(nre, glSimulator{g: g}, xo, sbi.SequentialConfig{
		Rounds: 2, Simulations: 2000, Seed: 1,
		Train: sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != sbi.PosteriorProposals || res.Rounds[1].Proposal != "posterior" {
		t.Fatalf("method %q, round 2 from %q: want posterior proposals by default for NRE", res.Method, res.Rounds[1].Proposal)
	}
	t.Logf("\n%s", res)
	checkMoments(t, res.Posterior.Sample(rand.New(rand.NewPCG(2, 2)), 4000), g.Posterior(xo), sbitest.DefaultAllowance)
}

// A region holding less of the prior's mass than MinAcceptance stops the rounds with an
// error wrapping ErrLowAcceptance, keeping the rounds that finished; one above it does not.
// With 50 trials the exact posterior's region at 1 − 10⁻⁴ holds about 0.4% of the prior's
// mass, with 1 trial about 11%.
func TestSequentialLowAcceptance(t *testing.T) {
	for _, c := range []struct {
		trials int
		floor  float64
		ok     bool
	}{{50, 0.05, false}, {1, 0.05, true}} {
		t.Run(fmt.Sprint(c.trials), func(t *testing.T) {
			g := sbitest.NewGaussianLinear(c.trials)
			xo := glObservation(g, 1)
			res, err := sbi.Sequential(&exactGL{g: g}, glSimulator{g: g}, xo, sbi.SequentialConfig{
				Method: sbi.TruncatedProposals, Rounds: 2, Simulations: 500, MinAcceptance: c.floor, Seed: 1,
			})
			if c.ok {
				if err != nil {
					t.Fatalf("acceptance %g above the floor %g: %v", res.Rounds[len(res.Rounds)-1].Acceptance, c.floor, err)
				}
				return
			}
			if !errors.Is(err, sbi.ErrLowAcceptance) || !strings.Contains(err.Error(), "round 2") {
				t.Fatalf("err = %v, want ErrLowAcceptance in round 2", err)
			}
			if res == nil || len(res.Rounds) != 1 || res.Rounds[0].Proposal != "prior" {
				t.Fatalf("result %v: want the finished first round", res)
			}
			t.Log(err)
		})
	}
}

// Refusals: posterior proposals for NPE, bad settings (FromScratch with Train.Resume among
// them), a non-finite observation; an interrupt
// keeps the finished rounds and wraps context.Canceled.
func TestSequentialRefusals(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	sim := glSimulator{g: g}
	npe := sbi.NewNPE(g.Prior(), sbi.NPEConfig{})
	if _, err := sbi.Sequential(npe, sim, xo, sbi.SequentialConfig{Method: sbi.PosteriorProposals}); err == nil || !strings.Contains(err.Error(), "TruncatedProposals") {
		t.Errorf("NPE with posterior proposals: err = %v, want a refusal naming TruncatedProposals", err)
	}
	fmpe := sbi.NewFMPE(g.Prior(), sbi.FMPEConfig{})
	if _, err := sbi.Sequential(fmpe, sim, xo, sbi.SequentialConfig{Method: sbi.PosteriorProposals}); err == nil || !strings.Contains(err.Error(), "TruncatedProposals") {
		t.Errorf("FMPE with posterior proposals: err = %v, want a refusal naming TruncatedProposals", err)
	}
	for _, cfg := range []sbi.SequentialConfig{
		{Method: "apt"}, {Rounds: -1}, {Simulations: 1}, {Epsilon: 1}, {Epsilon: -0.1}, {ThresholdSamples: -5}, {MinAcceptance: 2},
		{FromScratch: true, Train: sbi.TrainConfig{Resume: true}}, // which one holds?
	} {
		if _, err := sbi.Sequential(&exactGL{g: g}, sim, xo, cfg); err == nil {
			t.Errorf("config %+v: no error", cfg)
		}
	}
	bad := append([]float64(nil), xo...)
	bad[1] = math.NaN()
	if _, err := sbi.Sequential(&exactGL{g: g}, sim, bad, sbi.SequentialConfig{}); !errors.Is(err, sbi.ErrNonFinite) {
		t.Errorf("non-finite observation: err = %v, want ErrNonFinite", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	est := &cancelAfter{exactGL: exactGL{g: g}, after: 1, stop: stop}
	res, err := sbi.SequentialContext(ctx, est, sim, xo, sbi.SequentialConfig{Rounds: 3, Simulations: 200})
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Rounds) != 1 {
		t.Errorf("interrupted after round 1: err = %v, result %v; want context.Canceled and one round", err, res)
	}
	if !panicsWithAnError(func() { sbi.MustSequential(npe, sim, xo, sbi.SequentialConfig{Method: sbi.PosteriorProposals}) }) {
		t.Error("MustSequential did not panic with the error")
	}
}

// cancelAfter is exactGL that cancels its context once it has trained `after` times.
type cancelAfter struct {
	exactGL
	after int
	stop  func()
}

func (c *cancelAfter) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	r, err := c.exactGL.TrainContext(ctx, theta, x, cfg)
	if len(c.configs) == c.after {
		c.stop()
	}
	return r, err
}

func panicsWithAnError(f func()) (ok bool) {
	defer func() {
		_, ok = recover().(error)
	}()
	f()
	return false
}

// The tutorial's protocol for a sequential posterior's calibration: expected coverage on test
// pairs drawn from the final region (ε = 10⁻⁴) and simulated. With the exact posterior the HPD
// ranks are uniform there: |AUC| within 4 standard deviations √(1/12/N) of 0, although the
// posterior is not restricted to the region (its mass outside is negligible at this ε). The
// same bound rejects posteriors 1.3 times too wide (conservative) or too narrow
// (over-confident) on the same pairs: power.
func TestSequentialRegionCoverage(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	res, err := sbi.Sequential(&exactGL{g: g}, glSimulator{g: g}, xo, sbi.SequentialConfig{
		Method: sbi.TruncatedProposals, Rounds: 1, Simulations: 100, Seed: 8,
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	rng := rand.New(rand.NewPCG(9, 9))
	theta := res.Region.Sample(rng, n)
	x := g.Simulate(rng, theta)
	for i := 0; i < n; i++ {
		if !res.Region.Contains(theta.RawRowView(i)) {
			t.Fatalf("draw %d of the region lies outside it", i)
		}
	}
	bound := 4 * math.Sqrt(1.0/12/n)
	for _, c := range []struct {
		scale float64
		ok    bool
	}{{1, true}, {1.3, false}, {1 / 1.3, false}} {
		cov, err := diag.RankCoverage(&exactGL{g: g, scale: c.scale}, theta, x, diag.RankConfig{Samples: 200, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("posterior scaled by %.3g: AUC %+.4f (bound ±%.4f)", c.scale, cov.AUC, bound)
		if ok := math.Abs(cov.AUC) <= bound; ok != c.ok {
			t.Errorf("posterior scaled by %.3g: AUC %+.4f, within ±%.4f: %v, want %v", c.scale, cov.AUC, bound, ok, c.ok)
		}
	}
}

// APT (atomic proposals) with a real NPE on the conjugate task: after two rounds, the second
// drawn from the first's posterior, the posterior's moments at the observation agree with the
// closed form within the conformance suite's allowance plus sampling error (the check's power
// is shown in TestSequentialTSNPEGaussian; the loss itself is checked against its formula in
// TestAtomicLossFormula). Five atoms keep the test short; sbi's default is 10.
func TestSequentialAPTGaussian(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	npe := sbi.NewNPE(g.Prior(), sbi.NPEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2})
	res, err := sbi.Sequential(npe, glSimulator{g: g}, xo, sbi.SequentialConfig{
		Method: sbi.AtomicProposals, Atoms: 5, Rounds: 2, Simulations: 2000, Seed: 1,
		Train: sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds[1].Proposal != "posterior" {
		t.Errorf("round 2 drew from %q, want the posterior", res.Rounds[1].Proposal)
	}
	t.Logf("\n%s", res)
	draws := res.Posterior.Sample(rand.New(rand.NewPCG(2, 2)), 4000)
	checkMoments(t, draws, g.Posterior(xo), sbitest.DefaultAllowance)
	t.Logf("with no allowance: %q", momentErrors(draws, g.Posterior(xo), 0))
	// APT is NPE's loss: another estimator is refused.
	if _, err := sbi.Sequential(disguised{npe}, glSimulator{g: g}, xo, sbi.SequentialConfig{Method: sbi.AtomicProposals}); err == nil {
		t.Error("AtomicProposals accepted an estimator that is not an NPE")
	}
}

// disguised hides an NPE's type from Sequential.
type disguised struct{ *sbi.NPE }

// Sequential reports its rounds to the host's progress sink: a first event with the number of
// rounds, a last one finished with every round done, and its training's own progress between.
func TestSequentialProgress(t *testing.T) {
	var mu sync.Mutex
	var seq []runenv.ProgressEvent
	labels := map[string]bool{}
	runenv.SetProgress(func(e runenv.ProgressEvent) {
		mu.Lock()
		defer mu.Unlock()
		labels[e.Label] = true
		if strings.HasPrefix(e.Label, "sequential") {
			seq = append(seq, e)
		}
	})
	defer runenv.SetProgress(nil)
	g := sbitest.NewGaussianLinear(1)
	npe := sbi.NewNPE(g.Prior(), sbi.NPEConfig{Hidden: 8, Transforms: 1})
	if _, err := sbi.Sequential(npe, glSimulator{g: g}, glObservation(g, 1), sbi.SequentialConfig{
		Rounds: 3, Simulations: 200, ThresholdSamples: 1000, Train: sbi.TrainConfig{Epochs: 2},
	}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seq) < 2 {
		t.Fatalf("got %d events of the rounds, want at least the first and the last", len(seq))
	}
	first, last := seq[0], seq[len(seq)-1]
	if first.Label != "sequential (truncated proposals)" || first.Total != 3 || first.Done != 0 || first.Finished {
		t.Errorf("first event %+v: want label %q, 0 of 3 rounds", first, "sequential (truncated proposals)")
	}
	if !last.Finished || last.Done != 3 || !strings.Contains(last.Message, "round 3 of 3 done") {
		t.Errorf("last event %+v: want finished, 3 of 3 rounds, the last round's message", last)
	}
	if !labels["train NPE (maf)"] {
		t.Errorf("no progress of the training among %v", labels)
	}
}

// NLE with posterior proposals on the conjugate task: after two rounds its posterior's moments
// agree with the closed form (the check's power is shown in TestSequentialTSNPEGaussian). The
// posterior samples by slice MCMC on 20 chains, as in the conformance suite.
func TestSequentialNLEGaussian(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	nle := sbi.NewNLE(g.Prior(), sbi.NLEConfig{Hidden: 32, Transforms: 2, Sampler: sbi.SamplerConfig{Chains: 20, BurnIn: 100}})
	res, err := sbi.Sequential(nle, glSimulator{g: g}, xo, sbi.SequentialConfig{
		Rounds: 2, Simulations: 2000, Seed: 1,
		Train: sbi.TrainConfig{Epochs: 40, BatchSize: 100, LearningRate: 1e-3, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != sbi.PosteriorProposals || res.Rounds[1].Proposal != "posterior" {
		t.Fatalf("method %q, round 2 from %q: want posterior proposals by default for NLE", res.Method, res.Rounds[1].Proposal)
	}
	t.Logf("\n%s", res)
	draws := res.Posterior.Sample(rand.New(rand.NewPCG(2, 2)), 4000)
	checkMoments(t, draws, g.Posterior(xo), sbitest.DefaultAllowance)
	t.Logf("with no allowance: %q", momentErrors(draws, g.Posterior(xo), 0))
}
