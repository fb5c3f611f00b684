// Package disttest is the conformance suite of dist.Distribution, in the spirit of gonum's
// testblas: the tests of a distribution, the library's or a user's own (a prior registered with
// dist.Register, a truncated prior, a closed-form posterior), call TestDistribution with it;
// Check runs the same checks outside a test and returns what failed.
// Package dist's tests run it on every distribution of the package at several parameters, and
// the tests of packages sbi and task on the other implementations in the repository.
//
// The suite checks what the interface promises: shapes that agree with Dim, draws that depend
// on the seed alone and lie in the support, LogProb −Inf (never NaN) outside the support and
// finite where Sample draws, a panic on rows of the wrong width, and, statistically, that
// LogProb is a normalized density and that Sample draws from it. TestDistribution's
// documentation lists the checks.
//
// # How the statistical checks decide
//
// Both work in the unconstrained coordinates u of the Support box (dist.Unconstrain: logit
// for a bounded coordinate, log for a half-bounded one), where the density of u is
// p(θ(u))·|∂θ/∂u|. A pilot of Config.Samples draws of Sample gives a mean m and a covariance
// S in u; 4·Samples proposal points are drawn from the mixture 0.9·N(m, 1.25²S) +
// 0.1·Cauchy(m, 1.25²S) (a multivariate t with one degree of freedom, whose tails keep the
// weights bounded) and weighted by w = p/q. The proposal depends on Sample only through m
// and S, so a wrong sampler makes it less efficient but leaves the estimates unbiased.
//
// normalized estimates ∫exp(LogProb) by the mean of the weights and fails when it is further
// from 1 than z·SE, with SE the standard error of the mean and z the normal quantile of
// 1 − Level/2.
//
// agrees compares, for each coordinate and for the standardized sum and difference of each
// pair of coordinates in u (all pairs up to 45 of them, 45 chosen at random beyond), the share
// of another Samples draws of Sample below each of 5 thresholds (the 5%, 20%, 50%, 80% and 95%
// quantiles of 1000 pilot draws) with the mass below it of the weighted proposal
// (self-normalized importance sampling). The difference is divided by its standard error: binomial for the
// draws (at the pooled share), by the delta method for the weighted share. With K such
// comparisons, the check fails when one exceeds the normal quantile of 1 − Level/(2K)
// (Bonferroni). A coordinate's comparisons are those of its marginal distribution function in
// θ (the map to u is monotone); the pairs see correlations.
//
// Both checks say they are inconclusive, and fail, rather than decide on too little: when
// fewer than half of the pilot lies strictly inside the Support box, when the pilot's
// covariance is singular (no density), or when the effective sample size of the weights,
// (Σw)²/Σw², is below 200 (a proposal that does not match exp(LogProb); more Samples help).
//
// # Level and power
//
// A correct distribution fails each statistical check with probability at most Config.Level
// (default 10⁻⁴), up to the normal approximation of the estimates. The package's tests measure
// it at Level 0.1 with 1000 samples over 100 seeds, on four distributions (2-D Normal, a
// Gamma×Beta product, a log-uniform Transformed and a correlated 5-D MultivariateNormal) and allow
// each check at most 20 failures (a rate of 0.1 exceeds 20 with probability 0.001). The default level relies on the same normal
// approximation further out in its tails.
//
// With the defaults (5000 samples, level 10⁻⁴) the package's tests check, for seeds 1 to 5,
// that the suite fails
//
//   - normalized, for a density off by a factor of e^0.05 (5%), in 2 and 10 dimensions;
//   - agrees, for a sampler whose draws of one coordinate are shifted by 0.15 standard
//     deviations in 2 dimensions (0.2 in 10), scaled by 1.1 or 0.9 in 2 dimensions (1.15 or
//     0.85 in 10), that leaves out a correlation of 0.5, or that adds one of 0.3.
//
// The standard errors shrink as 1/√Samples: a larger Config.Samples finds smaller errors.
//
// # Limits
//
// 4·Samples·Dim may be at most MaxValues (2²² values). The effective sample size falls with
// the dimension and with densities far from Gaussian in u (several separated modes, thin
// curved ridges); the checks then say they are inconclusive. A distribution with much mass
// within float64's rounding of a finite bound other than 0 fails: a Beta coordinate with both
// parameters near 0.05 puts 8% of its mass at x > 1 − 1.1·10⁻¹⁶, where x rounds to 1, so that
// Sample draws 1, where LogProb is +Inf, and the integral misses that mass.
package disttest
