package certify

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/task"
)

// An over-confident posterior (s = 0.7: coverage 0.35 at level 0.5) fails its diagnosis; the
// more-simulations and regularizer remedies are skipped (nothing to retrain) and conformal regions, calibrated on fresh
// pairs, are certified on the final test set. Without remedies the same posterior is refused.
func TestConformalRemedyCertifiesAnOverconfidentPosterior(t *testing.T) {
	cfg := Config{Trained: scaledPosterior{0.7}, Simulations: 4000, TestSimulations: 2000, CheckSimulations: 1000,
		Samples: synthDraws, SBCSamples: 99, Seed: 7}
	cert, err := Certify(gaussPrior(), gaussSimulator{}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert)
	if !cert.Certified() || cert.Conformal == nil || cert.Tried != 3 {
		t.Fatalf("want certified conformal regions after 3 remedies tried; got %s, conformal %v, tried %d", cert.Verdict(), cert.Conformal != nil, cert.Tried)
	}
	if cert.Steps[0].Decision.Verdict != NotCertified {
		t.Errorf("the diagnosis of the over-confident posterior says %s: %s", cert.Steps[0].Decision.Verdict, cert.Steps[0].Decision.Reason)
	}
	for _, s := range cert.Steps[1:3] {
		if !strings.Contains(s.Note, "skipped") {
			t.Errorf("%s step on a given estimator: %q, want skipped", s.Name, s.Note)
		}
	}
	finalStep(t, cert)
	if cert.Budget.Used != 4000 {
		t.Errorf("drew %d simulations, want the whole budget of 4000 (2 check sets and the test set)", cert.Budget.Used)
	}
	if cert.SBC == nil || cert.SBC.KSPValues[0] > 1e-3 {
		t.Errorf("SBC of the over-confident posterior should reject uniformity; got %v", cert.SBC)
	}
	if cert.TARP == nil || cert.TARP.ATC >= 0 || cert.TARP.KSPValue > 1e-3 {
		t.Errorf("TARP of the over-confident posterior should say over-confident (ATC < 0) and reject; got %+v", cert.TARP)
	}

	cfg.Remedies = NoRemedies()
	cert, err = Certify(gaussPrior(), gaussSimulator{}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Verdict() != NotCertified || cert.Tried != 0 {
		t.Errorf("without remedies: %s after %d remedies; want not certified after 0", cert.Sentence(), cert.Tried)
	}
}

// A correct posterior is certified without a remedy; an observation far outside what the
// simulator produces (x = 40 where x ~ N(0, 2)) is refused while one inside keeps the verdict.
func TestObservationOutsideTheSimulatorIsRefused(t *testing.T) {
	obs := mat.NewDense(2, 1, []float64{0.3, 40})
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: scaledPosterior{1},
		Simulations: 3000, TestSimulations: 1500, CheckSimulations: 700, Samples: synthDraws, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert)
	if !cert.Certified() || cert.Tried != 0 || cert.Conformal != nil {
		t.Fatalf("exact posterior: %s after %d remedies", cert.Sentence(), cert.Tried)
	}
	if o := cert.Observations[0]; o.Verdict != Certified {
		t.Errorf("observation 0.3: %s: %s", o.Verdict, o.Reason)
	}
	o := cert.Observations[1]
	if o.Verdict != NotCertified || !strings.Contains(o.Reason, "refused") || o.Misspec == nil || !o.Misspec.Reject() {
		t.Errorf("observation 40: %s: %s", o.Verdict, o.Reason)
	}
	if _, err := cert.Posterior(1); err != nil {
		t.Error(err)
	}
	if _, err := cert.Posterior(2); err == nil {
		t.Error("Posterior(2) of two observations returned no error")
	}
}

func TestBadInput(t *testing.T) {
	prior, sim := gaussPrior(), gaussSimulator{}
	cases := []struct {
		name string
		obs  *mat.Dense
		cfg  Config
		says string
	}{
		{"budget", nil, Config{Simulations: 500}, "budget of 500"},
		{"level", nil, Config{Target: Target{Levels: []float64{0.9, 0.5}}}, "increase"},
		{"tolerance", nil, Config{Target: Target{Tolerance: 2}}, "tolerance"},
		{"observation width", mat.NewDense(1, 3, nil), Config{}, "3 columns"},
		{"remedy", nil, Config{Remedies: []Remedy{"more coffee"}}, "unknown remedy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Certify(prior, sim, c.obs, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want one saying %q", err, c.says)
			}
		})
	}
}

