package certify

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// An estimator trained by Sequential on proposals near one observation is refused when
// judged over the whole prior (the marginal claim would be about pairs it was never trained
// on), with an error that says to give the result's Region as the prior; judged over that
// region it is certified or not as any estimator, with a note saying what the claim covers.
// An estimator of one round, trained on the prior, is not refused.
func TestCertifyRefusesProposalEstimatorOverPrior(t *testing.T) {
	xo := []float64{0.8}
	small := sbi.NPEConfig{Flow: sbi.MAF, Hidden: 8, Transforms: 1}
	tc := sbi.TrainConfig{Epochs: 3, BatchSize: 100, Seed: 1}
	cfg := Config{Remedies: NoRemedies(), Simulations: 500, TestSimulations: 500, Samples: 50, SBCSamples: -1, Seed: 3}
	cases := []struct {
		name    string
		method  sbi.SequentialMethod
		rounds  int
		refused bool
	}{
		{"one round on the prior", "", 1, false},
		{"truncated proposals", sbi.TruncatedProposals, 2, true},
		{"atomic proposals", sbi.AtomicProposals, 2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := sbi.Sequential(sbi.NewNPE(gaussPrior(), small), gaussSimulator{}, xo, sbi.SequentialConfig{
				Method: c.method, Rounds: c.rounds, Simulations: 300, Seed: 2, Train: tc})
			if err != nil {
				t.Fatal(err)
			}
			cfg := cfg
			cfg.Trained = res.Estimator.(sbi.Amortized)
			cert, err := Certify(gaussPrior(), gaussSimulator{}, nil, cfg)
			if !c.refused {
				if err != nil {
					t.Fatalf("an estimator trained on the prior: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("certified over the whole prior (%s) an estimator trained on proposals, want an error", cert.Sentence())
			}
			for _, want := range []string{"proposal", "Region as the prior", "Sequential"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			cfg.Trained = savedAndLoaded(t, res.Estimator)
			if cert, err := Certify(gaussPrior(), gaussSimulator{}, nil, cfg); err == nil || !strings.Contains(err.Error(), "proposal") {
				t.Fatalf("saved and loaded: certified over the whole prior (%v, error %v), want the refusal", cert, err)
			}
			if res.Region == nil {
				return
			}
			cert, err = Certify(res.Region, gaussSimulator{}, nil, cfg)
			if err != nil {
				t.Fatalf("over the result's Region: %v", err)
			}
			var file bytes.Buffer
			if err := cert.Save(&file); err != nil {
				t.Fatal(err)
			}
			loaded, err := Load(&file)
			if err != nil {
				t.Fatal(err)
			}
			// the region's note names which region: its mass and threshold
			which := fmt.Sprintf("mass 1 − %g of the posterior", res.Region.Epsilon)
			for name, c := range map[string]*Certificate{"certified": cert, "loaded": loaded} {
				if !slices.ContainsFunc(c.Notes, func(n string) bool {
					return strings.HasPrefix(n, regionNote) && strings.Contains(n, which) && strings.Contains(n, fmt.Sprintf("%.6g", res.Region.Threshold))
				}) {
					t.Errorf("%s: notes %q, want the region's note %q naming %q and the threshold %.6g", name, c.Notes, regionNote, which, res.Region.Threshold)
				}
			}
			got := loaded.Estimator.(interface{ TrainingProposal() string }).TrainingProposal()
			if want := res.Estimator.(interface{ TrainingProposal() string }).TrainingProposal(); got != want {
				t.Errorf("loaded certificate: the estimator's TrainingProposal %q, want %q", got, want)
			}
		})
	}
}

// savedAndLoaded returns est saved to a file and loaded back.
func savedAndLoaded(t *testing.T, est sbi.Estimator) sbi.Amortized {
	t.Helper()
	var file bytes.Buffer
	if err := est.Save(&file); err != nil {
		t.Fatal(err)
	}
	back, err := sbi.Load(&file)
	if err != nil {
		t.Fatal(err)
	}
	return back.(sbi.Amortized)
}
