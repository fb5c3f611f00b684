package sbi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// trialRangeEmbedding is a tiny set embedding of up to 40 trials of one value.
var trialRangeEmbedding = DeepSetEmbedding{MaxTrials: 40, Hidden: []int{}, Features: 4, Head: []int{}, Out: 3}

// trialRangePairs returns 300 pairs of θ (one parameter, standard normal prior) and sets of
// trials xₜ = θ + 0.5·noise in the layout of trialRangeEmbedding, holding 1 to 5 trials.
func trialRangePairs() (dist.Distribution, *mat.Dense, *mat.Dense) {
	const n = 300
	rng := rand.New(rand.NewPCG(40, 5))
	prior := dist.NewStandardNormal(1)
	theta := prior.Sample(rng, n)
	x := mat.NewDense(n, trialRangeEmbedding.MaxTrials, nil)
	counts := make([]int, n)
	for i := range counts {
		counts[i] = 1 + i%5
		for j := 0; j < counts[i]; j++ {
			x.Set(i, j, theta.At(i, 0)+0.5*rng.NormFloat64())
		}
	}
	return prior, theta, trialRangeEmbedding.MustWithCounts(x, counts)
}

// trialRangeObservation is the observation of n trials, each 0.1, in the layout of
// trialRangeEmbedding.
func trialRangeObservation(n int) []float64 {
	trials := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		trials.Set(i, 0, 0.1)
	}
	return trialRangeEmbedding.MustPack(trials)
}

// trialRangeEstimators are tiny estimators of each kind whose embedding can be a set
// embedding, and an ensemble of two NPEs, trained on trialRangePairs.
func trialRangeEstimators(t *testing.T) map[string]Estimator {
	t.Helper()
	prior, theta, x := trialRangePairs()
	npe := func() *NPE { return NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding}) }
	ens, err := NewNPEEnsemble(npe(), npe())
	if err != nil {
		t.Fatal(err)
	}
	ests := map[string]Estimator{
		"npe":      npe(),
		"nre":      NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: trialRangeEmbedding, Sampler: SamplerConfig{Method: SamplerImportance}}),
		"fmpe":     NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1, Embedding: trialRangeEmbedding}),
		"ensemble": ens,
	}
	for name, e := range ests {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 3}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return ests
}

// trialsWarnings counts the warnings in out about an observation of n trials, outside the
// training range 1–5.
func trialsWarnings(out string, n int) int {
	return strings.Count(out, fmt.Sprintf("an observation of %d trials: the estimator was trained on observations of 1–5 trials", n))
}

// trialsWarned reports whether out holds a warning about an observation of n trials.
func trialsWarned(out string, n int) bool { return trialsWarnings(out, n) > 0 }

// TestTrialCountOutsideTraining trains estimators with a set embedding on observations of 1
// to 5 trials and asks each for a posterior and for log-densities at 5 trials (seen: no
// warning) and at 40 (within MaxTrials but never seen in training: one warning that names 40
// and the range 1–5, one for the two members of the ensemble too). Before the range was
// recorded, 40 trials gave an answer without a word.
func TestTrialCountOutsideTraining(t *testing.T) {
	ests := trialRangeEstimators(t)
	for _, name := range []string{"npe", "nre", "fmpe", "ensemble"} {
		e := ests[name]
		for _, n := range []int{5, 40} {
			for _, ask := range []struct {
				what string
				call func(x []float64)
			}{
				{"Posterior", func(x []float64) { e.Posterior(x) }},
				{"LogProbPairs", func(x []float64) { e.LogProbPairs(mat.NewDense(1, 1, []float64{0.2}), mat.NewDense(1, len(x), x)) }},
			} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, ask.what, n), func(t *testing.T) {
					buf := captureWarnings(t)
					ask.call(trialRangeObservation(n))
					want := 0
					if n > 5 {
						want = 1
					}
					if got := trialsWarnings(buf.String(), n); got != want {
						t.Errorf("%d warnings about the number of trials, want %d; warnings:\n%s", got, want, buf)
					}
				})
			}
		}
	}
}

