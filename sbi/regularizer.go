package sbi

import (
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// Regularizer adds a differentiable term to the loss of every training batch: BNRE's balancing
// term, the differentiable-coverage term of CalNPE and CalNRE, the KCCSD. It is the library's
// one word for such a term (package calib builds them: calib.NewBalanceRegularizer, …);
// Penalty returns the term's value for a batch. TrainConfig.Regularizer takes one, and
// TrainResult reports its value per epoch under Name.
type Regularizer interface {
	// Name labels the term in training results, e.g. "balance" or "coverage".
	Name() string
	// Penalty builds the term for one batch on b.Tape and returns it as a 1×1 tensor, already
	// multiplied by the regularizer's weight λ. The trainer adds it to the batch's loss.
	Penalty(b *RegBatch) (*nn.Tensor, error)
}

// RegBatch is what a Regularizer sees of one training batch. Parameters and observations are in
// the estimator's raw (not z-scored) units.
type RegBatch struct {
	Tape  *nn.Tape
	Rng   *rand.Rand        // the trainer's stream: a regularizer draws from it, nothing else
	Prior dist.Distribution // the estimator's prior (the default proposal of importance sampling)
	Theta *mat.Dense        // the batch's parameters, one row per pair
	X     *mat.Dense        // the batch's observations, row i pairs with Theta row i

	// LogPost returns log p̂(θ_j | x_{rows[j]}) for every row j of theta, differentiable on Tape:
	// for NPE the flow's log q(θ|x), for NRE log p(θ) + log r̂(θ, x), for NLE and MNLE the
	// unnormalized log p(θ) + log q(x|θ). The observations' context
	// (z-scoring, embedding) is computed once per batch and reused for every call, so evaluating
	// L proposal draws per observation costs one batched pass.
	LogPost func(theta *mat.Dense, rows []int) *nn.Tensor

	// PairLogPost holds log p̂(θᵢ | xᵢ) of the batch's own pairs (N×1, row i for pair i) on
	// Tape, as the estimator computed it for its loss, so that a regularizer need not evaluate
	// those pairs again; nil when the estimator does not provide it (use LogPost then).
	PairLogPost *nn.Tensor

	// JointLogits and MarginalLogits are the classifier's logits log r̂ on the batch's joint
	// pairs and on its shuffled (marginal) pairs; set for ratio estimators, nil otherwise.
	JointLogits, MarginalLogits *nn.Tensor
}
