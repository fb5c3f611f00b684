// Package diag holds the diagnostics that tell whether an amortized posterior estimator can be
// trusted: expected coverage of highest-posterior-density (HPD) regions with a grid estimator
// (box priors, up to 3 parameters) and a sample/rank estimator (any dimension), the signed
// coverage AUC with calibration and conservativeness errors, marginal coverage of central
// credible intervals, simulation-based calibration (SBC) ranks with a uniformity test, TARP
// coverage, the expected log posterior density of the true parameters, the classifier
// two-sample test (C2ST) as defined by sbibm, and a calibration report that runs them together.
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
// the figure and the sentence rest on the same arrays.
//
// Every estimator runs in parallel over the test pairs, honours sbi.Canceled once per pair and
// reports progress through sbi.NewProgress. Estimators must allow concurrent calls of
// Posterior(x) and of the returned posterior's methods. Randomness comes from a seed: the
// stream of pair i is rand.NewPCG(seed, i), so results do not depend on the number of workers.
//
// Test pairs are checked before the workers start: θ and x need one row per pair, and the
// estimator is asked for the posterior of the first pair, so that an x or θ of the wrong width
// is an error, not a panic. Pairs whose θ or x holds NaN or ±Inf (failed simulations, which
// SIR and Lotka–Volterra produce by design) are dropped, as training drops them, and counted
// in the result's Dropped; pair i is then the i-th finite pair. A panic of the estimator in a
// worker is returned as an error that names the pair.
package diag
