package sbi_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// An estimator trained by Sequential's rounds after the first is marked as trained on a
// proposal (TrainingProposal names it), for each method and for an ensemble; one round, on
// the prior alone, leaves no mark; a training that does not resume clears the mark, one that
// resumes keeps it.
func TestSequentialMarksTrainingProposal(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	small := sbi.NPEConfig{Flow: sbi.MAF, Hidden: 8, Transforms: 1}
	tc := sbi.TrainConfig{Epochs: 2, BatchSize: 100, Seed: 1}
	type marked interface {
		sbi.Estimator
		TrainingProposal() string
	}
	ensemble := func() marked {
		e, err := sbi.NewNPEEnsemble(sbi.NewNPE(g.Prior(), small), sbi.NewNPE(g.Prior(), small))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases := []struct {
		name   string
		est    marked
		method sbi.SequentialMethod
		rounds int
		want   string // in TrainingProposal; "" for none
	}{
		{"npe one round", sbi.NewNPE(g.Prior(), small), "", 1, ""},
		{"npe truncated", sbi.NewNPE(g.Prior(), small), sbi.TruncatedProposals, 2, "truncated prior"},
		{"npe apt", sbi.NewNPE(g.Prior(), small), sbi.AtomicProposals, 2, "posterior"},
		{"nre posterior", sbi.NewNRE(g.Prior(), sbi.NREConfig{Hidden: []int{8}, Sampler: sbi.SamplerConfig{Method: sbi.SamplerImportance}}), sbi.PosteriorProposals, 2, "posterior"},
		{"npe ensemble", ensemble(), sbi.TruncatedProposals, 2, "truncated prior"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := sbi.Sequential(c.est, glSimulator{g: g}, xo, sbi.SequentialConfig{
				Method: c.method, Rounds: c.rounds, Simulations: 300, Seed: 2, Train: tc})
			if err != nil {
				t.Fatal(err)
			}
			got := c.est.TrainingProposal()
			if c.want == "" {
				if got != "" {
					t.Fatalf("TrainingProposal %q after rounds on the prior alone, want \"\"", got)
				}
				return
			}
			if !strings.Contains(got, c.want) || !strings.Contains(got, "Sequential") {
				t.Fatalf("TrainingProposal %q, want it to name Sequential and %q", got, c.want)
			}
			if rounds := "of round 2 from"; c.rounds == 2 && !strings.Contains(got, rounds) {
				t.Fatalf("TrainingProposal %q after two rounds, want it to say %q", got, rounds)
			}
			resumed := tc
			resumed.Resume = true
			if _, err := c.est.Train(res.Theta, res.X, resumed); err != nil {
				t.Fatal(err)
			}
			if c.est.TrainingProposal() == "" {
				t.Fatal("a resumed training cleared the mark; its weights still hold the proposal's training")
			}
			theta, x := res.RoundPairs(1) // the prior's round
			if _, err := c.est.Train(theta, x, tc); err != nil {
				t.Fatal(err)
			}
			if p := c.est.TrainingProposal(); p != "" {
				t.Fatalf("TrainingProposal %q after a fresh training on the prior's pairs, want \"\"", p)
			}
		})
	}
}

// An estimator trained by Sequential on proposals keeps its TrainingProposal through Save and
// Load (format 4 stores it), for NPE, NRE and an ensemble; one trained on the prior alone
// loads without one. Before, the file dropped the mark and a loaded sequential estimator
// passed for one trained on the prior.
func TestTrainingProposalSaved(t *testing.T) {
	g := sbitest.NewGaussianLinear(1)
	xo := glObservation(g, 1)
	small := sbi.NPEConfig{Flow: sbi.MAF, Hidden: 8, Transforms: 1}
	tc := sbi.TrainConfig{Epochs: 1, BatchSize: 100, Seed: 1}
	type savedMarked interface {
		sbi.Estimator
		TrainingProposal() string
		Save(io.Writer) error
	}
	ensemble, err := sbi.NewNPEEnsemble(sbi.NewNPE(g.Prior(), small), sbi.NewNPE(g.Prior(), small))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		est    savedMarked
		method sbi.SequentialMethod
		rounds int
	}{
		{"npe one round", sbi.NewNPE(g.Prior(), small), "", 1},
		{"npe truncated", sbi.NewNPE(g.Prior(), small), sbi.TruncatedProposals, 2},
		{"nre posterior", sbi.NewNRE(g.Prior(), sbi.NREConfig{Hidden: []int{8}, Sampler: sbi.SamplerConfig{Method: sbi.SamplerImportance}}), sbi.PosteriorProposals, 2},
		{"npe ensemble", ensemble, sbi.TruncatedProposals, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := sbi.Sequential(c.est, glSimulator{g: g}, xo, sbi.SequentialConfig{
				Method: c.method, Rounds: c.rounds, Simulations: 200, Seed: 2, Train: tc}); err != nil {
				t.Fatal(err)
			}
			want := c.est.TrainingProposal()
			if (want == "") != (c.rounds == 1) {
				t.Fatalf("TrainingProposal %q after %d rounds", want, c.rounds)
			}
			var file bytes.Buffer
			if err := c.est.Save(&file); err != nil {
				t.Fatal(err)
			}
			back, err := sbi.Load(&file)
			if err != nil {
				t.Fatal(err)
			}
			got := back.(interface{ TrainingProposal() string }).TrainingProposal()
			if got != want {
				t.Errorf("saved and loaded: TrainingProposal %q, want %q", got, want)
			}
		})
	}
}
