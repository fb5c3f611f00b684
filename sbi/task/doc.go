// Package task holds simulators and benchmark tasks for simulation-based inference.
//
// The sbibm tasks (Lueckmann et al., "Benchmarking Simulation-Based Inference", AISTATS 2021)
// are two_moons, gaussian_linear, gaussian_linear_uniform, slcp, gaussian_mixture,
// bernoulli_glm, bernoulli_glm_raw, sir and lotka_volterra; their observations, true parameters
// and reference posterior samples are read from a data directory ($GOSBI_DATA, else
// os.UserCacheDir()/gosbi/sbibm, filled by `gosbi data fetch`, which calls Fetch: every file is
// checked against the size and SHA-256 recorded in sbibm.sum, embedded in the package, before
// it is written). The "trust crisis" tasks
// (Hermans et al., 2022; Delaunoy et al., "Towards reliable simulation-based inference with
// balanced neural ratio estimation", NeurIPS 2022) are tc_slcp, weinberg, mg1,
// tc_lotka_volterra and spatial_sir. The examples of Bayesian score calibration (Bon et al.)
// are conjugate_gaussian, ornstein_uhlenbeck, bivariate_ornstein_uhlenbeck (with its
// mean-field variational approximation, MeanField), arfima (with the Whittle likelihood and
// a sampler of its posterior) and lotka_volterra_sde (with the quasi-likelihood of one coarse
// Euler–Maruyama path and a sampler of its posterior; SolveSDE integrates SDEs). CANVI's
// (Patel et al.) lag-one ARCH model is arch: its likelihood is also given on an nn.Tape
// (ARCHTask.LogLikelihoodTape), for the variational objectives that need it, and on a grid
// (ARCHTask.GridPosterior). The series tasks sir_raw and lotka_volterra_raw (SeriesTask) are
// sir and lotka_volterra before sbibm's summary: their trajectories at every time sbibm
// saves, for embeddings that learn the summary; SeriesTask.Summary reduces them to the
// benchmark's data; their likelihoods, given the ODE's solution, are exact
// (SeriesTask.LogLikelihood, and SummaryLogLikelihood for the benchmark's data). sir_jump
// (SIRJumpTask) is the Markov-jump counterpart of sir in a population of 1000, simulated exactly,
// whose series have random timing (an epidemic's peak falls on different days for one θ);
// sir_jump_onset (SIRJumpOnset) starts it on an unknown day within the first 60. mixed is the
// toy model of mixed data (a reaction time and a choice) of Python sbi's MNLE examples. Tasks outside sbibm have no stored observations.
//
// Every task is a Task and an sbi.Simulator: t.Simulate(rng, theta) fills one data row per
// parameter row on all cores, and task.Simulate(rng, t, theta) does the same with errors and
// drops failed rows. Where a closed form exists the task also implements ExactPosterior.
// The ODEs of sir and lotka_volterra are solved with an adaptive Dormand–Prince 5(4) method
// (SolveODE).
package task
