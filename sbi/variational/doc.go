// Package variational trains amortized variational posteriors q(θ | x) against a model whose
// likelihood is known, with the objectives that CANVI (Patel et al., "Variational inference
// with coverage guarantees in simulation-based inference", §4.2.2) compares:
//
//   - FAVI, the forward KL E_{θ~p(θ), x~p(x|θ)}[−log q(θ | x)] on pairs simulated afresh at
//     every step (NPE's loss with an unlimited simulation budget; needs only the simulator);
//   - ELBO, the reverse KL: −E_x E_{θ~q(·|x)}[log p(θ) + log p(x | θ) − log q(θ | x)] with the
//     reparameterized gradient;
//   - IWBO, the importance-weighted bound with K particles,
//     −E_x E_{θ₁…θ_K~q}[log (1/K) Σ_k p(θ_k) p(x | θ_k) / q(θ_k | x)] (Burda et al. 2015).
//
// The mode-seeking ELBO and IWBO give the over-confident fits that motivate CANVI's conformal
// regions and its prior-mixture volume sampler.
//
// The family is a Gaussian in the unconstrained coordinates u of the prior's support
// (dist.SupportMap: logit for a bounded, log for a half-bounded coordinate), θ = f(u): an MLP of
// the standardized observation gives the mean μ(x) and the Cholesky factor L(x) of the
// covariance (lower triangular with an exponentiated diagonal, or diagonal with Diagonal).
// Its density in θ includes the Jacobian of f, so that the trained estimator is an
// sbi.Amortized in the prior's coordinates and the conformal methods of package calib and
// the diagnostics of package diag apply to it as to NPE. The ELBO and IWBO need log p(x | θ) as a
// differentiable function of θ: the model records it on an nn.Tape (Likelihood; task.ARCH
// does), and log p(θ) is recorded for BoxUniform and Normal priors and products of them, or
// by the model itself (PriorTape).
//
// Settings are a Config whose zero value is the default (FAVI, 5000 steps, batches of 64,
// Adam at 10⁻³, two hidden layers of 64). Train returns the error, MustTrain panics with it
// for notebook cells; both stop at the host's interrupt (runenv.Context), TrainContext at its
// ctx alone. Training reports through sbi.NewProgress; the result displays as a summary
// (MIMEBundle).
package variational
