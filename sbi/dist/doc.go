// Package dist holds the probability distributions that serve as priors, proposals and closed-form
// posteriors: BoxUniform, Normal (diagonal), MultivariateNormal, LogNormal, Gamma, Beta,
// Independent products of distributions, and distributions transformed by an affine or an
// exponential map. SupportMap maps R^d onto a distribution's support box (logit for a bounded,
// log for a half-bounded coordinate), for methods that need a density on all of R^d.
//
// A batch of points is a *mat.Dense with one row per point. Every distribution draws with an
// explicit *rand.Rand (math/rand/v2), so that a run can be repeated exactly, and LogProb returns
// −Inf, never NaN, for a point outside the support (a row holding NaN counts as outside).
//
// Constructors panic with a message that names the bad argument when the parameters are invalid
// (a negative scale, low ≥ high, a covariance that is not positive definite): those are mistakes
// in the calling code, as in gonum.
package dist
