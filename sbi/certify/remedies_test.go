package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// finalStep is the step of the final test; the certificate's verdict must be its verdict.
func finalStep(t *testing.T, cert *Certificate) Step {
	t.Helper()
	for _, s := range cert.Steps {
		if s.Name == "final test" {
			if s.Decision != cert.Final || cert.Verdict() != s.Decision.Verdict || cert.Final.N != cert.Budget.Test {
				t.Errorf("the verdict %s is not the final test's (%+v on %d of %d pairs)", cert.Verdict(), s.Decision, cert.Final.N, cert.Budget.Test)
			}
			return s
		}
	}
	t.Fatal("no final test step")
	return Step{}
}

// The budget split: the reserve of RemedyMoreSimulations is a third of what the test and
// check sets leave, unless set (without a reserve it gets no check set either); the conformal
// calibration set is ConformalTestRatio times the final test set where affordable, unless
// set; the local test and score calibration are planned where affordable.
func TestPlanReservesMoreSimulations(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		trained bool
		nObs    int
		dflt    bool
		want    Budget
		note    string
	}{
		{"default reserve", Config{Simulations: 10000, Remedies: []Remedy{RemedyMoreSimulations}}, false, 0, false,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 2, More: 2000, Train: 4000}, ""},
		{"set reserve", Config{Simulations: 10000, MoreSimulations: 500, Remedies: []Remedy{RemedyMoreSimulations, RemedyConformal}}, false, 0, false,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 2, Conformal: 3500, More: 500, Train: 2000},
			"conformal calibration set of 3500, the most the budget of 10000 affords"},
		{"set conformal set", Config{Simulations: 10000, ConformalSimulations: 1500, Remedies: []Remedy{RemedyConformal}}, false, 0, false,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 1, Conformal: 1500, Train: 5500}, ""},
		{"conformal set 4× the test set", Config{Simulations: 10000, TestSimulations: 1000, CheckSimulations: 500, Remedies: []Remedy{RemedyConformal}}, false, 0, false,
			Budget{Total: 10000, Test: 1000, Check: 500, CheckSets: 1, Conformal: 4000, Train: 4500}, ""},
		{"no reserve", Config{Simulations: 10000, MoreSimulations: -1, Remedies: []Remedy{RemedyMoreSimulations}}, false, 0, false,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 1, Train: 7000}, ""},
		{"defaults with an observation: score calibration does not fit", Config{Simulations: 10000, Remedies: DefaultRemedies()}, false, 1, true,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 3, Conformal: 2000, Local: 1000, More: 666, Train: 1334},
			"score calibration not planned: 1 observations × 1100 simulations would leave 1900 for training, less than the final test set of 2000"},
		{"defaults with smaller check sets", Config{Simulations: 10000, CheckSimulations: 500, Remedies: DefaultRemedies()}, false, 1, true,
			Budget{Total: 10000, Test: 2000, Check: 500, CheckSets: 3, Conformal: 2950, Local: 500, ScoreCal: 600, ScoreCalObservations: 1, More: 816, Train: 1634},
			"conformal calibration set of 2950"},
		{"score calibration listed", Config{Simulations: 10000, Remedies: DefaultRemedies()}, false, 1, false,
			Budget{Total: 10000, Test: 2000, Check: 1000, CheckSets: 3, Conformal: 1000, Local: 1000, ScoreCal: 1100, ScoreCalObservations: 1, More: 633, Train: 1267},
			"conformal calibration set of 1000"},
		{"given estimator", Config{Simulations: 3000, TestSimulations: 1000, CheckSimulations: 500, Remedies: DefaultRemedies()}, true, 2, true,
			Budget{Total: 3000, Test: 1000, Check: 500, CheckSets: 1, Conformal: 1000, Local: 500}, "score calibration not planned: 2 observations × 600 simulations do not fit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg.withDefaults()
			b, notes, err := plan(cfg, c.trained, c.nObs, c.dflt)
			if err != nil {
				t.Fatal(err)
			}
			if b != c.want {
				t.Errorf("plan %+v, want %+v (notes %q)", b, c.want, notes)
			}
			if got := strings.Join(notes, "; "); (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
				t.Errorf("notes %q, want one saying %q", got, c.note)
			}
		})
	}
}

