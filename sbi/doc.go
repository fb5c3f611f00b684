// Package sbi is gosbi's library for simulation-based inference: neural posterior, ratio and
// likelihood estimators, their training loop and posteriors, the parallel simulation runner, and the
// helpers through which long calls honour the host's settings of package runenv: Canceled
// (the context a notebook worker cancels on interrupt) and NewProgress (events for its
// progress bar).
//
// # Estimators
//
// NewNPE builds neural posterior estimation with a conditional normalizing flow (MAF or NSF,
// package sbi/flow); NewNRE builds neural ratio estimation with a classifier of joint against
// marginal pairs; NewNLE builds neural likelihood estimation, a conditional flow of x given θ,
// and NewMNLE its mixed form for simulators whose output ends in discrete columns (a choice
// after a reaction time): categorical networks for those, a flow for the continuous ones;
// NewFMPE builds flow-matching posterior estimation (Wildberger et al. 2023), a vector field
// whose ODE carries a standard normal to the posterior, trained by regression on the
// velocities of straight paths (no ODE in training), sampled by integrating the ODE and
// evaluated by integrating its exact divergence (flow.Field). All learn the standardization of
// θ and x from their training data (at any finite scale: columns of 1e200 or 1e-200
// standardize as columns of 1 do, a column whose spread exceeds float64 is refused by name,
// and a column constant up to rounding is only centred), train with Adam, early stopping and
// gradient clipping (TrainConfig; the defaults are those of Python's sbi), drop non-finite
// simulations with a count, and implement Estimator, the vocabulary every estimator shares:
//
//	npe := sbi.NewNPE(prior, sbi.NPEConfig{Flow: "nsf"})
//	res, err := npe.Train(theta, x, sbi.TrainConfig{Seed: 1})
//	draws := npe.Posterior(xo).Sample(rng, 10000)
//
// Sequential infers the posterior at one observation in rounds, each simulating parameters
// drawn from a proposal made of the posterior of the round before and training on the pairs
// of all rounds: the prior truncated to the posterior's highest-density region (TSNPE,
// TruncatedProposals, the default for NPE and FMPE; the region is a TruncatedPrior), the
// posterior itself for NRE, NLE and MNLE (PosteriorProposals) and for NPE with APT's atomic
// loss (AtomicProposals). Its posterior holds at the observation and near it, not over the
// whole prior.
//
// Training sets larger than memory stay on disk in a simulation store (package
// sbi/simstore, which a study's jobs append to); TrainStream trains from it batch by batch
// with the same loop, in memory bounded by the store's shuffle pool.
//
// A Regularizer (package sbi/calib builds them: balancing for BNRE, differentiable coverage
// for CalNPE/CalNRE) adds a term to the loss of every batch; it sees the batch through
// RegBatch. The epoch kept, and early stopping, follow the objective that is trained: the
// validation loss plus the regularizer's penalty on the validation pairs (TrainConfig.Select;
// SelectLoss judges by the loss alone); a likelihood estimator's LogPost is its unnormalized
// posterior, so coverage and KCCSD regularizers apply to it and balancing, which needs a
// classifier, refuses. NPE and FMPE posteriors reject draws outside a bounded prior and
// report the acceptance rate; NRE, NLE and MNLE posteriors, p(θ) times the ratio or the likelihood,
// sample by an exact grid (at most 3 parameters, bounded prior), slice MCMC over many chains,
// or importance resampling from the prior (SamplerConfig). The likelihood and ratio estimators
// serve observations of many i.i.d. trials from training on single trials (PosteriorTrials:
// the trials' log-likelihoods or log-ratios add), and Trials(n) serves them to diagnostics and
// calibration methods as an Amortized whose rows of x hold up to n trials side by side, fewer
// padded with NaN trials at the end as sbi pads (AmortizedTrials; the diagnostics of package
// diag and the conformal methods of package calib keep padded rows, as does score calibration
// with ScoreCalConfig.Padding set). MAP finds the mode of any posterior by local searches
// from its draws of highest density.
// NPEEnsemble and NREEnsemble combine trained estimators. Save writes an estimator with its
// configuration, embedding, prior and weights to one checksummed file, and Load reads back
// whichever estimator a file holds (LoadNPE, LoadNRE, LoadNLE, LoadMNLE and LoadFMPE are
// the typed forms); the format, its registry of kinds and its limits are described at
// EstimatorFormatVersion.
//
// # Errors and names
//
// One rule names every call of the library and its sub-packages (docs/design.md says it for
// the whole repository):
//
//   - The plain name returns the error. A call that can fail for reasons of data (a file, a
//     simulation, a training that diverges, an untrained estimator, low acceptance, an
//     interrupt) returns (value, error), as Go does: NPE.Train, LoadNPEFile, SampleMany.
//   - MustX is the form for notebook cells: X's arguments, X's value alone, and a panic whose
//     value is X's error (so that a recovered panic still answers errors.Is). Every call that
//     notebooks make routinely has one (NPE.MustTrain, MustSampleMany, MustSimulate), so a
//     cell never handles an error.
//   - XContext(ctx, …) is the form for services: a call that reads the host's context
//     (runenv.Context, cancelled by a notebook's interrupt) has a context-first form that
//     honours ctx alone and returns the error (NPE.TrainContext, SampleManyContext,
//     SimulateContext, a posterior's SampleContext), so that two calls are cancelled
//     separately.
//   - Shorthands: a posterior's Sample(rng, n) is written inside expressions and panics like a
//     Must form; its error form is SampleContext. (The other shorthands are dist's Sample,
//     task's Simulate method, diag.C2ST and diag.ExpectedCoverage; the list is closed.)
//   - Programming mistakes (a wrong shape, a nil prior) panic in every form with a message
//     naming what was expected, as gonum does; so do evaluations (Posterior, LogProb,
//     LogProbPairs, LogRatio) of an untrained estimator, which Trained tells beforehand.
//   - Errors a caller branches on are the exported sentinels ErrUntrained, ErrLowAcceptance,
//     ErrNonFinite and ErrDiverged, wrapped by both forms; an interrupt wraps the context's
//     error (context.Canceled).
//
// Names the rule retired remain as deprecated aliases. One word names a term added to the
// training loss: Regularizer.
//
// # Checks that come with the results
//
// A trained estimator keeps a small reservoir of the summaries of its training simulations;
// forming a posterior at an observation farther from them than every held-back simulation
// prints a warning (CheckObservation gives the numbers). An estimator with a set embedding of
// varying numbers of trials (DeepSetEmbedding with MaxTrials > 0, or any TrialCounter) records
// the numbers of trials it was trained on, saved with it, and warns at an observation of a
// number outside them, where its answer is an extrapolation. MCMC draws (NRE, NLE, MNLE) come with
// the R̂ and effective sample sizes of their chains (RatioPosterior.MCMCHealth) and warn when the chains
// did not mix. NPE maps parameters to its flow's base space (ToBase), for L-C2ST-NF. Warnings
// go to standard error, a few per minute of each kind.
//
// # Embeddings
//
// An Embedding summarizes x before the estimator's network reads it, trained with it
// (NPEConfig.Embedding, NREConfig.Embedding, FMPEConfig.Embedding; NLEConfig.Embedding
// summarizes θ instead, which conditions NLE's flow): MLPEmbedding for vectors,
// CNN1DEmbedding and GRUEmbedding for time series, CNN2DEmbedding for small images, DeepSetEmbedding for sets of
// i.i.d. trials whose number varies from observation to observation (Pack lays out the trials
// of one observation). Series and images are stored channels-last, one example per row (see
// package sbi/nn). An embedding with an InputLayout decides how x is standardized (one scale
// per channel of a series, per coordinate of a trial) and which observations it can read;
// DescribeEmbedding lists the layers one builds. RegisterEmbedding makes an embedding of
// another package storable in estimator files.
//
// An embedding declared in a notebook cell reaches this package in a wrapper with the methods
// of the interface it was declared with, and only those: the estimator finds its TrialCount,
// InputGroups or Size only when the value is declared as a TrialCounter, an InputLayout or a
// SavableEmbedding (var e sbi.TrialCounter = myEmbedding{}), one of them per value.
//
// # Configuration
//
// Settings are passed in structs named XConfig (NPEConfig, TrainConfig, SamplerConfig, and so
// on through the sub-packages and package viz), whose zero value means the defaults, in a
// parameter named cfg; there are no functional options. A setting with a fixed set of values
// is a named type with exported constants, a named string type where the values are names
// (Activation, SamplerMethod, flow.Kind with MAF and NSF), so that a literal such as "nsf" may
// stand for a constant; an unknown value is an error that names it and the values allowed.
//
// Sub-packages hold the rest: sbi/dist (distributions), sbi/task (simulators and benchmark
// tasks), sbi/nn (the reverse-mode engine), sbi/flow (normalizing flows), sbi/calib
// (calibration methods) and sbi/diag (diagnostics). The library knows nothing of notebooks:
// results offer a MIMEBundle, and progress and cancellation go through the settings a host
// makes in package runenv.
package sbi
