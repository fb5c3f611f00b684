package sbi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/sat"
	"github.com/gosbi/gosbi/sbi/nn"
)

// EstimatorFormatVersion is the version of the estimator file format written by Save.
//
// An estimator file of format 5 is, in order:
//
//   - the magic "GOSBIEST" and the format version (uint32; every integer is little-endian);
//   - the length n of the header (uint32) and the header, n bytes of JSON:
//     {"kind", "config", "embedding": {"kind", "config"}, "prior", "param_dim", "x_dim",
//     "z_theta", "z_x", "constant_theta", "trials": {"min", "max"}, "training_proposal"}: the
//     estimator's kind ("npe", "nre", …) and configuration, the embedding's kind ("mlp", …)
//     and configuration (absent without an embedding; the embedding of x, or of θ for a
//     likelihood estimator, "nle"), the prior as a dist.Spec, the dimensions of θ and x, the
//     standardization of θ and x, the columns of θ that held one value in every training pair
//     (in increasing order, [] for none; absent where unknown, in a file saved from an
//     estimator loaded from format 4 or older), the range of the numbers of trials of the
//     training observations (only with a set embedding of varying numbers of trials, a
//     TrialCounter such as DeepSetEmbedding with MaxTrials > 0: a posterior outside it warns),
//     and where the parameters of the training came from when not from the prior
//     (NPE.TrainingProposal; only for an estimator trained on a proposal, as by Sequential's
//     rounds after the first);
//   - the weights, as nn.WriteParams writes them;
//   - the CRC-32C (Castagnoli) of every byte before it (uint32), so that any change to the
//     file, header included, is detected.
//
// Format 4 (gosbi before the constant columns of θ were stored) is format 5 without
// "constant_theta": an NPE loaded from it does not know which columns of θ were constant in
// training, where the flow's draws are legitimately all equal, so its sampling checks its
// draws for non-finite values only, not for draws collapsed to one value (see
// NPEPosterior.SampleContext), even after Train with Resume (the columns stay unknown); train
// it again without Resume, or save it from the estimator that was trained, to have both
// checks. Format 3 (gosbi before the training proposal was stored) is format 4 without
// "training_proposal": an estimator loaded from it has TrainingProposal "" as if trained on
// the prior, though whether it was is unknown, so package certify judges it over the whole
// prior without refusing it: certify an estimator of format 3 that Sequential trained over
// more than one round over its truncated region (Sequential's Region) only. Format 2 (gosbi
// before the range of trials was stored) is format 3 without "trials": an estimator loaded
// from it does not know the numbers of trials it was trained on, and does not warn about
// them, even after Train with Resume (the range stays unknown). Format 1 (gosbi before the
// prior was stored) has the same frame without the checksum; its header holds "npe" or "nre"
// (the configuration) and "embedding" (an MLPEmbedding), and no prior. Load and
// LoadNPE/LoadNRE read every format; a format-1 file needs the prior passed.
//
// Limits, each checked before the memory it guards is allocated: a file holds at most
// MaxEstimatorFileSize bytes and its header at most MaxEstimatorHeaderSize; the networks the
// header describes may hold no more weights than the weights section has room for (8 bytes a
// weight), so that no width read from a file (Hidden: 2e9) can make loading allocate more
// than a small multiple of the file's size; the layers of an NPE's MADEs are at most 10⁴; and
// the sampler settings an NRE file stores are bounded (GridPoints^dim ≤ 2²⁴ cells; Chains,
// BurnIn and Thin ≤ 10⁶; Proposals ≤ 10⁴).
const EstimatorFormatVersion = 5

// Limits of estimator files (see EstimatorFormatVersion).
const (
	MaxEstimatorFileSize   = 1 << 30 // bytes of a whole file: 1 GiB, about 130 million weights
	MaxEstimatorHeaderSize = 1 << 20 // bytes of the JSON header
)

var (
	// fileSizeLimit is MaxEstimatorFileSize, lowered by tests.
	fileSizeLimit  = MaxEstimatorFileSize
	estimatorMagic = []byte("GOSBIEST")
	castagnoli     = crc32.MakeTable(crc32.Castagnoli)
)

