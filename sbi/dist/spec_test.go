package dist

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// storable returns one distribution of every kind this package stores, nested ones included.
func storable() map[string]Distribution {
	cov := mat.NewSymDense(2, []float64{2, 0.3, 0.3, 0.5})
	return map[string]Distribution{
		"box_uniform":         NewBoxUniform([]float64{-1, 0}, []float64{1, 3.5}),
		"normal":              NewNormal([]float64{0.1, -2}, []float64{1, 1.0 / 3}),
		"multivariate_normal": NewMultivariateNormal([]float64{1, -1}, cov),
		"log_normal":          NewLogNormal([]float64{0, 1}, []float64{0.5, 0.25}),
		"gamma":               NewGamma([]float64{2, 0.5}, []float64{1, 3}),
		"beta":                NewBeta([]float64{2, 0.7}, []float64{3, 0.7}),
		"independent":         NewIndependent(NewNormal([]float64{0}, []float64{1}), NewGamma([]float64{2}, []float64{1}), NewUniformCube(-1, 1, 2)),
		"affine":              NewAffine(NewBeta([]float64{2, 2}, []float64{3, 3}), []float64{-1, 5}, []float64{2, -0.5}),
		"exp":                 NewExp(NewUniformCube(-4, 1, 2)),
	}
}

