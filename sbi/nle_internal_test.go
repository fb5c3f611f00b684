package sbi

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// likelihoodEstimators returns briefly trained NLEs (MAF, NSF) and MNLEs (with and without the
// log transform) with their training views and, for each, its training data in the units of
// trainData (x transformed as the estimator trains on it) and raw x.
func likelihoodEstimators(t *testing.T) (map[string]model, map[string]Amortized, map[string]*trainData, map[string]*mat.Dense) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, x := gaussianPairs(rng, 400)
	// Mixed data: a positive continuous column exp(θ₀ + 0.3ε) and a choice with P(1) = σ(θ₁).
	mixed := mat.NewDense(400, 2, nil)
	for i := 0; i < 400; i++ {
		mixed.Set(i, 0, math.Exp(theta.At(i, 0)+0.3*rng.NormFloat64()))
		if rng.Float64() < 1/(1+math.Exp(-theta.At(i, 1))) {
			mixed.Set(i, 1, 1)
		}
	}
	ests := map[string]Amortized{
		"nle-maf":  NewNLE(prior, NLEConfig{Hidden: 16, Transforms: 2}),
		"nle-nsf":  NewNLE(prior, NLEConfig{Flow: "nsf", Hidden: 16, Transforms: 2, Bins: 4}),
		"mnle":     NewMNLE(prior, MNLEConfig{Hidden: 16}),
		"mnle-log": NewMNLE(prior, MNLEConfig{Hidden: 16, LogTransform: true}),
	}
	models, data, raw := map[string]model{}, map[string]*trainData{}, map[string]*mat.Dense{}
	for name, e := range ests {
		cfg := TrainConfig{Epochs: 2, Seed: 1}
		switch e := e.(type) {
		case *NLE:
			if _, err := e.Train(theta, x, cfg); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			models[name], raw[name] = (*nleModel)(e), x
			data[name] = &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
		case *MNLE:
			if _, err := e.Train(theta, mixed, cfg); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			xt := e.transformed(mixed)
			models[name], raw[name] = (*mnleModel)(e), mixed
			data[name] = &trainData{theta: theta, x: xt, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(xt)}
		}
	}
	return models, ests, data, raw
}

// TestLikelihoodLogPost checks that what NLE and MNLE give a regularizer is their own
// unnormalized posterior log-density, log p(θ) + log q(x | θ) in raw units (Jacobians of the
// standardization and of the log transform included), as LogProbPairs computes it: LogPost in
// both gather paths and PairLogPost for the batch's pairs, within float32 rounding (see
// TestLogPostMatchesLogProbPairs); and that they set no classifier logits (balancing refuses).
func TestLikelihoodLogPost(t *testing.T) {
	const tol = 1e-5
	models, ests, data, raw := likelihoodEstimators(t)
	idx := []int{5, 17, 42, 99, 123, 7}
	for name, m := range models {
		d := data[name]
		for _, shuffled := range []bool{false, true} {
			tp := nn.NewTape()
			rb := &RegBatch{Tape: tp, Rng: rand.New(rand.NewPCG(9, 9))}
			m.batchLoss(tp, d, idx, rb)
			const L = 3
			draws := rb.Prior.Sample(rb.Rng, len(idx)*L)
			rows := make([]int, len(idx)*L)
			for j := range rows {
				rows[j] = j / L
			}
			if shuffled {
				rb.Rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			}
			got := rb.LogPost(draws, rows)
			_, c := raw[name].Dims()
			xs := mat.NewDense(len(rows), c, nil)
			for j, r := range rows {
				xs.SetRow(j, raw[name].RawRowView(idx[r]))
			}
			want := ests[name].LogProbPairs(draws, xs)
			for j := range want {
				if math.Abs(got.Data[j]-want[j]) > tol*math.Max(1, math.Abs(want[j])) {
					t.Fatalf("%s (shuffled %v): LogPost[%d] = %v, LogProbPairs = %v", name, shuffled, j, got.Data[j], want[j])
				}
			}
			own := ests[name].LogProbPairs(rowsOf(d.theta, idx), rowsOf(raw[name], idx))
			for i := range own {
				if math.Abs(rb.PairLogPost.Data[i]-own[i]) > tol*math.Max(1, math.Abs(own[i])) {
					t.Fatalf("%s: PairLogPost[%d] = %v, LogProbPairs = %v", name, i, rb.PairLogPost.Data[i], own[i])
				}
			}
			if rb.JointLogits != nil || rb.MarginalLogits != nil {
				t.Errorf("%s: classifier logits set", name)
			}
		}
	}
}

