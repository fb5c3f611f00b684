package sbi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// vocabularyCase is one estimator of the Estimator table test: how to build it untrained, how
// to load what it saves, and what its posterior's display must say.
type vocabularyCase struct {
	name      string
	make      func() Estimator
	load      func(r io.Reader) (Estimator, error)
	loadFile  func(path string) Estimator
	posterior string // in the posterior's display
}

func vocabularyCases(t *testing.T) ([]vocabularyCase, *mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(31, 32))
	prior, theta, x := gaussianPairs(rng, 300)
	npe := func() *NPE { return NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 2}) }
	nre := func() *NRE { return NewNRE(prior, NREConfig{Hidden: []int{8}}) }
	return []vocabularyCase{
		{"NPE", func() Estimator { return npe() },
			func(r io.Reader) (Estimator, error) { return LoadNPE(r, prior) },
			func(p string) Estimator { return MustLoadNPEFile(p, prior) }, "NPE (maf) posterior at x = [0.1, -0.2]"},
		{"NRE", func() Estimator { return nre() },
			func(r io.Reader) (Estimator, error) { return LoadNRE(r, prior) },
			func(p string) Estimator { return MustLoadNREFile(p, prior) }, "NRE posterior at x = [0.1, -0.2], 2 parameters, unnormalized; sampled by slice MCMC"},
		{"NPEEnsemble", func() Estimator { return MustNewNPEEnsemble(npe(), npe()) },
			func(r io.Reader) (Estimator, error) { return LoadNPEEnsemble(r, prior) },
			func(p string) Estimator { return MustLoadNPEEnsembleFile(p, prior) }, "equal-weight mixture of 2 posteriors"},
		{"NREEnsemble", func() Estimator { return MustNewNREEnsemble(nre(), nre()) },
			func(r io.Reader) (Estimator, error) { return LoadNREEnsemble(r, prior) },
			func(p string) Estimator { return MustLoadNREEnsembleFile(p, prior) }, "NRE ensemble of 2 posterior at x = [0.1, -0.2]"},
		{"FMPE", func() Estimator { return NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 2, RelTol: 1e-4, AbsTol: 1e-5}) },
			func(r io.Reader) (Estimator, error) { return LoadFMPE(r, prior) },
			func(p string) Estimator { return MustLoadFMPEFile(p, prior) }, "FMPE posterior at x = [0.1, -0.2]"},
	}, theta, x
}

