package sbi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// updateSaved writes the estimator files of the current format into testdata/vN (N =
// EstimatorFormatVersion) with this build. Those files stand for what users have on disk:
// write them only together with a new EstimatorFormatVersion, and keep the directories of the
// older formats, whose files every later build must still read.
var updateSaved = flag.Bool("update-saved", false, "write testdata/vN/*.gosbi and saved.json of the current format with this build")

// savedFormats are the formats of which testdata holds files.
var savedFormats = []int{1, 2, 3, 4, 5}

func savedDir(format int) string { return filepath.Join("testdata", fmt.Sprintf("v%d", format)) }

// savedCase is one estimator file of testdata: how it was trained, and how it is read.
type savedCase struct {
	name string
	npe  *NPEConfig // exactly one of npe and nre is set
	nre  *NREConfig
	seed uint64
}

// savedCases cover both kinds, both flows, the MLP embedding and a sampler configuration.
var savedCases = []savedCase{
	{name: "npe-maf-embedding", seed: 7, npe: &NPEConfig{Hidden: 8, Transforms: 2, Embedding: MLPEmbedding{Hidden: []int{6}, Out: 3}}},
	{name: "npe-nsf", seed: 8, npe: &NPEConfig{Flow: "nsf", Hidden: 8, Transforms: 2, Bins: 4}},
	{name: "nre-embedding", seed: 9, nre: &NREConfig{Hidden: []int{8, 8}, Activation: "elu",
		Embedding: MLPEmbedding{Hidden: []int{6}, Out: 3}, Sampler: SamplerConfig{Method: "mcmc", Chains: 7}}},
}

// savedEstimator is what the test needs of NPE and NRE: Save, and log-densities in float64
// (LogProbPairs of NPE multiplies in float32 on CPUs with AVX-512, which varies by machine).
type savedEstimator struct {
	save    func(io.Writer) error
	logProb func(theta, x *mat.Dense) []float64
}

func (c savedCase) path(format int) string { return filepath.Join(savedDir(format), c.name+".gosbi") }

// train trains the estimator of c for a few epochs on the pairs.
func (c savedCase) train(theta, x *mat.Dense) (savedEstimator, error) {
	prior, cfg := savedPrior(), TrainConfig{Epochs: 3, Seed: c.seed}
	if c.npe != nil {
		e := NewNPE(prior, *c.npe)
		_, err := e.Train(theta, x, cfg)
		return npeSaved(e), err
	}
	e := NewNRE(prior, *c.nre)
	_, err := e.Train(theta, x, cfg)
	return nreSaved(e), err
}

// load reads the file of c in format with LoadNPEFile or LoadNREFile and prior (nil: the
// stored one).
func (c savedCase) load(format int, prior dist.Distribution) (savedEstimator, error) {
	if c.npe != nil {
		e, err := LoadNPEFile(c.path(format), prior)
		if err != nil {
			return savedEstimator{}, err
		}
		return npeSaved(e), nil
	}
	e, err := LoadNREFile(c.path(format), prior)
	if err != nil {
		return savedEstimator{}, err
	}
	return nreSaved(e), nil
}

// asSaved returns the savedEstimator of an estimator that Load returned.
func asSaved(t *testing.T, a Amortized) savedEstimator {
	switch e := a.(type) {
	case *NPE:
		return npeSaved(e)
	case *NRE:
		return nreSaved(e)
	}
	t.Fatalf("Load returned a %T", a)
	return savedEstimator{}
}

func npeSaved(e *NPE) savedEstimator {
	return savedEstimator{e.Save, func(theta, x *mat.Dense) []float64 { return e.logProbPairs(theta, x, false) }}
}

func nreSaved(e *NRE) savedEstimator { return savedEstimator{e.Save, e.LogProbPairs} }

// savedPrior is the prior of gaussianPairs.
func savedPrior() dist.Distribution { return dist.NewStandardNormal(2) }

