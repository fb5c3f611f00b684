// Package diag holds the tests and diagnostics that tell whether an amortized posterior
// estimator can be trusted: expected coverage of highest-posterior-density (HPD) regions with a
// grid estimator (box priors, up to 3 parameters) and a sample/rank estimator (any dimension),
// the signed coverage AUC with calibration and conservativeness errors, marginal coverage of
// central credible intervals, simulation-based calibration (SBC) ranks with a uniformity test,
// TARP coverage, the expected log posterior density of the true parameters, the posterior bias
// and variance of every marginal on the grid (GridBiasVariance), the classifier
// two-sample test (C2ST) as defined by sbibm, the BNRE balancing statistic, the kernel
// calibration tests KCCSD and SKCE, the recovery view (posterior contraction against z-score),
// SBC as ECDF differences with simultaneous bands, sbibm's MMD and median distance, and a
// report that runs the coverage diagnostics together (NewReport) and, given an observation,
// the local ones at it. For models whose likelihood can be evaluated, ReferenceLogPosteriors
// estimates the true log posterior density of test pairs by importance sampling, the ceiling
// of the expected log posterior density that an estimator could reach. Methods that change an estimator (training regularizers, conformal and score
// recalibration) live in package calib; diag imports neither calib nor viz.
//
// Conventions. For a test pair (θ*, x) and an estimator q(θ | x), the HPD rank
//
//	α(θ*, x) = ∫ q(θ | x) 1[q(θ | x) < q(θ* | x)] dθ
//
// is the posterior mass less dense than the true parameter (Falkiewicz et al. 2023, eq. 4;
// Delaunoy et al. 2022, eq. 12). θ* lies in the HPD region of credibility L exactly when
// α ≥ 1 − L, so the expected coverage at level L is the fraction of test pairs with α ≥ 1 − L.
// α is uniform on [0, 1] for the exact posterior. Coverage above the diagonal is conservative,
// below it is over-confident. The signed coverage AUC is the mean of (coverage − level) over the
// chosen levels; it is > 0 for a conservative, < 0 for an over-confident estimator.
//
// Bands and verdicts. A coverage result carries two binomial bands for an exactly calibrated
// estimator: the pointwise band holds its coverage at each level on its own with probability
// Confidence, the simultaneous band (Bonferroni over the K levels) holds the whole curve with
// probability at least SimConfidence. Verdict judges by the simultaneous band only, names the
// side of any level outside it (Flagged), mentions levels outside the pointwise band as not
// significant, and says "inconclusive: …" instead of calibrated when the simultaneous band is
// wider than ±MaxBandHalfWidth. viz.Coverage draws both bands and rings the flagged levels, so
// the figure and the sentence rest on the same arrays. SBCECDF's band holds the ECDFs of all
// parameters' uniform ranks at once (Bonferroni over the parameters), and its verdict, like
// the coverage verdict, is "inconclusive" when that band is wider than ±MaxBandHalfWidth at
// the median rank.
//
// Every estimator runs in parallel over the test pairs, stops once per pair when the host's
// context (runenv.Context) is cancelled, or the caller's in its context-first form
// (RankCoverageContext, GridCoverageContext, C2STContext, …), and reports progress through
// sbi.NewProgress. Estimators must allow concurrent calls of
// Posterior(x) and of the returned posterior's methods. Randomness comes from a seed: the
// stream of pair i is rand.NewPCG(seed, i), so results do not depend on the number of workers.
//
// Test pairs are checked before the workers start: θ and x need one row per pair, and the
// estimator is asked for the posterior of the first pair, so that an x or θ of the wrong width
// is an error, not a panic. Pairs whose θ or x holds NaN or ±Inf (failed simulations, which
// SIR and Lotka–Volterra produce by design) are dropped, as training drops them, and counted
// in the result's Dropped; pair i is then the i-th finite pair. An estimator whose observations
// end in NaN padding (sbi.AmortizedTrials, observations of a varying number of i.i.d. trials)
// has only the values before the padding checked: a padded pair is kept, one without a trial
// is dropped, and a malformed padding is an error naming the pair (L-C2ST, whose classifier
// reads x itself, refuses padded pairs). A panic of the estimator in a worker is returned as
// an error that names the pair.
//
// An estimator trained on parameters drawn from a proposal rather than its prior
// (sbi.NPE.TrainingProposal: Sequential's later rounds) is fitted near the observation of
// those rounds only. The coverage, SBC and TARP results of such an estimator (and a Report)
// carry its proposal in their Proposal field, and their text and display note that over test
// pairs drawn from the whole prior the check tests what it was not trained for: draw the
// test pairs from the region it was trained for (the Sequential result's Region) or check it
// at the observation (LC2ST). Their numbers and verdicts do not change.
//
// Kernel calibration tests. KCCSDTest is the kernel calibration-conditional Stein discrepancy
// (Glaser et al., "Fast and scalable score-based kernel calibration tests"): a U-statistic
// (complete, or incomplete in linear time) that needs only the score ∇y log p(y) of each
// Prediction, with kernels on distributions built from scores at shared base points
// (exponentiated Fisher / GFD, kernelized Fisher / KGFD) or from samples (exponentiated MMD),
// exact for Gaussian predictions (*dist.MultivariateNormal, *dist.Normal), or the exponentiated
// 2-Wasserstein kernel of isotropic Gaussians (exact only), and a Rademacher wild bootstrap;
// KCCSDAmortized runs it for any sbi.Amortized estimator on simulated pairs; the complete
// design holds an n×n matrix, so a test may hold at most MaxKernelTestValues values (about
// 11,000 samples at the default bootstrap; the incomplete designs take millions). SKCETest, the
// squared kernel calibration error (Widmann et al.), is the baseline it is compared against. The
// array functions under them (SteinKernel, KCCSDFeatures, GFDFeatures, KGFDFeatures) are
// exported with their gradients: the training regularizer calib.NewKCCSDRegularizer is computed
// by them. SyntheticData draws the paper's synthetic benchmarks (MGM/MMGM with the shift on
// every or on the first coordinate, LGM, HGM, QGM) with Gaussian predictions.
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
// Local diagnostics. Global diagnostics average over the joint; at one observation x_o three
// questions remain. Is x_o something the simulator produces at all? Misspecification tests it
// with the MMD of one point against simulations (in the estimator's summary space when it is
// an sbi.Summarizer), calibrated on held-out simulations (exact p-value). Is the posterior
// right at x_o? L-C2ST (LocalC2ST, NewLC2ST) trains a classifier on calibration pairs to tell
// estimator draws from true parameters given x, evaluates it at x_o and calibrates it against
// classifiers trained with the labels of each pair randomly swapped (exact under the global
// null); the NF variant works in a flow's base space (sbi.BaseMapper); its classifiers hold at
// most MaxLC2STValues values at once (rows × width × classifiers at a time). Does the model
// with the inferred parameters reproduce x_o? PredictiveCheck simulates from posterior (or
// prior) draws and ranks x_o per data value and jointly (Mahalanobis, MMD), with a Bonferroni
// verdict.
// Every verdict says "inconclusive" where its numbers cannot decide: L-C2ST at an x_o outside
// its calibration simulations, too few null classifiers or simulations for the level.
//
// MCMC. SplitRhat, ESSBulk and ESSTail are the rank-normalized diagnostics of Vehtari et al.
// (2021) for chains of any sampler, computed by sbi/internal/mcmc, which the slice sampler of
// package sbi also calls to report sbi.MCMCHealth with its draws.
//
// Names follow package sbi's rule: a call that can fail returns the error under its plain name
// (GridCoverage, C2STWith, KCCSDTest, …), MustX is its form for notebook cells, XContext its
// context-first form; C2ST and ExpectedCoverage are the two shorthands for expressions. Settings
// are XConfig structs whose zero value is the default, passed as cfg.
package diag