// TestTrialRangeFiles checks that an estimator file keeps the range of trials: saved and
// loaded, each kind warns at 40 trials as the trained estimator does, and saves again to the
// same bytes. testdata/v2/npe-deepset.gosbi and testdata/v3/npe-deepset.gosbi hold the NPE of
// trialRangePairs (NPEConfig{Hidden: 8, Transforms: 1}, 2 epochs, seed 3), written by the build
// before ranges were stored and by the first that stores them: the old file loads with the
// range unknown and asks at 40 trials without a new word, the new one with the range 1–5, and
// both give the same log-densities to the bit.
func TestTrialRangeFiles(t *testing.T) {
	for name, e := range trialRangeEstimators(t) {
		t.Run(name, func(t *testing.T) {
			var file bytes.Buffer
			if err := e.Save(&file); err != nil {
				t.Fatal(err)
			}
			back, err := Load(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			buf := captureWarnings(t)
			back.Posterior(trialRangeObservation(40))
			if !trialsWarned(buf.String(), 40) {
				t.Errorf("loaded: no warning at 40 trials naming the range 1–5; warnings:\n%s", buf)
			}
			var again bytes.Buffer
			if err := back.Save(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), file.Bytes()) {
				t.Errorf("saved again: the file changed (%d bytes, %d before)", again.Len(), file.Len())
			}
		})
	}
	x40 := mat.NewDense(1, 41, trialRangeObservation(40))
	theta := mat.NewDense(1, 1, []float64{0.2})
	old, err := LoadNPE(bytes.NewReader(savedFile(t, 2, "npe-deepset")), nil)
	if err != nil {
		t.Fatal(err)
	}
	current, err := LoadNPE(bytes.NewReader(savedFile(t, 3, "npe-deepset")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := old.logProbPairs(theta, x40, false), current.logProbPairs(theta, x40, false); a[0] != b[0] {
		t.Errorf("the files of formats 2 and 3 give log-densities %v and %v, expected the same", a[0], b[0])
	}
	if got := current.trials; got == nil || *got != (trialRange{Min: 1, Max: 5}) {
		t.Errorf("the file of format 3: range %v, want 1–5", got)
	}
	buf := captureWarnings(t)
	old.Posterior(trialRangeObservation(40))
	old.LogProbPairs(theta, x40)
	if strings.Contains(buf.String(), "trials") {
		t.Errorf("a file of format 2, without a range, warned about the number of trials:\n%s", buf)
	}
	current.Posterior(trialRangeObservation(40))
	if !trialsWarned(buf.String(), 40) {
		t.Errorf("the file of format 3: no warning at 40 trials naming the range 1–5; warnings:\n%s", buf)
	}
}

// TestTrialRangeBadFiles forges headers whose range of trials no training can have written
// (empty, below 1, beyond MaxTrials, or in a file of format 2, which had none): each must be
// refused with an error that says the header is damaged.
func TestTrialRangeBadFiles(t *testing.T) {
	prior, theta, x := trialRangePairs()
	e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
	e.MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: 3})
	var file bytes.Buffer
	if err := e.Save(&file); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		version uint32
		trials  any
	}{
		{"min above max", 3, map[string]any{"min": 5, "max": 1}},
		{"min 0", 3, map[string]any{"min": 0, "max": 5}},
		{"max beyond MaxTrials", 3, map[string]any{"min": 1, "max": 41}},
		{"in format 2", 2, map[string]any{"min": 1, "max": 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), file.Bytes()...)
			binary.LittleEndian.PutUint32(b[8:], tc.version)
			b = forge(t, b, func(h map[string]any) {
				h["trials"] = tc.trials
				delete(h, "constant_theta") // of format 5 only
			})
			_, err := Load(bytes.NewReader(b))
			if err == nil || !strings.Contains(err.Error(), "damaged header") || !strings.Contains(err.Error(), "trials") {
				t.Errorf("error %v, expected one saying the header's range of trials is damaged", err)
			}
		})
	}
	t.Run("not a set", func(t *testing.T) {
		b := forge(t, savedFile(t, 2, "npe-nsf"), func(h map[string]any) { h["trials"] = map[string]any{"min": 1, "max": 5} })
		binary.LittleEndian.PutUint32(b[8:], 3)
		b = forge(t, b, func(map[string]any) {})
		if _, err := Load(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "trials") {
			t.Errorf("error %v, expected one saying an estimator without a set embedding has no range of trials", err)
		}
	})
}