// RemedyMoreSimulations trains a fresh estimator on the training set plus the reserve and
// diagnoses it on a check set of its own; the certificate's verdict is that of the final test.
func TestMoreSimulationsRemedyRetrains(t *testing.T) {
	prior := gaussPrior()
	var sizes []int
	cert, err := Certify(prior, gaussSimulator{}, nil, Config{Simulations: 2000, TestSimulations: 500, CheckSimulations: 300,
		New: func() sbi.Estimator {
			return &countingNPE{NPE: sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8}), sizes: &sizes}
		},
		Train:    sbi.TrainConfig{Epochs: 3},
		Remedies: []Remedy{RemedyMoreSimulations}, Samples: 100, SBCSamples: -1, Seed: 2,
		Target: Target{Tolerance: 0.001}, // unreachable: the remedy must run
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert)
	b := cert.Budget
	if b.More != 300 || b.Train != 600 || b.Used != b.Total {
		t.Errorf("budget %s; want a reserve of 300 beside 600 training simulations, all drawn", b)
	}
	if len(sizes) != 2 || sizes[0] != 600 || sizes[1] != 900 || cert.Tried != 1 {
		t.Fatalf("trained on %v simulations, %d remedies tried; want [600 900] and 1", sizes, cert.Tried)
	}
	s := cert.Steps[1]
	if s.Name != string(RemedyMoreSimulations) || s.Decision == nil || s.Simulations != 600 ||
		!strings.Contains(s.Note, "the 600 of the first training and 300 of the reserve") {
		t.Errorf("more-simulations step: %+v", s)
	}
	finalStep(t, cert)
	if cert.Verdict() == Certified {
		t.Errorf("certified with an unreachable tolerance: %s", cert.Sentence())
	}
}

// countingNPE records the number of training pairs of each training.
type countingNPE struct {
	*sbi.NPE
	sizes *[]int
}

func (c *countingNPE) TrainContext(ctx context.Context, theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	*c.sizes = append(*c.sizes, theta.RawMatrix().Rows)
	return c.NPE.TrainContext(ctx, theta, x, cfg)
}

// The regularizer remedy balances an NRE (BNRE) and refuses to balance an NPE, which has no
// classifier logits; the coverage regularizer stays the NPE's.
func TestRegularizerRemedyBalancesNRE(t *testing.T) {
	prior := gaussPrior()
	for _, c := range []struct {
		name    string
		penalty Penalty
		est     func() sbi.Estimator
		says    string
	}{
		{"NRE-A, auto", PenaltyAuto, func() sbi.Estimator { return sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{8}}) }, "retrained on the same 1100 training simulations with the balancing penalty (λ = 100)"},
		{"NPE, balance", PenaltyBalance, func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8}) }, "skipped: NPE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.penalty == PenaltyAuto {
				t.Skip("samples an NRE posterior at 300 pairs")
			}
			cert, err := Certify(prior, gaussSimulator{}, nil, Config{Simulations: 1400, TestSimulations: 100, CheckSimulations: 100,
				New: c.est, Penalty: c.penalty, Train: sbi.TrainConfig{Epochs: 2},
				Remedies: []Remedy{RemedyRegularizer}, Samples: 20, SBCSamples: -1, Seed: 3,
				Target: Target{Tolerance: 0.001}})
			if err != nil {
				t.Fatal(err)
			}
			s := cert.Steps[1]
			if s.Name != string(RemedyRegularizer) || !strings.Contains(s.Note, c.says) {
				t.Errorf("regularizer step %q, want it to say %q", s.Note, c.says)
			}
			if strings.Contains(c.says, "skipped") == (s.Decision != nil) {
				t.Errorf("regularizer step diagnosed %v, note %q", s.Decision != nil, s.Note)
			}
			if c.penalty == PenaltyBalance && !strings.Contains(s.Note, "classifier logits") {
				t.Errorf("balancing an NPE: %q, want the reason (no classifier logits)", s.Note)
			}
			finalStep(t, cert)
		})
	}
}

// penaltyFor: the balancing penalty for NRE-A and NRE-C (auto), the coverage regularizer for
// NRE-B and NPE, and whatever Penalty forces.
func TestPenaltyForEachEstimator(t *testing.T) {
	prior := gaussPrior()
	nre := func(l sbi.NRELoss) sbi.Estimator { return sbi.NewNRE(prior, sbi.NREConfig{Loss: l, Classes: 2}) }
	npe := sbi.NewNPE(prior, sbi.NPEConfig{})
	for _, c := range []struct {
		est     sbi.Estimator
		penalty Penalty
		want    string
	}{
		{nre(sbi.NREA), PenaltyAuto, "balance"},
		{nre(sbi.NREC), PenaltyAuto, "balance"},
		{nre(sbi.NREB), PenaltyAuto, "coverage"},
		{npe, PenaltyAuto, "coverage"},
		{nre(sbi.NREA), PenaltyCoverage, "coverage"},
		{npe, PenaltyBalance, "balance"},
	} {
		r := &run{cfg: Config{Penalty: c.penalty}.withDefaults()}
		reg, what := r.penaltyFor(c.est)
		if reg.Name() != c.want || !strings.Contains(what, map[string]string{"balance": "balancing penalty (λ = 100)", "coverage": "coverage regularizer (λ = 5"}[c.want]) {
			t.Errorf("%s with %q: %s (%s), want %s", c.est, c.penalty, reg.Name(), what, c.want)
		}
	}
}

