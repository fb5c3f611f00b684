package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// TestFMPEValidationNoiseFixed: the validation loss of the same weights is the same at every
// evaluation (each validation pair draws the same t and ε), so that epochs are compared by
// their weights alone, while training batches draw afresh at every step.
func TestFMPEValidationNoiseFixed(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(1, 2)), 400)
	e := NewFMPE(prior, FMPEConfig{Hidden: 16, Layers: 2})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	m := (*fmpeModel)(e)
	d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
	rows := make([]int, 100)
	for i := range rows {
		rows[i] = 3 * i
	}
	a, _, err := evalLoss(m, d, rows, 50, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := evalLoss(m, d, rows, 30, nil, 1) // other batches, the same pairs
	if math.Abs(a-b) > 1e-12*math.Abs(a) {
		t.Errorf("validation loss %v, then %v for the same weights and pairs", a, b)
	}
	tp := nn.NewTape()
	l1 := m.batchLoss(tp, d, rows, nil).Item()
	tp.Reset()
	l2 := m.batchLoss(tp, d, rows, nil).Item()
	if l1 == l2 {
		t.Errorf("two training losses of the same batch are both %v: training must draw fresh t and ε", l1)
	}
}

// TestFMPEStepAllocatesNothing: a training step of the default field (ELU) allocates nothing
// once the tape's buffers are sized.
func TestFMPEStepAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 600)
	e := NewFMPE(prior, FMPEConfig{})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
		t.Fatal(err)
	}
	m := (*fmpeModel)(e)
	d := &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
	st := step{tp: nn.NewTape(), m: m, d: d, rng: rng, opt: nn.NewAdam(m.params(), 5e-4), clip: 5}
	perm := rng.Perm(600)
	i := 0
	run := func() {
		lo := (i * 128) % (600 - 128)
		i++
		if _, _, _, err := st.run(perm[lo : lo+128]); err != nil {
			t.Fatal(err)
		}
	}
	run() // sizes the tape's buffers
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Errorf("an FMPE training step allocates %v times, expected none", n)
	}
}

// BenchmarkFMPEStep is the step of sbi's default FMPE field (MLP of 5×64 with ELU, 3 time
// frequencies), batch 128 of two_moons-shaped pairs (2 parameters, 2 data values).
func BenchmarkFMPEStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewFMPE(prior, FMPEConfig{})
	benchStep(b, (*fmpeModel)(e), func() error { _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); return err })
}

// benchField sets the weights of the field to a fixed pattern, the same as the PyTorch twin
// (torch_reference.py, fixed_field): w_ij = 2·sin(1 + 1.3 i + 0.7 j + 0.5 l)/√fan-in and
// b_j = 0.1·cos(1 + 0.9 j + 0.5 l) for layer l, so that both integrate the same ODE and take the
// same steps. The standardization is the identity.
func benchField(e *FMPE) {
	ps := e.field.Params() // W₀, b₀, W₁, b₁, …: W is fan-in × fan-out
	for l := 0; 2*l < len(ps); l++ {
		w, bias := ps[2*l], ps[2*l+1]
		for i := 0; i < w.Rows; i++ {
			for j := 0; j < w.Cols; j++ {
				w.Data[i*w.Cols+j] = 2 * math.Sin(1+1.3*float64(i)+0.7*float64(j)+0.5*float64(l)) / math.Sqrt(float64(w.Rows))
			}
		}
		for j := range bias.Data {
			bias.Data[j] = 0.1 * math.Cos(1+0.9*float64(j)+0.5*float64(l))
		}
	}
	for j := range e.zt.Mean {
		e.zt.Mean[j], e.zt.Std[j] = 0, 1
	}
	for j := range e.zx.Mean {
		e.zx.Mean[j], e.zx.Std[j] = 0, 1
	}
}

// BenchmarkFMPESample10k draws 10,000 posterior samples for one observation from sbi's default
// FMPE field with the fixed weights of benchField (the twin, torch_reference.py's fmpe_sample,
// integrates the same field by the same per-row algorithm), by the adaptive Dormand–Prince
// solver at sbi's tolerances, in chunks of 512 rows on all cores (the normal prior rejects
// nothing: 10,000 ODE solves).
func BenchmarkFMPESample10k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prior, theta, x := gaussianPairs(rng, 300)
	e := NewFMPE(prior, FMPEConfig{})
	if _, err := e.Train(theta, x, TrainConfig{Epochs: 1}); err != nil {
		b.Fatal(err)
	}
	benchField(e)
	post := e.Posterior([]float64{0.5, -0.3})
	r := rand.New(rand.NewPCG(3, 4))
	var draws *mat.Dense
	cputime.Report(b, func() { draws = post.Sample(r, 10000) })
	_ = draws
}

