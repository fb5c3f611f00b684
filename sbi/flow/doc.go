// Package flow holds conditional normalizing flows for neural posterior estimation, built on
// the reverse-mode engine of package nn: masked autoregressive flows (MAF, Papamakarios et al.
// 2017) with affine transforms, and neural spline flows (NSF, Durkan et al. 2019) with
// monotonic rational-quadratic spline transforms in the masked autoregressive arrangement
// (zuko's MAF with spline transforms; nflows' MaskedPiecewiseRationalQuadratic-
// AutoregressiveTransform). Each transform's parameters come from a MADE network that sees
// the preceding features and the whole context vector; the feature order is reversed between
// transforms; the base distribution is a standard normal.
//
// LogProb records the log-density on an nn.Tape, so a training step is
//
//	lp := f.LogProb(tp, theta, x)      // n×1
//	loss := tp.Neg(tp.Mean(lp))
//	tp.Backward(loss)
//
// and Sample draws by inverting the transforms, feature by feature (one MADE pass per
// feature and transform), without gradients.
//
// The MADE (made.go) is a stack of nn's masked Linear layers, differentiated by the tape.
// Without gradients it has two faster paths: MADEFeature evaluates the sub-network that
// reaches one feature's outputs (sampling), and on a tape with Float32 set, on CPUs with the
// float32 kernel, the products run in float32 on units sorted by degree so that masked-out
// blocks are skipped (made32.go). The transforms themselves are in package transform.
package flow
