package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"github.com/gosbi/gosbi/sbi/task"
)

// The conservative penalty re-evaluates with gradients only the pairs whose rank can receive
// a gradient. Its value and gradient equal those of recording every pair, to rounding, for
// estimators that are over-confident for some pairs and not for others, with and without the
// pairs' own log densities from the estimator, and with pairs whose draws all have zero density.
func TestCoverageSparseEqualsRecordAll(t *testing.T) {
	const n, L = 48, 8
	theta, x := simulate(rand.New(rand.NewPCG(8, 8)), n)
	box := dist.NewUniformCube(-1.2, 1.2, gDim) // some pairs get no draw with q > 0 below
	cases := []struct {
		name  string
		widen float64
		pair  bool
		cfg   CoverageRegularizerConfig
	}{
		{"narrow", 0.4, false, CoverageRegularizerConfig{}},
		{"slightly narrow", 0.8, false, CoverageRegularizerConfig{}},
		{"wide", 1.6, false, CoverageRegularizerConfig{}},
		{"pair log densities", 0.6, true, CoverageRegularizerConfig{}},
		{"ecdf quantiles", 0.6, false, CoverageRegularizerConfig{Quantiles: QuantilesECDF}},
		{"log-space STE", 0.6, false, CoverageRegularizerConfig{STE: STELog}},
		{"STE window", 0.6, true, CoverageRegularizerConfig{STE: STELog, STEWindow: 0.5}},
		{"zero-density draws", 0.6, false, CoverageRegularizerConfig{Proposal: box}},
		{"infinite density", 0.6, false, CoverageRegularizerConfig{}},
	}
	partial := 0
	for _, c := range cases {
		g := exactGauss(c.widen)
		run := func(recordAll bool) ([]float64, float64) {
			cfg := c.cfg
			cfg.Lambda, cfg.Samples = 3, L
			reg := NewCoverageRegularizer(cfg)
			reg.recordAll = recordAll
			reg.trace = func(active, pairs int) {
				if active > 0 && active < pairs {
					partial++
				}
			}
			tp := nn.NewTape()
			g.zeroGrad()
			b := gaussBatch(tp, g, theta, x, 5)
			if c.pair {
				rows := make([]int, n)
				for i := range rows {
					rows[i] = i
				}
				b.PairLogPost = b.LogPost(theta, rows)
			}
			if c.name == "zero-density draws" { // posterior supported on [−1, 1]² only
				inner := b.LogPost
				b.LogPost = func(th *mat.Dense, rows []int) *nn.Tensor {
					lq := inner(th, rows)
					out := tp.New(lq.Rows, 1)
					for k := range out.Data {
						if r := th.RawRowView(k); math.Abs(r[0]) > 1 || math.Abs(r[1]) > 1 {
							out.Data[k] = math.Inf(-1)
						}
					}
					return tp.Add(lq, out)
				}
			}
			if c.name == "infinite density" { // the draws of the last pair have q = +Inf: NaN rank
				inner := b.LogPost
				b.LogPost = func(th *mat.Dense, rows []int) *nn.Tensor {
					lq := inner(th, rows)
					out := tp.New(lq.Rows, 1)
					for k, r := range rows {
						if r == n-1 && !mat.Equal(th.Slice(k, k+1, 0, gDim), theta.Slice(r, r+1, 0, gDim)) {
							out.Data[k] = math.Inf(1)
						}
					}
					return tp.Add(lq, out)
				}
			}
			return backward(t, g, reg, b)
		}
		sparse, ps := run(false)
		dense, pd := run(true)
		if c.name == "infinite density" {
			nan := false
			for _, v := range sparse {
				nan = nan || math.IsNaN(v)
			}
			if !math.IsNaN(ps) || !math.IsNaN(pd) || !nan {
				t.Errorf("%s: penalty %v (recording every pair %v), NaN gradient %v: want NaN penalties and gradient so that the step is skipped", c.name, ps, pd, nan)
			}
			continue
		}
		if math.Abs(ps-pd) > 1e-12*math.Max(1, pd) {
			t.Errorf("%s: penalty %.17g, recording every pair %.17g", c.name, ps, pd)
		}
		nonzero := false
		for k := range dense {
			nonzero = nonzero || dense[k] != 0
			if math.Abs(sparse[k]-dense[k]) > 1e-12*math.Max(1, math.Abs(dense[k])) {
				t.Errorf("%s: gradient %d is %.17g, recording every pair %.17g", c.name, k, sparse[k], dense[k])
			}
		}
		if !nonzero && c.widen < 1 {
			t.Errorf("%s: zero gradient: the case tests nothing", c.name)
		}
	}
	if partial < 3 {
		t.Errorf("%d cases had some but not all pairs active, want ≥ 3 so that skipping pairs is tested", partial)
	}
}

