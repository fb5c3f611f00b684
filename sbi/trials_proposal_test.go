package sbi

import (
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestTrialsTrainingProposal: the Trials of an estimator of single trials trained on
// Sequential's proposals say so (TrainingProposal), so that package diag notes it and package
// certify refuses a claim over the whole prior; the Trials of one trained on its prior say
// nothing.
func TestTrialsTrainingProposal(t *testing.T) {
	const what = `Sequential (method "posterior proposals") drew the parameters of round 2 from the posterior near one observation`
	prior := dist.NewStandardNormal(1)
	nle := NewNLE(prior, NLEConfig{Hidden: 4, Transforms: 1})
	nre := NewNRE(prior, NREConfig{Hidden: []int{4}})
	ens, err := NewNREEnsemble(NewNRE(prior, NREConfig{Hidden: []int{4}}), NewNRE(prior, NREConfig{Hidden: []int{4}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		est    Estimator
		trials func() *AmortizedTrials
	}{
		{"NLE", nle, func() *AmortizedTrials { return nle.Trials(3) }},
		{"NRE", nre, func() *AmortizedTrials { return nre.Trials(3) }},
		{"NREEnsemble", ens, func() *AmortizedTrials { return ens.Trials(3) }},
	} {
		if got := TrainingProposalOf(c.trials()); got != "" {
			t.Errorf("%s trained on its prior: Trials' TrainingProposal %q, want \"\"", c.name, got)
		}
		markProposal(c.est, what)
		if got := TrainingProposalOf(c.trials()); got != what {
			t.Errorf("%s trained on a proposal: Trials' TrainingProposal %q, want %q", c.name, got, what)
		}
	}
}
