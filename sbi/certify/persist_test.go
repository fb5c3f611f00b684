package certify

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	prior := gaussPrior()
	newNPE := func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8}) }
	cert, err := Certify(prior, gaussSimulator{}, nil, Config{Simulations: 2000, TestSimulations: 500, CheckSimulations: 300,
		New: newNPE, Train: sbi.TrainConfig{Epochs: 2}, Remedies: []Remedy{RemedyConformal},
		Target: Target{Tolerance: 0.01}, Samples: 100, SBCSamples: 99, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if cert.Conformal == nil {
		t.Fatalf("the conformal remedy was not chosen: %s", cert)
	}
	got := saveAndLoad(t, cert)
	if got.Sentence() != cert.Sentence() || got.Budget != cert.Budget || got.Seed != cert.Seed || len(got.Steps) != len(cert.Steps) {
		t.Errorf("loaded certificate differs:\n%s\nwant\n%s", got, cert)
	}
	for k := range cert.Conformal {
		if got.Conformal[k].Threshold != cert.Conformal[k].Threshold {
			t.Errorf("threshold %d: %v, want %v", k, got.Conformal[k].Threshold, cert.Conformal[k].Threshold)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	theta := prior.Sample(rng, 20)
	x := theta // any x will do: compare the densities
	a, b := cert.Estimator.LogProbPairs(theta, x), got.Estimator.LogProbPairs(theta, x)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("log q of pair %d: %v after loading, %v before", i, b[i], a[i])
		}
	}

	// A file whose estimator is not the certified one is refused.
	other := newNPE()
	if _, err := other.Train(theta, x, sbi.TrainConfig{Epochs: 1, Seed: 99}); err != nil {
		t.Fatal(err)
	}
	forged := *cert
	forged.Estimator = other
	bad := filepath.Join(t.TempDir(), "forged.json")
	if err := forged.SaveFile(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(bad); err == nil || !strings.Contains(err.Error(), "not hold the estimator that was certified") {
		t.Errorf("loading a certificate with another estimator: %v", err)
	}
}

func TestSaveRefusesAHandMadePosterior(t *testing.T) {
	cert := certifySynthetic(t, 1, 300, 1)
	err := cert.SaveFile(filepath.Join(t.TempDir(), "c.json"))
	if err == nil || !strings.Contains(err.Error(), "cannot be saved") {
		t.Errorf("saving a certificate of a hand-made posterior: %v", err)
	}
}

// A file written by version 1 of the format (before the local test and score calibration)
// still loads, with the numbers it holds.
func TestLoadVersion1File(t *testing.T) {
	c, err := LoadFile(filepath.Join("testdata", "certificate-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict() != Inconclusive || c.Final.N != 500 || len(c.Observations) != 2 || c.Conformal == nil ||
		c.Observations[1].Verdict != NotCertified || c.Observations[0].Local != nil || c.Observations[0].ScoreCal != nil {
		t.Errorf("version-1 certificate loaded as:\n%s", c)
	}
	if _, err := c.Posterior(0); err != nil {
		t.Error(err)
	}
}

// A certificate with a local test and a score-calibrated observation saves and loads whole:
// the same results, and the same adjusted posterior.
func TestSaveLoadLocalAndScoreCalibration(t *testing.T) {
	prior := gaussPrior()
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 1, Hidden: 8})
	rng := rand.New(rand.NewPCG(4, 4))
	theta := prior.Sample(rng, 500)
	sims, err := sbi.SimulateBatch(rng, gaussSimulator{}, theta)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := npe.Train(sims.Theta, sims.X, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	obs := mat.NewDense(1, 1, []float64{0.5})
	cert, err := Certify(prior, gaussSimulator{}, obs, Config{Trained: npe, Remedies: []Remedy{RemedyScoreCalibration},
		Simulations: 1000, TestSimulations: 200, CheckSimulations: 200, LocalSimulations: 200, LocalTest: localCheap,
		ScoreCalibration: calib.ScoreCalConfig{M: 20, N: 200}, ScoreCalibrationTests: 100,
		Target: Target{Tolerance: 0.01}, Samples: 50, SBCSamples: -1, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	o := cert.Observations[0]
	if o.Local == nil || o.ScoreCal == nil || o.ScoreCal.Local == nil {
		t.Fatalf("want a local test and a score calibration with its local test: %s", cert)
	}
	got := saveAndLoad(t, cert)
	g := got.Observations[0]
	if got.String() != cert.String() || g.Local.PValue != o.Local.PValue || g.ScoreCal.Decision.Verdict != o.ScoreCal.Decision.Verdict ||
		g.ScoreCal.Local.Value != o.ScoreCal.Local.Value {
		t.Errorf("loaded certificate differs:\n%s\nwant\n%s", got, cert)
	}
	p0, err := cert.Posterior(0)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := got.Posterior(0)
	if err != nil {
		t.Fatal(err)
	}
	grid := mat.NewDense(3, 1, []float64{-1, 0.2, 1.5})
	a, b := p0.LogProb(grid), p1.LogProb(grid)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("adjusted log density at %v: %v after loading, %v before", grid.At(i, 0), b[i], a[i])
		}
	}
}

// saveAndLoad writes cert to a file and reads it back.
func saveAndLoad(t *testing.T, cert *Certificate) *Certificate {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cert.json")
	if err := cert.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