// End to end: a default NPE on gaussian_linear (10 parameters) with 6,000 simulations, 1,500 of
// them the final test set (power ≥ 0.95 for an exactly calibrated posterior; the default fifth,
// 1,200, has less, and a test that needs a certificate needs the power).
func TestCertifyGaussianLinearNPE(t *testing.T) {
	if testing.Short() {
		t.Skip("trains an NPE")
	}
	tk := task.GaussianLinear()
	rng := rand.New(rand.NewPCG(5, 5))
	theta := tk.Prior().Sample(rng, 1)
	obs := mat.NewDense(1, tk.DataDim(), nil)
	tk.SimulateBatch(rng, theta, obs)
	start := time.Now()
	cert, err := Certify(tk.Prior(), tk, obs, Config{Simulations: 6000, TestSimulations: 1500, Samples: 100, SBCSamples: -1, Seed: 1,
		New: func() sbi.Estimator {
			return sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Transforms: 3, Hidden: 32})
		},
		Train:    sbi.TrainConfig{Epochs: 60},
		Remedies: []Remedy{RemedyConformal}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f s\n%s", time.Since(start).Seconds(), cert)
	if !cert.Certified() || cert.Observations[0].Verdict != Certified {
		t.Errorf("gaussian_linear NPE: %s", cert.Sentence())
	}
}

// A given estimator without remedies and with observations: a reference set is reserved for
// the misspecification check, and the run stays within its budget.
func TestReferenceSetIsBudgeted(t *testing.T) {
	obs := mat.NewDense(1, 1, []float64{40})
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: scaledPosterior{1}, Remedies: NoRemedies(),
		Simulations: 1500, TestSimulations: 1000, CheckSimulations: 400, Samples: synthDraws, SBCSamples: -1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if b := cert.Budget; b.Reference != 400 || b.Used != 1400 || b.Used > b.Total {
		t.Errorf("budget %s; want a reference set of 400 and 1400 drawn", b)
	}
	if cert.Observations[0].Verdict != NotCertified {
		t.Errorf("observation 40: %s", cert.Observations[0].Reason)
	}
}

// The regularizer remedy retrains a fresh estimator from Config.New on the training set and
// diagnoses it on a check set of its own (a plumbing test: a tiny NPE, a few epochs).
func TestRegularizerRemedyRetrains(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two NPEs")
	}
	prior := gaussPrior()
	news := 0
	cert, err := Certify(prior, gaussSimulator{}, nil, Config{Simulations: 2000, TestSimulations: 500, CheckSimulations: 300,
		New: func() sbi.Estimator {
			news++
			return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
		},
		Train:       sbi.TrainConfig{Epochs: 3},
		Regularizer: calib.CoverageRegularizerConfig{Samples: 4},
		Remedies:    []Remedy{RemedyRegularizer}, Samples: 100, SBCSamples: -1, Seed: 2,
		Target: Target{Tolerance: 0.001}, // unreachable: the remedy must run
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert)
	if news != 2 || cert.Tried != 1 || len(cert.Steps) != 3 {
		t.Fatalf("%d estimators made, %d remedies tried, %d steps; want 2, 1, 3", news, cert.Tried, len(cert.Steps))
	}
	s := cert.Steps[1]
	if s.Name != string(RemedyRegularizer) || s.Decision == nil || !strings.Contains(s.Note, "retrained on the same 900 training simulations") {
		t.Errorf("regularizer step: %+v", s)
	}
	if cert.Verdict() == Certified {
		t.Errorf("certified with an unreachable tolerance: %s", cert.Sentence())
	}
}

func TestUntrainedEstimatorIsRefused(t *testing.T) {
	_, err := Certify(gaussPrior(), gaussSimulator{}, nil, Config{Trained: sbi.NewNPE(gaussPrior(), sbi.NPEConfig{})})
	if !errors.Is(err, sbi.ErrUntrained) {
		t.Errorf("untrained Config.Trained: %v, want an error wrapping sbi.ErrUntrained", err)
	}
}

func TestCancelledContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := CertifyContext(ctx, gaussPrior(), gaussSimulator{}, nil, Config{Trained: scaledPosterior{1}, Simulations: 2000})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want an error wrapping context.Canceled", err)
	}
}

// TestTargetString checks the target in words, one- and two-sided.
func TestTargetString(t *testing.T) {
	for _, c := range []struct {
		target Target
		want   string
	}{
		{Target{}, "coverage within ±0.05 of each level {0.5, 0.8, 0.9, 0.95}, false-certification rate ≤ 0.05"},
		{Target{Conservative: true, Tolerance: 0.02, Levels: []float64{0.9}},
			"coverage at least each level minus 0.02 (conservative) at the levels {0.9}, false-certification rate ≤ 0.05"},
	} {
		if got := c.target.String(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.target, got, c.want)
		}
	}
}

