// Package sbi is gosbi's library for simulation-based inference: neural posterior and ratio
// estimators, their training loop and posteriors, the parallel simulation runner, and the
// helpers through which long calls honour the host's settings of package runenv: Canceled
// (the context a notebook worker cancels on interrupt) and NewProgress (events for its
// progress bar).
//
// # Estimators
//
// NewNPE builds neural posterior estimation with a conditional normalizing flow (MAF or NSF,
// package sbi/flow); NewNRE builds neural ratio estimation with a classifier of joint against
// marginal pairs. Both learn the standardization of θ and x from their training data, train
// with Adam, early stopping and gradient clipping (TrainConfig; the defaults are those of
// Python's sbi), drop non-finite simulations with a count, and implement Amortized:
//
//	npe := sbi.NewNPE(prior, sbi.NPEConfig{Flow: "nsf"})
//	res, err := npe.Train(theta, x, sbi.TrainConfig{Seed: 1})
//	draws := npe.Posterior(xo).Sample(rng, 10000)
//
// Training sets larger than memory stay on disk in a simulation store (package
// sbi/simstore, which a study's jobs append to); TrainStream trains from it batch by batch
// with the same loop, in memory bounded by the store's shuffle pool.
//
// A Regularizer (package sbi/calib builds them: balancing for BNRE, differentiable coverage
// for CalNPE/CalNRE) adds a term to the loss of every batch; it sees the batch through
// RegBatch. The epoch kept, and early stopping, follow the objective that is trained: the
// validation loss plus the regularizer's penalty on the validation pairs (TrainConfig.Select;
// SelectLoss judges by the loss alone). NPE posteriors reject draws outside a bounded prior and report the acceptance
// rate; NRE posteriors sample by an exact grid (at most 3 parameters, bounded prior), slice
// MCMC over many chains, or importance resampling from the prior (SamplerConfig).
// NPEEnsemble and NREEnsemble combine trained estimators. Save writes an estimator with its
// configuration, embedding, prior and weights to one checksummed file, and Load reads back
// whichever estimator a file holds (LoadNPE and LoadNRE are the typed forms); the format, its
// registry of kinds and its limits are described at EstimatorFormatVersion.
//
// # Embeddings
//
// An Embedding summarizes x before the estimator's network reads it, trained with it
// (NPEConfig.Embedding, NREConfig.Embedding): MLPEmbedding for vectors, CNN1DEmbedding and
// GRUEmbedding for time series, CNN2DEmbedding for small images, DeepSetEmbedding for sets of
// i.i.d. trials whose number varies from observation to observation (Pack lays out the trials
// of one observation). Series and images are stored channels-last, one example per row (see
// package sbi/nn). An embedding with an InputLayout decides how x is standardized (one scale
// per channel of a series, per coordinate of a trial) and which observations it can read;
// DescribeEmbedding lists the layers one builds. RegisterEmbedding makes an embedding of
// another package storable in estimator files.
//
// # Configuration
//
// Settings are passed in structs named XConfig (NPEConfig, TrainConfig, SamplerConfig, and so
// on through the sub-packages and package viz), whose zero value means the defaults; there are
// no functional options. A setting with a fixed set of values is a named type with exported
// constants, a named string type where the values are names (Activation, SamplerMethod,
// flow.Kind with MAF and NSF), so that a literal such as "nsf" may stand for a constant; an
// unknown value is an error that names it and the values allowed.
//
// Sub-packages hold the rest: sbi/dist (distributions), sbi/task (simulators and benchmark
// tasks), sbi/nn (the reverse-mode engine), sbi/flow (normalizing flows), sbi/calib
// (calibration methods) and sbi/diag (diagnostics). The library knows nothing of notebooks:
// results offer a MIMEBundle, and progress and cancellation go through the settings a host
// makes in package runenv.
package sbi