// TestLikelihoodPenaltyGradient checks the gradient that a LogPost-based penalty sends into
// every parameter of NLE and MNLE against central finite differences.
func TestLikelihoodPenaltyGradient(t *testing.T) {
	models, _, data, _ := likelihoodEstimators(t)
	for name, m := range models {
		checkPenaltyGradient(t, name, m, data[name], meanLogPost{lambda: 1, L: 2, shuffled: true})
	}
}

// TestLikelihoodStepAllocatesNothing checks that a training step of NLE (MAF with tanh, NSF)
// and of MNLE allocates nothing once the tape's buffers are sized, as NPE's and NRE's steps.
func TestLikelihoodStepAllocatesNothing(t *testing.T) {
	models, _, data, _ := likelihoodEstimators(t)
	for name, m := range models {
		rng := rand.New(rand.NewPCG(1, 2))
		st := step{tp: nn.NewTape(), m: m, d: data[name], rng: rng, opt: nn.NewAdam(m.params(), 5e-4), clip: 5}
		idx := make([]int, 64)
		run := func() {
			for k := range idx {
				idx[k] = rng.IntN(400)
			}
			if _, _, _, err := st.run(idx); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(10, run); n != 0 {
			t.Errorf("%s: a steady-state training step allocates %v times", name, n)
		}
	}
}

// TestLikelihoodFileBounds checks what loading refuses in the headers of NLE and MNLE files:
// widths and category counts beyond what the weights section holds (before anything is
// built), settings out of range, an embedding in an MNLE file (which MNLE does not have) or one of θ in
// an NLE file without its weights, no stored categories.
// And that the weights counted from a configuration are exactly those built.
func TestLikelihoodFileBounds(t *testing.T) {
	_, ests, _, _ := likelihoodEstimators(t)
	var nleFile, mnleFile bytes.Buffer
	if err := ests["nle-maf"].(*NLE).Save(&nleFile); err != nil {
		t.Fatal(err)
	}
	if err := ests["mnle-log"].(*MNLE).Save(&mnleFile); err != nil {
		t.Fatal(err)
	}
	const huge = 2_000_000_000
	for _, c := range []struct {
		name string
		file []byte
		edit func(h map[string]any)
		want string
	}{
		{"NLE Hidden", nleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Hidden"] = huge }, "describes networks of"},
		{"NLE Layers", nleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Layers"] = huge }, "Layers = 2000000000"},
		{"NLE chains", nleFile.Bytes(), func(h map[string]any) { obj(obj(h, "config"), "Sampler")["Chains"] = 2_000_000_000 }, "Chains = 2000000000"},
		{"NLE embedding of θ without its weights", nleFile.Bytes(), func(h map[string]any) {
			h["embedding"] = map[string]any{"kind": "mlp", "config": map[string]any{"Out": 2}}
		}, "describes networks of"},
		{"MNLE embedding", mnleFile.Bytes(), func(h map[string]any) {
			h["embedding"] = map[string]any{"kind": "mlp", "config": map[string]any{"Out": 2}}
		}, "does not have"},
		{"MNLE categories", mnleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Categories"] = []int{huge} }, "Categories [2000000000]"},
		{"MNLE categories within the bound", mnleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Categories"] = []int{MaxCategories} }, "describes networks of"},
		{"MNLE no categories", mnleFile.Bytes(), func(h map[string]any) { delete(obj(h, "config"), "Categories") }, "no categories"},
		{"MNLE discrete columns", mnleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Discrete"] = 2 }, "one per column"},
		{"MNLE Hidden", mnleFile.Bytes(), func(h map[string]any) { obj(h, "config")["Hidden"] = huge }, "describes networks of"},
	} {
		_, err := Load(bytes.NewReader(forge(t, c.file, c.edit)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, expected one containing %q", c.name, err, c.want)
		}
	}
	prior := dist.NewStandardNormal(3)
	for name, e := range map[string]savable{
		"nle maf": NewNLE(prior, NLEConfig{Hidden: 9, Layers: 3, Transforms: 2}),
		"nle nsf": NewNLE(prior, NLEConfig{Flow: NSF, Hidden: 6, Transforms: 3, Bins: 5}),
		"mnle":    NewMNLE(prior, MNLEConfig{Discrete: 2, Categories: []int{3, 5}, Hidden: 7, Layers: 3}),
	} {
		const xDim = 6
		net := e.fileNetwork()
		want, err := net.headWeights(xDim)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.core().build(net, rand.New(rand.NewPCG(1, 1)), xDim, nil); err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, p := range net.params() {
			got += len(p.Data)
		}
		if got != want {
			t.Errorf("%s: %d weights built, %d counted from the configuration", name, got, want)
		}
	}
}
