// Package transform holds the elementwise bijections of autoregressive normalizing flows, as
// operations on an nn.Tape: the monotonic rational-quadratic spline of neural spline flows
// (RQSpline, with its inverse for sampling) and the affine transform of masked autoregressive
// flows (Affine). Each is recorded on the tape through nn's custom-operation hook (nn.Op) with
// an analytic backward pass; the gradient checks compare them with central differences. The
// spline's vector kernels (several splines at a time) are in sbi/internal/kernels; the
// networks that produce the parameters (MADE) are in package nn, and the flows that chain
// them in package flow.
package transform
