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