// fileHeader is the JSON header of formats 2 to 5 (Trials from format 3 on,
// TrainingProposal from format 4 on, ConstantTheta in format 5 only).
type fileHeader struct {
	Kind      string          `json:"kind"`
	Config    json.RawMessage `json:"config"`
	Embedding *embeddingEntry `json:"embedding,omitempty"`
	Prior     *dist.Spec      `json:"prior"`
	ParamDim  int             `json:"param_dim"`
	XDim      int             `json:"x_dim"`
	ZTheta    zscore          `json:"z_theta"`
	ZX        zscore          `json:"z_x"`
	// ConstantTheta lists the columns of θ constant in training ([] for none), nil where
	// unknown (zscore.constKnown false).
	ConstantTheta *[]int      `json:"constant_theta,omitempty"`
	Trials        *trialRange `json:"trials,omitempty"`
	// TrainingProposal is the estimator's TrainingProposal, omitted when empty.
	TrainingProposal string `json:"training_proposal,omitempty"`
}

// embeddingEntry is an embedding in the header: its registered kind and its configuration.
type embeddingEntry struct {
	Kind   string          `json:"kind"`
	Config json.RawMessage `json:"config"`
}

// headerV1 is the JSON header of format 1.
type headerV1 struct {
	Kind      string          `json:"kind"`
	ParamDim  int             `json:"param_dim"`
	XDim      int             `json:"x_dim"`
	ZTheta    zscore          `json:"z_theta"`
	ZX        zscore          `json:"z_x"`
	NPE       json.RawMessage `json:"npe,omitempty"`
	NRE       json.RawMessage `json:"nre,omitempty"`
	Embedding json.RawMessage `json:"embedding,omitempty"`
}

// upgrade returns the format-2 view of a format-1 header (without a prior).
func (h headerV1) upgrade() fileHeader {
	out := fileHeader{Kind: h.Kind, ParamDim: h.ParamDim, XDim: h.XDim, ZTheta: h.ZTheta, ZX: h.ZX}
	switch h.Kind {
	case "npe":
		out.Config = h.NPE
	case "nre":
		out.Config = h.NRE
	}
	if len(h.Embedding) > 0 && string(h.Embedding) != "null" {
		out.Embedding = &embeddingEntry{Kind: "mlp", Config: h.Embedding}
	}
	return out
}

// savable is an estimator that files store: its shared core, its networks, and its
// configuration without the embedding (stored apart).
type savable interface {
	Estimator
	core() *estimator
	fileNetwork() fileNetwork
	fileConfig() any
}

// fileNetwork is a network whose size is known before it is built.
type fileNetwork interface {
	network
	// headWeights is the number of weights buildHead creates for ctx conditioning values, or
	// the configuration's error.
	headWeights(ctx int) (int, error)
}

func (c *estimator) core() *estimator { return c }

// thetaEmbedder is a network that embeds θ rather than x (NLE: its flow models x given θ).
// Its file stores that embedding in the header's place of the embedding, and its headWeights
// count the embedding's weights.
type thetaEmbedder interface {
	thetaEmbedding() Embedding // nil for none
}

// storedEmbedding returns the embedding a file stores with the network: of θ for a
// thetaEmbedder, else of x.
func storedEmbedding(net fileNetwork) Embedding {
	if t, ok := net.(thetaEmbedder); ok {
		return t.thetaEmbedding()
	}
	return net.embedding()
}

// estimatorKind is what the file format knows of one kind of estimator. Each estimator
// registers its kind with registerEstimator from an init function of its own file.
type estimatorKind struct {
	kind   string // the name in the header: "npe", "nre", …
	loader string // the typed loader, for messages: "LoadNPE"
	// decode returns an untrained estimator for prior from the stored configuration (JSON,
	// without the embedding) and the embedding (nil for none). It bounds every size of the
	// configuration that is not a network width (those are checked through headWeights).
	decode func(prior dist.Distribution, config []byte, emb Embedding) (savable, error)
}

var estimatorKinds = map[string]estimatorKind{}

// registerEstimator adds a kind of estimator to the file format; it panics on a duplicate.
func registerEstimator(k estimatorKind) {
	if _, dup := estimatorKinds[k.kind]; dup || k.kind == "" || k.decode == nil {
		panic(fmt.Sprintf("sbi: registerEstimator: kind %q is empty, incomplete or registered already", k.kind))
	}
	estimatorKinds[k.kind] = k
}

