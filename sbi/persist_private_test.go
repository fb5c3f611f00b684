package sbi

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestPersistEmbeddingCallerChanges trains estimators with embedding configurations the
// caller keeps a hold on (a pointer, or a slice shared with the caller), changes them after
// training, and checks that the estimator still evaluates as before and saves the network it
// was built from: the file loads, and the loaded estimator gives the same log-densities to
// the bit.
func TestPersistEmbeddingCallerChanges(t *testing.T) {
	type made struct {
		est    Estimator
		change func() // what the caller does to its configuration after training
	}
	npe := func(p dist.Distribution, e Embedding) Estimator {
		return NewNPE(p, NPEConfig{Hidden: 6, Transforms: 1, Embedding: e})
	}
	nre := func(p dist.Distribution, e Embedding) Estimator {
		return NewNRE(p, NREConfig{Hidden: []int{6}, Embedding: e, Sampler: SamplerConfig{Method: SamplerImportance}})
	}
	fmpe := func(p dist.Distribution, e Embedding) Estimator {
		return NewFMPE(p, FMPEConfig{Hidden: 6, Layers: 2, RelTol: 1e-3, AbsTol: 1e-4, Embedding: e})
	}
	nle := func(p dist.Distribution, e Embedding) Estimator {
		return NewNLE(p, NLEConfig{Hidden: 6, Transforms: 1, Embedding: e, Sampler: SamplerConfig{Method: SamplerImportance}})
	}
	cases := []struct {
		name      string
		in        int // values of x (ignored with maxTrials)
		maxTrials int
		trialDim  int
		make      func(prior dist.Distribution) made
	}{
		{"cnn1d/pointer/npe", 12, 0, 0, func(p dist.Distribution) made {
			c := &CNN1DEmbedding{Conv: []int{2, 3}, Hidden: []int{4}, Out: 2}
			return made{npe(p, c), func() { c.Causal, c.Pool, c.Conv[0], c.Hidden = true, 1, 3, []int{5} }}
		}},
		{"cnn1d/shared-slice/nre", 12, 0, 0, func(p dist.Distribution) made {
			conv := []int{2, 3}
			return made{nre(p, CNN1DEmbedding{Conv: conv, Hidden: []int{}, Out: 2}), func() { conv[1] = 7 }}
		}},
		{"cnn1d/pointer-channels/fmpe", 12, 0, 0, func(p dist.Distribution) made {
			c := &CNN1DEmbedding{Channels: 2, Conv: []int{2}, Out: 2}
			return made{fmpe(p, c), func() { c.Channels, c.IndependentScaling = 3, true }}
		}},
		{"mlp/shared-slice/npe", 5, 0, 0, func(p dist.Distribution) made {
			h := []int{4, 3}
			return made{npe(p, MLPEmbedding{Hidden: h, Out: 2}), func() { h[0] = 9 }}
		}},
		{"mlp/pointer/nle", 3, 0, 0, func(p dist.Distribution) made {
			c := &MLPEmbedding{Hidden: []int{4}, Out: 3}
			return made{nle(p, c), func() { c.Hidden[0], c.Activation = 2, Tanh }}
		}},
		{"cnn2d/pointer/npe", 16, 0, 0, func(p dist.Distribution) made {
			c := &CNN2DEmbedding{Conv: []int{2}, Hidden: []int{3}, Out: 2}
			return made{npe(p, c), func() { c.Conv[0], c.GlobalPool = 4, true }}
		}},
		{"deepset/shared-slices/nre", 0, 3, 2, func(p dist.Distribution) made {
			h, head := []int{4}, []int{3}
			return made{nre(p, DeepSetEmbedding{TrialDim: 2, MaxTrials: 3, Hidden: h, Features: 3, Head: head, Out: 2}), func() { h[0], head[0] = 6, 5 }}
		}},
		{"deepset/pointer/npe", 0, 3, 2, func(p dist.Distribution) made {
			c := &DeepSetEmbedding{TrialDim: 2, MaxTrials: 3, Features: 3, Hidden: []int{}, Head: []int{}, Out: 2}
			return made{npe(p, c), func() { c.MaxTrials, c.Pool = 2, MaxPooling }} // the input check would refuse 3 trials
		}},
		{"cnn1d/pointer-from-Config/npe", 12, 0, 0, func(p dist.Distribution) made {
			e := NewNPE(p, NPEConfig{Hidden: 6, Transforms: 1, Embedding: &CNN1DEmbedding{Conv: []int{2}, Out: 2}})
			return made{e, func() {
				c := e.Config().Embedding.(*CNN1DEmbedding)
				c.Causal, c.Conv[0] = true, 4
			}}
		}},
		{"deepset/from-Config/fmpe", 0, 3, 1, func(p dist.Distribution) made {
			e := NewFMPE(p, FMPEConfig{Hidden: 6, Layers: 2, RelTol: 1e-3, AbsTol: 1e-4, Embedding: DeepSetEmbedding{MaxTrials: 3, Features: 2, Hidden: []int{3}, Out: 2}})
			return made{e, func() { e.Config().Embedding.(DeepSetEmbedding).Hidden[0] = 5 }}
		}},
		{"mlp/from-Config/nre", 5, 0, 0, func(p dist.Distribution) made {
			e := NewNRE(p, NREConfig{Hidden: []int{6}, Embedding: &MLPEmbedding{Hidden: []int{3}, Out: 2}})
			return made{e, func() { e.Config().Embedding.(*MLPEmbedding).Out = 4 }}
		}},
		{"mlp/from-Config/nle", 3, 0, 0, func(p dist.Distribution) made {
			e := NewNLE(p, NLEConfig{Hidden: 6, Transforms: 1, Embedding: MLPEmbedding{Hidden: []int{3}, Out: 2}, Sampler: SamplerConfig{Method: SamplerImportance}})
			return made{e, func() { e.Config().Embedding.(MLPEmbedding).Hidden[0] = 7 }}
		}},
		{"gru/pointer/npe", 8, 0, 0, func(p dist.Distribution) made {
			c := &GRUEmbedding{Hidden: 3, Out: 2}
			return made{npe(p, c), func() { c.Hidden, c.Channels = 5, 2 }}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prior, theta, x := embeddingPairs(rand.New(rand.NewPCG(41, 43)), 100, c.in, c.maxTrials, c.trialDim)
			m := c.make(prior)
			if _, err := m.est.Train(theta, x, TrainConfig{Epochs: 1, BatchSize: 50, Seed: 2}); err != nil {
				t.Fatal(err)
			}
			th := theta.Slice(0, 10, 0, 2).(*mat.Dense)
			xs := x.Slice(0, 10, 0, x.RawMatrix().Cols).(*mat.Dense)
			want := m.est.LogProbPairs(th, xs)
			m.change()
			if got := m.est.LogProbPairs(th, xs); !sameBits(got, want) {
				t.Fatalf("after the caller changed its configuration, LogProbPairs = %v, before %v", got, want)
			}
			var buf bytes.Buffer
			if err := m.est.Save(&buf); err != nil {
				t.Fatalf("Save after the caller changed its configuration: %v", err)
			}
			loaded, err := Load(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("Load of the file saved after the caller changed its configuration: %v", err)
			}
			if got := loaded.LogProbPairs(th, xs); !sameBits(got, want) {
				t.Fatalf("loaded LogProbPairs = %v, the trained estimator's %v", got, want)
			}
		})
	}
}

