package sbi

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// updateSaved rewrites the estimator files of testdata with this build. Those files stand for
// what users have on disk: rewrite them only together with a new EstimatorFormatVersion, and
// keep the old ones then (with a test that they are refused or still read).
var updateSaved = flag.Bool("update-saved", false, "rewrite testdata/*.gosbi and testdata/saved.json with this build")

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

func (c savedCase) path() string { return filepath.Join("testdata", c.name+".gosbi") }

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

// load reads the file of c.
func (c savedCase) load() (savedEstimator, error) {
	if c.npe != nil {
		e, err := LoadNPEFile(c.path(), savedPrior())
		if err != nil {
			return savedEstimator{}, err
		}
		return npeSaved(e), nil
	}
	e, err := LoadNREFile(c.path(), savedPrior())
	if err != nil {
		return savedEstimator{}, err
	}
	return nreSaved(e), nil
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

// TestLoadSavedFiles reads estimator files written by the format-1 code (testdata, committed
// before the estimators shared their core): each must load, save again to the same bytes, and
// give the log-densities recorded when it was written, to float64 rounding (1e-9).
func TestLoadSavedFiles(t *testing.T) {
	train, eval := savedPairs()
	want := map[string][]float64{}
	if *updateSaved {
		writeSavedFiles(t, train, eval)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "saved.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range savedCases {
		t.Run(c.name, func(t *testing.T) {
			e, err := c.load()
			if err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(c.path())
			if err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if err := e.save(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), file) {
				t.Errorf("saved again: %d bytes differ from the %d of the file", len(again.Bytes()), len(file))
			}
			got := e.logProb(eval[0], eval[1])
			if len(got) != len(want[c.name]) {
				t.Fatalf("%d log-densities, saved.json holds %d", len(got), len(want[c.name]))
			}
			for i, w := range want[c.name] {
				if math.Abs(got[i]-w) > 1e-9 {
					t.Errorf("pair %d: log-density %v, recorded %v", i, got[i], w)
				}
			}
		})
	}
}

// writeSavedFiles trains the estimators of savedCases and writes their files and saved.json.
func writeSavedFiles(t *testing.T, train, eval [2]*mat.Dense) {
	want := map[string][]float64{}
	for _, c := range savedCases {
		e, err := c.train(train[0], train[1])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := saveFile(c.path(), e.save); err != nil {
			t.Fatal(err)
		}
		want[c.name] = e.logProb(eval[0], eval[1])
	}
	b, err := json.MarshalIndent(want, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "saved.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
