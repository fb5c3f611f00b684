package dist

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Spec is the stored form of a distribution: its kind, its parameters by name, and the
// distributions it is built from (the parts of an Independent product, the base of a
// transformed distribution). Its JSON encoding is what estimator files store as their prior;
// FromSpec builds the distribution again.
//
// The kinds of this package and their parameters (each a list of numbers, one per coordinate
// unless said otherwise):
//
//	box_uniform          low, high
//	normal               mean, std
//	multivariate_normal  mean, cov (the d×d covariance, row by row)
//	log_normal           loc, scale
//	gamma                shape, rate
//	beta                 alpha, beta
//	independent          no parameters; parts: the factors in order
//	affine               shift, scale; parts: the base
//	exp                  no parameters; parts: the base
type Spec struct {
	Kind   string               `json:"kind"`
	Params map[string][]float64 `json:"params,omitempty"`
	Parts  []Spec               `json:"parts,omitempty"`
}

// Specifier is implemented by distributions that can be stored as a Spec. Every distribution
// of this package implements it; a Transformed one only when its bijection is Affine or Exp. A
// distribution of another package implements it and calls Register for its kind.
type Specifier interface {
	Spec() (Spec, error)
}

// SpecOf returns the Spec of d, or an error naming d's type when d cannot be stored.
func SpecOf(d Distribution) (Spec, error) {
	if d == nil {
		return Spec{}, errors.New("dist: the distribution is nil, expected one to store")
	}
	s, ok := d.(Specifier)
	if !ok {
		return Spec{}, fmt.Errorf("dist: a %T cannot be stored: it has no Spec method (build it from package dist, or implement dist.Specifier and Register its kind)", d)
	}
	return s.Spec()
}

// Decoder builds a distribution from its Spec, or returns an error that names what is wrong
// with the Spec.
type Decoder func(Spec) (Distribution, error)

var registry = struct {
	sync.RWMutex
	kinds map[string]Decoder
}{kinds: map[string]Decoder{}}

