package sbi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// embeddingPairs returns n pairs of θ (2 parameters, standard normal prior) and x of in values
// that depend on θ. With maxTrials > 0, x is in the layout of a DeepSetEmbedding of that many
// trials of trialDim values: the count first, then counts from 1 to maxTrials.
func embeddingPairs(rng *rand.Rand, n, in, maxTrials, trialDim int) (dist.Distribution, *mat.Dense, *mat.Dense) {
	prior := dist.NewStandardNormal(2)
	theta := prior.Sample(rng, n)
	w := in
	if maxTrials > 0 {
		w = maxTrials * trialDim
	}
	x := mat.NewDense(n, w, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < w; j++ {
			x.Set(i, j, theta.At(i, j%2)*float64(1+j%3)+0.3*rng.NormFloat64())
		}
	}
	if maxTrials == 0 {
		return prior, theta, x
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = 1 + i%maxTrials
	}
	e := DeepSetEmbedding{TrialDim: trialDim, MaxTrials: maxTrials}
	return prior, theta, e.MustWithCounts(x, counts)
}

// TestPersistEmbeddingRoundTrip trains an estimator with each kind of embedding and each of
// its options, saves it, loads it back (typed and generic) and checks that the loaded
// estimator gives the same log-densities and, with the same seed, the same draws, to the bit,
// and that it saves again to the same bytes.
func TestPersistEmbeddingRoundTrip(t *testing.T) {
	type estimatorCase struct {
		name string
		make func(prior dist.Distribution, emb Embedding) Estimator
		load func(b []byte) (Estimator, error)
	}
	npe := estimatorCase{"npe", func(p dist.Distribution, e Embedding) Estimator {
		return NewNPE(p, NPEConfig{Hidden: 8, Transforms: 2, Embedding: e})
	}, func(b []byte) (Estimator, error) { return LoadNPE(bytes.NewReader(b), nil) }}
	nsf := estimatorCase{"npe-nsf", func(p dist.Distribution, e Embedding) Estimator {
		return NewNPE(p, NPEConfig{Flow: NSF, Hidden: 8, Transforms: 1, Bins: 4, Embedding: e})
	}, func(b []byte) (Estimator, error) { return LoadNPE(bytes.NewReader(b), nil) }}
	nre := estimatorCase{"nre", func(p dist.Distribution, e Embedding) Estimator {
		return NewNRE(p, NREConfig{Hidden: []int{8}, Embedding: e, Sampler: SamplerConfig{Method: SamplerImportance}})
	}, func(b []byte) (Estimator, error) { return LoadNRE(bytes.NewReader(b), nil) }}
	fmpe := estimatorCase{"fmpe", func(p dist.Distribution, e Embedding) Estimator {
		return NewFMPE(p, FMPEConfig{Hidden: 8, Layers: 2, RelTol: 1e-3, AbsTol: 1e-4, Embedding: e})
	}, func(b []byte) (Estimator, error) { return LoadFMPE(bytes.NewReader(b), nil) }}
	nle := estimatorCase{"nle", func(p dist.Distribution, e Embedding) Estimator {
		return NewNLE(p, NLEConfig{Hidden: 8, Transforms: 1, Embedding: e, Sampler: SamplerConfig{Method: SamplerImportance}})
	}, func(b []byte) (Estimator, error) { return LoadNLE(bytes.NewReader(b), nil) }}

	cases := []struct {
		name       string
		emb        Embedding
		in         int // values of x (ignored with maxTrials)
		maxTrials  int
		trialDim   int
		estimators []estimatorCase
	}{
		{"mlp/tanh", MLPEmbedding{Hidden: []int{6, 5}, Out: 3, Activation: Tanh}, 5, 0, 0, []estimatorCase{npe, nre, fmpe}},
		{"mlp/none", MLPEmbedding{Hidden: []int{}, Out: 3, Activation: ELU}, 5, 0, 0, []estimatorCase{npe}},
		{"mlp/pointer", &MLPEmbedding{Hidden: []int{4}, Out: 2}, 5, 0, 0, []estimatorCase{nre}},
		{"cnn1d", CNN1DEmbedding{Conv: []int{3, 4}, Hidden: []int{6}, Out: 3}, 16, 0, 0, []estimatorCase{npe, nsf, nre, fmpe}},
		{"cnn1d/mean", CNN1DEmbedding{Conv: []int{3}, Pooling: MeanPooling, Kernel: 3, Out: 3, Hidden: []int{}}, 12, 0, 0, []estimatorCase{npe, nre}},
		{"cnn1d/causal", CNN1DEmbedding{Channels: 2, Conv: []int{3, 3}, Kernel: 2, Causal: true, Pool: 1, Out: 3, Hidden: []int{4}}, 20, 0, 0, []estimatorCase{npe, nre}},
		{"cnn1d/causal-pool-global", CNN1DEmbedding{Channels: 2, Conv: []int{3, 3}, Kernel: 3, Causal: true, GlobalPool: true, Out: 3, Hidden: []int{4}}, 24, 0, 0, []estimatorCase{npe}},
		{"cnn1d/global-mean", CNN1DEmbedding{Conv: []int{3}, GlobalPool: true, Pooling: MeanPooling, Out: 2}, 14, 0, 0, []estimatorCase{npe, fmpe}},
		{"cnn1d/independent", CNN1DEmbedding{Channels: 2, Conv: []int{3}, IndependentScaling: true, Out: 3, Hidden: []int{}}, 16, 0, 0, []estimatorCase{npe, nre}},
		{"cnn1d/elu-even-kernel", CNN1DEmbedding{Conv: []int{2, 3}, Kernel: 4, Activation: ELU, Out: 3, Hidden: []int{5}}, 15, 0, 0, []estimatorCase{npe}},
		{"cnn1d/tanh-max", CNN1DEmbedding{Conv: []int{3}, Activation: Tanh, Out: 3}, 10, 0, 0, []estimatorCase{nre}},
		{"cnn1d/float32", CNN1DEmbedding{Conv: []int{3, 4}, Hidden: []int{6}, Out: 3, Float32: true}, 16, 0, 0, []estimatorCase{npe, nre}},
		{"cnn2d/float32", CNN2DEmbedding{Conv: []int{2, 3}, Hidden: []int{5}, Out: 3, Float32: true}, 16, 0, 0, []estimatorCase{npe}},
		{"cnn2d", CNN2DEmbedding{Conv: []int{2, 3}, Hidden: []int{5}, Out: 3}, 16, 0, 0, []estimatorCase{npe, nre, fmpe}},
		{"cnn2d/rect-channels", CNN2DEmbedding{Height: 3, Width: 4, Channels: 2, Conv: []int{3}, Out: 3, Hidden: []int{}}, 24, 0, 0, []estimatorCase{npe}},
		{"cnn2d/mean-global", CNN2DEmbedding{Height: 4, Width: 5, Conv: []int{3}, Pooling: MeanPooling, GlobalPool: true, Out: 2}, 20, 0, 0, []estimatorCase{npe, nre}},
		{"cnn2d/elu-nopool", CNN2DEmbedding{Height: 3, Width: 3, Channels: 1, Conv: []int{2}, Kernel: 2, Pool: 1, Activation: ELU, Out: 3}, 9, 0, 0, []estimatorCase{npe}},
		{"deepset", DeepSetEmbedding{TrialDim: 2, Hidden: []int{5}, Features: 4, Head: []int{5}, Out: 3}, 8, 0, 0, []estimatorCase{npe, nre, fmpe}},
		{"deepset/sum-tanh", DeepSetEmbedding{Pool: SumPooling, Hidden: []int{}, Features: 3, Head: []int{}, Out: 2, Activation: Tanh}, 6, 0, 0, []estimatorCase{npe}},
		{"deepset/ragged-mean", DeepSetEmbedding{TrialDim: 2, MaxTrials: 4, Hidden: []int{5}, Features: 4, Head: []int{5}, Out: 3}, 0, 4, 2, []estimatorCase{npe, nre}},
		{"deepset/ragged-max", DeepSetEmbedding{TrialDim: 1, MaxTrials: 5, Features: 3, Pool: MaxPooling, Out: 2}, 0, 5, 1, []estimatorCase{npe, nsf, fmpe}},
		{"deepset/ragged-sum", DeepSetEmbedding{TrialDim: 2, MaxTrials: 3, Features: 3, Pool: SumPooling, Hidden: []int{4}, Head: []int{}, Out: 2, Activation: ELU}, 0, 3, 2, []estimatorCase{nre}},
		{"gru", GRUEmbedding{Hidden: 4, Out: 3}, 8, 0, 0, []estimatorCase{npe, nre}},
		{"gru/channels", GRUEmbedding{Channels: 2, Hidden: 3, Out: 2}, 10, 0, 0, []estimatorCase{npe, fmpe}},
		{"nle/mlp", MLPEmbedding{Hidden: []int{5}, Out: 3, Activation: ELU}, 3, 0, 0, []estimatorCase{nle}},
		{"nle/mlp-pointer", &MLPEmbedding{Hidden: []int{}, Out: 4}, 3, 0, 0, []estimatorCase{nle}},
	}
	for _, c := range cases {
		for _, ec := range c.estimators {
			t.Run(c.name+"/"+ec.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(31, 37))
				prior, theta, x := embeddingPairs(rng, 200, c.in, c.maxTrials, c.trialDim)
				e := ec.make(prior, c.emb)
				if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, BatchSize: 50, Seed: 3}); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := e.Save(&buf); err != nil {
					t.Fatal(err)
				}
				saved := bytes.Clone(buf.Bytes())
				typed, err := ec.load(saved)
				if err != nil {
					t.Fatalf("typed load: %v", err)
				}
				generic, err := Load(bytes.NewReader(saved))
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				th := theta.Slice(0, 12, 0, 2).(*mat.Dense)
				xs := x.Slice(0, 12, 0, x.RawMatrix().Cols).(*mat.Dense)
				want := e.LogProbPairs(th, xs)
				xo := append([]float64(nil), x.RawRowView(1)...)
				draws := e.Posterior(xo).Sample(rand.New(rand.NewPCG(5, 6)), 8)
				for what, l := range map[string]Estimator{"typed": typed, "generic": generic} {
					got := l.LogProbPairs(th, xs)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s load: LogProbPairs[%d] = %v, the saved estimator %v", what, i, got[i], want[i])
						}
					}
					d := l.Posterior(xo).Sample(rand.New(rand.NewPCG(5, 6)), 8)
					if !mat.Equal(d, draws) {
						t.Fatalf("%s load: draws differ from the saved estimator's with the same seed:\n%v\n%v", what, mat.Formatted(d), mat.Formatted(draws))
					}
					var again bytes.Buffer
					if err := l.Save(&again); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(again.Bytes(), saved) {
						t.Errorf("%s load saves %d bytes that differ from the %d it was loaded from", what, again.Len(), len(saved))
					}
				}
			})
		}
	}
}

