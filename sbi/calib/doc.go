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