// Score calibration at an observation of an over-confident posterior (s = 0.7): the map
// widens it, the observation's verdict is that of its own local test on fresh pairs (claim
// local), Posterior returns the adjusted posterior, and the global verdict stays the final
// test's (not certified: no global remedy).
func TestScoreCalibrationRemedyAtAnObservation(t *testing.T) {
	obs := mat.NewDense(1, 1, []float64{0.3})
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: scaledPosterior{0.7},
		Remedies: []Remedy{RemedyScoreCalibration}, Simulations: 4000, TestSimulations: 1000, CheckSimulations: 1000,
		LocalSimulations: -1, Samples: synthDraws, SBCSamples: -1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert)
	finalStep(t, cert)
	if cert.Verdict() != NotCertified {
		t.Fatalf("global verdict of s = 0.7: %s", cert.Sentence())
	}
	o := cert.Observations[0]
	sc := o.ScoreCal
	if sc == nil {
		t.Fatalf("observation not score-calibrated: %s", o.Reason)
	}
	if o.Claim != ClaimLocal || o.Verdict != sc.Decision.Verdict || !strings.Contains(o.Reason, "the claim is local") {
		t.Errorf("observation: %s [%s]: %s", o.Verdict, o.Claim, o.Reason)
	}
	if sc.Decision.N != 1000 || sc.Datasets != 100 || cert.Budget.Used != 1000+1000+100+1000 {
		t.Errorf("local test on %d pairs, %d datasets, %d drawn; want 1000, 100, 3100", sc.Decision.N, sc.Datasets, cert.Budget.Used)
	}
	// The map undoes the scale: L ≈ 1/0.7 (the local prior differs a little from N(0, 1)).
	if l := sc.Map.L[0]; math.Abs(l-1/0.7) > 0.25 {
		t.Errorf("fitted scale %v, want about %v", l, 1/0.7)
	}
	// Before the map the local coverage at 0.5 is about 0.35 (over-confident); after, within
	// the tolerance of the level.
	if k := levelIndex(sc.Before.Levels, 0.5); sc.Before.Coverage[k] > 0.42 || math.Abs(sc.Coverage.Coverage[k]-0.5) > 0.05 {
		t.Errorf("local coverage at 0.5: %.3f before, %.3f after", sc.Before.Coverage[k], sc.Coverage.Coverage[k])
	}
	p, err := cert.Posterior(0)
	if err != nil {
		t.Fatal(err)
	}
	draws := p.Sample(rand.New(rand.NewPCG(1, 2)), 20000)
	sd := colSD(draws)
	if want := 0.7 * math.Sqrt(0.5) * sc.Map.L[0]; math.Abs(sd-want) > 0.02 {
		t.Errorf("adjusted posterior sd %.3f, want %.3f", sd, want)
	}
	// Its density is the pushforward: at the mapped mean, log q(θ₀)/L.
	if _, err := cert.Region(0, 0); err == nil {
		t.Error("Region of a score-calibrated observation without conformal regions returned no error")
	}
}

func colSD(m *mat.Dense) float64 {
	n, _ := m.Dims()
	var s, s2 float64
	for i := range n {
		v := m.At(i, 0)
		s += v
		s2 += v * v
	}
	mean := s / float64(n)
	return math.Sqrt(s2/float64(n) - mean*mean)
}

// The adjusted posterior's density integrates to one and matches its draws: its mean and
// variance under LogProb (by quadrature) equal those of Sample.
func TestAdjustedPosteriorIsAPushforward(t *testing.T) {
	a := &scoreAdjusted{base: scaledPosterior{0.7}, m: AffineMap{Dim: 1, L: []float64{1.5}, B: []float64{0.2}}, draws: 1000, seed: 1}
	p := a.Posterior([]float64{0.4})
	const lo, hi, steps = -6.0, 6.0, 6000
	h := (hi - lo) / steps
	grid := mat.NewDense(steps+1, 1, nil)
	for i := range steps + 1 {
		grid.Set(i, 0, lo+float64(i)*h)
	}
	lp := p.LogProb(grid)
	var mass, mean float64
	for i, v := range lp {
		mass += math.Exp(v) * h
		mean += grid.At(i, 0) * math.Exp(v) * h
	}
	draws := p.Sample(rand.New(rand.NewPCG(3, 3)), 100000)
	var dm float64
	for i := range 100000 {
		dm += draws.At(i, 0) / 100000
	}
	sd := 1.5 * 0.7 * math.Sqrt(0.5)
	if math.Abs(mass-1) > 1e-6 || math.Abs(mean-dm) > 4*sd/math.Sqrt(100000) {
		t.Errorf("mass %v (want 1), mean by density %v, by draws %v", mass, mean, dm)
	}
	if got := colSD(draws); math.Abs(got-sd) > 0.01 {
		t.Errorf("sd of draws %v, want %v", got, sd)
	}
}

