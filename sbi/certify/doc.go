// Package certify turns a prior, a simulator and observations into a posterior with a
// certificate: a claim, tested on simulations used once, that its credible regions hold their
// stated coverage. It composes the other packages and adds only the sequence and the verdict:
// train (package sbi), diagnose on fresh held-out simulations (package diag), remedy (package
// calib), diagnose again, and judge once on a final test set. It lives apart from sbi because
// diag and calib import sbi.
//
// The sequence (Certify). The budget Config.Simulations is split before anything runs into a
// training set, one check set per diagnosis or calibration, and a final test set. The first
// estimator (a default NPE, any estimator from Config.New, or one trained elsewhere in
// Config.Trained) is diagnosed on a check set by the expected coverage of its HPD regions at the
// target levels (diag.RankCoverage). While the diagnosis does not certify, the remedies of
// Config.Remedies are applied in order, each diagnosed on a check set of its own:
//
//  1. RemedyRegularizer: retrain with the differentiable coverage regularizer (CalNPE/CalNRE,
//     calib.NewCoverageRegularizer), when there is an estimator to retrain.
//  2. RemedyConformal: split-conformal regions of the best estimator so far, one threshold per
//     level, whose marginal coverage is guaranteed (calib.NewConformal).
//
// The best candidate (the smallest largest deviation |coverage − level| on its check set, or the
// conformal regions, whose coverage holds by construction) is then judged once on the final test
// set; that verdict is the certificate's. Diagnoses before it only choose; they are shown and
// counted (Certificate.Tried), never reused. SBC and TARP on the final test set are shown beside
// the verdict, for the chosen estimator's own draws: after the conformal remedy the certified
// objects are the regions (Certificate.Region), and draws from the posterior are not recalibrated.
// HPD ranks are estimated from Config.Samples posterior draws per pair (randomized ranks, exactly
// uniform for a calibrated posterior).
//
// The verdict (Decide). A target is a set of levels L, a tolerance ε and a level α: the claim is
// that the coverage at every L lies in [L − ε, L + ε] (or above L − ε, Conservative). Certified
// needs the one-sided (1 − α) Clopper–Pearson bounds of every level's coverage inside that
// interval — an intersection–union test of two one-sided tests, so the probability of certifying
// a posterior whose coverage misses the target at some level is at most α, whatever the number of
// levels. A level whose bounds lie outside the interval gives NotCertified; anything else is
// Inconclusive, and when even a perfectly calibrated posterior could not be certified with the
// test set's size, the reason says the band is too wide for the budget and how many test pairs
// would reach power NeededPower. Target.Power(n) is what a test set of n pairs can show before
// it is spent: a lower bound on the probability that it certifies an exactly calibrated
// posterior (about 950 pairs reach 0.8 for the default target). The claim is about expected
// coverage over the prior predictive: marginal, not conditional on an observation.
//
// Observations. Each observation is checked against simulations of the model with
// diag.Misspecification at level α; one that the simulator does not produce is refused
// (NotCertified with the test's numbers) whatever the global verdict. One that passes gets the
// global verdict: the check found no evidence against it, which is weaker than a certificate at
// that observation (L-C2ST would be that, and is not run here).
//
// Naming follows package sbi: Certify returns the error, MustCertify is its form for notebook
// cells, CertifyContext takes a context. Randomness derives from Config.Seed alone.
package certify
