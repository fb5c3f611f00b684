package certify

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// The conjugate model of the trials tests: θ ~ N(0, I₂), each trial x ~ N(θ, σ²I₂), and an
// observation holds 1 to trialsMax trials side by side, NaN trials after them as padding.
const (
	trialsSigma = 2.0
	trialsMax   = 10
	trialsDim   = 2
)

// trialsSimulator simulates observations of 1 to trialsMax trials (uniform, independent of θ),
// padded with NaN trials to trialsMax, as sbi.AmortizedTrials reads them.
type trialsSimulator struct{}

func (trialsSimulator) DataDim() int { return trialsMax * trialsDim }

func (trialsSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		fillTrials(rng, theta.RawRowView(i), x.RawRowView(i), 1+rng.IntN(trialsMax))
	}
}

// fillTrials writes k trials of N(θ, σ²I) into row and NaN into the rest.
func fillTrials(rng *rand.Rand, theta, row []float64, k int) {
	for t := range trialsMax {
		for j := range trialsDim {
			v := math.NaN()
			if t < k {
				v = theta[j] + trialsSigma*rng.NormFloat64()
			}
			row[t*trialsDim+j] = v
		}
	}
}

// exactTrialsPosterior is the closed-form posterior of θ given the k trials present in row:
// N(μ, s²I) with 1/s² = 1 + k/σ² and μ = s²·Σₜxₜ/σ².
func exactTrialsPosterior(row []float64) (mu []float64, s float64) {
	mu = make([]float64, trialsDim)
	k := 0
	for t := range trialsMax {
		if math.IsNaN(row[t*trialsDim]) {
			break
		}
		k++
		for j := range trialsDim {
			mu[j] += row[t*trialsDim+j]
		}
	}
	s2 := 1 / (1 + float64(k)/(trialsSigma*trialsSigma))
	for j := range mu {
		mu[j] *= s2 / (trialsSigma * trialsSigma)
	}
	return mu, math.Sqrt(s2)
}