// sameBits reports whether a and b hold the same float64 values bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestEmbeddingCopyConformance checks copyEmbedding on every embedding type this package
// registers, as a value and as a pointer, with every field set: the copy equals the original,
// keeps its type, and shares nothing with it (changing every element of the original's
// slices, or the pointed-to value, leaves the copy as it was). A new embedding type, or a new
// field of a kind the copy does not handle, fails here until copyEmbedding covers it.
func TestEmbeddingCopyConformance(t *testing.T) {
	pkg := reflect.TypeOf(MLPEmbedding{}).PkgPath()
	embeddingKinds.RLock()
	types := map[string]reflect.Type{}
	for kind, typ := range embeddingKinds.byKind {
		if typ.PkgPath() == pkg {
			types[kind] = typ
		}
	}
	embeddingKinds.RUnlock()
	for _, kind := range []string{"mlp", "cnn1d", "gru", "cnn2d", "deepset"} {
		if types[kind] == nil {
			t.Fatalf("kind %q is not registered by package sbi", kind)
		}
	}
	// fill sets every field of the struct v to a value other than its zero, different for
	// every seed, and every slice to fresh non-empty backing storage.
	fill := func(t *testing.T, v reflect.Value, seed int) {
		for i := 0; i < v.NumField(); i++ {
			f, name := v.Field(i), v.Type().Field(i).Name
			switch {
			case f.Kind() == reflect.Int:
				f.SetInt(int64(seed + i))
			case f.Kind() == reflect.String:
				f.SetString(fmt.Sprint("s", seed, i))
			case f.Kind() == reflect.Bool:
				f.SetBool(seed%2 == 0)
			case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Int:
				f.Set(reflect.ValueOf([]int{seed, seed + i, 3}).Convert(f.Type()))
			default:
				t.Fatalf("%v.%s is a %v: extend copyEmbedding (and this test) to copy it", v.Type(), name, f.Type())
			}
		}
	}
	for kind, typ := range types {
		t.Run(kind, func(t *testing.T) {
			for _, pointer := range []bool{false, true} {
				orig := reflect.New(typ)
				fill(t, orig.Elem(), 1)
				e := orig.Elem().Interface().(Embedding)
				if pointer {
					e = orig.Interface().(Embedding)
				}
				c := copyEmbedding(e)
				if reflect.TypeOf(c) != reflect.TypeOf(e) {
					t.Fatalf("copy of a %T is a %T", e, c)
				}
				if !reflect.DeepEqual(c, e) {
					t.Fatalf("copy %+v differs from the original %+v", c, e)
				}
				cv := reflect.ValueOf(c)
				if pointer {
					if cv.Pointer() == orig.Pointer() {
						t.Fatalf("copy of %T is the same pointer", e)
					}
					cv = cv.Elem()
				}
				want := reflect.New(typ).Elem()
				want.Set(cv) // the copy's fields now; its slices are compared by element below
				wantSlices := map[int][]int{}
				for i := 0; i < cv.NumField(); i++ {
					if f := cv.Field(i); f.Kind() == reflect.Slice {
						wantSlices[i] = slices.Clone(f.Interface().([]int))
					}
				}
				// change the original: every element of its slices (through its own
				// value, as a caller sharing them would), and with a pointer every field.
				ov := orig.Elem()
				for i := 0; i < ov.NumField(); i++ {
					if f := ov.Field(i); f.Kind() == reflect.Slice {
						for k := 0; k < f.Len(); k++ {
							f.Index(k).SetInt(-100)
						}
					}
				}
				if pointer {
					fill(t, ov, 2)
				}
				for i := 0; i < cv.NumField(); i++ {
					f := cv.Field(i)
					if f.Kind() == reflect.Slice {
						if got := f.Interface().([]int); !slices.Equal(got, wantSlices[i]) {
							t.Fatalf("%T: changing the original's %s changed the copy's to %v", e, cv.Type().Field(i).Name, got)
						}
						continue
					}
					if !reflect.DeepEqual(f.Interface(), want.Field(i).Interface()) {
						t.Fatalf("%T: changing the original's %s changed the copy's", e, cv.Type().Field(i).Name)
					}
				}
			}
			var nilPointer Embedding = reflect.Zero(reflect.PointerTo(typ)).Interface().(Embedding)
			if c := copyEmbedding(nilPointer); c != nilPointer {
				t.Fatalf("copy of a nil %T is %v", nilPointer, c)
			}
		})
	}
	if copyEmbedding(nil) != nil {
		t.Fatal("copy of no embedding is not nil")
	}
	for _, nilSlice := range []bool{true, false} { // nil takes the default, []int{} means none
		h := []int{}
		if nilSlice {
			h = nil
		}
		if got := copyEmbedding(MLPEmbedding{Hidden: h}).(MLPEmbedding).Hidden; (got == nil) != nilSlice {
			t.Fatalf("copy of Hidden %#v is %#v", h, got)
		}
	}
}