// Register makes FromSpec build the distributions of kind with decode. It panics when kind is
// empty or already registered: kinds are registered once, from an init function.
func Register(kind string, decode Decoder) {
	if kind == "" || decode == nil {
		panic("dist: Register: kind and decoder must be given")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.kinds[kind]; dup {
		panic(fmt.Sprintf("dist: Register: kind %q is registered already", kind))
	}
	registry.kinds[kind] = decode
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

// FromSpec builds the distribution that s describes. An unknown kind, a parameter missing,
// unknown or of the wrong length, or a value the constructor refuses (a negative scale, a
// covariance that is not positive definite) gives an error naming it.
func FromSpec(s Spec) (d Distribution, err error) {
	registry.RLock()
	decode, ok := registry.kinds[s.Kind]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("dist: unknown kind %q, expected one of %v", s.Kind, Kinds())
	}
	defer func() {
		if r := recover(); r != nil { // a constructor refused a value: the Spec is invalid
			d, err = nil, fmt.Errorf("dist: %s: %v", s.Kind, r)
		}
	}()
	return decode(s)
}

// Difference is the first place where two Specs differ.
type Difference struct {
	Path string // "kind", "std", "std[1]", "parts[0].mean[2]", …
	A, B string // the values of the first and of the second Spec there
}

// Diff returns the first difference between s and t, looking at the kind, then the
// parameters by name, then the parts in order; false when they describe the same
// distribution (same kinds, parameters equal to the last bit, same parts).
func (s Spec) Diff(t Spec) (Difference, bool) {
	return s.diff(t, "")
}

func (s Spec) diff(t Spec, at string) (Difference, bool) {
	if s.Kind != t.Kind {
		return Difference{at + "kind", s.Kind, t.Kind}, true
	}
	for _, name := range paramNames(s, t) {
		a, inA := s.Params[name]
		b, inB := t.Params[name]
		switch {
		case !inA || !inB:
			return Difference{at + name, presence(inA, a), presence(inB, b)}, true
		case len(a) != len(b):
			return Difference{at + name, fmt.Sprintf("%d values", len(a)), fmt.Sprintf("%d values", len(b))}, true
		}
		for i := range a {
			if a[i] != b[i] {
				return Difference{fmt.Sprintf("%s%s[%d]", at, name, i), formatFloat(a[i]), formatFloat(b[i])}, true
			}
		}
	}
	if len(s.Parts) != len(t.Parts) {
		return Difference{at + "parts", fmt.Sprintf("%d parts", len(s.Parts)), fmt.Sprintf("%d parts", len(t.Parts))}, true
	}
	for k := range s.Parts {
		if d, ok := s.Parts[k].diff(t.Parts[k], fmt.Sprintf("%sparts[%d].", at, k)); ok {
			return d, true
		}
	}
	return Difference{}, false
}

// paramNames returns the parameter names of s and t, sorted, each once.
func paramNames(s, t Spec) []string {
	seen := map[string]bool{}
	var names []string
	for _, p := range []map[string][]float64{s.Params, t.Params} {
		for name := range p {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}

func presence(present bool, v []float64) string {
	if !present {
		return "absent"
	}
	return fmt.Sprintf("%d values", len(v))
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// vec returns the parameter name of s, checking that it has n values (n < 0: at least one).
func (s Spec) vec(name string, n int) ([]float64, error) {
	v, ok := s.Params[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("dist: %s: parameter %q is missing", s.Kind, name)
	case n < 0 && len(v) == 0:
		return nil, fmt.Errorf("dist: %s: parameter %q is empty, expected at least one value", s.Kind, name)
	case n >= 0 && len(v) != n:
		return nil, fmt.Errorf("dist: %s: parameter %q has %d values, expected %d", s.Kind, name, len(v), n)
	}
	return v, nil
}

// expect checks that s has exactly the parameters names and parts parts.
func (s Spec) expect(parts int, names ...string) error {
	if len(s.Parts) != parts {
		return fmt.Errorf("dist: %s: %d parts, expected %d", s.Kind, len(s.Parts), parts)
	}
	for name := range s.Params {
		known := false
		for _, n := range names {
			known = known || n == name
		}
		if !known {
			return fmt.Errorf("dist: %s: unknown parameter %q, expected %v", s.Kind, name, names)
		}
	}
	return nil
}

// pairSpec returns the Spec of a distribution with two per-coordinate parameters.
func pairSpec(kind, a string, va []float64, b string, vb []float64) (Spec, error) {
	return Spec{Kind: kind, Params: map[string][]float64{a: clone(va), b: clone(vb)}}, nil
}

// decodePair reads the two per-coordinate parameters a and b of s.
func decodePair(s Spec, a, b string) (va, vb []float64, err error) {
	if err := s.expect(0, a, b); err != nil {
		return nil, nil, err
	}
	if va, err = s.vec(a, -1); err != nil {
		return nil, nil, err
	}
	if vb, err = s.vec(b, len(va)); err != nil {
		return nil, nil, err
	}
	return va, vb, nil
}

func clone(v []float64) []float64 { return append([]float64(nil), v...) }

// Spec implements Specifier.
func (u *BoxUniform) Spec() (Spec, error) {
	return pairSpec("box_uniform", "low", u.low, "high", u.high)
}

// Spec implements Specifier.
func (d *Normal) Spec() (Spec, error) { return pairSpec("normal", "mean", d.mean, "std", d.std) }

// Spec implements Specifier.
func (d *LogNormal) Spec() (Spec, error) {
	return pairSpec("log_normal", "loc", d.loc, "scale", d.scale)
}

// Spec implements Specifier.
func (d *Gamma) Spec() (Spec, error) { return pairSpec("gamma", "shape", d.shape, "rate", d.rate) }

// Spec implements Specifier.
func (d *Beta) Spec() (Spec, error) { return pairSpec("beta", "alpha", d.alpha, "beta", d.beta) }

// Spec implements Specifier; the covariance is stored in full, row by row.
func (d *MultivariateNormal) Spec() (Spec, error) {
	n := d.Dim()
	cov := make([]float64, 0, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			cov = append(cov, d.cov.At(i, j))
		}
	}
	return Spec{Kind: "multivariate_normal", Params: map[string][]float64{"mean": clone(d.mean), "cov": cov}}, nil
}

// Spec implements Specifier; it fails when a part cannot be stored.
func (d *Independent) Spec() (Spec, error) {
	s := Spec{Kind: "independent"}
	for k, p := range d.parts {
		ps, err := SpecOf(p)
		if err != nil {
			return Spec{}, fmt.Errorf("part %d of the Independent product: %w", k, err)
		}
		s.Parts = append(s.Parts, ps)
	}
	return s, nil
}

// Spec implements Specifier for the bijections Affine (kind "affine") and Exp (kind "exp"); a
// transform by another bijection, or by an Affine map with a zero or non-finite value, cannot
// be stored.
func (t *Transformed) Spec() (Spec, error) {
	base, err := SpecOf(t.base)
	if err != nil {
		return Spec{}, fmt.Errorf("the base of the transformed distribution: %w", err)
	}
	switch f := t.f.(type) {
	case Affine:
		if len(f.Shift) != t.Dim() || len(f.Scale) != t.Dim() || !allFinite(f.Shift) || !allFinite(f.Scale) {
			return Spec{}, fmt.Errorf("dist: the Affine map %v cannot be stored: expected %d finite shifts and scales", f, t.Dim())
		}
		for j, v := range f.Scale {
			if v == 0 {
				return Spec{}, fmt.Errorf("dist: the Affine map cannot be stored: scale[%d] = 0", j)
			}
		}
		return Spec{Kind: "affine", Params: map[string][]float64{"shift": clone(f.Shift), "scale": clone(f.Scale)}, Parts: []Spec{base}}, nil
	case Exp:
		return Spec{Kind: "exp", Parts: []Spec{base}}, nil
	}
	return Spec{}, fmt.Errorf("dist: a distribution transformed by %T cannot be stored: only Affine and Exp maps are", t.f)
}

func init() {
	Register("box_uniform", func(s Spec) (Distribution, error) {
		low, high, err := decodePair(s, "low", "high")
		if err != nil {
			return nil, err
		}
		return NewBoxUniform(low, high), nil
	})
	Register("normal", func(s Spec) (Distribution, error) {
		mean, std, err := decodePair(s, "mean", "std")
		if err != nil {
			return nil, err
		}
		return NewNormal(mean, std), nil
	})
	Register("log_normal", func(s Spec) (Distribution, error) {
		loc, scale, err := decodePair(s, "loc", "scale")
		if err != nil {
			return nil, err
		}
		return NewLogNormal(loc, scale), nil
	})
	Register("gamma", func(s Spec) (Distribution, error) {
		shape, rate, err := decodePair(s, "shape", "rate")
		if err != nil {
			return nil, err
		}
		return NewGamma(shape, rate), nil
	})
	Register("beta", func(s Spec) (Distribution, error) {
		alpha, beta, err := decodePair(s, "alpha", "beta")
		if err != nil {
			return nil, err
		}
		return NewBeta(alpha, beta), nil
	})
	Register("multivariate_normal", decodeMultivariateNormal)
	Register("independent", func(s Spec) (Distribution, error) {
		if err := s.expect(len(s.Parts)); err != nil {
			return nil, err
		}
		if len(s.Parts) == 0 {
			return nil, errors.New("dist: independent: no parts, expected at least one")
		}
		parts := make([]Distribution, len(s.Parts))
		for k, ps := range s.Parts {
			p, err := FromSpec(ps)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", k, err)
			}
			parts[k] = p
		}
		return NewIndependent(parts...), nil
	})
	Register("affine", func(s Spec) (Distribution, error) {
		base, err := decodeBase(s, "shift", "scale")
		if err != nil {
			return nil, err
		}
		shift, err := s.vec("shift", base.Dim())
		if err != nil {
			return nil, err
		}
		scale, err := s.vec("scale", base.Dim())
		if err != nil {
			return nil, err
		}
		return NewAffine(base, shift, scale), nil
	})
	Register("exp", func(s Spec) (Distribution, error) {
		base, err := decodeBase(s)
		if err != nil {
			return nil, err
		}
		return NewExp(base), nil
	})
}

// decodeBase checks the parameters of a transform's Spec and builds its base.
func decodeBase(s Spec, names ...string) (Distribution, error) {
	if err := s.expect(1, names...); err != nil {
		return nil, err
	}
	base, err := FromSpec(s.Parts[0])
	if err != nil {
		return nil, fmt.Errorf("the base of %s: %w", s.Kind, err)
	}
	return base, nil
}

func decodeMultivariateNormal(s Spec) (Distribution, error) {
	if err := s.expect(0, "mean", "cov"); err != nil {
		return nil, err
	}
	mean, err := s.vec("mean", -1)
	if err != nil {
		return nil, err
	}
	n := len(mean)
	cov, err := s.vec("cov", n*n)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if a, b := cov[i*n+j], cov[j*n+i]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				return nil, fmt.Errorf("dist: multivariate_normal: cov[%d][%d] = %v but cov[%d][%d] = %v, expected a symmetric matrix", i, j, a, j, i, b)
			}
		}
	}
	checkFinite("multivariate_normal", "cov", cov)
	return NewMultivariateNormal(mean, mat.NewSymDense(n, clone(cov))), nil
}
