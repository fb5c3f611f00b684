// Package transform holds the elementwise (univariate) bijections of autoregressive
// normalizing flows and the registry from which package flow builds its layers.
//
// A Univariate transform maps each feature x_d of a row to y_d = τ(x_d; u_d), with
// parameters u_d that a conditioner computes; it gives the log-derivative for the change of
// variables, records itself on an nn.Tape (through nn's custom-operation hook, nn.Op, with
// an analytic backward pass, or composed of the tape's own operations), inverts one column
// at a time for sampling, and has a scalar reference (ForwardOne, InverseOne) that its batch
// methods and vector kernels are tested against. Two are defined here: Affine, the
// transform of masked autoregressive flows (kind "maf"), and Spline, the monotonic
// rational-quadratic spline of neural spline flows (kind "nsf"), whose vector kernels
// (several splines at a time) are in sbi/internal/kernels.
//
// # Adding a transform
//
// A new transform is one file: a type with the five methods of Univariate and an init
// function that calls Register with the kind's name (which becomes a flow.Kind), its
// constructor from Settings, the default activation of its conditioners and, where zero
// parameters are far from the identity, a scale for the conditioners' initial output
// weights. Package flow then builds flows of that kind (flow.Config{Kind: "name"}) without
// a change. CheckUnivariate, in this package's tests, holds a transform to the interface's
// contract; the tests define a third transform that way (toy_test.go).
//
// What is not a univariate transform: a layer that mixes features (a linear or coupling
// layer over all features) or a continuous flow whose vector field is integrated in time
// (flow matching, FMPE) maps whole rows, not features one at a time, and its log-determinant
// is not a sum over features; it is a type of package flow of its own (flow.Field, see
// package flow's documentation), not a transform of this interface.
package transform
