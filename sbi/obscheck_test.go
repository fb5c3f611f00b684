package sbi

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// TestObservationCheck trains an NPE and an NRE on θ ~ N(0, I₂), x = θ + 0.5ε and checks the
// reservoir test at posterior formation.
//
// Level: 400 fresh simulations reach the smallest p-value 1/(m+1) (m = 200 validation
// simulations calibrate it: expected 2 of 400) at most 2 + 3 binomial SE (√(400·0.005) = 1.4),
// so 6 times, and none is far outside (the mass ratio is far from 1/100 for Gaussian x).
// Power: an observation 6 SD of the simulations away (a contaminated observation: x = (6, −6)
// where x has SD √1.25 ≈ 1.1 per coordinate) is far outside for both and warns once each.
func TestObservationCheck(t *testing.T) {
	warn := captureWarnings(t)
	rng := rand.New(rand.NewPCG(21, 22))
	prior, theta, x := gaussianPairs(rng, 2000)
	npe := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2})
	nre := NewNRE(prior, NREConfig{Hidden: []int{16}})
	for _, e := range []interface {
		Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	}{npe, nre} {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 3, Seed: 1}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, xs := gaussianPairs(rng, 400)
	for name, check := range map[string]func([]float64) (*ObservationCheck, error){"NPE": npe.CheckObservation, "NRE": nre.CheckObservation} {
		outside, minimal := 0, 0
		for i := range 400 {
			c, err := check(xs.RawRowView(i))
			if err != nil {
				t.Fatal(err)
			}
			if c.Reference != 500 || c.Calibration != 200 {
				t.Fatalf("%s: %d reference and %d calibration summaries, want 500 (of 1800 training rows) and 200 (validation)", name, c.Reference, c.Calibration)
			}
			if c.Outside {
				outside++
			}
			if c.PValue == 1.0/201 {
				minimal++
			}
		}
		if minimal > 6 || outside != 0 {
			t.Errorf("%s: of 400 fresh simulations %d at the smallest p-value (want ≤ 6), %d far outside (want 0)", name, minimal, outside)
		}
		c, err := check([]float64{6, -6})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Outside || c.PValue != 1.0/201 || !strings.HasPrefix(c.Verdict(), "far outside the training simulations") {
			t.Errorf("%s: contaminated observation: %s", name, c)
		}
	}
	if warn.Len() != 0 {
		t.Fatalf("CheckObservation printed %q; only forming a posterior warns", warn.String())
	}
	npe.Posterior([]float64{6, -6})
	nre.Posterior([]float64{-6, 6})
	npe.Posterior([]float64{0.1, 0.2})
	got := warn.String()
	for _, want := range []string{"sbi: warning: NPE (maf) posterior at an observation far outside the training simulations",
		"sbi: warning: NRE posterior at an observation far outside the training simulations", "extrapolation"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "sbi: warning:"); n != 2 {
		t.Errorf("%d warnings, want 2 (the observation inside warns not):\n%s", n, got)
	}

	// A loaded estimator keeps no reservoir and says so.
	var buf bytes.Buffer
	if err := npe.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadNPE(&buf, prior)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.CheckObservation([]float64{0, 0}); !errors.Is(err, errNoReservoir) {
		t.Errorf("loaded NPE: error %v, want the no-reservoir error", err)
	}
}

// TestSummariesMatchContext: Summaries is standardized x without an embedding.
func TestSummariesMatchContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewNRE(prior, NREConfig{Hidden: []int{8}})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	s := e.Summaries(x)
	for i := range 300 {
		for j := range 2 {
			if want := (x.At(i, j) - e.zx.Mean[j]) / e.zx.Std[j]; math.Abs(s.At(i, j)-want) > 1e-12 {
				t.Fatalf("summary (%d, %d) = %v, want %v", i, j, s.At(i, j), want)
			}
		}
	}
}