func knownKinds() []string {
	var ks []string
	for k := range estimatorKinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// decodeStrict unmarshals data into v, refusing fields that v does not have: no stored
// setting is ignored silently.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// configJSON encodes an estimator's configuration without its Embedding field.
func configJSON(cfg any) (json.RawMessage, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	delete(fields, "Embedding")
	return json.Marshal(fields)
}

// save writes the trained estimator e to w in the current format.
func saveEstimator(w io.Writer, e savable) error {
	c := e.core()
	if !c.trained {
		return fmt.Errorf("save %s: %w", c.name, ErrUntrained)
	}
	prior, err := dist.SpecOf(c.prior)
	if err != nil {
		return fmt.Errorf("save %s: the prior cannot be stored in the file: %w", c.name, err)
	}
	net := e.fileNetwork()
	emb, err := embeddingEntryOf(storedEmbedding(net))
	if err != nil {
		return fmt.Errorf("save %s: %w", c.name, err)
	}
	cfg, err := configJSON(e.fileConfig())
	if err != nil {
		return fmt.Errorf("save %s: configuration: %w", c.name, err)
	}
	// The kind's decoder bounds what a file may set (forged headers must not make Load
	// allocate without bound); a setting beyond those bounds, which the estimator may use in
	// memory, is refused here rather than written to a file that Load refuses.
	if _, err := estimatorKinds[c.kind].decode(c.prior, cfg, storedEmbedding(net)); err != nil {
		return fmt.Errorf("save %s: the file would not load: %w (set the estimator's sampler within the bounds a file may hold, or pass the larger settings to PosteriorWith after loading)", c.name, err)
	}
	hdr, err := json.Marshal(fileHeader{Kind: c.kind, Config: cfg, Embedding: emb, Prior: &prior,
		ParamDim: c.prior.Dim(), XDim: c.xDim, ZTheta: c.zt, ZX: c.zx, ConstantTheta: c.zt.constantRecord(),
		Trials: c.trials, TrainingProposal: c.proposal})
	if err != nil {
		return fmt.Errorf("save %s: %w", c.name, err)
	}
	if len(hdr) > MaxEstimatorHeaderSize {
		return fmt.Errorf("save %s: the header takes %d bytes, more than the %d a file may hold", c.name, len(hdr), MaxEstimatorHeaderSize)
	}
	weights := nn.MarshalParams(net.params())
	if size := len(estimatorMagic) + 12 + len(hdr) + len(weights); size > fileSizeLimit {
		return fmt.Errorf("save %s: the file would take %d bytes, more than the %d an estimator file may hold", c.name, size, fileSizeLimit)
	}
	sum := crc32.New(castagnoli)
	bw := bufio.NewWriter(w)
	mw := io.MultiWriter(bw, sum)
	mw.Write(estimatorMagic)
	binary.Write(mw, binary.LittleEndian, uint32(EstimatorFormatVersion))
	binary.Write(mw, binary.LittleEndian, uint32(len(hdr)))
	mw.Write(hdr)
	mw.Write(weights)
	binary.Write(bw, binary.LittleEndian, sum.Sum32())
	if err := bw.Flush(); err != nil { // bufio keeps the first write error and returns it here
		return fmt.Errorf("save %s: %w", c.name, err)
	}
	return nil
}

// rawFile is an estimator file split into its parts, checksum verified.
type rawFile struct {
	version int
	header  []byte
	weights []byte
}

// readRaw reads a whole estimator file from r, at most MaxEstimatorFileSize bytes, checks its
// frame and (formats 2 on) its checksum, and splits it.
func readRaw(r io.Reader) (*rawFile, error) {
	prefix := make([]byte, len(estimatorMagic)+4)
	if _, err := io.ReadFull(r, prefix); err != nil || !bytes.Equal(prefix[:len(estimatorMagic)], estimatorMagic) {
		return nil, errors.New("load: not a gosbi estimator file (the magic GOSBIEST is missing)")
	}
	version := binary.LittleEndian.Uint32(prefix[len(estimatorMagic):])
	if version < 1 || version > EstimatorFormatVersion {
		return nil, fmt.Errorf("load: the file has format version %d, this build reads versions 1 to %d: load it with the gosbi that wrote it", version, EstimatorFormatVersion)
	}
	rest, err := io.ReadAll(io.LimitReader(r, int64(fileSizeLimit-len(prefix)+1)))
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if len(prefix)+len(rest) > fileSizeLimit {
		return nil, fmt.Errorf("load: the file is larger than %d bytes, the limit of estimator files: it is not one gosbi wrote", fileSizeLimit)
	}
	if version >= 2 {
		if len(rest) < 8 {
			return nil, errors.New("load: the file is truncated (no room for the header and checksum)")
		}
		stored := binary.LittleEndian.Uint32(rest[len(rest)-4:])
		rest = rest[:len(rest)-4]
		if got := crc32.Update(crc32.Checksum(prefix, castagnoli), castagnoli, rest); got != stored {
			return nil, fmt.Errorf("load: checksum mismatch (file %08x, content %08x): the file is damaged or was edited; save the estimator again", stored, got)
		}
	}
	if len(rest) < 4 {
		return nil, errors.New("load: the file is truncated (no header length)")
	}
	n := binary.LittleEndian.Uint32(rest)
	if n > MaxEstimatorHeaderSize || int(n) > len(rest)-4 {
		return nil, fmt.Errorf("load: damaged file: a header of %d bytes (at most %d, and the file holds %d after the length)", n, MaxEstimatorHeaderSize, len(rest)-4)
	}
	return &rawFile{version: int(version), header: rest[4 : 4+n], weights: rest[4+n:]}, nil
}

// parseHeader decodes the header of f into its current form.
func (f *rawFile) parseHeader() (*fileHeader, error) {
	var h fileHeader
	if f.version == 1 {
		var v1 headerV1
		if err := json.Unmarshal(f.header, &v1); err != nil {
			return nil, fmt.Errorf("load: damaged header: %w", err)
		}
		h = v1.upgrade()
	} else if err := decodeStrict(f.header, &h); err != nil {
		return nil, fmt.Errorf("load: damaged header: %w", err)
	}
	if f.version < 3 && h.Trials != nil {
		return nil, fmt.Errorf("load: damaged header (a range of trials in a file of format %d, which stores none)", f.version)
	}
	if f.version < 4 && h.TrainingProposal != "" {
		return nil, fmt.Errorf("load: damaged header (a training proposal in a file of format %d, which stores none)", f.version)
	}
	if f.version < 5 && h.ConstantTheta != nil {
		return nil, fmt.Errorf("load: damaged header (constant columns of θ in a file of format %d, which stores none)", f.version)
	}
	if len(h.Config) == 0 || string(h.Config) == "null" {
		return nil, fmt.Errorf("load: damaged header (no configuration of the %q estimator)", h.Kind)
	}
	if h.ParamDim < 1 || h.XDim < 1 {
		return nil, fmt.Errorf("load: damaged header (%d parameters, %d values of x; expected at least 1 each)", h.ParamDim, h.XDim)
	}
	if err := h.ZTheta.check("θ", h.ParamDim); err != nil {
		return nil, err
	}
	if err := h.ZX.check("x", h.XDim); err != nil {
		return nil, err
	}
	if err := h.ZTheta.setConstant(h.ConstantTheta); err != nil {
		return nil, err
	}
	return &h, nil
}

// constantRecord returns the constant columns of z as a file records them: a copy, [] for
// none, nil where they are unknown.
func (z zscore) constantRecord() *[]int {
	if !z.constKnown {
		return nil
	}
	cols := append([]int{}, z.constant...)
	return &cols
}

// setConstant sets the constant columns of z from a file's record (nil: unknown), refusing
// a column out of range or out of order.
func (z *zscore) setConstant(rec *[]int) error {
	if rec == nil {
		return nil
	}
	for i, j := range *rec {
		if j < 0 || j >= len(z.Mean) || (i > 0 && j <= (*rec)[i-1]) {
			return fmt.Errorf("load: damaged header (constant columns of θ %v: expected increasing columns from 0 to %d)", *rec, len(z.Mean)-1)
		}
	}
	z.constant, z.constKnown = append([]int(nil), *rec...), true
	return nil
}

// check reports a standardization that does not fit dim values or holds a value that
// fitZScore cannot have produced.
func (z zscore) check(what string, dim int) error {
	if len(z.Mean) != dim || len(z.Std) != dim {
		return fmt.Errorf("load: damaged header (the standardization of %s has %d means and %d deviations, expected %d)", what, len(z.Mean), len(z.Std), dim)
	}
	for j := range z.Mean {
		if math.IsNaN(z.Mean[j]) || math.IsInf(z.Mean[j], 0) || !(z.Std[j] > 0) || math.IsInf(z.Std[j], 0) {
			return fmt.Errorf("load: damaged header (standardization of %s, column %d: mean %v, deviation %v; expected finite values, deviation > 0)", what, j, z.Mean[j], z.Std[j])
		}
	}
	return nil
}

// loadEstimator reads an estimator of kind want ("" for any) from r; prior may be nil when
// the file stores one.
func loadEstimator(r io.Reader, prior dist.Distribution, want string) (savable, error) {
	f, err := readRaw(r)
	if err != nil {
		return nil, err
	}
	h, err := f.parseHeader()
	if err != nil {
		return nil, err
	}
	kind, ok := estimatorKinds[h.Kind]
	if !ok {
		return nil, fmt.Errorf("load: the file holds an estimator of kind %q, which this build does not know (it knows %v): load it with the gosbi that wrote it", h.Kind, knownKinds())
	}
	if want != "" && h.Kind != want {
		return nil, fmt.Errorf("load: the file holds an estimator of kind %q, not %q: use %s or Load", h.Kind, want, kind.loader)
	}
	if prior, err = resolvePrior(f.version, h, prior, kind.loader); err != nil {
		return nil, err
	}
	emb, err := decodeEmbedding(h.Embedding)
	if err != nil {
		return nil, err
	}
	var embedding Embedding // a nil interface, not a nil SavableEmbedding, without one
	if emb != nil {
		embedding = emb
	}
	e, err := kind.decode(prior, h.Config, embedding)
	if err != nil {
		return nil, fmt.Errorf("load: damaged header (configuration): %w", err)
	}
	c := e.core()
	if c.cfgErr != nil {
		return nil, fmt.Errorf("load: %w", c.cfgErr)
	}
	net := e.fileNetwork()
	if _, ofTheta := net.(thetaEmbedder); ofTheta {
		emb = nil // the head counts the weights of its embedding of θ (headWeights)
	}
	if err := checkWeights(net, emb, h.XDim, len(f.weights)); err != nil {
		return nil, err
	}
	if err := c.build(net, rand.New(rand.NewPCG(0, 0)), h.XDim, nil); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if h.Trials != nil {
		if err := h.Trials.checkStored(c.counter); err != nil {
			return nil, err
		}
	}
	if err := nn.UnmarshalParams(f.weights, net.params()); err != nil {
		return nil, fmt.Errorf("load: weights: %w", err)
	}
	c.zt, c.zx, c.trials, c.proposal, c.trained = h.ZTheta, h.ZX, h.Trials, h.TrainingProposal, true
	return e, nil
}

// resolvePrior returns the prior to load with: the one given, which must then match the one
// stored, or the stored one.
func resolvePrior(version int, h *fileHeader, given dist.Distribution, loader string) (dist.Distribution, error) {
	p := given
	switch {
	case h.Prior == nil && given == nil:
		return nil, fmt.Errorf("load: the file (format %d) stores no prior: pass the prior the estimator was trained with, %s(r, prior)", version, loader)
	case h.Prior != nil && given == nil:
		stored, err := dist.FromSpec(*h.Prior)
		if err != nil {
			return nil, fmt.Errorf("load: the prior stored in the file: %w", err)
		}
		p = stored
	case h.Prior != nil:
		g, err := dist.SpecOf(given)
		if err != nil {
			return nil, fmt.Errorf("load: the file stores a %s prior; the prior given cannot be compared with it (%v): pass nil to load with the stored prior", h.Prior.Kind, err)
		}
		if d, differ := h.Prior.Diff(g); differ {
			return nil, fmt.Errorf("load: the prior given differs from the one stored in the file at %s (stored %s, given %s): pass nil to load with the stored prior", d.Path, d.A, d.B)
		}
	}
	if p.Dim() != h.ParamDim {
		return nil, fmt.Errorf("load: the estimator has %d parameters and the prior %d: pass the prior it was trained with", h.ParamDim, p.Dim())
	}
	return p, nil
}

// checkWeights refuses a header whose networks would hold more weights than the weights
// section of room bytes can store, before any of them is built.
func checkWeights(net fileNetwork, emb SavableEmbedding, xDim, room int) error {
	ctx, n := xDim, 0
	if emb != nil {
		out, w, err := emb.Size(xDim)
		if err != nil {
			return fmt.Errorf("load: damaged header (embedding): %w", err)
		}
		if out < 1 {
			return fmt.Errorf("load: damaged header (an embedding of %d outputs)", out)
		}
		ctx, n = out, w
	}
	head, err := net.headWeights(ctx)
	if err != nil {
		return fmt.Errorf("load: damaged header (configuration): %w", err)
	}
	if n = satAdd(n, head); n > room/8 {
		return fmt.Errorf("load: damaged header: it describes networks of %d weights, but the file has room for at most %d", n, room/8)
	}
	return nil
}

// maxCount is where weight counts saturate: far above any file, far below overflow.
const maxCount = sat.Max

// satAdd and satMul add and multiply non-negative counts, saturating at maxCount.
func satAdd(a, b int) int { return sat.Add(a, b) }

func satMul(a, b int) int { return sat.Mul(a, b) }

// mlpWeights is the number of weights (matrices and biases) of fully connected layers of the
// given widths: Σ sizes[i]·sizes[i+1] + sizes[i+1]. Widths below 1 are an error.
func mlpWeights(sizes []int) (int, error) {
	n := 0
	for i, s := range sizes {
		if s < 1 {
			return 0, fmt.Errorf("layer widths %v, expected every width ≥ 1", sizes)
		}
		if i > 0 {
			n = satAdd(n, satAdd(satMul(sizes[i-1], s), s))
		}
	}
	return n, nil
}

// Save writes the trained NPE (configuration, embedding, prior, standardization and weights)
// to w in the format EstimatorFormatVersion describes. A prior that cannot be stored (see
// dist.SpecOf), an embedding of an unregistered kind or an untrained NPE is an error.
func (e *NPE) Save(w io.Writer) error { return saveEstimator(w, e) }

// Save writes the trained NRE to w, as NPE.Save does.
func (e *NRE) Save(w io.Writer) error { return saveEstimator(w, e) }

// Load reads an estimator written by Save, of whichever kind the file holds (an *NPE, an
// *NRE, an *NPEEnsemble, …), with the prior stored in the file. A file of format 1 stores no
// prior: read it with LoadNPE or LoadNRE and its prior. A damaged file (see
// EstimatorFormatVersion for what is checked) gives an error.
func Load(r io.Reader) (Estimator, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(len(ensembleMagic)); bytes.Equal(magic, ensembleMagic) {
		return loadEnsemble(br, nil, "")
	}
	e, err := loadEstimator(br, nil, "")
	if err != nil {
		return nil, err
	}
	return e, nil
}

// LoadNPE reads an NPE written by Save. prior may be nil: the prior stored in the file is
// used. A prior given must be the one stored (same kind, same parameters to the bit), or
// loading fails with an error that names the first difference; a file of format 1 stores
// none and needs it. A file of another kind or a damaged file gives an error.
func LoadNPE(r io.Reader, prior dist.Distribution) (*NPE, error) {
	e, err := loadEstimator(r, prior, "npe")
	if err != nil {
		return nil, err
	}
	return e.(*NPE), nil
}

// LoadNRE reads an NRE written by Save, with the rules of LoadNPE for the prior.
func LoadNRE(r io.Reader, prior dist.Distribution) (*NRE, error) {
	e, err := loadEstimator(r, prior, "nre")
	if err != nil {
		return nil, err
	}
	return e.(*NRE), nil
}

// SaveFile writes the NPE to the file at path (see Save), atomically: a file already at path is
// replaced only once the new one is complete and synced, so an error or a crash mid-write
// leaves it intact.
func (e *NPE) SaveFile(path string) error { return saveFile(path, e.Save) }

// SaveFile writes the NRE to the file at path (see Save), atomically like NPE.SaveFile.
func (e *NRE) SaveFile(path string) error { return saveFile(path, e.Save) }

// saveFile writes path with save through a synced temporary file in the same directory.
func saveFile(path string, save func(io.Writer) error) error {
	var saveErr error
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		saveErr = save(w)
		return saveErr
	})
	switch {
	case saveErr != nil:
		return saveErr // already says "save: …"
	case err != nil:
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// LoadFile reads the estimator in the file at path (see Load).
func LoadFile(path string) (Estimator, error) {
	var e Estimator
	err := loadFile(path, func(r io.Reader) (err error) { e, err = Load(r); return err })
	return e, err
}

// LoadNPEFile reads an NPE from the file at path (see LoadNPE).
func LoadNPEFile(path string, prior dist.Distribution) (*NPE, error) {
	var e *NPE
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadNPE(r, prior); return err })
	return e, err
}

// LoadNREFile reads an NRE from the file at path (see LoadNRE).
func LoadNREFile(path string, prior dist.Distribution) (*NRE, error) {
	var e *NRE
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadNRE(r, prior); return err })
	return e, err
}

// loadFile opens the file at path and reads it with load; errors name the path.
func loadFile(path string, load func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer f.Close()
	if err := load(bufio.NewReader(f)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
