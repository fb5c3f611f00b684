package certify

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
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
	path := filepath.Join(t.TempDir(), "cert.json")
	if err := cert.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
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
