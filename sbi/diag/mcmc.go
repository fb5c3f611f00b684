package diag

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/mcmc"
)

// The MCMC diagnostics of Vehtari, Gelman, Simpson, Carpenter and Bürkner, "Rank-normalization,
// folding, and localization: an improved R̂ for assessing convergence of MCMC" (Bayesian
// Analysis 2021), for chains of any sampler: chains[c][i] is draw i of chain c of one scalar
// quantity. All chains need the same length of at least 4 draws and finite draws; otherwise
// the functions return an error. The samplers of package sbi report them with their draws
// (sbi.MCMCHealth); viz.MCMC draws them.

// SplitRhat is the rank-normalized split R̂: the larger of the R̂ of the rank-normalized
// split chains and of their folded version (V21 §4.3). Chains that mixed give 1; V21 flag
// values above 1.01. It is NaN for constant chains.
func SplitRhat(chains [][]float64) (float64, error) {
	if err := mcmc.Check(chains); err != nil {
		return 0, fmt.Errorf("diag: split R̂: %w", err)
	}
	return mcmc.SplitRhat(chains), nil
}

// ESSBulk is the bulk effective sample size: the ESS (Geyer's initial monotone sequence over
// the combined autocorrelations, V21 eq. 10) of the rank-normalized split chains. For
// independent draws it is about the number of draws, for a stationary AR(1) chain with
// coefficient ρ about S(1 − ρ)/(1 + ρ).
func ESSBulk(chains [][]float64) (float64, error) {
	if err := mcmc.Check(chains); err != nil {
		return 0, fmt.Errorf("diag: bulk ESS: %w", err)
	}
	return mcmc.ESSBulk(chains), nil
}

// ESSTail is the tail effective sample size: the smaller ESS of the indicators of the draws
// below the 5% and the 95% quantile, on the split chains (V21 §4.3).
func ESSTail(chains [][]float64) (float64, error) {
	if err := mcmc.Check(chains); err != nil {
		return 0, fmt.Errorf("diag: tail ESS: %w", err)
	}
	return mcmc.ESSTail(chains), nil
}

// MCMCHealth computes R̂ and the bulk and tail ESS of every parameter from the draws of several
// chains, chains[c][i] being draw i (a parameter vector) of chain c, with the warning
// thresholds of sbi.NewMCMCHealth. sampler names the sampler in displays.
func MCMCHealth(sampler string, chains [][][]float64) (*sbi.MCMCHealth, error) {
	h, err := sbi.NewMCMCHealth(sampler, chains)
	if err != nil {
		return nil, fmt.Errorf("diag: %w", err)
	}
	return h, nil
}
