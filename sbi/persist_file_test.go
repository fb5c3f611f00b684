package sbi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// savedFile returns the bytes of the testdata file of c in format.
func savedFile(t *testing.T, format int, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(savedCase{name: name}.path(format))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// headerEnd returns the end of the header of an estimator file.
func headerEnd(file []byte) int { return 16 + int(binary.LittleEndian.Uint32(file[12:])) }

// forge rewrites the header of an estimator file with edit and frames it again as a valid
// file of its format: new length and (formats 2 on) a checksum that matches. It stands for a file
// damaged in a way the checksum cannot see, or made by hand.
func forge(t *testing.T, file []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	version, end := binary.LittleEndian.Uint32(file[8:]), headerEnd(file)
	d := json.NewDecoder(bytes.NewReader(file[16:end]))
	d.UseNumber() // keep every stored digit
	var h map[string]any
	if err := d.Decode(&h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	weights := file[end:]
	if version >= 2 {
		weights = weights[:len(weights)-4]
	}
	out := append([]byte(nil), file[:12]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hdr)))
	out = append(append(out, hdr...), weights...)
	if version >= 2 {
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	}
	return out
}

// obj returns the JSON object at key of h.
func obj(h map[string]any, key string) map[string]any { return h[key].(map[string]any) }

// TestChecksumCoversFile changes one byte of each kind of a saved file (a digit of a stored
// standard deviation in the header, a weight, the header length, the checksum) and cuts or
// extends the file: every change must be refused, by the checksum where the frame still
// parses. Before the format-2 checksum, the changed digit loaded silently.
func TestChecksumCoversFile(t *testing.T) {
	file := savedFile(t, 2, "npe-nsf")
	std := bytes.Index(file, []byte(`"Std":[0.`)) + len(`"Std":[0.`) + 3 // a digit of σ of θ₁
	flip := func(at int, to byte) []byte {
		b := append([]byte(nil), file...)
		if b[at] == to {
			to++
		}
		b[at] = to
		return b
	}
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"a digit of a stored standard deviation", flip(std, '7'), "checksum mismatch"},
		{"a weight byte", flip(headerEnd(file)+len(file[headerEnd(file):])/2, 0x5a), "checksum mismatch"},
		{"the header length", flip(12, file[12]^0x01), "checksum mismatch"},
		{"the header length's high byte", flip(15, 0x7f), "checksum mismatch"},
		{"the checksum", flip(len(file)-1, file[len(file)-1]^0x80), "checksum mismatch"},
		{"the format version", flip(8, 9), "format version 9"}, // a version no build wrote
		{"the magic", flip(0, 'X'), "not a gosbi estimator"},
		{"the last byte cut", file[:len(file)-1], "checksum mismatch"},
		{"a byte appended", append(append([]byte(nil), file...), 0), "checksum mismatch"},
		{"all but the frame cut", file[:40], "checksum mismatch"},
		{"all but a few bytes cut", file[:18], "truncated"},
		{"nothing after the version", file[:12], "truncated"},
	}
	for _, c := range cases {
		if bytes.Equal(c.file, file) {
			t.Fatalf("%s: the change left the file as it was", c.name)
		}
		_, err := Load(bytes.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	if _, err := Load(bytes.NewReader(file)); err != nil {
		t.Fatalf("the unchanged file: %v", err)
	}
}

// TestSizesBounded forges files whose checksum matches but whose header sets sizes that
// would allocate without bound (Hidden: 2e9 and the like) or settings out of range: each must
// give an error before anything is built. Before the bound, Hidden: 2e9 ran out of memory.
func TestSizesBounded(t *testing.T) {
	const huge = 2_000_000_000
	npe, nsf, nre := savedFile(t, 2, "npe-maf-embedding"), savedFile(t, 2, "npe-nsf"), savedFile(t, 2, "nre-embedding")
	fmpe := savedFMPE(t)
	cases := []struct {
		name string
		file []byte
		edit func(h map[string]any)
		want string
	}{
		{"NPE Hidden", npe, func(h map[string]any) { obj(h, "config")["Hidden"] = huge }, "describes networks of"},
		{"NPE Transforms", npe, func(h map[string]any) { obj(h, "config")["Transforms"] = huge }, "describes networks of"},
		{"NPE Layers", npe, func(h map[string]any) { obj(h, "config")["Layers"] = huge }, "Layers = 2000000000"},
		{"NPE Layers within the bound", npe, func(h map[string]any) { obj(h, "config")["Layers"] = 10_000 }, "describes networks of"},
		{"NSF Bins", nsf, func(h map[string]any) { obj(h, "config")["Bins"] = huge }, "Bins = 2000000000"},
		{"NPE Hidden and Transforms overflowing", npe, func(h map[string]any) {
			// Hidden²·Transforms is 2^(3w/2+24) for an int of w bits.
			obj(h, "config")["Hidden"], obj(h, "config")["Transforms"] = 1<<(bits.UintSize/2+8), 1<<(bits.UintSize/2+8)
		}, "describes networks of"},
		{"embedding Hidden", npe, func(h map[string]any) { obj(obj(h, "embedding"), "config")["Hidden"] = []int{huge} }, "describes networks of"},
		{"embedding Out", npe, func(h map[string]any) { obj(obj(h, "embedding"), "config")["Out"] = huge }, "describes networks of"},
		{"embedding Hidden negative", npe, func(h map[string]any) { obj(obj(h, "embedding"), "config")["Hidden"] = []int{-3} }, "every width ≥ 1"},
		{"NRE Hidden", nre, func(h map[string]any) { obj(h, "config")["Hidden"] = []int{huge, huge} }, "describes networks of"},
		{"NRE grid", nre, func(h map[string]any) { obj(obj(h, "config"), "Sampler")["GridPoints"] = huge }, "GridPoints = 2000000000"},
		{"NRE chains", nre, func(h map[string]any) { obj(obj(h, "config"), "Sampler")["Chains"] = 2_000_000_000 }, "Chains = 2000000000"},
		{"NRE proposals", nre, func(h map[string]any) { obj(obj(h, "config"), "Sampler")["Proposals"] = huge }, "Proposals = 2000000000"},
		{"x dimension", npe, func(h map[string]any) { h["x_dim"] = huge }, "standardization of x"},
		{"a zero standard deviation", npe, func(h map[string]any) { obj(h, "z_x")["Std"].([]any)[0] = 0 }, "deviation 0"},
		{"an unknown setting", npe, func(h map[string]any) { obj(h, "config")["Hiden"] = 8 }, `unknown field "Hiden"`},
		{"an unknown kind", npe, func(h map[string]any) { h["kind"] = "npse" }, `kind "npse", which this build does not know`},
		{"FMPE Layers", fmpe, func(h map[string]any) { obj(h, "config")["Layers"] = huge }, "Layers = 2000000000"},
		{"FMPE Hidden", fmpe, func(h map[string]any) { obj(h, "config")["Hidden"] = huge }, "describes networks of"},
		{"FMPE Frequencies", fmpe, func(h map[string]any) { obj(h, "config")["Frequencies"] = huge }, "describes networks of"},
		{"FMPE SigmaMin", fmpe, func(h map[string]any) { obj(h, "config")["SigmaMin"] = 2 }, "SigmaMin"},
		{"an unknown embedding", npe, func(h map[string]any) { obj(h, "embedding")["kind"] = "conv" }, `embedding of kind "conv"`},
		{"a damaged prior", npe, func(h map[string]any) { obj(obj(h, "prior"), "params")["std"] = []float64{1, -1} }, "prior stored in the file"},
		{"no prior and none given", npe, func(h map[string]any) { delete(h, "prior") }, "stores no prior"},
	}
	for _, c := range cases {
		_, err := Load(bytes.NewReader(forge(t, c.file, c.edit)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	// Format 1 has no checksum: an edited width must still be refused before building.
	v1 := savedFile(t, 1, "npe-nsf")
	edited := forge(t, v1, func(h map[string]any) { obj(h, "npe")["Hidden"] = huge })
	if _, err := LoadNPE(bytes.NewReader(edited), savedPrior()); err == nil || !strings.Contains(err.Error(), "describes networks of") {
		t.Errorf("format 1 with Hidden %d: error %v, expected the bound", huge, err)
	}
	long := append([]byte(nil), v1...)
	binary.LittleEndian.PutUint32(long[12:], 0xfffffff0)
	if _, err := LoadNPE(bytes.NewReader(long), savedPrior()); err == nil || !strings.Contains(err.Error(), "a header of 4294967280 bytes") {
		t.Errorf("format 1 with a header length of 4 GB: error %v, expected the bound", err)
	}
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestFileSizeBounded reads a file that never ends: it must stop at the size limit.
func TestFileSizeBounded(t *testing.T) {
	defer func(n int) { fileSizeLimit = n }(fileSizeLimit)
	fileSizeLimit = 1 << 16
	file := savedFile(t, 2, "npe-nsf")
	_, err := Load(io.MultiReader(bytes.NewReader(file[:16]), endless{}))
	if err == nil || !strings.Contains(err.Error(), "larger than 65536 bytes") {
		t.Errorf("an endless file: error %v, expected the size limit", err)
	}
}

// ownPrior is a prior of the user's own: a distribution without a Spec.
type ownPrior struct{ n *dist.Normal }

func (p ownPrior) Dim() int                                { return p.n.Dim() }
func (p ownPrior) Sample(rng *rand.Rand, n int) *mat.Dense { return p.n.Sample(rng, n) }
func (p ownPrior) LogProb(x *mat.Dense) []float64          { return p.n.LogProb(x) }
func (p ownPrior) InSupport(x []float64) bool              { return p.n.InSupport(x) }
func (p ownPrior) Support() (low, high []float64)          { return p.n.Support() }

// ownEmbedding is an embedding of the user's own that is not registered.
type ownEmbedding struct{ m MLPEmbedding }

func (e ownEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) { return e.m.Build(rng, in) }

// TestPriorStored checks that a file stores its prior: Load needs none, a prior given that
// differs is refused with the difference named, and a prior that cannot be stored is an error
// at Save naming its type. Before, LoadNPEFile accepted any prior of the right dimension.
func TestPriorStored(t *testing.T) {
	file := savedFile(t, 2, "npe-maf-embedding")
	for _, c := range []struct {
		name  string
		prior dist.Distribution
		want  string
	}{
		{"another std", dist.NewNormal([]float64{0, 0}, []float64{1, 1.5}), "differs from the one stored in the file at std[1] (stored 1, given 1.5)"},
		{"another kind", dist.NewUniformCube(-3, 3, 2), "at kind (stored normal, given box_uniform)"},
		{"another dimension", dist.NewStandardNormal(3), "at mean (stored 2 values, given 3 values)"},
		{"a prior of the user's own", ownPrior{dist.NewStandardNormal(2)}, "cannot be compared"},
	} {
		if _, err := LoadNPE(bytes.NewReader(file), c.prior); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	for name, want := range map[string]string{"npe-nsf": "*sbi.NPE", "nre-embedding": "*sbi.NRE"} {
		e, err := Load(bytes.NewReader(savedFile(t, 2, name)))
		if err != nil {
			t.Fatal(err)
		}
		var prior dist.Distribution
		switch e := e.(type) {
		case *NPE:
			prior = e.Prior()
		case *NRE:
			prior = e.Prior()
		}
		if got := fmt.Sprintf("%T", e); got != want {
			t.Errorf("Load of %s returned a %s, expected %s", name, got, want)
		}
		a, _ := dist.SpecOf(prior)
		b, _ := dist.SpecOf(savedPrior())
		if d, differ := a.Diff(b); differ {
			t.Errorf("Load of %s: the prior differs from the one trained with at %+v", name, d)
		}
	}
	if _, err := Load(bytes.NewReader(savedFile(t, 1, "nre-embedding"))); err == nil || !strings.Contains(err.Error(), "LoadNRE(r, prior)") {
		t.Errorf("Load of a format-1 file: error %v, expected one pointing to LoadNRE with the prior", err)
	}

	rng := rand.New(rand.NewPCG(2, 3))
	_, theta, x := gaussianPairs(rng, 100)
	own := NewNPE(ownPrior{dist.NewStandardNormal(2)}, NPEConfig{Hidden: 4, Transforms: 1})
	emb := NewNPE(dist.NewStandardNormal(2), NPEConfig{Hidden: 4, Transforms: 1, Embedding: ownEmbedding{MLPEmbedding{Hidden: []int{4}, Out: 2}}})
	for _, e := range []*NPE{own, emb} {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := own.Save(io.Discard); err == nil || !strings.Contains(err.Error(), "sbi.ownPrior cannot be stored") {
		t.Errorf("Save with a prior of the user's own: error %v, expected one naming its type", err)
	}
	if err := emb.Save(io.Discard); err == nil || !strings.Contains(err.Error(), "sbi.ownEmbedding cannot be saved: register") {
		t.Errorf("Save with an unregistered embedding: error %v, expected one naming its type and RegisterEmbedding", err)
	}
}

// TestWeightCountsExact checks that the weights a header describes, counted before building,
// are exactly those that building creates, for every kind of network a file may hold: an
// overcount would refuse honest files, an undercount weaken the bound.
func TestWeightCountsExact(t *testing.T) {
	prior := dist.NewStandardNormal(3)
	emb := MLPEmbedding{Hidden: []int{7, 5}, Out: 4}
	ests := map[string]savable{
		"maf":           NewNPE(prior, NPEConfig{Hidden: 9, Layers: 3, Transforms: 2}),
		"nsf":           NewNPE(prior, NPEConfig{Flow: NSF, Hidden: 6, Transforms: 3, Bins: 5}),
		"nsf embedding": NewNPE(prior, NPEConfig{Flow: NSF, Embedding: emb}),
		"nre":           NewNRE(prior, NREConfig{Hidden: []int{11, 3}}),
		"nre embedding": NewNRE(prior, NREConfig{Embedding: &emb}),
	}
	const xDim = 6
	for name, e := range ests {
		net := e.fileNetwork()
		ctx, want := xDim, 0
		if emb, ok := net.embedding().(SavableEmbedding); ok {
			out, w, err := emb.Size(xDim)
			if err != nil {
				t.Fatal(err)
			}
			ctx, want = out, w
		}
		head, err := net.headWeights(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want += head
		if err := e.core().build(net, rand.New(rand.NewPCG(1, 1)), xDim, nil); err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, p := range net.params() {
			got += len(p.Data)
		}
		if got != want {
			t.Errorf("%s: %d weights built, %d counted from the configuration", name, got, want)
		}
		if room := len(nn.MarshalParams(net.params())); want > room/8 {
			t.Errorf("%s: %d weights do not fit the %d bytes they are written in", name, want, room)
		}
	}
}

// savedFMPE is the file of a small FMPE trained for one epoch.
func savedFMPE(t *testing.T) []byte {
	t.Helper()
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(7, 7)), 200)
	e := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 2})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