// TestNPEToBase: mapping flow draws back to the base space returns the base points, in
// float64 to rounding; the z of joint pairs of a trained conjugate-Gaussian NPE have about
// zero mean and unit variance.
func TestNPEToBase(t *testing.T) {
	captureWarnings(t)
	rng := rand.New(rand.NewPCG(5, 6))
	prior, theta, x := gaussianPairs(rng, 2000)
	e := NewNPE(prior, NPEConfig{Hidden: 32, Transforms: 2})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 20, BatchSize: 100, LearningRate: 3e-3, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	// Round trip: z → θ by the flow's inverse (float64), θ → z by ToBase.
	const n = 200
	xs := mat.NewDense(n, 2, nil)
	for i := range n {
		xs.SetRow(i, x.RawRowView(i))
	}
	z := mat.NewDense(n, 2, nil)
	for i := range n {
		z.Set(i, 0, rng.NormFloat64())
		z.Set(i, 1, rng.NormFloat64())
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	ctx := e.context(tp, xs)
	th, _ := e.fl.Inverse(tp, tp.Const(n, 2, z.RawMatrix().Data), ctx)
	theta2 := mat.NewDense(n, 2, append([]float64(nil), th.Data...))
	for i := range n {
		e.zt.invertRow(theta2.RawRowView(i))
	}
	back := e.ToBase(theta2, xs)
	for i := range n {
		for j := range 2 {
			if d := math.Abs(back.At(i, j) - z.At(i, j)); d > 1e-8 {
				t.Fatalf("row %d: ToBase(T(z)) = %v, z = %v", i, back.RawRowView(i), z.RawRowView(i))
			}
		}
	}
	// Joint pairs map to about N(0, I): 2000 pairs, 4 SE of the mean (0.09) and of the SD (0.063)
	// plus 10% for the estimation error of an NPE trained on 2000 simulations.
	zs := e.ToBase(theta, x)
	for j := range 2 {
		m, s := meanStd(zs, j)
		if math.Abs(m) > 0.09+0.1 || math.Abs(s-1) > 0.063+0.1 {
			t.Errorf("z%d of joint pairs: mean %.3f, SD %.3f, want ≈ 0 and 1", j, m, s)
		}
	}
}

// TestOutsideWarningEachCall: forming a posterior at an observation far outside the training
// simulations warns once per call, the second call at the same observation too, and an
// ensemble of 3 members warns once per call under its own name rather than once per member.
// Before, a gate that remembered the last observation warned about for one second hid the
// second call's warning, and an ensemble warned under its first member's name.
func TestOutsideWarningEachCall(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	prior, theta, x := gaussianPairs(rng, 600)
	npes := make([]*NPE, 3)
	nres := make([]*NRE, 3)
	for k := range 3 {
		npes[k] = NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
		npes[k].MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: uint64(1 + k)})
		nres[k] = NewNRE(prior, NREConfig{Hidden: []int{8}})
		nres[k].MustTrain(theta, x, TrainConfig{Epochs: 1, Seed: uint64(1 + k)})
	}
	npe := MustNewNPEEnsemble(npes...)
	nre := MustNewNREEnsemble(nres...)
	obs := []float64{6, -6}
	for _, c := range []struct {
		name string
		call func()
	}{
		{"NPE (maf) posterior", func() { npes[0].Posterior(obs) }},
		{"NRE posterior", func() { nres[0].Posterior(obs) }},
		{"NPE ensemble of 3 posterior", func() { npe.Posterior(obs) }},
		{"NRE ensemble of 3 posterior", func() { nre.Posterior(obs) }},
	} {
		buf := captureWarnings(t) // also resets the limit of warnBurst warnings per kind
		for call := 1; call <= 2; call++ {
			before := buf.Len()
			c.call()
			got := buf.String()[before:]
			want := "sbi: warning: " + c.name + " at an observation far outside the training simulations"
			if strings.Count(got, "sbi: warning:") != 1 || !strings.Contains(got, want) {
				t.Errorf("%s, call %d: want one warning %q; warnings:\n%s", c.name, call, want, got)
			}
		}
	}
}
