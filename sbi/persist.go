package sbi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// EstimatorFormatVersion is the version of the estimator file format written by Save.
//
// An estimator file is: the magic "GOSBIEST", the format version (uint32, little-endian), the
// length (uint32) of a JSON header, the header (kind "npe" or "nre", configuration,
// dimensions, standardization), and the weights as written by nn.WriteParams.
const EstimatorFormatVersion = 1

var estimatorMagic = []byte("GOSBIEST")

type fileHeader struct {
	Kind      string        `json:"kind"`
	ParamDim  int           `json:"param_dim"`
	XDim      int           `json:"x_dim"`
	ZTheta    zscore        `json:"z_theta"`
	ZX        zscore        `json:"z_x"`
	NPE       *NPEConfig    `json:"npe,omitempty"`
	NRE       *NREConfig    `json:"nre,omitempty"`
	Embedding *MLPEmbedding `json:"embedding,omitempty"`
}

// embedding returns the embedding stored in the header, nil for none.
func (h *fileHeader) embedding() Embedding {
	if h.Embedding == nil {
		return nil
	}
	return *h.Embedding
}

// savableEmbedding returns the embedding as an MLPEmbedding, or an error for other kinds.
func savableEmbedding(e Embedding) (*MLPEmbedding, error) {
	switch v := e.(type) {
	case nil:
		return nil, nil
	case MLPEmbedding:
		return &v, nil
	case *MLPEmbedding:
		return v, nil
	}
	return nil, fmt.Errorf("save: the embedding %T cannot be saved: only MLPEmbedding is stored in estimator files", e)
}

func writeEstimator(w io.Writer, h fileHeader, ps []*nn.Param) error {
	hdr, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("save: %w", err)
	}
	bw := bufio.NewWriter(w)
	bw.Write(estimatorMagic)
	binary.Write(bw, binary.LittleEndian, uint32(EstimatorFormatVersion))
	binary.Write(bw, binary.LittleEndian, uint32(len(hdr)))
	bw.Write(hdr)
	if err := nn.WriteParams(bw, ps); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	return nil
}

func readHeader(r io.Reader, want string, prior dist.Distribution) (*fileHeader, error) {
	magic := make([]byte, len(estimatorMagic))
	if _, err := io.ReadFull(r, magic); err != nil || !bytes.Equal(magic, estimatorMagic) {
		return nil, errors.New("load: not a gosbi estimator file (the magic GOSBIEST is missing)")
	}
	var version, n uint32
	if err := binary.Read(r, binary.LittleEndian, &version); err != nil {
		return nil, fmt.Errorf("load: truncated file: %w", err)
	}
	if version != EstimatorFormatVersion {
		return nil, fmt.Errorf("load: the file has format version %d, this build reads version %d: save it again with a matching gosbi", version, EstimatorFormatVersion)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<24 {
		return nil, fmt.Errorf("load: truncated or damaged header")
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("load: truncated header: %w", err)
	}
	var h fileHeader
	if err := json.Unmarshal(hdr, &h); err != nil {
		return nil, fmt.Errorf("load: damaged header: %w", err)
	}
	if h.Kind != want {
		return nil, fmt.Errorf("load: the file holds an estimator of kind %q, not %q: use Load%s", h.Kind, want, map[string]string{"npe": "NPE", "nre": "NRE"}[h.Kind])
	}
	if prior == nil || prior.Dim() != h.ParamDim {
		d := 0
		if prior != nil {
			d = prior.Dim()
		}
		return nil, fmt.Errorf("load: the estimator has %d parameters and the prior given %d: pass the prior it was trained with", h.ParamDim, d)
	}
	if len(h.ZTheta.Mean) != h.ParamDim || len(h.ZX.Mean) != h.XDim || h.XDim < 1 {
		return nil, errors.New("load: damaged header (standardization does not match the dimensions)")
	}
	if (h.Kind == "npe" && h.NPE == nil) || (h.Kind == "nre" && h.NRE == nil) {
		return nil, fmt.Errorf("load: damaged header (no %s configuration)", strings.ToUpper(h.Kind))
	}
	return &h, nil
}

// save writes the trained estimator to w: h carries the estimator's configuration without its
// embedding, the core fills the rest of the header.
func (c *estimator) save(w io.Writer, m network, h fileHeader) error {
	if !c.trained {
		return fmt.Errorf("save %s: %w", c.name, errUntrained)
	}
	emb, err := savableEmbedding(m.embedding())
	if err != nil {
		return err
	}
	h.Kind, h.ParamDim, h.XDim, h.ZTheta, h.ZX, h.Embedding = c.kind, c.prior.Dim(), c.xDim, c.zt, c.zx, emb
	return writeEstimator(w, h, m.params())
}

// load builds the networks of m for the header h and reads their weights from r.
func (c *estimator) load(r io.Reader, m network, h *fileHeader) error {
	if c.cfgErr != nil {
		return fmt.Errorf("load: %w", c.cfgErr)
	}
	if err := c.build(m, rand.New(rand.NewPCG(0, 0)), h.XDim); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if err := nn.ReadParams(r, m.params()); err != nil {
		return fmt.Errorf("load: weights: %w", err)
	}
	c.zt, c.zx, c.trained = h.ZTheta, h.ZX, true
	return nil
}

// Save writes the trained NPE (configuration, standardization and weights) to w. The prior is
// not stored: pass it again to LoadNPE.
func (e *NPE) Save(w io.Writer) error {
	cfg := e.cfg
	cfg.Embedding = nil
	return e.save(w, (*npeModel)(e), fileHeader{NPE: &cfg})
}

// LoadNPE reads an NPE written by Save; prior must be the prior it was trained with. A file
// of another kind, another format version or a damaged file gives an error.
func LoadNPE(r io.Reader, prior dist.Distribution) (*NPE, error) {
	h, err := readHeader(r, "npe", prior)
	if err != nil {
		return nil, err
	}
	cfg := *h.NPE
	cfg.Embedding = h.embedding()
	e := NewNPE(prior, cfg)
	if err := e.load(r, (*npeModel)(e), h); err != nil {
		return nil, err
	}
	return e, nil
}

// Save writes the trained NRE (configuration, standardization and weights) to w. The prior is
// not stored: pass it again to LoadNRE.
func (e *NRE) Save(w io.Writer) error {
	cfg := e.cfg
	cfg.Embedding = nil
	return e.save(w, (*nreModel)(e), fileHeader{NRE: &cfg})
}

// LoadNRE reads an NRE written by Save; prior must be the prior it was trained with.
func LoadNRE(r io.Reader, prior dist.Distribution) (*NRE, error) {
	h, err := readHeader(r, "nre", prior)
	if err != nil {
		return nil, err
	}
	cfg := *h.NRE
	cfg.Embedding = h.embedding()
	e := NewNRE(prior, cfg)
	if err := e.load(r, (*nreModel)(e), h); err != nil {
		return nil, err
	}
	return e, nil
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

// loadFile opens the file at path and reads it with load.
func loadFile(path string, load func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer f.Close()
	return load(bufio.NewReader(f))
}
