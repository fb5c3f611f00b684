// Package certify turns a prior, a simulator and observations into a posterior with a
// certificate: a claim, tested on simulations used once, that its credible regions hold their
// stated coverage. It composes the other packages and adds only the sequence and the verdict:
// train (package sbi), diagnose on fresh held-out simulations (package diag), remedy (package
// calib), diagnose again, and judge once on a final test set. It lives apart from sbi because
// diag and calib import sbi.
//
// The sequence (Certify). The budget Config.Simulations is split before anything runs
// (Budget) into a training set, the reserve of the more-simulations remedy, one check set per
// diagnosis, the calibration set of the conformal remedy (by default ConformalTestRatio times
// the final test set, where the budget affords it with at most half the training share, so
// that one calibration's spread is half the final test's), the reference set of the
// observations' misspecification check (only when there are observations and no check set, as
// with NoRemedies(); otherwise the first check set serves), the calibration set of the local
// test, the score-calibration sets of each observation, and a final test set; sets a run
// does not need are not simulated. Optional sets are planned only where the training share
// (first training and reserve) stays at least the final test set; a plan whose required sets
// leave it smaller is kept, with a note naming a budget that would not. The first estimator
// (a default NPE, any estimator from Config.New, or one trained elsewhere in Config.Trained)
// is diagnosed on a check set by the expected coverage of its HPD regions at the target levels (diag.RankCoverage). While the
// diagnosis does not certify, the remedies of Config.Remedies that act on the estimator are
// applied in order, each diagnosed on a check set of its own:
//
//  1. RemedyMoreSimulations: a fresh estimator trained on the training set plus the reserve
//     (Config.MoreSimulations; by default a third of the training share, so the first
//     estimator trains on two thirds of it and the retrained one on all of it).
//  2. RemedyRegularizer: a fresh estimator trained with a regularizer: the balancing penalty
//     (BNRE, balanced NRE-C; calib.NewBalanceRegularizer) for an NRE with the NRE-A or NRE-C
//     loss, the differentiable coverage regularizer (CalNPE/CalNRE,
//     calib.NewCoverageRegularizer) for any other estimator (Config.Penalty overrides).
//  3. RemedyConformal: split-conformal regions of the best estimator so far, one threshold per
//     level, whose marginal coverage is guaranteed (calib.NewConformal), calibrated on a set
//     of their own (Config.ConformalSimulations).
//
// The first two need an estimator to retrain and are skipped, with the reason, for
// Config.Trained. The best candidate (the smallest largest deviation |coverage − level| on its
// check set, or the conformal regions, whose coverage holds by construction) is then judged
// once on the final test set; that verdict is the certificate's. Diagnoses before it only
// choose; they are shown and counted (Certificate.Tried), never reused for the verdict (the
// first check set's simulations serve again only as the reference of the observations'
// misspecification check). SBC and TARP on the
// final test set are shown beside the verdict, for the chosen estimator's own draws: after
// the conformal remedy the certified objects are the regions (Certificate.Region), and draws
// from the posterior are not recalibrated. HPD ranks are estimated from Config.Samples
// posterior draws per pair (randomized ranks, exactly uniform for a calibrated posterior).
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
// coverage over the prior predictive: marginal, not conditional on an observation. So an
// estimator trained on parameters drawn near one observation (Sequential's later rounds,
// sbi.NPE.TrainingProposal) is refused over the whole prior, where it was not trained; it is
// certified over its truncated region, given as the prior (the Region of Sequential's result),
// and the certificate notes that the claim is about that region.
//
// Observations of i.i.d. trials. A given estimator that reads NaN padding (calib.Unpadder:
// sbi.AmortizedTrials, observations of 1 to N trials side by side, NaN trials after them) has
// its padded simulations kept in every set as observations of fewer trials, not dropped as
// failures. The claim is then about the coverage averaged over the simulator's mix of trial
// counts, not about each count on its own: a posterior too narrow at one count and too wide at
// another can pass. The certificate notes the final test's coverage at each count beside the
// verdict, with the number of pairs it rests on; the verdict rule is unchanged. The
// misspecification check compares an observation of k trials with the simulations of exactly
// k trials (its reference set), which are distributed as such an observation whatever decides
// the number of trials (a stopping rule that reads them included); when too few simulations
// hold k trials the observation is Inconclusive, and the check says why. The local test
// (L-C2ST), whose classifier reads every value of x, does not run on padded simulations: its
// default budget is 0 for such an estimator, with a note saying why. A simulation that failed
// is a whole row of NaN (dropped and counted); a row with NaN in part of a trial, or a trial
// after the padding, is not laid out as the estimator reads it and stops the run with an
// error naming it. Save writes the estimator of single trials with N and the sampler, and
// Load serves it again.
//
// Observations. Each observation gets, in order:
//
//   - The misspecification check (diag.Misspecification at level α): an observation the
//     simulator does not produce is refused (NotCertified with the test's numbers) whatever
//     the global verdict, and nothing else runs there. It is calibrated on simulations no
//     estimator here trained on (the first check set, or a reference set of the budget), on
//     which alone its level holds for a learned embedding. A check that cannot reject at its
//     level (too few calibration simulations, diag.MisspecResult.CanReject) leaves the
//     observation Inconclusive.
//   - The global verdict, with ClaimMarginal: the marginal claim above applies there.
//   - The local test (L-C2ST, diag.NewLC2ST), trained once for the chosen estimator on a
//     calibration set simulated for it alone (never trained or calibrated on) and evaluated at
//     each observation. Its p-value is exact when the estimator is the true posterior
//     everywhere; when it rejects at its level the observation is not certified ("local test
//     rejects"); when it does not, there is no evidence against the posterior there, which is
//     weaker than a certificate at that observation. Its cost is bounded by Config.LocalTest
//     (by default the fewest null classifiers that can reach the level, small classifiers);
//     it runs by default only where the budget affords its set (Config.LocalSimulations), and
//     the certificate says when it did not.
//   - RemedyScoreCalibration, where the verdict so far is not Certified and the plan
//     reserved it: an affine map of the estimator's draws fitted by Bayesian score calibration
//     (calib.ScoreCalibrate, unit weights) on datasets simulated from θ ~ π̄, the estimator's
//     posterior at the observation inflated about its mean. Unit-weight score calibration
//     targets the posterior under the prior π̄, so that is what can be tested: the expected
//     coverage of the adjusted posterior over fresh pairs θ ~ π̄, x ~ p(x | θ), judged by
//     Decide against the target (and, where the local test runs, L-C2ST of the adjusted
//     posterior at the observation, which rejects it as above). The observation's verdict is
//     then that test's, with ClaimLocal: a claim about coverage near the observation for the
//     prior π̄. It is neither the marginal claim (the final test set, drawn from the prior,
//     never sees the adjusted posterior) nor coverage conditional on the observation alone
//     (no finite test shows that), and the certificate says so. Certificate.Posterior returns
//     the adjusted posterior there.
//
// Naming follows package sbi: Certify returns the error, MustCertify is its form for notebook
// cells, CertifyContext takes a context. Randomness derives from Config.Seed alone.
package certify