// TestSpecRoundTrip stores every kind as JSON, builds it again, and compares the Specs and
// the log-densities at draws of the original (which must agree to the bit: the parameters
// are the same float64 values).
func TestSpecRoundTrip(t *testing.T) {
	for kind, d := range storable() {
		t.Run(kind, func(t *testing.T) {
			s, err := SpecOf(d)
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != kind {
				t.Errorf("kind %q, expected %q", s.Kind, kind)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back Spec
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			d2, err := FromSpec(back)
			if err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			s2, err := SpecOf(d2)
			if err != nil {
				t.Fatal(err)
			}
			if diff, ok := s.Diff(s2); ok {
				t.Errorf("rebuilt Spec differs at %s: %s, then %s", diff.Path, diff.A, diff.B)
			}
			x := d.Sample(rand.New(rand.NewPCG(1, 2)), 50)
			a, c := d.LogProb(x), d2.LogProb(x)
			for i := range a {
				if a[i] != c[i] {
					t.Fatalf("point %d: log-density %v after the round trip, %v before", i, c[i], a[i])
				}
			}
		})
	}
}

// TestSpecDiff checks that Diff finds the first difference, names its place and both values,
// and finds none between a Spec and itself.
func TestSpecDiff(t *testing.T) {
	spec := func(d Distribution) Spec {
		s, err := SpecOf(d)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := NewNormal([]float64{0, 0}, []float64{1, 1})
	cases := []struct {
		name string
		a, b Distribution
		want Difference
	}{
		{"kind", base, NewUniformCube(-1, 1, 2), Difference{"kind", "normal", "box_uniform"}},
		{"one digit of a std", base, NewNormal([]float64{0, 0}, []float64{1, 1.0000001}), Difference{"std[1]", "1", "1.0000001"}},
		{"dimension", base, NewStandardNormal(3), Difference{"mean", "2 values", "3 values"}},
		{"inside a part", NewIndependent(base, NewGamma([]float64{2}, []float64{1})), NewIndependent(base, NewGamma([]float64{2}, []float64{1.5})),
			Difference{"parts[1].rate[0]", "1", "1.5"}},
		{"number of parts", NewIndependent(base), NewIndependent(base, base), Difference{"parts", "1 parts", "2 parts"}},
		{"base of a transform", NewExp(base), NewExp(NewStandardNormal(2)), Difference{}},
	}
	for _, c := range cases {
		got, differ := spec(c.a).Diff(spec(c.b))
		if differ != (c.want != Difference{}) || got != c.want {
			t.Errorf("%s: Diff = %+v (%v), expected %+v", c.name, got, differ, c.want)
		}
	}
	for kind, d := range storable() {
		if diff, ok := spec(d).Diff(spec(d)); ok {
			t.Errorf("%s differs from itself at %+v", kind, diff)
		}
	}
}

// custom is a distribution of another package, without a Spec method.
type custom struct{ n *Normal }

func (c custom) Dim() int                                { return c.n.Dim() }
func (c custom) Sample(rng *rand.Rand, n int) *mat.Dense { return c.n.Sample(rng, n) }
func (c custom) LogProb(x *mat.Dense) []float64          { return c.n.LogProb(x) }
func (c custom) InSupport(x []float64) bool              { return c.n.InSupport(x) }
func (c custom) Support() (low, high []float64)          { return c.n.Support() }

// TestSpecRefuses checks the errors for what cannot be stored and for damaged Specs.
func TestSpecRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Distribution
		want string
	}{
		{"a type of another package", custom{NewStandardNormal(1)}, "dist.custom cannot be stored"},
		{"a part of another package", NewIndependent(NewStandardNormal(1), custom{NewStandardNormal(1)}), "part 1"},
		{"a transform by another bijection", NewTransformed(NewStandardNormal(1), NewSupportMap([]float64{0}, []float64{1})), "dist.SupportMap cannot be stored"},
		{"nil", nil, "nil"},
	} {
		if _, err := SpecOf(c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name, json, want string
	}{
		{"unknown kind", `{"kind":"cauchy"}`, `unknown kind "cauchy"`},
		{"missing parameter", `{"kind":"normal","params":{"mean":[0]}}`, `"std" is missing`},
		{"unknown parameter", `{"kind":"normal","params":{"mean":[0],"std":[1],"df":[3]}}`, `unknown parameter "df"`},
		{"lengths", `{"kind":"box_uniform","params":{"low":[0,0],"high":[1]}}`, `"high" has 1 values, expected 2`},
		{"negative std", `{"kind":"normal","params":{"mean":[0],"std":[-1]}}`, "std[0] = -1"},
		{"empty box", `{"kind":"box_uniform","params":{"low":[1],"high":[1]}}`, "low < high"},
		{"asymmetric covariance", `{"kind":"multivariate_normal","params":{"mean":[0,0],"cov":[1,0.5,0.4,1]}}`, "symmetric"},
		{"indefinite covariance", `{"kind":"multivariate_normal","params":{"mean":[0,0],"cov":[1,2,2,1]}}`, "positive definite"},
		{"damaged part", `{"kind":"independent","parts":[{"kind":"normal","params":{"mean":[0],"std":[1]}},{"kind":"gamma","params":{"shape":[0],"rate":[1]}}]}`, "part 1"},
		{"transform without base", `{"kind":"exp"}`, "0 parts, expected 1"},
		{"affine of the wrong width", `{"kind":"affine","params":{"shift":[0],"scale":[1]},"parts":[{"kind":"normal","params":{"mean":[0,0],"std":[1,1]}}]}`, `"shift" has 1 values, expected 2`},
	} {
		var s Spec
		if err := json.Unmarshal([]byte(c.json), &s); err != nil {
			t.Fatal(err)
		}
		if _, err := FromSpec(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
}

// TestRegisterOwnKind stores a distribution of another package through Register.
func TestRegisterOwnKind(t *testing.T) {
	Register("test_shifted_normal", func(s Spec) (Distribution, error) {
		mean, err := s.vec("mean", -1)
		if err != nil {
			return nil, err
		}
		return shifted{NewNormal(mean, fill(len(mean), 1))}, nil
	})
	d := shifted{NewNormal([]float64{3}, []float64{1})}
	s, err := SpecOf(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := back.(shifted); !ok || back.(shifted).Mean()[0] != 3 {
		t.Errorf("rebuilt %#v, expected the shifted normal with mean 3", back)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a kind twice did not panic")
		}
	}()
	Register("normal", func(Spec) (Distribution, error) { return nil, nil })
}

type shifted struct{ *Normal }

func (s shifted) Spec() (Spec, error) {
	return Spec{Kind: "test_shifted_normal", Params: map[string][]float64{"mean": s.Mean()}}, nil
}