// diffProbe is a regularizer whose penalty is the conservative coverage penalty minus the same
// penalty with every pair recorded, on the same draws: its value and its gradient are zero to
// rounding, so training with it must give the weights of training without a regularizer.
type diffProbe struct {
	sparse, dense *CoverageRegularizer
	steps         int
	partial       int
}

func newDiffProbe(L int) *diffProbe {
	cfg := CoverageRegularizerConfig{Lambda: 5, Samples: L}
	p := &diffProbe{sparse: NewCoverageRegularizer(cfg), dense: NewCoverageRegularizer(cfg)}
	p.dense.recordAll = true
	p.sparse.trace = func(active, pairs int) {
		if active > 0 && active < pairs {
			p.partial++
		}
	}
	return p
}

func (p *diffProbe) Name() string { return "probe" }

func (p *diffProbe) Penalty(b *sbi.RegBatch) (*nn.Tensor, error) {
	p.steps++
	// both draw from their own stream: the trainer's stream stays that of unregularized training
	bs, bd := *b, *b
	bs.Rng, bd.Rng = rand.New(rand.NewPCG(uint64(p.steps), 9)), rand.New(rand.NewPCG(uint64(p.steps), 9))
	s, err := p.sparse.Penalty(&bs)
	if err != nil {
		return nil, err
	}
	d, err := p.dense.Penalty(&bd)
	if err != nil {
		return nil, err
	}
	return b.Tape.Sub(s, d), nil
}

// Through real estimators (NRE, whose regularizer batch carries the pairs' own log densities,
// and NPE with an embedding, which does not), re-evaluating only the active pairs gives the
// gradient of recording all of them: training with their difference as the regularizer ends
// at the weights of plain training (to 1e-9 in log density over 3 epochs of 8 steps).
func TestCoverageSparseThroughEstimators(t *testing.T) {
	tk, err := task.Get("two_moons")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	theta := tk.Prior().Sample(rng, 1024)
	x := tk.Simulate(rng, theta)
	thetaTest := tk.Prior().Sample(rng, 200)
	xTest := tk.Simulate(rng, thetaTest)
	type estimator interface {
		Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error)
		LogProbPairs(theta, x *mat.Dense) []float64
	}
	builders := map[string]func() estimator{
		"NRE": func() estimator { return sbi.NewNRE(tk.Prior(), sbi.NREConfig{Hidden: []int{32, 32}}) },
		"NPE": func() estimator {
			return sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Transforms: 2, Hidden: 32, Activation: "relu",
				Embedding: sbi.MLPEmbedding{Hidden: []int{16}, Out: 4}})
		},
	}
	for name, build := range builders {
		cfg := sbi.TrainConfig{Epochs: 3, BatchSize: 128, LearningRate: 3e-3, ValidationFraction: -1, Seed: 2}
		plain := build()
		if _, err := plain.Train(theta, x, cfg); err != nil {
			t.Fatal(err)
		}
		probe := newDiffProbe(8)
		cfg.Regularizer = probe
		probed := build()
		res, err := probed.Train(theta, x, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for e, v := range res.RegTerm {
			if math.Abs(v) > 1e-12 {
				t.Errorf("%s: epoch %d: penalty difference %.3g, want 0 to rounding", name, e+1, v)
			}
		}
		a, b := plain.LogProbPairs(thetaTest, xTest), probed.LogProbPairs(thetaTest, xTest)
		worst := 0.0
		for i := range a {
			if !math.IsInf(a[i], -1) || !math.IsInf(b[i], -1) {
				worst = max(worst, math.Abs(a[i]-b[i]))
			}
		}
		if !(worst <= 1e-9) {
			t.Errorf("%s: log densities after training differ by up to %.3g from plain training, want ≤ 1e-9", name, worst)
		}
		if probe.partial == 0 {
			t.Errorf("%s: no step had some but not all pairs active (%d steps): the case does not test skipping pairs", name, probe.steps)
		}
		t.Logf("%s: %d of %d steps with some but not all pairs active; largest log-density difference %.3g", name, probe.partial, probe.steps, worst)
	}
}
