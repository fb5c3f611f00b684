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
	lambda float64
	err    error
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
// cross-entropy is normalised, so λ is relative to the trainer's loss (see sbi.NRE).
//
// Only ratio estimators have classifier logits: Penalty returns an error for any other
// estimator. Invalid arguments make Penalty return an error too.
func NewBalanceRegularizer(lambda float64) *BalanceRegularizer {
	b := &BalanceRegularizer{lambda: lambda}
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		b.err = fmt.Errorf("calib.NewBalanceRegularizer: λ = %v, want a finite weight ≥ 0 (the paper uses 100)", lambda)
	}
	return b
}

// Name returns "balance".
func (r *BalanceRegularizer) Name() string { return "balance" }

// Lambda returns the weight λ.
func (r *BalanceRegularizer) Lambda() float64 { return r.lambda }

// Penalty builds λ·(B − 1)² for the batch b on b.Tape.
func (r *BalanceRegularizer) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	if r.err != nil {
		return nil, r.err
	}
	if b == nil || b.Tape == nil {
		return nil, errors.New("calib.NewBalanceRegularizer: the batch has no tape")
	}
	if b.JointLogits == nil || b.MarginalLogits == nil {
		return nil, errors.New("calib.NewBalanceRegularizer: the estimator has no classifier logits; balancing applies to ratio estimators (NRE), use calib.NewCoverageRegularizer for NPE")
	}
	if b.JointLogits.Len() == 0 || b.MarginalLogits.Len() == 0 {
		return nil, errors.New("calib.NewBalanceRegularizer: the batch has no joint or no marginal pairs")
	}
	tp := b.Tape
	B := tp.Add(tp.Mean(tp.Sigmoid(b.JointLogits)), tp.Mean(tp.Sigmoid(b.MarginalLogits)))
	return tp.Scale(tp.Square(tp.AddScalar(B, -1)), r.lambda), nil
}

// BalancePenalty is NewBalanceRegularizer.
//
// Deprecated: use NewBalanceRegularizer (one word, Regularizer, names a term added to the
// training loss).
func BalancePenalty(lambda float64) *BalanceRegularizer { return NewBalanceRegularizer(lambda) }