// trainedTrials trains a small NLE on single trials of the model and returns it as an
// AmortizedTrials over observations of up to trialsMax trials, sampled by importance
// resampling from the prior.
func trainedTrials(t *testing.T, prior dist.Distribution) *sbi.AmortizedTrials {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	theta := prior.Sample(rng, 4000)
	x := mat.NewDense(4000, trialsDim, nil)
	for i := range 4000 {
		for j := range trialsDim {
			x.Set(i, j, theta.At(i, j)+trialsSigma*rng.NormFloat64())
		}
	}
	nle := sbi.NewNLE(prior, sbi.NLEConfig{Hidden: 16, Transforms: 2})
	for _, cfg := range []sbi.TrainConfig{
		{Epochs: 20, BatchSize: 200, LearningRate: 2e-3, Seed: 1},
		{Epochs: 5, BatchSize: 200, LearningRate: 2e-4, Seed: 1, Resume: true},
	} {
		if _, err := nle.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return nle.TrialsWith(trialsMax, sbi.SamplerConfig{Method: sbi.SamplerImportance})
}

// trialsObservations returns observations of k trials each from θ = (0.5, −0.3).
func trialsObservations(ks ...int) *mat.Dense {
	rng := rand.New(rand.NewPCG(31, 32))
	obs := mat.NewDense(len(ks), trialsMax*trialsDim, nil)
	for i, k := range ks {
		fillTrials(rng, []float64{0.5, -0.3}, obs.RawRowView(i), k)
	}
	return obs
}

// hpdCovers reports, for each level, whether θ lies in the HPD region of that level of post,
// estimated from m draws: θ is in it when fewer than a fraction L of the draws have a higher
// density than θ.
func hpdCovers(rng *rand.Rand, post sbi.Posterior, theta []float64, levels []float64, m int) []bool {
	lp := post.LogProb(post.Sample(rng, m))
	at := post.LogProb(mat.NewDense(1, len(theta), theta))[0]
	sort.Float64s(lp)
	above := len(lp) - sort.SearchFloat64s(lp, at) // draws of density ≥ θ's
	out := make([]bool, len(levels))
	for k, l := range levels {
		out[k] = float64(above) < l*float64(m)
	}
	return out
}

// TestCertifyTrials certifies a real sbi.AmortizedTrials (an NLE trained on 4,000 single trials
// of the conjugate Gaussian model) on observations of 1 to 10 trials, padded with NaN trials,
// and checks what a user would check:
//   - no simulation is dropped: the padded ones are observations of fewer trials, not
//     failures, and every final test pair is judged;
//   - both observations, of 3 and of 10 trials, get a verdict from the misspecification check
//     rather than an error;
//   - a Certified verdict holds on fresh pairs: the coverage of the certified posterior's HPD
//     regions on 300 fresh pairs of 1 to 10 trials lies within the target's tolerance plus
//     3.5 binomial standard deviations of 300 pairs of each level;
//   - the posterior at each observation is near the closed form (mean within 0.35 posterior
//     sd, sd within 25%: the estimator's error is not sampling error);
//   - the saved certificate loads, and its posterior draws for an observation of 6 trials.
func TestCertifyTrials(t *testing.T) {
	prior := dist.NewStandardNormal(trialsDim)
	est := trainedTrials(t, prior)
	obs := trialsObservations(3, trialsMax)
	cfg := Config{Trained: est, Remedies: NoRemedies(), Target: Target{Tolerance: 0.1},
		Simulations: 1400, TestSimulations: 500, CheckSimulations: 800, LocalSimulations: -1, Samples: 99, SBCSamples: -1, Seed: 5,
		Misspecification: diagMisspec(150)}
	cert, err := Certify(prior, trialsSimulator{}, obs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert.Sentence())
	if cert.Budget.Dropped != 0 || cert.Final.N != cfg.TestSimulations {
		t.Errorf("%d simulations dropped and %d of %d test pairs judged; want none dropped (padded observations are observations of fewer trials)",
			cert.Budget.Dropped, cert.Final.N, cfg.TestSimulations)
	}
	for i, o := range cert.Observations {
		if o.Misspec == nil {
			t.Errorf("observation %d: no misspecification check: %s", i, o.Reason)
		}
		if o.Verdict != cert.Final.Verdict {
			t.Errorf("observation %d: verdict %s (%s), want the global %s", i, o.Verdict, o.Reason, cert.Final.Verdict)
		}
	}
	if !cert.Certified() {
		t.Fatalf("not certified (the test's premise: a well-trained estimator): %s", cert.Sentence())
	}
	checkByTrials(t, cert, cfg.TestSimulations)
	checkFreshCoverage(t, cert, 300)
	checkClosedForm(t, cert, obs)
	checkSavedTrials(t, cert)
}

// checkByTrials checks the certificate's note of the final test's coverage by number of
// trials: every number of trials 1 to 10 appears once, with pair counts summing to the n
// pairs of the final test.
func checkByTrials(t *testing.T, cert *Certificate, n int) {
	t.Helper()
	part := regexp.MustCompile(`(\d+) trials: [0-9./]+ on (\d+) pairs`)
	for _, note := range cert.Notes {
		if !strings.HasPrefix(note, "final test coverage by number of trials") {
			continue
		}
		seen, sum := map[string]bool{}, 0
		for _, m := range part.FindAllStringSubmatch(note, -1) {
			seen[m[1]] = true
			c, _ := strconv.Atoi(m[2])
			sum += c
		}
		if len(seen) != trialsMax || sum != n {
			t.Errorf("note %q: %d numbers of trials on %d pairs, want %d on %d", note, len(seen), sum, trialsMax, n)
		}
		return
	}
	t.Errorf("no note of the coverage by number of trials in %q", cert.Notes)
}

// diagMisspec is the misspecification check's configuration for the small budgets of these
// tests: n reference and n calibration simulations.
func diagMisspec(n int) (c diag.MisspecConfig) {
	c.Reference, c.Calibration = n, n
	return c
}

// checkFreshCoverage draws n fresh pairs of 1 to 10 trials and checks the coverage of the
// certified posterior's HPD regions at each target level against the level, within the
// tolerance plus 3.5 binomial standard deviations of n pairs.
func checkFreshCoverage(t *testing.T, cert *Certificate, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 42))
	levels := cert.Target.Levels
	hits := make([]int, len(levels))
	row := make([]float64, trialsMax*trialsDim)
	for range n {
		theta := []float64{rng.NormFloat64(), rng.NormFloat64()}
		fillTrials(rng, theta, row, 1+rng.IntN(trialsMax))
		for k, in := range hpdCovers(rng, cert.Estimator.Posterior(row), theta, levels, 200) {
			if in {
				hits[k]++
			}
		}
	}
	for k, l := range levels {
		got := float64(hits[k]) / float64(n)
		tol := cert.Target.Tolerance + 3.5*math.Sqrt(l*(1-l)/float64(n))
		if math.Abs(got-l) > tol {
			t.Errorf("level %v: the certified regions cover %d of %d fresh pairs (%.3f), want within %.3f of the level", l, hits[k], n, got, tol)
		}
	}
}