// An observation whose misspecification check cannot reject at its level (10 calibration
// simulations: the smallest p-value is 1/11 > α = 0.05) is not judged by the global verdict:
// before the fix x = 40, far outside what the simulator produces, was certified with the
// marginal claim because the check "did not reject" it. Both observations are inconclusive, and
// the reason says why.
func TestObservationWithUndecidableMisspecificationIsInconclusive(t *testing.T) {
	obs := mat.NewDense(2, 1, []float64{0.3, 40})
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: scaledPosterior{1},
		Simulations: 3000, TestSimulations: 1500, CheckSimulations: 700, Samples: synthDraws, Seed: 3,
		Misspecification: diag.MisspecConfig{Reference: 200, Calibration: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if !cert.Certified() {
		t.Fatalf("exact posterior: %s", cert.Sentence())
	}
	for i, o := range cert.Observations {
		if o.Verdict != Inconclusive || o.Misspec == nil || !strings.Contains(o.Reason, "inconclusive") {
			t.Errorf("observation %v: %s: %s; want inconclusive (the check cannot reject)", o.X, o.Verdict, o.Reason)
		}
		if _, err := cert.Posterior(i); err != nil {
			t.Error(err)
		}
	}
}

// The refusal states the rule it applied: the check rejects at p ≤ α. With 19 calibration
// simulations an observation beyond all of them has p = 1/20 = α exactly; before the fix the
// reason read "p = 0.05 < 0.05".
func TestRefusalAtTheLevelStatesTheRule(t *testing.T) {
	obs := mat.NewDense(1, 1, []float64{40})
	cert, err := Certify(gaussPrior(), gaussSimulator{}, obs, Config{Trained: scaledPosterior{1},
		Simulations: 3000, TestSimulations: 1500, CheckSimulations: 700, Samples: synthDraws, Seed: 3,
		Misspecification: diag.MisspecConfig{Reference: 200, Calibration: 19}})
	if err != nil {
		t.Fatal(err)
	}
	o := cert.Observations[0]
	if o.Verdict != NotCertified || o.Misspec == nil || o.Misspec.PValue != 0.05 {
		t.Fatalf("x = 40: %s: %s", o.Verdict, o.Reason)
	}
	if !strings.Contains(o.Reason, "p = 0.05 ≤ 0.05") {
		t.Errorf("reason %q does not state p ≤ α", o.Reason)
	}
}

// The certificate's sentence counts the remedies that ran apart from those skipped, naming
// these: a given estimator cannot be retrained, so of the three remedies before the final
// test two are skipped and one (conformal regions) ran.
func TestSentenceCountsSkippedRemediesApart(t *testing.T) {
	cfg := Config{Trained: scaledPosterior{0.7}, Simulations: 2000, TestSimulations: 1000, CheckSimulations: 500,
		Samples: synthDraws, SBCSamples: -1, Seed: 7}
	cert, err := Certify(gaussPrior(), gaussSimulator{}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Tried != 3 {
		t.Fatalf("Tried = %d, want the 3 remedies taken up (this test's premise)", cert.Tried)
	}
	s := cert.Sentence()
	want := "after 1 remedy tried and 2 skipped (more simulations, coverage regularizer)"
	if !strings.Contains(s, want) {
		t.Errorf("sentence %q, want it to say %q", s, want)
	}
	if n, skipped := cert.RemediesRun(), cert.SkippedRemedies(); n != 1 || !slices.Equal(skipped, []string{"more simulations", "coverage regularizer"}) {
		t.Errorf("RemediesRun %d, SkippedRemedies %q; want 1 and the two skipped, as the sentence says", n, skipped)
	}
}

// RemediesRun and SkippedRemedies count apart, from the steps, what Tried counts together:
// the remedies that ran and those skipped (a step whose note begins "skipped"). Steps other
// than remedies (the first estimator, the final test) are not counted, skipped or not.
func TestRemediesRunAndSkipped(t *testing.T) {
	ran := func(name string) Step { return Step{Name: name, Note: "ran"} }
	skip := func(name string) Step { return Step{Name: name, Note: "skipped: a reason"} }
	cases := []struct {
		name    string
		tried   int
		steps   []Step
		run     int
		skipped []string
	}{
		{"none", 0, []Step{ran("initial estimator"), ran("final test")}, 0, nil},
		{"all ran", 2, []Step{ran("initial estimator"), ran(string(RemedyRegularizer)), ran(string(RemedyConformal)), ran("final test")}, 2, nil},
		{"one skipped", 3, []Step{ran("initial estimator"), skip(string(RemedyMoreSimulations)), ran(string(RemedyRegularizer)), ran(string(RemedyConformal)), ran("final test")},
			2, []string{string(RemedyMoreSimulations)}},
		{"all skipped", 2, []Step{ran("initial estimator"), skip(string(RemedyMoreSimulations)), skip(string(RemedyRegularizer)), ran("final test")},
			0, []string{string(RemedyMoreSimulations), string(RemedyRegularizer)}},
		{"a step that is no remedy skipped", 1, []Step{skip("initial estimator"), ran(string(RemedyConformal))}, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cert := &Certificate{Tried: c.tried, Steps: c.steps}
			if got := cert.RemediesRun(); got != c.run {
				t.Errorf("RemediesRun = %d, want %d", got, c.run)
			}
			if got := cert.SkippedRemedies(); !slices.Equal(got, c.skipped) {
				t.Errorf("SkippedRemedies = %q, want %q", got, c.skipped)
			}
		})
	}
}
