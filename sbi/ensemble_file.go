package sbi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gosbi/gosbi/sbi/dist"
)

// An ensemble file is: the magic "GOSBIENS", the format version (uint32, little-endian), the
// length (uint32) of a JSON header {kind, members, sampler}, the header, then each member as an
// estimator file (see EstimatorFormatVersion) preceded by its length in bytes (uint64). The
// header is read as strictly as an estimator file's: a field this build does not know (in the
// header or in its sampler settings) is an error naming it, and so is "sampler" in an NPE
// ensemble, which only an NRE ensemble stores. The sampler settings of the header are bounded
// as those of an NRE file are.

// EnsembleFormatVersion is the version of the ensemble file format written by the ensembles'
// Save.
const EnsembleFormatVersion = 1

var ensembleMagic = []byte("GOSBIENS")

// maxEnsembleMembers bounds the member count read from a file, before any allocation.
const maxEnsembleMembers = 1 << 16

type ensembleHeader struct {
	Kind    string         `json:"kind"` // "npe" or "nre": the kind of every member
	Members int            `json:"members"`
	Sampler *SamplerConfig `json:"sampler,omitempty"` // NREEnsemble.Sampler
}

// String says what the ensemble is.
func (e *NPEEnsemble) String() string { return ensembleString(e.label(), e.Trained(), e.Prior()) }

// MIMEBundle shows the summary as HTML and text.
func (e *NPEEnsemble) MIMEBundle() map[string]any { return summaryBundle(e.label(), e.String()) }

// String says what the ensemble is.
func (e *NREEnsemble) String() string { return ensembleString(e.label(), e.Trained(), e.Prior()) }

// MIMEBundle shows the summary as HTML and text.
func (e *NREEnsemble) MIMEBundle() map[string]any { return summaryBundle(e.label(), e.String()) }

func ensembleString(label string, trained bool, prior dist.Distribution) string {
	return fmt.Sprintf("%s: %d parameters, %s", label, prior.Dim(), trainedWord(trained))
}

// Save writes every member (see NPE.Save, which stores the prior) to w, in order; Load and
// LoadNPEEnsemble read it back.
func (e *NPEEnsemble) Save(w io.Writer) error {
	saves := make([]func(io.Writer) error, len(e.Members))
	for k, m := range e.Members {
		saves[k] = m.Save
	}
	return writeEnsemble(w, ensembleHeader{Kind: "npe", Members: len(e.Members)}, saves)
}

// SaveFile writes the ensemble to the file at path (see Save), atomically like NPE.SaveFile.
func (e *NPEEnsemble) SaveFile(path string) error { return saveFile(path, e.Save) }

// Save writes every member (see NRE.Save, which stores the prior) and the ensemble's sampler
// settings to w; Load and LoadNREEnsemble read it back.
func (e *NREEnsemble) Save(w io.Writer) error {
	saves := make([]func(io.Writer) error, len(e.Members))
	for k, m := range e.Members {
		saves[k] = m.Save
	}
	s := e.Sampler
	if len(e.Members) > 0 { // Load bounds the settings a file may hold; refuse what it would
		if err := checkFileSampler(s, e.Members[0].Prior().Dim()); err != nil {
			return fmt.Errorf("save NRE ensemble: the file would not load: %w", err)
		}
	}
	return writeEnsemble(w, ensembleHeader{Kind: "nre", Members: len(e.Members), Sampler: &s}, saves)
}

// SaveFile writes the ensemble to the file at path (see Save), atomically like NPE.SaveFile.
func (e *NREEnsemble) SaveFile(path string) error { return saveFile(path, e.Save) }

func writeEnsemble(w io.Writer, h ensembleHeader, saves []func(io.Writer) error) error {
	hdr, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("save ensemble: %w", err)
	}
	bw := bufio.NewWriter(w)
	bw.Write(ensembleMagic)
	binary.Write(bw, binary.LittleEndian, uint32(EnsembleFormatVersion))
	binary.Write(bw, binary.LittleEndian, uint32(len(hdr)))
	bw.Write(hdr)
	var buf bytes.Buffer
	for k, save := range saves {
		buf.Reset()
		if err := save(&buf); err != nil {
			return fmt.Errorf("save ensemble, member %d: %w", k, err)
		}
		binary.Write(bw, binary.LittleEndian, uint64(buf.Len()))
		bw.Write(buf.Bytes())
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save ensemble: %w", err)
	}
	return nil
}