// checkClosedForm compares the certified posterior at each observation with the closed form.
func checkClosedForm(t *testing.T, cert *Certificate, obs *mat.Dense) {
	t.Helper()
	for i := range cert.Observations {
		post, err := cert.Posterior(i)
		if err != nil {
			t.Fatal(err)
		}
		mu, s := exactTrialsPosterior(obs.RawRowView(i))
		checkMoments(t, post, mu, s, i)
	}
}

// checkMoments compares the mean and sd of 2,000 draws of post with N(mu, s²I): the mean
// within 0.35·s, each sd within 25% of s.
func checkMoments(t *testing.T, post sbi.Posterior, mu []float64, s float64, what any) {
	t.Helper()
	const m = 2000
	d := post.Sample(rand.New(rand.NewPCG(51, 52)), m)
	for j := range mu {
		col := mat.Col(nil, j, d)
		mean, sd := meanSD(col)
		if math.Abs(mean-mu[j]) > 0.35*s || math.Abs(sd-s) > 0.25*s {
			t.Errorf("%v: θ%d: posterior mean %.3f, sd %.3f; closed form %.3f, %.3f", what, j, mean, sd, mu[j], s)
		}
	}
}

func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean) / float64(len(v)-1)
	}
	return mean, math.Sqrt(sd)
}

// checkSavedTrials saves the certificate, loads it, and checks the loaded posterior at an
// observation of 6 trials (a number neither observation has) against the closed form.
func checkSavedTrials(t *testing.T, cert *Certificate) {
	t.Helper()
	var buf bytes.Buffer
	if err := cert.Save(&buf); err != nil {
		t.Fatalf("saving the certificate: %v", err)
	}
	got, err := Load(&buf)
	if err != nil {
		t.Fatalf("loading the certificate: %v", err)
	}
	for i, o := range got.Observations {
		want := cert.Observations[i].X
		same := len(o.X) == len(want)
		for j := 0; same && j < len(want); j++ {
			same = o.X[j] == want[j] || math.IsNaN(o.X[j]) && math.IsNaN(want[j])
		}
		if !same {
			t.Errorf("observation %d loaded as %v, saved as %v", i, o.X, want)
		}
	}
	row := make([]float64, trialsMax*trialsDim)
	fillTrials(rand.New(rand.NewPCG(61, 62)), []float64{-0.4, 0.8}, row, 6)
	mu, s := exactTrialsPosterior(row)
	checkMoments(t, got.Estimator.Posterior(row), mu, s, "loaded posterior at 6 trials")
}

// TestCertifyTrialsScoreCalibration forces score calibration (Config.Remedies) of a real
// sbi.AmortizedTrials at observations of 2 and of 6 trials, with a target the final test
// cannot decide (tolerance 0.02 on 300 pairs), so that it runs at both: every calibration
// dataset and every test pair is kept (the padded ones are observations of fewer trials), and
// the adjusted posterior draws. (Its target is the posterior under the prior π̄ of the
// calibration, not the closed form under N(0, I), so it is not compared with that.)
func TestCertifyTrialsScoreCalibration(t *testing.T) {
	prior := dist.NewStandardNormal(trialsDim)
	est := trainedTrials(t, prior)
	obs := trialsObservations(2, 6)
	const datasets, tests = 30, 100
	cfg := Config{Trained: est, Remedies: []Remedy{RemedyScoreCalibration}, Target: Target{Tolerance: 0.02},
		Simulations: 1500, TestSimulations: 300, CheckSimulations: 600, LocalSimulations: -1,
		ScoreCalibration: calib.ScoreCalConfig{M: datasets, N: 100}, ScoreCalibrationTests: tests,
		Samples: 99, SBCSamples: -1, Seed: 7, Misspecification: diagMisspec(150)}
	cert, err := Certify(prior, trialsSimulator{}, obs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert.Sentence())
	if cert.Budget.Dropped != 0 {
		t.Errorf("%d simulations dropped, want none (padded observations are observations of fewer trials)", cert.Budget.Dropped)
	}
	for i, o := range cert.Observations {
		sc := o.ScoreCal
		if sc == nil {
			t.Errorf("observation %d: no score calibration: %s", i, o.Reason)
			continue
		}
		if sc.Datasets != datasets || sc.Dropped != 0 || sc.Coverage.N != tests || sc.Before.N != tests {
			t.Errorf("observation %d: score calibration on %d datasets (%d dropped), tested on %d pairs (before: %d); want %d, 0, %d and %d",
				i, sc.Datasets, sc.Dropped, sc.Coverage.N, sc.Before.N, datasets, tests, tests)
		}
		post, err := cert.Posterior(i)
		if err != nil {
			t.Fatal(err)
		}
		if d := post.Sample(rand.New(rand.NewPCG(71, 72)), 100); !allFinite(d.RawMatrix().Data) {
			t.Errorf("observation %d: the adjusted posterior draws non-finite values", i)
		}
	}
}

