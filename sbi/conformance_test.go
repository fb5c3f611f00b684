package sbi_test

import (
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/sbitest"
)

// The estimators of package sbi pass the conformance suite.

func TestConformanceNPEMAF(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNPE(prior, sbi.NPEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2})
	}, sbitest.Config{})
}

func TestConformanceNPENSF(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNPE(prior, sbi.NPEConfig{Flow: sbi.NSF, Hidden: 32, Transforms: 2, Bins: 6})
	}, sbitest.Config{})
}

func TestConformanceNRE(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}})
	}, sbitest.Config{Unnormalized: true})
}

func TestConformanceMLPEmbedding(t *testing.T) {
	sbitest.TestEmbedding(t, sbi.MLPEmbedding{Hidden: []int{32}, Out: 4}, sbitest.Config{})
}

// fewChains samples the likelihood estimators' posteriors by MCMC on 20 chains with 100 sweeps
// of burn-in: the suite draws 200 points per call, and a flow's log-density costs far more
// than a classifier's, so 100 chains (the default) would make the suite five times slower.
var fewChains = sbi.SamplerConfig{Chains: 20, BurnIn: 100}

func TestConformanceNLEMAF(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNLE(prior, sbi.NLEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2, Sampler: fewChains})
	}, sbitest.Config{Unnormalized: true})
}

func TestConformanceNLENSF(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNLE(prior, sbi.NLEConfig{Flow: sbi.NSF, Hidden: 32, Transforms: 2, Bins: 6, Sampler: fewChains})
	}, sbitest.Config{Unnormalized: true})
}

// TestConformanceNLEEmbedding runs the suite on an NLE whose flow is conditioned on an MLP
// embedding of θ, trained with it and saved with it (the round trip).
func TestConformanceNLEEmbedding(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNLE(prior, sbi.NLEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2, Sampler: fewChains,
			Embedding: sbi.MLPEmbedding{Hidden: []int{32}, Out: 8}})
	}, sbitest.Config{Unnormalized: true})
}

// The embeddings of series, images and sets read the suite's observation (4 trials of 3
// values) as a series of 4 positions of 3 channels, an image of 2×2 pixels of 3 channels, and
// a set of 4 trials.

func TestConformanceCNN1DEmbedding(t *testing.T) {
	sbitest.TestEmbedding(t, sbi.CNN1DEmbedding{Channels: 3, Conv: []int{16, 16}, Kernel: 3, Hidden: []int{32}, Out: 4}, sbitest.Config{})
}

func TestConformanceCNN2DEmbedding(t *testing.T) {
	sbitest.TestEmbedding(t, sbi.CNN2DEmbedding{Height: 2, Width: 2, Conv: []int{16}, Hidden: []int{32}, Out: 4}, sbitest.Config{})
}

func TestConformanceDeepSetEmbedding(t *testing.T) {
	sbitest.TestEmbedding(t, sbi.DeepSetEmbedding{TrialDim: 3, Hidden: []int{32}, Features: 16, Head: []int{32}, Out: 4}, sbitest.Config{})
}

func TestConformanceGRUEmbedding(t *testing.T) {
	sbitest.TestEmbedding(t, sbi.GRUEmbedding{Channels: 3, Hidden: 16, Out: 4}, sbitest.Config{})
}

func TestConformanceNREB(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}, Loss: sbi.NREB})
	}, sbitest.Config{Unnormalized: true})
}

func TestConformanceNREC(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		return sbi.NewNRE(prior, sbi.NREConfig{Hidden: []int{32, 32}, Loss: sbi.NREC})
	}, sbitest.Config{Unnormalized: true})
}

// The ensembles implement sbitest.Estimator like their members: Train trains every member on
// the suite's pairs (member k with seed cfg.Seed + k), Save writes them all and sbi.Load reads
// them back as the ensemble. Two members each, of the members' conformance settings.

func TestConformanceNPEEnsemble(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		cfg := sbi.NPEConfig{Flow: sbi.MAF, Hidden: 32, Transforms: 2}
		return sbi.MustNewNPEEnsemble(sbi.NewNPE(prior, cfg), sbi.NewNPE(prior, cfg))
	}, sbitest.Config{})
}

func TestConformanceNREEnsemble(t *testing.T) {
	sbitest.TestEstimator(t, func(prior dist.Distribution) sbitest.Estimator {
		cfg := sbi.NREConfig{Hidden: []int{32, 32}}
		return sbi.MustNewNREEnsemble(sbi.NewNRE(prior, cfg), sbi.NewNRE(prior, cfg))
	}, sbitest.Config{Unnormalized: true})
}
