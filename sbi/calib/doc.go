// Package calib holds the methods that change an estimator to make it calibrated: training
// regularizers and post-hoc recalibration. The tests and diagnostics that say whether an estimator
// is calibrated (coverage, SBC, TARP, C2ST, the KCCSD and SKCE kernel tests, the BNRE balancing
// statistic) live in package diag; calib's tests use them to check its methods.
//
// Training regularizers (sbi.Regularizer, set in sbi.TrainConfig.Regularizer; Regularizer is
// the library's one word for them, and a regularizer's Penalty is the term it adds to a batch):
//   - NewBalanceRegularizer, the balancing term of BNRE (Delaunoy et al. 2022), for ratio
//     estimators.
//   - NewCoverageRegularizer, the differentiable expected-coverage term of CalNPE / CalNRE
//     (Falkiewicz et al. 2023).
//   - NewKCCSDRegularizer, the kernel calibration-conditional Stein discrepancy of a batch
//     (Glaser et al., "Fast and scalable score-based kernel calibration tests"). The statistic
//     and its gradient with respect to the scores are those of the calibration test's array code
//     (diag.GFDFeatures, diag.KCCSDFeatures), so the Stein kernel is written once; calib
//     imports diag, never the reverse.
//
// A weight λ of a regularizer of a ratio estimator is stated against a cross-entropy, and papers
// and their code differ by a factor 2 there: NRELoss names the convention (NRELossMean, sbi.NRE's
// own ½(BCE_joint + BCE_marginal) and the default; NRELossSum, the authors' BCE_joint +
// BCE_marginal of the BNRE and CalNRE code), and the regularizer converts, so that a caller
// states each paper's λ once, as the paper's authors did.
//
// Post-hoc recalibration:
//   - CANVI (Patel et al., "Variational inference with coverage guarantees in simulation-based
//     inference"): split-conformal regions {θ : −log q(θ|x) ≤ τ} with the finite-sample
//     quantile, their expected volume by prior-mixture importance sampling (with the
//     estimator's density normalized by bridge sampling, since a ratio estimator's is not),
//     and the selection among candidate estimators followed by recalibration on fresh
//     simulations. See NewConformal, Conformal.Region and CANVI. Group-conditional calibration
//     (CANVI App. A) keeps one threshold per group of a partition of the observations
//     (PartitionFunc, NewKMeansPartition) and guarantees the coverage within every group: see
//     NewGroupConformal and CoverageByGroup.
//   - Bayesian score calibration (Bon et al., "Bayesian score calibration for approximate
//     models"): an affine map of approximate-posterior draws fitted by maximizing an
//     importance-weighted energy score over simulated calibration datasets, with the marginal
//     coverage of the fitted map that the method reports. See ScoreCalibrate.
//
// Settings are XConfig structs whose zero value is the default, except the weight Lambda (and
// the number of draws Samples of NewCoverageRegularizer), which a regularizer requires. Results
// meant to be looked at offer a MIMEBundle (HTML and plain text); the package knows nothing of
// notebooks.
// Long loops honour sbi.Canceled and report through sbi.NewProgress.
package calib