// savedWithEmbedding is the file of a small NPE with the embedding emb, trained for one epoch
// on pairs of x of in values (the layout of a DeepSetEmbedding of maxTrials trials of trialDim
// values with maxTrials > 0).
func savedWithEmbedding(t *testing.T, emb Embedding, in, maxTrials, trialDim int) []byte {
	t.Helper()
	prior, theta, x := embeddingPairs(rand.New(rand.NewPCG(8, 9)), 100, in, maxTrials, trialDim)
	e := NewNPE(prior, NPEConfig{Hidden: 6, Transforms: 1, Embedding: emb})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPersistEmbeddingBadFiles forges the embedding section of files of every kind of
// embedding (a valid frame and checksum around a damaged or hand-made header): each must be
// refused by Load with an error naming what was expected, never a panic and never a network
// other than the one the weights were trained in.
func TestPersistEmbeddingBadFiles(t *testing.T) {
	const maxInt = int64(^uint64(0) >> 1)
	cnn1d := savedWithEmbedding(t, CNN1DEmbedding{Conv: []int{2}, Hidden: []int{}, Out: 2}, 12, 0, 0)
	causal := savedWithEmbedding(t, CNN1DEmbedding{Conv: []int{2, 2}, Causal: true, Pool: 1, Hidden: []int{}, Out: 2}, 12, 0, 0)
	cnn2d := savedWithEmbedding(t, CNN2DEmbedding{Conv: []int{2}, GlobalPool: true, Out: 2}, 64, 0, 0)
	gru := savedWithEmbedding(t, GRUEmbedding{Hidden: 3, Out: 2}, 6, 0, 0)
	ragged := savedWithEmbedding(t, DeepSetEmbedding{TrialDim: 2, MaxTrials: 3, Hidden: []int{}, Features: 3, Head: []int{}, Out: 2}, 0, 3, 2)
	emb := func(h map[string]any) map[string]any { return obj(obj(h, "embedding"), "config") }
	// widenX sets the dimension of x and a standardization of as many values.
	widenX := func(n int) func(h map[string]any) {
		return func(h map[string]any) {
			h["x_dim"] = n
			z := obj(h, "z_x")
			mean, std := make([]float64, n), make([]float64, n)
			for j := range std {
				std[j] = 1
			}
			z["Mean"], z["Std"] = mean, std
		}
	}
	cases := []struct {
		name string
		file []byte
		edit func(h map[string]any)
		want string
	}{
		{"an unknown kind", gru, func(h map[string]any) { obj(h, "embedding")["kind"] = "lstm" }, `embedding of kind "lstm", which this build does not know`},
		{"no configuration", cnn1d, func(h map[string]any) { delete(obj(h, "embedding"), "config") }, "cnn1d embedding"},
		{"a configuration of another type", cnn1d, func(h map[string]any) { obj(h, "embedding")["config"] = "conv" }, "cnn1d embedding"},
		{"an unknown setting", cnn2d, func(h map[string]any) { emb(h)["Stride"] = 2 }, `unknown field "Stride"`},
		{"another kind of the same weights", gru, func(h map[string]any) { obj(h, "embedding")["kind"] = "mlp" }, "unknown field"},
		{"more convolutions", cnn1d, func(h map[string]any) { emb(h)["Conv"] = []int{2, 2} }, "file holds"},
		{"wider convolutions", cnn1d, func(h map[string]any) { emb(h)["Conv"] = []int{3} }, "in the file but"},
		{"another kernel", cnn2d, func(h map[string]any) { emb(h)["Kernel"] = 5 }, "in the file but"},
		{"another GRU width", gru, func(h map[string]any) { emb(h)["Hidden"] = 4 }, "in the file but"},
		{"another trial width", ragged, func(h map[string]any) { emb(h)["TrialDim"] = 3 }, "1 + MaxTrials·TrialDim = 10"},
		{"x of another width", cnn1d, widenX(16), "in the file but"},
		{"x not a series of its channels", cnn1d, func(h map[string]any) { emb(h)["Channels"] = 5 }, "series of 5 channels"},
		{"an image of another width", cnn2d, widenX(63), "product is 63"},
		{"a set of another width", ragged, widenX(8), "1 + MaxTrials·TrialDim = 7"},
		{"a kernel beyond int", cnn1d, func(h map[string]any) { emb(h)["Kernel"] = maxInt }, "Kernel"},
		{"a causal kernel beyond int", causal, func(h map[string]any) { emb(h)["Kernel"] = int64(1)<<62 + 1 }, "Kernel"},
		{"an image kernel beyond int", cnn2d, func(h map[string]any) { emb(h)["Kernel"] = maxInt }, "Kernel"},
		{"an image whose pixels overflow to zero", cnn2d, func(h map[string]any) {
			// (2^(w/2))² is 0 modulo 2^w for an int of w bits.
			side := 1 << (bits.UintSize / 2)
			emb(h)["Height"], emb(h)["Width"] = side, side
		}, "product is 64"},
		{"an image whose size overflows to x's width", cnn2d, func(h map[string]any) {
			// (2^(w−6) + 1) × 64 is 64 modulo 2^w for an int of w bits: the same weights, on
			// an image of more pixels than an int counts.
			emb(h)["Height"], emb(h)["Width"], emb(h)["Channels"] = 1<<(bits.UintSize-6)+1, 64, 1
		}, "product is 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Load panicked: %v", p)
					}
				}()
				_, err = Load(bytes.NewReader(forge(t, c.file, c.edit)))
			}()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, expected one containing %q", err, c.want)
			}
		})
	}
}