// TestFMPEODEFailureNamesCause: when the field's ODE cannot be integrated, the error of
// sampling and the panic of LogProb say why: non-finite weights (ErrDiverged) only when the
// weights are not finite; with finite weights, the solver's own failure and, for a
// log-density, how far θ lies from the training data.
func TestFMPEODEFailureNamesCause(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(1, 2)), 300)
	train := func() *FMPE {
		e := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 2})
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	lastLayer := func(e *FMPE) []float64 {
		ps := e.field.Params()
		return ps[len(ps)-2].Data // the output layer's weights, then its bias
	}
	for _, c := range []struct {
		name     string
		edit     func(e *FMPE)
		theta    []float64
		sample   bool // whether sampling must fail too
		diverged bool // whether the errors must blame non-finite weights
		want     string
	}{
		{"θ far out", func(*FMPE) {}, []float64{1e300, 0}, false, false, "standardized"},
		{"steep field", func(e *FMPE) {
			for i := range lastLayer(e) {
				lastLayer(e)[i] *= 1e300
			}
		}, []float64{0.1, 0.2}, true, false, "weights are finite"},
		{"NaN weight", func(e *FMPE) { lastLayer(e)[0] = math.NaN() }, []float64{0.1, 0.2}, true, true, "not finite"},
	} {
		e := train()
		c.edit(e)
		p := e.PosteriorAt([]float64{0.3, -0.2})
		msg := func() (s string) {
			defer func() { s = fmt.Sprint(recover()) }()
			p.LogProb(mat.NewDense(1, 2, c.theta))
			return "no panic"
		}()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "not finite") != c.diverged {
			t.Errorf("%s: LogProb panicked with %q, expected a message containing %q that blames non-finite weights only when they are not (%v)", c.name, msg, c.want, c.diverged)
		}
		if !c.sample {
			continue
		}
		_, err := p.SampleContext(context.Background(), rand.New(rand.NewPCG(3, 4)), 4)
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrDiverged) != c.diverged {
			t.Errorf("%s: SampleContext: %v, expected an error containing %q, wrapping ErrDiverged only when the weights are not finite (%v)", c.name, err, c.want, c.diverged)
		}
	}
}

// TestFMPERoundSizeBounded: a round of FMPE sampling holds at most maxSampleValues values
// (the bound of one call's result), whatever the dimension and the acceptance rate, and
// still draws what is missing when the acceptance is high.
func TestFMPERoundSizeBounded(t *testing.T) {
	for _, c := range []struct{ missing, proposed, accepted, dim int }{
		{60_000, 0, 0, 1000},
		{60_000, 60_000, 3_000, 1000},
		{60, 10_000, 10, 1 << 20},
		{50_000, 100_000, 1_000, 64},
		{10, 10, 10, 2},
	} {
		m := fmpeRoundSize(c.missing, c.proposed, c.accepted, c.dim)
		if m < 1 || m*c.dim > max(maxSampleValues, c.dim) {
			t.Errorf("%+v: a round of %d draws of %d values, expected at least 1 and at most %d values", c, m, c.dim, maxSampleValues)
		}
		if c.proposed == c.accepted && m < c.missing {
			t.Errorf("%+v: a round of %d draws when every draw is accepted, expected the %d missing", c, m, c.missing)
		}
	}
}

// TestNPERoundSizeBounded: a round of NPE's rejection sampling holds at most maxSampleValues
// values whatever the dimension and the acceptance rate (2²⁰ draws of 1,000 parameters were
// 8 GB), and its size is unchanged where that bound does not bind (up to 64 parameters).
func TestNPERoundSizeBounded(t *testing.T) {
	for _, c := range []struct{ missing, proposed, accepted, dim int }{
		{60_000, 0, 0, 1000},
		{60_000, 600_000, 3_000, 1000},
		{60, 10_000, 10, 1 << 20},
		{10, 10, 10, 2},
	} {
		m := roundSize(c.missing, c.proposed, c.accepted, c.dim)
		if m < 1 || m*c.dim > max(maxSampleValues, c.dim) {
			t.Errorf("%+v: a round of %d draws of %d values, expected at least 1 and at most %d values", c, m, c.dim, maxSampleValues)
		}
	}
	for _, c := range []struct{ missing, proposed, accepted, dim, want int }{
		{1000, 0, 0, 64, 1101},
		{50_000, 100_000, 1_000, 64, 1 << 20},
		{100, 1000, 499, 2, 221},
	} {
		if m := roundSize(c.missing, c.proposed, c.accepted, c.dim); m != c.want {
			t.Errorf("%+v: a round of %d draws, want %d as before the bound", c, m, c.want)
		}
	}
}