func allFinite(v []float64) bool {
	for _, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// TestPlanLocalOffForPadding: the local test's default budget is 0 for an estimator that
// reads NaN padding (its classifier refuses padded simulations, which would be drawn and thrown
// away), with a note saying why; an ordinary estimator keeps a check set's size, and a set
// size given for the padded one is kept.
func TestPlanLocalOffForPadding(t *testing.T) {
	cases := []struct {
		name      string
		trained   any
		local     int
		wantLocal int // -1: a check set's size
		wantNote  bool
	}{
		{"padded, default", paddedScaled{scaledPosterior{1}}, 0, 0, true},
		{"ordinary, default", scaledPosterior{1}, 0, -1, false},
		{"padded, given", paddedScaled{scaledPosterior{1}}, 150, 150, false},
	}
	for _, c := range cases {
		cfg := Config{Trained: c.trained.(sbi.Amortized), Simulations: 3000, TestSimulations: 300, CheckSimulations: 200, LocalSimulations: c.local}
		b, notes, err := plan(cfg, true, 1, false)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := c.wantLocal
		if want < 0 {
			want = b.Check
		}
		noted := false
		for _, n := range notes {
			noted = noted || strings.Contains(n, "local test (L-C2ST) not run: the estimator reads observations padded with NaN")
		}
		if b.Local != want || noted != c.wantNote {
			t.Errorf("%s: local budget %d, note %v (%q); want %d, %v", c.name, b.Local, noted, notes, want, c.wantNote)
		}
	}
}

// strictPadded is paddedScaled that, as sbi.AmortizedTrials, cannot read a trial after the
// padding: x = (NaN, v).
type strictPadded struct{ paddedScaled }

func (e strictPadded) Unpadded(x []float64) ([]float64, error) {
	if len(x) == 2 && math.IsNaN(x[0]) && !math.IsNaN(x[1]) {
		return nil, errors.New("trial 1 follows trial 0, which is all NaN")
	}
	return e.paddedScaled.Unpadded(x)
}

// brokenTrialsSimulator is paddingSimulator that writes, for θ < −2, its second trial after
// a NaN first one: a row no estimator of padded trials reads.
type brokenTrialsSimulator struct{ paddingSimulator }

func (s brokenTrialsSimulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	s.paddingSimulator.SimulateBatch(rng, theta, x)
	n, _ := theta.Dims()
	for i := range n {
		if theta.At(i, 0) < -2 {
			x.Set(i, 0, math.NaN())
		}
	}
}

// TestCertifyTrialsUnreadableRow: a simulation the padded estimator cannot read stops the run
// with an error that names the row, says why, and says what a failed simulation must look
// like (a whole row of NaN).
func TestCertifyTrialsUnreadableRow(t *testing.T) {
	obs := mat.NewDense(1, 2, []float64{0.5, 0.2})
	_, err := Certify(gaussPrior(), brokenTrialsSimulator{}, obs, Config{Trained: strictPadded{paddedScaled{scaledPosterior{1}}},
		Remedies: NoRemedies(), Simulations: 1000, TestSimulations: 300, CheckSimulations: 200, LocalSimulations: -1, SBCSamples: -1, Seed: 3})
	if err == nil {
		t.Fatal("certified from rows the estimator cannot read, want an error")
	}
	for _, want := range []string{"cannot read the simulator's output", "simulation ", "trial 1 follows trial 0", "whole row of NaN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestScoreAdjustedReadsPaddingOnlyOverPadding: the score-adjusted posterior reads NaN padding
// (calib.Unpadder) as the diagnoses see it only when its base does; over an ordinary estimator
// it claims no such reading (it did, passing x through unchanged).
func TestScoreAdjustedReadsPaddingOnlyOverPadding(t *testing.T) {
	m := AffineMap{Dim: 1, L: []float64{1.2}, B: []float64{0.1}}
	for _, c := range []struct {
		base sbi.Amortized
		want bool
	}{{scaledPosterior{1}, false}, {paddedScaled{scaledPosterior{1}}, true}} {
		a := &scoreAdjusted{base: c.base, m: m, draws: 20, seed: 1}
		if _, ok := any(a).(calib.Unpadder); ok {
			t.Errorf("base %T: the adjusted estimator itself reads padding, want only its diagnosed form to, where the base does", c.base)
		}
		u, got := a.diagnosed().(calib.Unpadder)
		if got != c.want {
			t.Errorf("base %T: the diagnosed adjusted estimator reads padding: %v, want %v", c.base, got, c.want)
			continue
		}
		if got {
			if p, err := u.Unpadded([]float64{0.4, math.NaN()}); err != nil || len(p) != 1 {
				t.Errorf("base %T: (0.4, NaN) read as %v, %v; want its one value", c.base, p, err)
			}
		}
	}
}

// TestCertifyTrialsConformalSaved forces the conformal remedy on a real sbi.AmortizedTrials
// (a target the final test cannot decide, tolerance 0.02 on 300 pairs) and saves and loads the
// certificate: the file is version 3 (padded calibration observations), Load recomputes every
// threshold from the saved calibration pairs with the loaded estimator and gets the saved one
// (it refuses the file otherwise), the loaded regions decide membership as the certified ones
// do, and the loaded posterior at an observation of 6 trials is near the closed form.
func TestCertifyTrialsConformalSaved(t *testing.T) {
	prior := dist.NewStandardNormal(trialsDim)
	est := trainedTrials(t, prior)
	obs := trialsObservations(2, 6)
	cfg := Config{Trained: est, Remedies: []Remedy{RemedyConformal}, Target: Target{Tolerance: 0.02},
		Simulations: 1500, TestSimulations: 300, CheckSimulations: 600, LocalSimulations: -1,
		Samples: 99, SBCSamples: -1, Seed: 9, Misspecification: diagMisspec(150)}
	cert, err := Certify(prior, trialsSimulator{}, obs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(cert.Sentence())
	if cert.Conformal == nil {
		t.Fatalf("the conformal remedy was not chosen (the test's premise): %s", cert.Sentence())
	}
	if cert.Budget.Dropped != 0 {
		t.Errorf("%d simulations dropped, want none (padded observations are observations of fewer trials)", cert.Budget.Dropped)
	}
	var buf bytes.Buffer
	if err := cert.Save(&buf); err != nil {
		t.Fatalf("saving the certificate: %v", err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"version": 3`)) && !bytes.Contains(buf.Bytes(), []byte(`"version":3`)) {
		t.Errorf("the certificate of an estimator of trials was not saved as version 3")
	}
	got, err := Load(&buf)
	if err != nil {
		t.Fatalf("loading the certificate: %v", err)
	}
	if got.Conformal == nil || len(got.Conformal) != len(cert.Conformal) {
		t.Fatalf("loaded %d conformal levels, saved %d", len(got.Conformal), len(cert.Conformal))
	}
	theta := prior.Sample(rand.New(rand.NewPCG(81, 82)), 40)
	for k, c := range cert.Conformal {
		g := got.Conformal[k]
		if g.Threshold != c.Threshold {
			t.Errorf("level %d: threshold %v after loading, %v saved", k, g.Threshold, c.Threshold)
		}
		for i := range obs.RawMatrix().Rows {
			x := mat.NewDense(40, trialsMax*trialsDim, nil)
			for j := range 40 {
				x.SetRow(j, obs.RawRowView(i))
			}
			a, b := c.Contains(theta, x), g.Contains(theta, x)
			for j := range a {
				if a[j] != b[j] {
					t.Fatalf("level %d, observation %d, θ %d: in the region %v before saving, %v after", k, i, j, a[j], b[j])
				}
			}
		}
	}
	row := make([]float64, trialsMax*trialsDim)
	fillTrials(rand.New(rand.NewPCG(61, 62)), []float64{-0.4, 0.8}, row, 6)
	mu, s := exactTrialsPosterior(row)
	checkMoments(t, got.Estimator.Posterior(row), mu, s, "loaded posterior at 6 trials")
}