// savedPairs are the training pairs of the files and the pairs at which the log-densities of
// saved.json were evaluated.
func savedPairs() (train, eval [2]*mat.Dense) {
	_, train[0], train[1] = gaussianPairs(rand.New(rand.NewPCG(5, 5)), 300)
	_, eval[0], eval[1] = gaussianPairs(rand.New(rand.NewPCG(11, 11)), 16)
	return train, eval
}

// TestLoadSavedFiles reads the estimator files of every format in testdata, written by the
// build of that format: each must load (format 1 with its prior, which it does not store;
// later formats without one, and with the stored one given), give the log-densities recorded
// when it was written to float64 rounding (1e-9), and save again: to the same bytes in the
// current format, and from an older format to a current file that Load reads without a prior
// and that gives the same log-densities to the bit.
func TestLoadSavedFiles(t *testing.T) {
	train, eval := savedPairs()
	if *updateSaved {
		writeSavedFiles(t, train, eval)
	}
	for _, format := range savedFormats {
		want := map[string][]float64{}
		b, err := os.ReadFile(filepath.Join(savedDir(format), "saved.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		for _, c := range savedCases {
			t.Run(fmt.Sprintf("v%d/%s", format, c.name), func(t *testing.T) {
				var priors []dist.Distribution // nil: the stored one
				if format == 1 {
					priors = []dist.Distribution{savedPrior()}
					if _, err := c.load(format, nil); err == nil || !strings.Contains(err.Error(), "stores no prior") {
						t.Errorf("format 1 without a prior: error %v, expected one saying the file stores none", err)
					}
				} else {
					priors = []dist.Distribution{nil, savedPrior()}
				}
				for _, prior := range priors {
					e, err := c.load(format, prior)
					if err != nil {
						t.Fatal(err)
					}
					checkSavedDensities(t, e, eval, want[c.name])
					var again bytes.Buffer
					if err := e.save(&again); err != nil {
						t.Fatal(err)
					}
					file, err := os.ReadFile(c.path(format))
					if err != nil {
						t.Fatal(err)
					}
					if format == EstimatorFormatVersion && !bytes.Equal(again.Bytes(), file) {
						t.Errorf("saved again: %d bytes differ from the %d of the file", len(again.Bytes()), len(file))
					}
					back, err := Load(&again)
					if err != nil {
						t.Fatalf("the file saved again does not load: %v", err)
					}
					a, b := e.logProb(eval[0], eval[1]), asSaved(t, back).logProb(eval[0], eval[1])
					for i := range a {
						if a[i] != b[i] {
							t.Fatalf("saved again and loaded: log-density %v at pair %d, %v before", b[i], i, a[i])
						}
					}
				}
			})
		}
	}
}

// checkSavedDensities compares the log-densities of e at the pairs eval with those recorded.
func checkSavedDensities(t *testing.T, e savedEstimator, eval [2]*mat.Dense, want []float64) {
	t.Helper()
	got := e.logProb(eval[0], eval[1])
	if len(got) != len(want) {
		t.Fatalf("%d log-densities, saved.json holds %d", len(got), len(want))
	}
	for i, w := range want {
		if math.Abs(got[i]-w) > 1e-9 {
			t.Errorf("pair %d: log-density %v, recorded %v", i, got[i], w)
		}
	}
}

// writeSavedFiles trains the estimators of savedCases and writes their files and saved.json
// into the directory of the current format.
func writeSavedFiles(t *testing.T, train, eval [2]*mat.Dense) {
	want := map[string][]float64{}
	dir := savedDir(EstimatorFormatVersion)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range savedCases {
		e, err := c.train(train[0], train[1])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := saveFile(c.path(EstimatorFormatVersion), e.save); err != nil {
			t.Fatal(err)
		}
		want[c.name] = e.logProb(eval[0], eval[1])
	}
	b, err := json.MarshalIndent(want, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "saved.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
