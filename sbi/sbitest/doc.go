// Package sbitest is the conformance suite that every estimator of package sbi passes, in
// the spirit of gonum's testblas: an estimator's own tests call TestEstimator with a
// constructor, and an embedding's tests call TestEmbedding.
//
// The suite trains the estimator briefly on GaussianLinear, a two-parameter conjugate task
// whose posterior is known in closed form, and checks the posterior's moments against it,
// the agreement of LogProbPairs with Posterior(x).LogProb, a save/load round trip, the
// handling of non-finite values, cancellation through runenv's context and concurrent use of
// posteriors (run it under -race). TestEstimator's documentation lists the checks.
//
// # Tolerances
//
// A moment may differ from the closed form by the Monte Carlo error of the check and by the
// estimator's own error at the training budget. The Monte Carlo part is derived from sample
// sizes: densities are integrated on a grid (no Monte Carlo error), and draws are taken in
// independent calls whose spread estimates the error of their average, compared at a
// false-alarm rate of 10⁻⁴ per comparison (checkMoments says how). The estimator's part, the
// allowance, cannot be derived: it is measured. At the default budget (2000 simulations, 30
// epochs) the largest error over training seeds 1 to 10 was 0.12 posterior standard
// deviations (NPE with MAF and NSF, NRE; means, standard deviations and correlation at
// three observations); DefaultAllowance is about twice that. An estimator off by half a
// standard deviation fails, which the package's own tests check with estimators made wrong on
// purpose.
package sbitest