// TestPersistNREHiddenCallerChanges is TestPersistEmbeddingCallerChanges for the classifier's
// widths, NREConfig.Hidden: changing the caller's slice, or the one Config returned, after
// training must change neither the estimator nor its file.
func TestPersistNREHiddenCallerChanges(t *testing.T) {
	cases := []struct {
		name   string
		change func(e *NRE, hidden []int)
	}{
		{"caller's slice", func(_ *NRE, hidden []int) { hidden[0] = 9 }},
		{"Config's slice", func(e *NRE, _ []int) { e.Config().Hidden[1] = 2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prior, theta, x := embeddingPairs(rand.New(rand.NewPCG(47, 53)), 100, 3, 0, 0)
			hidden := []int{6, 5}
			e := NewNRE(prior, NREConfig{Hidden: hidden, Sampler: SamplerConfig{Method: SamplerImportance}})
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, BatchSize: 50, Seed: 2}); err != nil {
				t.Fatal(err)
			}
			want := e.LogProbPairs(theta, x)
			c.change(e, hidden)
			if got := e.Config().Hidden; !slices.Equal(got, []int{6, 5}) {
				t.Fatalf("Config().Hidden = %v after the change, expected the trained widths [6 5]", got)
			}
			var buf bytes.Buffer
			if err := e.Save(&buf); err != nil {
				t.Fatal(err)
			}
			loaded, err := LoadNRE(bytes.NewReader(buf.Bytes()), nil)
			if err != nil {
				t.Fatalf("LoadNRE of the file saved after the change: %v", err)
			}
			if got := loaded.LogProbPairs(theta, x); !sameBits(got, want) {
				t.Fatal("loaded LogProbPairs differ from the trained estimator's")
			}
		})
	}
}

// TestMNLECategoriesCallerChanges: an MNLE keeps the Categories it was made with (validated
// then); changing the caller's slice, or the one Config returned, does not reach it.
func TestMNLECategoriesCallerChanges(t *testing.T) {
	cases := []struct {
		name   string
		change func(e *MNLE, cats []int)
	}{
		{"caller's slice", func(_ *MNLE, cats []int) { cats[0] = 0 }},
		{"Config's slice", func(e *MNLE, _ []int) { e.Config().Categories[0] = 5000 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cats := []int{3}
			e := NewMNLE(dist.NewStandardNormal(2), MNLEConfig{Categories: cats})
			c.change(e, cats)
			if got := e.Config().Categories; !slices.Equal(got, []int{3}) {
				t.Fatalf("Config().Categories = %v after the change, expected [3] as made", got)
			}
		})
	}
}