// TestTrialRangeTraining checks what the range covers: the training split of Train (its
// validation rows, which the network is not fitted to, do not widen it), the union with the
// range before under Resume, and the training source of TrainStream.
func TestTrialRangeTraining(t *testing.T) {
	prior, theta, x := trialRangePairs()
	n, _ := theta.Dims()
	// validation rows of 20 trials, which training does not fit
	vx := mat.DenseCopyOf(x.Slice(0, 10, 0, 41))
	for i := 0; i < 10; i++ {
		vx.Set(i, 0, 20)
	}
	e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
	e.MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: 3, ValTheta: mat.DenseCopyOf(theta.Slice(0, 10, 0, 1)), ValX: vx})
	if got, want := e.trials, (&trialRange{Min: 1, Max: 5}); got == nil || *got != *want {
		t.Errorf("Train with validation rows of 20 trials: range %v, want %v", got, want)
	}
	more := mat.DenseCopyOf(x)
	for i := 0; i < n; i++ {
		more.Set(i, 0, 3) // every set holds 3 trials
	}
	e.MustTrain(theta, more, TrainConfig{Epochs: 1, Seed: 3, Resume: true})
	if got, want := e.trials, (&trialRange{Min: 1, Max: 5}); got == nil || *got != *want {
		t.Errorf("Resume on sets of 3 trials: range %v, want the union %v", got, want)
	}
	e.MustTrain(theta, more, TrainConfig{Epochs: 1, Seed: 3})
	if got, want := e.trials, (&trialRange{Min: 3, Max: 3}); got == nil || *got != *want {
		t.Errorf("fresh Train on sets of 3 trials: range %v, want %v", got, want)
	}
	s := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
	if _, err := s.TrainStream(storeOf(t, theta, x, 64), nil, TrainConfig{Epochs: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if got, want := s.trials, (&trialRange{Min: 1, Max: 5}); got == nil || *got != *want {
		t.Errorf("TrainStream: range %v, want %v", got, want)
	}
}

// TestSeenTrialsAllocatesOnce: the range of the trials of 300 training rows, 1–5, is found
// with one allocation, that of the range returned, not one per row.
func TestSeenTrialsAllocatesOnce(t *testing.T) {
	_, theta, x := trialRangePairs()
	n, _ := theta.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	var tc TrialCounter = trialRangeEmbedding // boxed once, outside the count
	var r *trialRange
	var err error
	allocs := testing.AllocsPerRun(10, func() { r, err = seenTrials(tc, x, idx) })
	if err != nil || r == nil || *r != (trialRange{Min: 1, Max: 5}) {
		t.Fatalf("range %v (error %v), want 1–5", r, err)
	}
	if allocs > 1 {
		t.Errorf("%v allocations for %d rows, want 1", allocs, n)
	}
}

// TestTrialWarningNamesMethod: at an observation of 40 trials, LogRatio and LogProbPairs of an
// NRE and of an NRE ensemble each warn with their own name, though LogProbPairs computes the
// ratio LogRatio does.
func TestTrialWarningNamesMethod(t *testing.T) {
	prior, theta, x := trialRangePairs()
	nre := func() *NRE {
		return NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: trialRangeEmbedding, Sampler: SamplerConfig{Method: SamplerImportance}})
	}
	one, a, b := nre(), nre(), nre()
	for _, e := range []*NRE{one, a, b} {
		e.MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: 3})
	}
	ens, err := NewNREEnsemble(a, b)
	if err != nil {
		t.Fatal(err)
	}
	obs := trialRangeObservation(40)
	th, xs := mat.NewDense(1, 1, []float64{0.2}), mat.NewDense(1, len(obs), obs)
	for _, c := range []struct {
		name string
		call func(theta, x *mat.Dense) []float64
	}{
		{"NRE/LogRatio", one.LogRatio},
		{"NRE/LogProbPairs", one.LogProbPairs},
		{"NREEnsemble/LogRatio", ens.LogRatio},
		{"NREEnsemble/LogProbPairs", ens.LogProbPairs},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := captureWarnings(t)
			c.call(th, xs)
			method := c.name[strings.Index(c.name, "/")+1:]
			if want := method + " at an observation of 40 trials"; trialsWarnings(buf.String(), 40) != 1 || !strings.Contains(buf.String(), want) {
				t.Errorf("want one warning naming %q; warnings:\n%s", want, buf)
			}
		})
	}
}

// TestEnsembleTrialWarningOnce: an ensemble of 3 members asked at an observation of 40 trials
// (trained on 1–5) warns once per call, under the ensemble's name, for each call in turn:
// Posterior, then LogProbPairs at the same observation, of an NPE ensemble and of an NRE
// ensemble (LogRatio too). Before, each member warned under its own name and a gate that
// remembered the last observation for one second hid the repeats, and with them the warning of
// the next call at the same observation.
func TestEnsembleTrialWarningOnce(t *testing.T) {
	prior, theta, x := trialRangePairs()
	npes := make([]*NPE, 3)
	nres := make([]*NRE, 3)
	for k := range 3 {
		npes[k] = NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1, Embedding: trialRangeEmbedding})
		npes[k].MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: uint64(3 + k)})
		nres[k] = NewNRE(prior, NREConfig{Hidden: []int{8}, Embedding: trialRangeEmbedding, Sampler: SamplerConfig{Method: SamplerImportance}})
		nres[k].MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: uint64(3 + k)})
	}
	npe := MustNewNPEEnsemble(npes...)
	nre := MustNewNREEnsemble(nres...)
	obs := trialRangeObservation(40)
	th, xs := mat.NewDense(1, 1, []float64{0.2}), mat.NewDense(1, len(obs), obs)
	for _, c := range []struct {
		name string
		call func()
	}{
		{"NPE ensemble of 3 posterior", func() { npe.Posterior(obs) }},
		{"NPE ensemble of 3 LogProbPairs", func() { npe.LogProbPairs(th, xs) }},
		{"NRE ensemble of 3 posterior", func() { nre.Posterior(obs) }},
		{"NRE ensemble of 3 LogProbPairs", func() { nre.LogProbPairs(th, xs) }},
		{"NRE ensemble of 3 LogRatio", func() { nre.LogRatio(th, xs) }},
	} {
		buf := captureWarnings(t) // also resets the limit of warnBurst warnings per kind
		c.call()
		if want := c.name + " at an observation of 40 trials"; trialsWarnings(buf.String(), 40) != 1 || !strings.Contains(buf.String(), want) {
			t.Errorf("%s: want one warning naming %q; warnings:\n%s", c.name, want, buf)
		}
	}
}
