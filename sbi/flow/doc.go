// Package flow holds the conditional normalizing flows of neural posterior and likelihood
// estimation, built on the reverse-mode engine of package nn: masked autoregressive flows
// (MAF, Papamakarios et al. 2017) with affine transforms, and neural spline flows (NSF, Durkan
// et al. 2019) with monotonic rational-quadratic spline transforms in the masked
// autoregressive arrangement (zuko's MAF with spline transforms; nflows'
// MaskedPiecewiseRationalQuadraticAutoregressiveTransform); and the flow-matching vector
// field of FMPE (Field).
//
// # Composition
//
// A flow is a standard normal base distribution and a stack of Config.Transforms layers,
// with the feature order reversed between layers. Every layer is the same composition: a
// MADE network (the conditioner) computes, from the preceding features and the whole
// context vector, the parameters of a univariate transform (transform.Univariate), which
// maps each feature. The kind (Config.Kind) names the transform in package transform's
// registry, which also gives the conditioners' default activation and initial output scale;
// nothing in this package depends on which transform it is. MAF is transform.Affine, NSF
// transform.Spline, and a new transform is one file of package transform (see its
// documentation) that flows of its kind then use unchanged.
//
// LogProb records the log-density on an nn.Tape, so a training step is
//
//	lp := f.LogProb(tp, theta, x)      // n×1
//	loss := tp.Neg(tp.Mean(lp))
//	tp.Backward(loss)
//
// and Sample draws by inverting the layers, feature by feature (one MADE pass per feature
// and layer, then the transform's InverseColumn), without gradients.
//
// # Evaluation without gradients
//
// The MADE (made.go) is a stack of nn's masked Linear layers, differentiated by the tape.
// Without gradients it has two faster paths: MADEFeature evaluates the sub-network that
// reaches one feature's outputs (sampling), and, asked by EvalConfig.Float32 (Flow.Eval),
// on CPUs with the float32 kernel, the products and the hidden activation (nn.ReLU or
// nn.Tanh) run in float32 on units sorted by degree so that masked-out blocks are skipped
// (made32.go). The transforms run their own vector kernels in their batch methods and, for
// the affine transform, in Forward on a tape that records nothing.
//
// # What is not a layer of this stack
//
// A flow-matching vector field (Field, the network of FMPE: Lipman et al. 2023, Dax et al.
// 2023) transforms all features jointly along an ODE: it is trained by regressing the
// velocities of straight paths (Field.Loss), not by the likelihood of a stack of bijections;
// it samples by integrating the ODE (Field.Sample, Field.MapRows), and its log-density
// integrates the field's exact divergence along it (Field.LogProb, Field.LogProbRows). It is
// not a univariate transform and uses none of the MADE layers: it lives beside Flow, an MLP
// of package nn with a time embedding.
package flow
