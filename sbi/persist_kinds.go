package sbi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/flow/transform"
)

// The kinds of estimator of this file's estimators; a new estimator registers its own in its
// file, the same way.
func init() {
	registerEstimator(estimatorKind{kind: "npe", loader: "LoadNPE",
		decode: func(prior dist.Distribution, config []byte, emb Embedding) (savable, error) {
			var cfg NPEConfig
			if err := decodeStrict(config, &cfg); err != nil {
				return nil, fmt.Errorf("NPE: %w", err)
			}
			if cfg.Layers > maxFileLayers { // NewNPE lists the hidden widths
				return nil, fmt.Errorf("NPE: Layers = %d, expected at most %d in a file", cfg.Layers, maxFileLayers)
			}
			cfg.Embedding = emb
			return NewNPE(prior, cfg), nil
		}})
	registerEstimator(estimatorKind{kind: "nre", loader: "LoadNRE",
		decode: func(prior dist.Distribution, config []byte, emb Embedding) (savable, error) {
			var cfg NREConfig
			if err := decodeStrict(config, &cfg); err != nil {
				return nil, fmt.Errorf("NRE: %w", err)
			}
			if err := checkFileSampler(cfg.Sampler, prior.Dim()); err != nil {
				return nil, err
			}
			cfg.Embedding = emb
			return NewNRE(prior, cfg), nil
		}})
	RegisterEmbedding("mlp", MLPEmbedding{})
}

func (e *NPE) fileNetwork() fileNetwork { return (*npeModel)(e) }

func (e *NPE) fileConfig() any { return e.cfg }

// headWeights counts the weights of the flow's MADEs: per transform, layers of widths
// θ-dim + ctx → Hidden (Layers times) → θ-dim · parameters per feature.
func (m *npeModel) headWeights(ctx int) (int, error) {
	fc, err := m.cfg.flowConfig(m.prior.Dim(), ctx)
	if err != nil {
		return 0, err
	}
	per := transform.AffineParams
	if fc.Kind == flow.NSF {
		if fc.Bins < 1 || fc.Bins > transform.MaxBins {
			return 0, fmt.Errorf("NPE: Bins = %d, expected 1…%d", fc.Bins, transform.MaxBins)
		}
		per = transform.SplineParams(fc.Bins)
	}
	D := m.prior.Dim()
	sizes := append(append([]int{satAdd(D, ctx)}, fc.Hidden...), satMul(D, per))
	w, err := mlpWeights(sizes)
	if err != nil {
		return 0, fmt.Errorf("NPE: %w", err)
	}
	return satMul(w, fc.Transforms), nil
}

func (e *NRE) fileNetwork() fileNetwork { return (*nreModel)(e) }

func (e *NRE) fileConfig() any { return e.cfg }

// headWeights counts the weights of the classifier: θ-dim + ctx → Hidden… → 1.
func (m *nreModel) headWeights(ctx int) (int, error) {
	w, err := mlpWeights(append(append([]int{satAdd(m.prior.Dim(), ctx)}, m.cfg.Hidden...), 1))
	if err != nil {
		return 0, fmt.Errorf("NRE: %w", err)
	}
	return w, nil
}

// Bounds of settings read from a file that are not network widths (those are bounded by the
// weights the file holds): the memory and time of building and sampling grow with them, so a
// damaged file must not set them without limit.
const (
	maxFileLayers    = 10_000    // NPEConfig.Layers
	maxFileGridCells = 1 << 24   // GridPoints^dim
	maxFileSweeps    = 1_000_000 // Chains, BurnIn, Thin
	maxFileProposals = 10_000    // importance proposals per sample
)

// checkFileSampler refuses sampler settings of a file beyond the bounds above.
func checkFileSampler(s SamplerConfig, dim int) error {
	if err := s.validate(); err != nil {
		return err
	}
	cells := 1
	for i := 0; i < min(dim, 3); i++ { // the grid serves at most 3 parameters
		cells = satMul(cells, s.GridPoints)
	}
	switch {
	case cells > maxFileGridCells:
		return fmt.Errorf("sampler: GridPoints = %d makes %d cells in %d dimensions, more than the %d a file may set", s.GridPoints, cells, dim, maxFileGridCells)
	case s.Chains > maxFileSweeps || s.BurnIn > maxFileSweeps || s.Thin > maxFileSweeps:
		return fmt.Errorf("sampler: Chains = %d, BurnIn = %d, Thin = %d, expected each at most %d in a file", s.Chains, s.BurnIn, s.Thin, maxFileSweeps)
	case s.Proposals > maxFileProposals:
		return fmt.Errorf("sampler: Proposals = %d, expected at most %d in a file", s.Proposals, maxFileProposals)
	}
	return nil
}