// TestEstimatorVocabulary calls every method of Estimator on each estimator, untrained and
// trained: the same calls work and mean the same for all.
func TestEstimatorVocabulary(t *testing.T) {
	cases, theta, x := vocabularyCases(t)
	xo := []float64{0.1, -0.2}
	th, xs := theta.Slice(0, 7, 0, 2).(*mat.Dense), x.Slice(0, 7, 0, 2).(*mat.Dense)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.make()
			if e.Trained() || !strings.Contains(e.String(), "not trained") && !strings.Contains(e.String(), "untrained") {
				t.Errorf("new estimator: Trained %v, String %q; want untrained", e.Trained(), e.String())
			}
			if err := e.Save(io.Discard); !errors.Is(err, ErrUntrained) {
				t.Errorf("Save of an untrained estimator: %v, want ErrUntrained", err)
			}
			if _, err := sampleContext(context.Background(), e.Posterior(xo), rand.New(rand.NewPCG(1, 1)), 3); !errors.Is(err, ErrUntrained) {
				t.Errorf("sampling an untrained estimator: %v, want ErrUntrained", err)
			}
			done, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := e.TrainContext(done, theta, x, TrainConfig{Epochs: 2}); !errors.Is(err, context.Canceled) {
				t.Errorf("TrainContext with a cancelled context: %v, want context.Canceled", err)
			}

			res := e.MustTrain(theta, x, TrainConfig{Epochs: 3, BatchSize: 50, Seed: 2})
			if !e.Trained() || res.TrainRows != 270 || !strings.Contains(e.String(), "trained") || strings.Contains(e.String(), "untrained") {
				t.Fatalf("after MustTrain: Trained %v, %d training rows, String %q", e.Trained(), res.TrainRows, e.String())
			}
			if e.MIMEBundle()["text/plain"] != e.String() || !strings.Contains(e.MIMEBundle()["text/html"].(string), "<b>") {
				t.Errorf("MIMEBundle %v does not show String %q", e.MIMEBundle(), e.String())
			}
			if e.Prior().Dim() != 2 {
				t.Errorf("Prior().Dim() = %d, want 2", e.Prior().Dim())
			}
			lp := e.LogProbPairs(th, xs)
			post := e.Posterior(xo)
			if s := post.Sample(rand.New(rand.NewPCG(3, 3)), 40); len(lp) != 7 || s.RawMatrix().Rows != 40 || post.Dim() != 2 {
				t.Errorf("LogProbPairs gave %d values, Sample %d rows, Dim %d", len(lp), s.RawMatrix().Rows, post.Dim())
			}
			shown, ok := post.(interface{ MIMEBundle() map[string]any })
			if !ok || !strings.Contains(shown.MIMEBundle()["text/plain"].(string), c.posterior) {
				t.Errorf("posterior %T shows %v, want a summary with %q", post, shown, c.posterior)
			}
			var buf bytes.Buffer
			if err := e.Save(&buf); err != nil {
				t.Fatal(err)
			}
			saved := bytes.Clone(buf.Bytes())
			back, err := c.load(&buf)
			if err != nil {
				t.Fatal(err)
			}
			generic, err := Load(bytes.NewReader(saved))
			if err != nil || fmt.Sprintf("%T", generic) != fmt.Sprintf("%T", e) {
				t.Fatalf("Load of what %T saved: %T, %v", e, generic, err)
			}
			path := filepath.Join(t.TempDir(), "est.gosbi")
			e.MustSaveFile(path)
			for what, l := range map[string]Estimator{"typed load": back, "Load": generic, "typed MustLoadFile": c.loadFile(path), "MustLoadFile": MustLoadFile(path)} {
				got := l.LogProbPairs(th, xs)
				for i := range lp {
					if got[i] != lp[i] {
						t.Fatalf("%s: LogProbPairs[%d] = %v, saved estimator %v", what, i, got[i], lp[i])
					}
				}
			}
			func() {
				defer func() {
					if err, ok := recover().(error); !ok || !strings.Contains(err.Error(), "save") {
						t.Errorf("MustSaveFile into a missing directory panicked with %v, want the save error", err)
					}
				}()
				e.MustSaveFile(filepath.Join(t.TempDir(), "missing", "est.gosbi"))
			}()
		})
	}
}

// TestPosteriorAtEverywhere checks that every estimator has PosteriorAt with its concrete
// posterior, the same distribution as Posterior.
func TestPosteriorAtEverywhere(t *testing.T) {
	cases, theta, x := vocabularyCases(t)
	xo, th := []float64{0.1, -0.2}, theta.Slice(0, 5, 0, 2).(*mat.Dense)
	for _, c := range cases {
		e := c.make()
		e.MustTrain(theta, x, TrainConfig{Epochs: 2, Seed: 1})
		var at Posterior
		switch v := e.(type) {
		case *NPE:
			at = v.PosteriorAt(xo)
		case *NRE:
			at = v.PosteriorAt(xo)
		case *NPEEnsemble:
			at = v.PosteriorAt(xo)
		case *NREEnsemble:
			at = v.PosteriorAt(xo)
		case *FMPE:
			at = v.PosteriorAt(xo)
		}
		a, b := at.LogProb(th), e.Posterior(xo).LogProb(th)
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: PosteriorAt LogProb %v, Posterior %v", c.name, a, b)
				break
			}
		}
	}
}

// TestEnsembleMembersAgree refuses ensembles of mixed trained and untrained members, or of
// members trained on different data widths.
func TestEnsembleMembersAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	prior, theta, x := gaussianPairs(rng, 200)
	trained := NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1})
	trained.MustTrain(theta, x, TrainConfig{Epochs: 1})
	wide := NewNPE(prior, NPEConfig{Hidden: 4, Transforms: 1})
	x3 := mat.NewDense(200, 3, nil)
	x3.Apply(func(i, j int, _ float64) float64 { return x.At(i, j%2) }, x3)
	wide.MustTrain(theta, x3, TrainConfig{Epochs: 1})
	if _, err := NewNPEEnsemble(trained, NewNPE(prior, NPEConfig{})); !errors.Is(err, ErrUntrained) {
		t.Errorf("mixed members: %v, want an error wrapping ErrUntrained", err)
	}
	if _, err := NewNPEEnsemble(trained, wide); err == nil || !strings.Contains(err.Error(), "3 data values") {
		t.Errorf("members of different widths: %v, want an error naming them", err)
	}
	if _, err := NewNPEEnsemble(); err == nil {
		t.Error("an ensemble without members was accepted")
	}
}