// forgeEnsemble rewrites the JSON header of an ensemble file with edit (the ensemble's header
// has no checksum of its own).
func forgeEnsemble(t *testing.T, file []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(file[12:]))
	var h map[string]any
	if err := json.Unmarshal(file[16:16+n], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint32(append([]byte(nil), file[:12]...), uint32(len(hdr)))
	return append(append(out, hdr...), file[16+n:]...)
}

// TestPersistEnsembleSamplerBounded forges the sampler settings an NRE ensemble file stores:
// they must be bounded and checked as those of an NRE file are, before any posterior samples
// with them. Before, Load accepted GridPoints of 2·10⁹ (a grid of 4·10¹⁸ cells at the first
// draw) and a Method no sampler knows.
func TestPersistEnsembleSamplerBounded(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(3, 5)), 100)
	var ms []*NRE
	for k := uint64(0); k < 2; k++ {
		m := NewNRE(prior, NREConfig{Hidden: []int{4}})
		if _, err := m.Train(theta, x, TrainConfig{Epochs: 1, Seed: k}); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	var buf bytes.Buffer
	if err := MustNewNREEnsemble(ms...).Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	sampler := func(h map[string]any) map[string]any { return obj(h, "sampler") }
	cases := []struct {
		name string
		edit func(h map[string]any)
		want string
	}{
		{"a grid beyond the bound", func(h map[string]any) { sampler(h)["GridPoints"] = 2_000_000_000 }, "GridPoints = 2000000000"},
		{"chains beyond the bound", func(h map[string]any) { sampler(h)["Chains"] = 2_000_000_000 }, "Chains = 2000000000"},
		{"proposals beyond the bound", func(h map[string]any) { sampler(h)["Proposals"] = 2_000_000_000 }, "Proposals = 2000000000"},
		{"an unknown method", func(h map[string]any) { sampler(h)["Method"] = "hmc" }, `Method "hmc"`},
		{"a negative setting", func(h map[string]any) { sampler(h)["Thin"] = -1 }, "negative setting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forged := forgeEnsemble(t, file, c.edit)
			if _, err := Load(bytes.NewReader(forged)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: error %v, expected one containing %q", err, c.want)
			}
			if _, err := LoadNREEnsemble(bytes.NewReader(forged), nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LoadNREEnsemble: error %v, expected one containing %q", err, c.want)
			}
		})
	}
	if _, err := LoadNREEnsemble(bytes.NewReader(file), nil); err != nil {
		t.Fatalf("the unchanged file: %v", err)
	}
}

