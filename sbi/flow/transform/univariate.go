package transform

import (
	"fmt"
	"sort"
	"sync"

	"github.com/gosbi/gosbi/sbi/nn"

	"github.com/gosbi/gosbi/internal/text"
)

// Univariate is an elementwise bijection of a normalizing flow, y = τ(x; u), applied to every
// feature of every row with that feature's own parameters u: P unconstrained numbers per
// feature, which a conditioner computes (in an autoregressive flow, the MADE, from the
// preceding features and the context). Affine and Spline implement it; a flow built with
// package flow takes any registered one (see Register).
//
// A batch is row-major: x and y are n×D, the parameters n×(D·P) with those of feature d in
// columns d·P … d·P+P−1. A transform's vector kernels (its lanes: the spline evaluates eight
// splines at a time on AVX-512, four on AVX2) run inside Forward and InverseColumn, which take
// whole batches so that they can; ForwardOne and InverseOne are the scalar reference those
// methods are tested against.
type Univariate interface {
	// Params returns P, the number of unconstrained parameters per feature (at least 1).
	Params() int

	// Forward applies the transform to x (n×D) with params (n×D·P) on the tape and returns y
	// (n×D) and the n×1 log|det ∂y/∂x| = Σ_d log τ'(x_d). When the tape records (tp.RequiresGrad
	// of x or params), it records an nn.Op whose Backward adds the gradients of y and of the
	// log-determinant to those of x and params, and it allocates nothing that the tape does not
	// reuse (results from tp.Output, saved values from tp.Scratch, ops from a free list), so a
	// training step stays free of allocations.
	Forward(tp *nn.Tape, x, params *nn.Tensor) (y, logDet *nn.Tensor)

	// InverseColumn inverts the transform of one feature at n points, without gradients: for
	// every i < n it sets x[i·stride] to the x with τ(x; u_i) = y[i·stride], where u_i is
	// params[i·ps : i·ps+P], and, when logDet is not nil, adds log dx/dy to logDet[i]. The
	// parameter stride ps is P (one transform per point: a column of a batch) or 0 (one
	// transform shared by all points). Sampling a flow calls it once per feature and layer.
	InverseColumn(x, y []float64, stride, n int, params []float64, ps int, logDet []float64)

	// ForwardOne is the scalar reference of Forward: y = τ(x; u) and log dy/dx for one
	// feature's parameters u (P values).
	ForwardOne(x float64, u []float64) (y, logDet float64)

	// InverseOne is the scalar reference of InverseColumn: x with τ(x; u) = y, and log dx/dy.
	InverseOne(y float64, u []float64) (x, logDet float64)
}

// Settings are the options of a flow that a transform may read when it is built (package
// flow's Config carries them). A transform ignores those it has no use for.
type Settings struct {
	Bins  int     // number of bins of a piecewise transform (the spline)
	Bound float64 // the transform acts on [−Bound, Bound] and is the identity outside (the spline)
}

// Registration describes a kind of transform for package flow: how to build it and what the
// conditioner of a flow of that kind defaults to.
type Registration struct {
	// New returns the transform for the settings, or an error that names a setting out of
	// range and the range.
	New func(Settings) (Univariate, error)

	// Activation is the hidden activation of the flow's conditioners when the flow's
	// configuration leaves it unset; it must not be nn.Identity.
	Activation nn.Activation

	// OutputScale multiplies the conditioners' initial output weights, so that a transform
	// whose zero parameters are not near the identity starts near it (the spline: 0.1); 0
	// means 1 (no scaling).
	OutputScale float64
}

var registry = struct {
	sync.RWMutex
	kinds map[string]Registration
}{kinds: map[string]Registration{}}

// Register makes the transform kind name (a flow.Kind) known to package flow. It panics when
// name is empty or registered already, or r has no New or an Identity activation: register
// once, from an init function of the transform's file.
func Register(name string, r Registration) {
	if name == "" || r.New == nil || r.Activation == nn.Identity {
		panic(fmt.Sprintf("transform: Register(%q): want a name, a New function and a hidden activation other than Identity", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.kinds[name]; dup {
		panic(fmt.Sprintf("transform: Register: kind %q is registered already", name))
	}
	registry.kinds[name] = r
}

// Lookup returns the registration of the transform kind name, or an error naming the kind
// and the registered ones.
func Lookup(name string) (Registration, error) {
	registry.RLock()
	r, ok := registry.kinds[name]
	registry.RUnlock()
	if !ok {
		return Registration{}, fmt.Errorf("unknown kind %q: want %s", name, quotedList(Kinds()))
	}
	return r, nil
}

// Kinds returns the registered kinds, sorted.
func Kinds() []string {
	registry.RLock()
	defer registry.RUnlock()
	ks := make([]string, 0, len(registry.kinds))
	for k := range registry.kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// quotedList writes names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return text.List(q, "or")
}
