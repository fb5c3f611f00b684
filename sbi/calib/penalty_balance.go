package calib

import (
	"errors"
	"fmt"
	"math"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/nn"
)

// BalanceRegularizer is the balancing penalty of balanced neural ratio estimation (BNRE,
// Delaunoy et al. 2022). Build it with NewBalanceRegularizer.
type BalanceRegularizer struct {
	lambda  float64
	nreLoss NRELoss
	err     error
}

// BalanceRegularizerConfig configures NewBalanceRegularizerWith. Lambda is required; the zero
// value of NRELoss is sbi.NRE's own normalization.
type BalanceRegularizerConfig struct {
	// Lambda is the weight λ ≥ 0 of the balancing term, stated against the loss that NRELoss
	// names (the paper uses 100).
	Lambda float64
	// NRELoss names the cross-entropy Lambda is stated against: NRELossMean (the default),
	// ½(BCE_joint + BCE_marginal), is Algorithm 1 of the paper and sbi.NRE's loss; NRELossSum,
	// BCE_joint + BCE_marginal, is the loss of the authors' code (hypothesis'
	// BalancedCriterion, γ = 100), whose γ the regularizer then applies as γ/2.
	NRELoss NRELoss
}

// NewBalanceRegularizer returns the BNRE regularizer
//
//	λ · (E_joint[d̂] + E_marginal[d̂] − 1)²,   d̂ = σ(log r̂),
//
// eq. 7 of Delaunoy et al. (2022), "Towards reliable simulation-based inference with balanced
// neural ratio estimation", with both expectations estimated by the batch means of the
// classifier's probabilities on its joint pairs and on its shuffled (marginal) pairs. A
// balanced classifier is, in expectation, less confident than the Bayes-optimal one, which is
// itself balanced, so the penalty makes ratio-estimator posteriors conservative without moving
// the optimum. The paper's default is λ = 100; implementations differ by a factor 2 in how the
// cross-entropy is normalised: here λ is stated against sbi.NRE's ½(BCE_joint + BCE_marginal),
// the paper's Algorithm 1; NewBalanceRegularizerWith states it against another convention.
//
// Only ratio estimators have classifier logits: Penalty returns an error for any other
// estimator. Invalid arguments make Penalty return an error too.
func NewBalanceRegularizer(lambda float64) *BalanceRegularizer {
	return NewBalanceRegularizerWith(BalanceRegularizerConfig{Lambda: lambda})
}

// NewBalanceRegularizerWith is NewBalanceRegularizer with λ stated against the cross-entropy
// that cfg.NRELoss names: with NRELossSum, the authors' γ = 100 adds (γ/2)·(B − 1)² to sbi.NRE's
// ½(BCE_joint + BCE_marginal), half the authors' BCE_joint + BCE_marginal + γ·(B − 1)².
func NewBalanceRegularizerWith(cfg BalanceRegularizerConfig) *BalanceRegularizer {
	b := &BalanceRegularizer{lambda: cfg.Lambda, nreLoss: cfg.NRELoss}
	if !(cfg.Lambda >= 0) || math.IsInf(cfg.Lambda, 1) {
		b.err = fmt.Errorf("calib.NewBalanceRegularizer: λ = %v, want a finite weight ≥ 0 (the paper uses 100)", cfg.Lambda)
	}
	if _, err := cfg.NRELoss.nreScale(); err != nil {
		b.err = errors.Join(b.err, fmt.Errorf("calib.NewBalanceRegularizer: %w", err))
	}
	return b
}

// Name returns "balance".
func (r *BalanceRegularizer) Name() string { return "balance" }

// Lambda returns the weight λ as configured, stated against the loss that NRELoss returns.
func (r *BalanceRegularizer) Lambda() float64 { return r.lambda }

// NRELoss returns the cross-entropy convention that Lambda is stated against.
func (r *BalanceRegularizer) NRELoss() NRELoss { return r.nreLoss }

// Penalty builds λ·(B − 1)² for the batch b on b.Tape, λ converted to sbi.NRE's loss (see
// NRELoss).
func (r *BalanceRegularizer) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	if r.err != nil {
		return nil, r.err
	}
	if b == nil || b.Tape == nil {
		return nil, errors.New("calib.NewBalanceRegularizer: the batch has no tape")
	}
	if b.JointLogits == nil || b.MarginalLogits == nil {
		return nil, errors.New("calib.NewBalanceRegularizer: the estimator has no classifier logits; balancing applies to ratio estimators (NRE) with the NRE-A or NRE-C loss (the logits of NRE-B are free by a constant per observation); use calib.NewCoverageRegularizer for NPE")
	}
	if b.JointLogits.Len() == 0 || b.MarginalLogits.Len() == 0 {
		return nil, errors.New("calib.NewBalanceRegularizer: the batch has no joint or no marginal pairs")
	}
	tp := b.Tape
	B := tp.Add(tp.Mean(tp.Sigmoid(b.JointLogits)), tp.Mean(tp.Sigmoid(b.MarginalLogits)))
	scale, _ := r.nreLoss.nreScale() // validated by NewBalanceRegularizerWith
	return tp.Scale(tp.Square(tp.AddScalar(B, -1)), scale*r.lambda), nil
}

// BalancePenalty is NewBalanceRegularizer.
//
// Deprecated: use NewBalanceRegularizer (one word, Regularizer, names a term added to the
// training loss).
func BalancePenalty(lambda float64) *BalanceRegularizer { return NewBalanceRegularizer(lambda) }