// readEnsemble reads an ensemble file of kind want ("" for any) from r and calls member for
// the bytes of every member in order, with the members' kind.
func readEnsemble(r io.Reader, want string, member func(k int, r io.Reader, kind string) error) (*ensembleHeader, error) {
	magic := make([]byte, len(ensembleMagic))
	if _, err := io.ReadFull(r, magic); err != nil || !bytes.Equal(magic, ensembleMagic) {
		return nil, errors.New("load ensemble: not a gosbi ensemble file (the magic GOSBIENS is missing)")
	}
	var version, n uint32
	if err := binary.Read(r, binary.LittleEndian, &version); err != nil {
		return nil, fmt.Errorf("load ensemble: truncated file: %w", err)
	}
	if version != EnsembleFormatVersion {
		return nil, fmt.Errorf("load ensemble: the file has format version %d, this build reads version %d", version, EnsembleFormatVersion)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<20 {
		return nil, errors.New("load ensemble: truncated or damaged header")
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("load ensemble: truncated header: %w", err)
	}
	// the fields of ensembleHeader, with the sampler kept raw to tell whether the key is
	// present at all (null included), which a kind without a sampler must not hold
	var raw struct {
		Kind    string          `json:"kind"`
		Members int             `json:"members"`
		Sampler json.RawMessage `json:"sampler"`
	}
	if err := decodeStrict(hdr, &raw); err != nil {
		return nil, fmt.Errorf("load ensemble: damaged header (expected only \"kind\", \"members\" and, for an NRE ensemble, \"sampler\"): %w", err)
	}
	h := ensembleHeader{Kind: raw.Kind, Members: raw.Members}
	if h.Kind != "npe" && h.Kind != "nre" {
		return nil, fmt.Errorf("load ensemble: the file holds an ensemble of kind %q, which this build does not know (it knows \"npe\" and \"nre\")", h.Kind)
	}
	if want != "" && h.Kind != want {
		return nil, fmt.Errorf("load ensemble: the file holds an ensemble of kind %q, not %q: use Load", h.Kind, want)
	}
	if h.Members < 1 || h.Members > maxEnsembleMembers {
		return nil, fmt.Errorf("load ensemble: damaged header (%d members, expected 1 to %d)", h.Members, maxEnsembleMembers)
	}
	if len(raw.Sampler) > 0 {
		if h.Kind != "nre" {
			return nil, fmt.Errorf("load ensemble: damaged header: an ensemble of kind %q holds \"sampler\", which only an NRE ensemble stores (its posteriors sample the members' flows)", h.Kind)
		}
		if string(raw.Sampler) != "null" {
			var s SamplerConfig
			if err := decodeStrict(raw.Sampler, &s); err != nil {
				return nil, fmt.Errorf("load ensemble: damaged header (\"sampler\", expected the fields of SamplerConfig): %w", err)
			}
			h.Sampler = &s
		}
	}
	for k := 0; k < h.Members; k++ {
		var size uint64
		if err := binary.Read(r, binary.LittleEndian, &size); err != nil {
			return nil, fmt.Errorf("load ensemble: member %d: truncated file: %w", k, err)
		}
		lr := &io.LimitedReader{R: r, N: int64(min(size, 1<<40))}
		if err := member(k, lr, h.Kind); err != nil {
			return nil, fmt.Errorf("load ensemble, member %d: %w", k, err)
		}
		if _, err := io.Copy(io.Discard, lr); err != nil { // what the member's reader left
			return nil, fmt.Errorf("load ensemble: member %d: %w", k, err)
		}
	}
	return &h, nil
}

// loadEnsemble reads an ensemble file of kind want ("" for any); prior may be nil when the
// members' files store theirs.
func loadEnsemble(r io.Reader, prior dist.Distribution, want string) (Estimator, error) {
	var members []savable
	h, err := readEnsemble(r, want, func(_ int, r io.Reader, kind string) error {
		m, err := loadEstimator(r, prior, kind)
		members = append(members, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	if h.Kind == "npe" {
		ms := make([]*NPE, len(members))
		for k, m := range members {
			ms[k] = m.(*NPE)
		}
		return NewNPEEnsemble(ms...)
	}
	ms := make([]*NRE, len(members))
	for k, m := range members {
		ms[k] = m.(*NRE)
	}
	e, err := NewNREEnsemble(ms...)
	if err != nil {
		return nil, err
	}
	if h.Sampler != nil {
		// bounded as an NRE file's own sampler settings are (checkFileSampler)
		if err := checkFileSampler(*h.Sampler, e.Prior().Dim()); err != nil {
			return nil, fmt.Errorf("load ensemble: damaged header: %w", err)
		}
		e.Sampler = *h.Sampler
	}
	return e, nil
}

// LoadNPEEnsemble reads an ensemble written by NPEEnsemble.Save, with the rules of LoadNPE for
// the prior (nil: the one stored with the members).
func LoadNPEEnsemble(r io.Reader, prior dist.Distribution) (*NPEEnsemble, error) {
	e, err := loadEnsemble(r, prior, "npe")
	if err != nil {
		return nil, err
	}
	return e.(*NPEEnsemble), nil
}

// LoadNREEnsemble reads an ensemble written by NREEnsemble.Save, with the rules of LoadNPE for
// the prior (nil: the one stored with the members).
func LoadNREEnsemble(r io.Reader, prior dist.Distribution) (*NREEnsemble, error) {
	e, err := loadEnsemble(r, prior, "nre")
	if err != nil {
		return nil, err
	}
	return e.(*NREEnsemble), nil
}

// LoadNPEEnsembleFile reads an NPE ensemble from the file at path (see LoadNPEEnsemble).
func LoadNPEEnsembleFile(path string, prior dist.Distribution) (*NPEEnsemble, error) {
	var e *NPEEnsemble
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadNPEEnsemble(r, prior); return err })
	return e, err
}

// LoadNREEnsembleFile reads an NRE ensemble from the file at path (see LoadNREEnsemble).
func LoadNREEnsembleFile(path string, prior dist.Distribution) (*NREEnsemble, error) {
	var e *NREEnsemble
	err := loadFile(path, func(r io.Reader) (err error) { e, err = LoadNREEnsemble(r, prior); return err })
	return e, err
}
