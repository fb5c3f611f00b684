// Package calib holds gosbi's calibration methods: tests of whether an estimator's posteriors are
// calibrated, and post-hoc recalibration of any estimator.
//
// Calibration tests:
//   - KCCSD, the kernel calibration-conditional Stein discrepancy (Glaser et al., "Fast and
//     scalable score-based kernel calibration tests"): a U-statistic (complete, or incomplete
//     in linear time) that needs only the score ∇y log p(y) of each prediction, with kernels on
//     distributions built from scores at shared base points (exponentiated Fisher / GFD,
//     kernelized Fisher / KGFD) or from samples (exponentiated MMD), exact for Gaussian
//     predictions; tested with a Rademacher wild bootstrap. See KCCSDTest, and KCCSDAmortized
//     for any sbi.Amortized estimator on simulated pairs.
//   - SKCE, the squared kernel calibration error (Widmann et al.), the baseline the KCCSD is
//     compared against. See SKCETest.
//   - The pure array functions under both (SteinKernel, KCCSDFeatures, GFDFeatures, …) are
//     exported so that a training-time penalty can reuse them with their gradients.
//
// Supports. The KCCSD needs every prediction to have a differentiable, strictly positive density
// on all of R^d: its Stein kernel uses the score at each target, and the Fisher kernels on
// distributions use scores at base points drawn from ν = N(0, I), wherever they fall. A
// posterior on a bounded or half-bounded prior support has no score outside it, so it is tested
// in the unconstrained coordinates u = f⁻¹(θ) of dist.Unconstrain(prior) (logit for a box, log
// for a half-line), where its density is q(f(u))·|det ∂f/∂u|: UnconstrainedPrediction for
// KCCSDTest, automatically in KCCSDAmortized for estimators with a Prior method. The Jacobian
// makes a density that is positive inside the box smooth and positive on R^d. A score that is
// still NaN or infinite (a posterior that is zero on part of its prior's support) is an error
// naming the prediction and the point, never a pair dropped as "underflow": the exponentiated
// MMD kernel on distributions, which needs samples instead of scores at base points, then still
// applies. Underflow counts only pairs whose kernel exp(−D²/(2σ²)) is below 1e-300.
//
// Post-hoc recalibration:
//   - CANVI (Patel et al., "Variational inference with coverage guarantees in simulation-based
//     inference"): split-conformal regions {θ : −log q(θ|x) ≤ τ} with the finite-sample
//     quantile, their expected volume by prior-mixture importance sampling (with the
//     estimator's density normalized by bridge sampling, since a ratio estimator's is not),
//     and the selection among candidate estimators followed by recalibration on fresh
//     simulations. See Calibrate, Conformal.Region and CANVI.
//   - Bayesian score calibration (Bon et al., "Bayesian score calibration for approximate
//     models"): an affine map of approximate-posterior draws fitted by maximizing an
//     importance-weighted energy score over simulated calibration datasets, with its
//     marginal-coverage diagnostic. See ScoreCalibrate.
//
// Results meant to be looked at offer a MIMEBundle (HTML and plain text); the package knows
// nothing of notebooks. Long loops honour sbi.Canceled and report through sbi.NewProgress.
package calib