// SavableEmbedding is an Embedding that estimator files can store: its type is registered
// with RegisterEmbedding, and its configuration is its JSON encoding.
type SavableEmbedding interface {
	Embedding
	// Size reports, without building anything, the summary size and the number of weights
	// that Build creates for observations of in values, or the error Build would return.
	// Loading compares the weights with what the file holds before it builds the network, so
	// that a damaged file cannot make Build allocate without bound.
	Size(in int) (out, weights int, err error)
}

var embeddingKinds = struct {
	sync.RWMutex
	byKind map[string]reflect.Type
	byType map[reflect.Type]string
}{byKind: map[string]reflect.Type{}, byType: map[reflect.Type]string{}}

// RegisterEmbedding makes the embeddings of proto's type storable in estimator files under the
// name kind: Save stores such an embedding as its kind and its JSON encoding, Load decodes the
// JSON into a new value of that type. proto is a value of the type, e.g. MLPEmbedding{}; a
// pointer to the type is stored the same way and loads as a value. It panics when kind or
// the type is registered already: register once, from an init function.
func RegisterEmbedding(kind string, proto SavableEmbedding) {
	t := reflect.TypeOf(proto)
	if t == nil || kind == "" {
		panic("sbi: RegisterEmbedding: kind and prototype must be given")
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	embeddingKinds.Lock()
	defer embeddingKinds.Unlock()
	if _, dup := embeddingKinds.byKind[kind]; dup {
		panic(fmt.Sprintf("sbi: RegisterEmbedding: kind %q is registered already", kind))
	}
	if old, dup := embeddingKinds.byType[t]; dup {
		panic(fmt.Sprintf("sbi: RegisterEmbedding: %v is registered already, as %q", t, old))
	}
	if _, ok := reflect.New(t).Elem().Interface().(SavableEmbedding); !ok {
		panic(fmt.Sprintf("sbi: RegisterEmbedding: a %v value does not implement SavableEmbedding: give the methods value receivers", t))
	}
	embeddingKinds.byKind[kind], embeddingKinds.byType[t] = t, kind
}

func embeddingKindNames() []string {
	embeddingKinds.RLock()
	defer embeddingKinds.RUnlock()
	var ks []string
	for k := range embeddingKinds.byKind {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// embeddingEntryOf returns the header entry of e, nil for none.
func embeddingEntryOf(e Embedding) (*embeddingEntry, error) {
	if e == nil {
		return nil, nil
	}
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	embeddingKinds.RLock()
	kind, ok := embeddingKinds.byType[v.Type()]
	embeddingKinds.RUnlock()
	if !ok {
		return nil, fmt.Errorf("the embedding %T cannot be saved: register its type with sbi.RegisterEmbedding (registered: %v)", e, embeddingKindNames())
	}
	cfg, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("the embedding %T: %w", e, err)
	}
	return &embeddingEntry{Kind: kind, Config: cfg}, nil
}

// decodeEmbedding builds the embedding of a header entry, nil for none.
func decodeEmbedding(h *embeddingEntry) (SavableEmbedding, error) {
	if h == nil {
		return nil, nil
	}
	embeddingKinds.RLock()
	t, ok := embeddingKinds.byKind[h.Kind]
	embeddingKinds.RUnlock()
	if !ok {
		return nil, fmt.Errorf("load: the file holds an embedding of kind %q, which this build does not know (it knows %v)", h.Kind, embeddingKindNames())
	}
	p := reflect.New(t)
	if err := decodeStrict(h.Config, p.Interface()); err != nil {
		return nil, fmt.Errorf("load: damaged header (%s embedding): %w", h.Kind, err)
	}
	return p.Elem().Interface().(SavableEmbedding), nil
}

// Size implements SavableEmbedding: Out summaries, and the weights of layers of widths
// in → Hidden… → Out.
func (e MLPEmbedding) Size(in int) (out, weights int, err error) {
	e = e.withDefaults()
	if _, err := e.Activation.parse(); err != nil {
		return 0, 0, fmt.Errorf("embedding: %w", err)
	}
	if e.Out < 1 {
		return 0, 0, fmt.Errorf("embedding: Out = %d, expected ≥ 1", e.Out)
	}
	w, err := mlpWeights(append(append([]int{in}, e.Hidden...), e.Out))
	if err != nil {
		return 0, 0, fmt.Errorf("embedding: %w", err)
	}
	return e.Out, w, nil
}
