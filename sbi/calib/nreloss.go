package calib

import "fmt"

// NRELoss names the cross-entropy that a regularizer's weight λ is stated against when the
// estimator is a ratio estimator (sbi.NRE). Papers and their code differ here by a factor 2,
// and so does the strength of the same nominal λ:
//
//	NRELossMean  ½(BCE_joint + BCE_marginal) + λ·R   sbi.NRE's loss; Algorithm 1 of Delaunoy et al. (2022)
//	NRELossSum   BCE_joint + BCE_marginal + λ·R      the authors' code of BNRE (γ = 100) and of CalNRE (γ = 5)
//
// Both are minimized by the same classifier when the weight stated against the sum is twice
// the weight stated against the mean, so a regularizer given a weight λ under NRELossSum adds
// (λ/2)·R to sbi.NRE's loss: the training objective is then exactly half the authors' loss,
// which has the same minimizer and, under Adam's scale-invariant steps, the same training
// path (up to Adam's ε and gradient clipping). An estimator without a cross-entropy (NPE,
// whose loss −log q is the same in every convention) uses λ as given.
type NRELoss int

const (
	// NRELossMean states λ against ½(BCE_joint + BCE_marginal), sbi.NRE's own loss: no
	// conversion. It is the default.
	NRELossMean NRELoss = iota
	// NRELossSum states λ against BCE_joint + BCE_marginal, as the code behind the BNRE and
	// CalNRE papers' figures does: a ratio estimator's penalty is weighted λ/2.
	NRELossSum
)

// String returns "mean" or "sum".
func (l NRELoss) String() string {
	switch l {
	case NRELossMean:
		return "mean"
	case NRELossSum:
		return "sum"
	}
	return fmt.Sprintf("NRELoss(%d)", int(l))
}

// nreScale is the factor that converts a weight stated against l to sbi.NRE's loss, or an
// error for an unknown convention.
func (l NRELoss) nreScale() (float64, error) {
	switch l {
	case NRELossMean:
		return 1, nil
	case NRELossSum:
		return 0.5, nil
	}
	return 0, fmt.Errorf("unknown NRE loss convention %d, want calib.NRELossMean or calib.NRELossSum", int(l))
}