// TestPersistEnsembleHeaderStrict forges the JSON header of NPE and NRE ensemble files: a field
// this build does not know, in the header or in its sampler settings, and a "sampler" in an
// NPE ensemble (whose posteriors sample the flows, not with a sampler) are refused by Load and
// by the typed loader with an error naming the field, as an estimator file's header is read;
// the unchanged files load. Before, all were silently ignored.
func TestPersistEnsembleHeaderStrict(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(7, 11)), 100)
	var npes []*NPE
	var nres []*NRE
	for k := uint64(0); k < 2; k++ {
		p := NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1})
		r := NewNRE(prior, NREConfig{Hidden: []int{4}})
		for _, e := range []Estimator{p, r} {
			if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: k}); err != nil {
				t.Fatal(err)
			}
		}
		npes, nres = append(npes, p), append(nres, r)
	}
	save := func(e Estimator) []byte {
		var buf bytes.Buffer
		if err := e.Save(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	npeFile, nreFile := save(MustNewNPEEnsemble(npes...)), save(MustNewNREEnsemble(nres...))
	loadNPE := func(b []byte) error { _, err := LoadNPEEnsemble(bytes.NewReader(b), nil); return err }
	loadNRE := func(b []byte) error { _, err := LoadNREEnsemble(bytes.NewReader(b), nil); return err }
	cases := []struct {
		name  string
		file  []byte
		typed func([]byte) error
		edit  func(h map[string]any)
		want  string
	}{
		{"npe/unknown field", npeFile, loadNPE, func(h map[string]any) { h["weights"] = "uniform" }, `"weights"`},
		{"nre/unknown field", nreFile, loadNRE, func(h map[string]any) { h["temperature"] = 2 }, `"temperature"`},
		{"nre/unknown sampler field", nreFile, loadNRE, func(h map[string]any) { obj(h, "sampler")["Steps"] = 5 }, `"Steps"`},
		{"npe/sampler", npeFile, loadNPE, func(h map[string]any) { h["sampler"] = map[string]any{"Method": "mcmc"} }, `"sampler"`},
		{"npe/empty sampler", npeFile, loadNPE, func(h map[string]any) { h["sampler"] = map[string]any{} }, `"sampler"`},
		{"npe/null sampler", npeFile, loadNPE, func(h map[string]any) { h["sampler"] = nil }, `"sampler"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forged := forgeEnsemble(t, c.file, c.edit)
			if _, err := Load(bytes.NewReader(forged)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: error %v, expected one naming %s", err, c.want)
			}
			if err := c.typed(forged); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("typed load: error %v, expected one naming %s", err, c.want)
			}
		})
	}
	for name, b := range map[string][]byte{"npe": npeFile, "nre": nreFile} {
		if _, err := Load(bytes.NewReader(b)); err != nil {
			t.Errorf("the unchanged %s ensemble file: %v", name, err)
		}
	}
	// the header as every version has written it: kind and members, and for NRE the sampler
	for name, c := range map[string]struct {
		file []byte
		want string
	}{"npe": {npeFile, `{"kind":"npe","members":2}`}, "nre": {nreFile, `{"kind":"nre","members":2,"sampler":{"Method":"","Chains":0,"BurnIn":0,"Thin":0,"GridPoints":0,"Proposals":0}}`}} {
		n := int(binary.LittleEndian.Uint32(c.file[12:]))
		if got := string(c.file[16 : 16+n]); got != c.want {
			t.Errorf("%s ensemble header %s, expected %s", name, got, c.want)
		}
	}
}

// TestSaveRefusesWhatLoadRefuses: sampler settings an estimator may use in memory but a file
// may not hold (its bounds protect Load from forged headers) make Save fail with the bound's
// error, instead of writing a file that Load then refuses (work lost at the next session).
// The ensemble's Save applies the same bounds. Settings within the bounds save and load.
func TestSaveRefusesWhatLoadRefuses(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(3, 5)), 100)
	cases := []struct {
		name    string
		sampler SamplerConfig
		want    string // "" when the file must save and load
	}{
		{"within the bounds", SamplerConfig{Chains: 4, BurnIn: 100}, ""},
		{"chains beyond the file bound", SamplerConfig{Chains: 2_000_000}, "Chains = 2000000"},
		{"burn-in beyond the file bound", SamplerConfig{BurnIn: 3_000_000}, "BurnIn = 3000000"},
		{"proposals beyond the file bound", SamplerConfig{Proposals: 20_000}, "Proposals = 20000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewNRE(prior, NREConfig{Hidden: []int{4}, Sampler: c.sampler})
			if _, err := m.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			saves := map[string]func(*bytes.Buffer) error{
				"NRE": func(b *bytes.Buffer) error { return m.Save(b) },
				"ensemble": func(b *bytes.Buffer) error {
					e := MustNewNREEnsemble(m, m)
					e.Sampler = c.sampler
					return e.Save(b)
				},
			}
			for what, save := range saves {
				var buf bytes.Buffer
				err := save(&buf)
				if c.want != "" {
					if err == nil || !strings.Contains(err.Error(), c.want) {
						t.Errorf("%s: Save error %v, expected one containing %q", what, err, c.want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: Save: %v", what, err)
				}
				if _, err := Load(bytes.NewReader(buf.Bytes())); err != nil {
					t.Errorf("%s: Load of what Save wrote: %v", what, err)
				}
			}
		})
	}
}