// locallyWrong is the exact posterior N(x/2, ½) of the conjugate model except where x > 1,
// where its mean is shifted by one posterior standard deviation.
type locallyWrong struct{}

func (locallyWrong) mean(x float64) float64 {
	if x > 1 {
		return x/2 + math.Sqrt(0.5)
	}
	return x / 2
}

func (e locallyWrong) Posterior(x []float64) sbi.Posterior {
	return dist.NewNormal([]float64{e.mean(x[0])}, []float64{math.Sqrt(0.5)})
}

func (e locallyWrong) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		z := (theta.At(i, 0) - e.mean(x.At(i, 0))) / math.Sqrt(0.5)
		out[i] = -0.5*z*z - 0.5*math.Log(0.5) - 0.5*math.Log(2*math.Pi)
	}
	return out
}

// localCert certifies est with no remedy and a cheap local test of `pairs` held-out pairs.
func localCert(t *testing.T, est sbi.Amortized, obs *mat.Dense, pairs int, seed uint64) *Certificate {
	t.Helper()
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: est, Remedies: NoRemedies(),
		Simulations: 200 + 200 + pairs, TestSimulations: 200, CheckSimulations: 200, LocalSimulations: pairs,
		LocalTest: localCheap, Samples: 50, SBCSamples: -1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// localCheap is the classifier setting of the level and power tests (diag's cheap setting:
// one hidden layer of 8, 30 full-batch Adam steps of 0.03; 19 null classifiers, the fewest
// with which p = 1/20 = α can occur).
var localCheap = localTestConfig()

func localTestConfig() (c diag.LC2STConfig) {
	c.Null, c.Evals, c.Hidden, c.MaxEpochs, c.LearningRate, c.BatchSize = 19, 200, []int{8}, 30, 0.03, 1000
	return c
}

// The local test at each observation: a posterior wrong where x > 1 is rejected at x = 2 and
// that observation is not certified ("local test rejects"), in at least 60% of 20 runs
// (power; measured 17 of 20 with 300 held-out pairs, 11 of 20 with 200); an exact posterior is
// rejected at x = 2 at most α + 3 SE of 60 runs (level: α = 0.05, SE = √(α(1 − α)/60) =
// 0.028, so at most 8 of 60; measured with other seeds: 6 of 100 at x = 2, 3 of 100 at x = −1).
func TestLocalTestPerObservation(t *testing.T) {
	obs := mat.NewDense(2, 1, []float64{2, -1})
	const pairs = 300
	rejected := 0
	const powerRuns = 20
	for r := range powerRuns {
		cert := localCert(t, locallyWrong{}, obs, pairs, uint64(100+r))
		o := cert.Observations[0]
		if o.Local == nil {
			t.Fatalf("no local test at x = 2: %s", o.Reason)
		}
		if o.Local.Reject() {
			rejected++
			if o.Verdict != NotCertified || !strings.HasPrefix(o.Reason, "local test rejects") {
				t.Errorf("rejected at x = 2 but %s: %s", o.Verdict, o.Reason)
			}
		}
	}
	t.Logf("locally wrong posterior: rejected at x = 2 in %d of %d runs", rejected, powerRuns)
	if rejected < powerRuns*6/10 {
		t.Errorf("power: rejected in %d of %d runs, want ≥ 60%%", rejected, powerRuns)
	}
	const levelRuns = 60
	alpha := DefaultAlpha
	bound := int(math.Floor(levelRuns * (alpha + 3*math.Sqrt(alpha*(1-alpha)/levelRuns))))
	rejected = 0
	for r := range levelRuns {
		cert := localCert(t, scaledPosterior{1}, obs, pairs, uint64(500+r))
		if o := cert.Observations[0]; o.Local == nil {
			t.Fatalf("no local test: %s", o.Reason)
		} else if o.Local.Reject() {
			rejected++
		}
	}
	t.Logf("exact posterior: rejected at x = 2 in %d of %d runs (bound %d)", rejected, levelRuns, bound)
	if rejected > bound {
		t.Errorf("level: the exact posterior was rejected in %d of %d runs, above %d", rejected, levelRuns, bound)
	}
}
