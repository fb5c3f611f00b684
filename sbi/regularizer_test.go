package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// gaussianPairs simulates n pairs of the conjugate model θ ~ N(0, I₂), x = θ + 0.5·ε.
func gaussianPairs(rng *rand.Rand, n int) (prior dist.Distribution, theta, x *mat.Dense) {
	prior = dist.NewStandardNormal(2)
	theta = prior.Sample(rng, n)
	x = mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			x.Set(i, j, theta.At(i, j)+0.5*rng.NormFloat64())
		}
	}
	return prior, theta, x
}

// l2Logits is a test regularizer: λ·(mean f_joint² + mean f_marginal²).
type l2Logits struct{ lambda float64 }

func (l2Logits) Name() string { return "l2" }

func (r l2Logits) Penalty(b *RegBatch) (*nn.Tensor, error) {
	tp := b.Tape
	s := tp.Add(tp.Mean(tp.Square(b.JointLogits)), tp.Mean(tp.Square(b.MarginalLogits)))
	return tp.Scale(s, r.lambda), nil
}

// meanLogPost is a test regularizer: λ·mean log p̂(θ'ⱼ | x_rows[j]) over L prior draws θ' per
// pair, in the repeated-rows pattern (row j belongs to pair j/L) or, with shuffled, in a
// scrambled order that takes the general gather path.
type meanLogPost struct {
	lambda   float64
	L        int
	shuffled bool
}

func (meanLogPost) Name() string { return "logpost" }

func (r meanLogPost) Penalty(b *RegBatch) (*nn.Tensor, error) {
	n, _ := b.Theta.Dims()
	draws := b.Prior.Sample(b.Rng, n*r.L)
	rows := make([]int, n*r.L)
	for j := range rows {
		rows[j] = j / r.L
	}
	if r.shuffled {
		b.Rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	return b.Tape.Scale(b.Tape.Mean(b.LogPost(draws, rows)), r.lambda), nil
}

// estimators returns trained small estimators of each kind on the conjugate model.
func testEstimators(t *testing.T) (map[string]model, map[string]Amortized, *trainData) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior, theta, x := gaussianPairs(rng, 400)
	emb := MLPEmbedding{Hidden: []int{8}, Out: 3}
	ests := map[string]Amortized{
		"npe-maf":   NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2}),
		"npe-nsf":   NewNPE(prior, NPEConfig{Flow: "nsf", Hidden: 16, Transforms: 2, Bins: 4}),
		"npe-embed": NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2, Embedding: emb}),
		"nre":       NewNRE(prior, NREConfig{Hidden: []int{16, 16}}),
		"nre-embed": NewNRE(prior, NREConfig{Hidden: []int{16}, Embedding: emb}),
	}
	models := map[string]model{}
	var d *trainData
	for name, e := range ests {
		var err error
		switch e := e.(type) {
		case *NPE:
			_, err = e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1})
			models[name] = (*npeModel)(e)
			d = &trainData{theta: theta, x: x, thetaZ: e.zt.apply(theta), xZ: e.zx.apply(x)}
		case *NRE:
			_, err = e.Train(theta, x, TrainConfig{Epochs: 2, Seed: 1})
			models[name] = (*nreModel)(e)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return models, ests, d
}

// standardized returns d with the standardization of model m.
func standardized(m model, d *trainData) *trainData {
	switch e := m.(type) {
	case *npeModel:
		return &trainData{theta: d.theta, x: d.x, thetaZ: e.zt.apply(d.theta), xZ: e.zx.apply(d.x)}
	case *nreModel:
		return &trainData{theta: d.theta, x: d.x, thetaZ: e.zt.apply(d.theta), xZ: e.zx.apply(d.x)}
	}
	panic("unknown model")
}

// TestLogPostMatchesLogProbPairs checks that the regularizer's LogPost, and PairLogPost of the
// batch's own pairs, are the estimator's own log-density in raw units (the z-score Jacobian
// included), in both gather paths. LogProbPairs runs the MADEs' products in float32 where the
// CPU has the float32 kernel (flow.EvalConfig.Float32), so the two agree to float32 rounding: a relative
// 2⁻²⁴ per operation, well within 1e-5 for these log-densities; a missing Jacobian or a
// misplaced row is off by far more.
func TestLogPostMatchesLogProbPairs(t *testing.T) {
	const tol = 1e-5
	models, ests, d0 := testEstimators(t)
	idx := []int{5, 17, 42, 99, 123, 7}
	for name, m := range models {
		for _, shuffled := range []bool{false, true} {
			d := standardized(m, d0)
			tp := nn.NewTape()
			rb := &RegBatch{Tape: tp, Rng: rand.New(rand.NewPCG(9, 9))}
			m.batchLoss(tp, d, idx, rb)
			L := 3
			draws := rb.Prior.Sample(rb.Rng, len(idx)*L)
			rows := make([]int, len(idx)*L)
			for j := range rows {
				rows[j] = j / L
			}
			if shuffled {
				rb.Rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			}
			got := rb.LogPost(draws, rows)
			xs := mat.NewDense(len(rows), 2, nil)
			for j, r := range rows {
				xs.SetRow(j, d.x.RawRowView(idx[r]))
			}
			want := ests[name].LogProbPairs(draws, xs)
			for j := range want {
				if math.Abs(got.Data[j]-want[j]) > tol*math.Max(1, math.Abs(want[j])) {
					t.Fatalf("%s (shuffled %v): LogPost[%d] = %v, LogProbPairs = %v", name, shuffled, j, got.Data[j], want[j])
				}
			}
			if rb.PairLogPost == nil {
				t.Fatalf("%s: PairLogPost not set", name)
			}
			own := ests[name].LogProbPairs(rowsOf(d.theta, idx), rowsOf(d.x, idx))
			for i := range own {
				if math.Abs(rb.PairLogPost.Data[i]-own[i]) > tol*math.Max(1, math.Abs(own[i])) {
					t.Fatalf("%s: PairLogPost[%d] = %v, LogProbPairs = %v", name, i, rb.PairLogPost.Data[i], own[i])
				}
			}
			if strings := rb.JointLogits; (name[:3] == "nre") != (strings != nil) {
				t.Errorf("%s: JointLogits set = %v, expected only for ratio estimators", name, strings != nil)
			}
		}
	}
}

// TestPenaltyGradient checks the gradient that a LogPost-based penalty sends into every
// parameter against central finite differences.
func TestPenaltyGradient(t *testing.T) {
	models, _, d0 := testEstimators(t)
	for name, m := range models {
		for _, shuffled := range []bool{false, true} {
			what := fmt.Sprintf("%s (shuffled %v)", name, shuffled)
			checkPenaltyGradient(t, what, m, standardized(m, d0), meanLogPost{lambda: 1, L: 2, shuffled: shuffled})
		}
	}
}

// checkPenaltyGradient compares the gradient that reg's penalty on the pairs 1 to 8 of d sends
// into m's parameters with central finite differences, at the middle entry of every third
// parameter tensor (which keeps the test fast and covers all kinds of layers). what names the
// case in failures.
func checkPenaltyGradient(t *testing.T, what string, m model, d *trainData, reg Regularizer) {
	t.Helper()
	idx := []int{1, 2, 3, 4, 5, 6, 7, 8}
	penalty := func(grad bool) float64 {
		tp := nn.NewTape()
		tp.NoGrad = !grad
		rb := &RegBatch{Tape: tp, Rng: rand.New(rand.NewPCG(5, 6))}
		m.batchLoss(tp, d, idx, rb)
		p, err := reg.Penalty(rb)
		if err != nil {
			t.Fatal(err)
		}
		if grad {
			tp.Backward(p)
		}
		return p.Item()
	}
	ps := m.params()
	nn.ZeroGrads(ps)
	penalty(true)
	for k, p := range ps {
		if k%3 != 0 {
			continue
		}
		j := len(p.Data) / 2
		orig := p.Data[j]
		const h = 1e-5
		p.Data[j] = orig + h
		up := penalty(false)
		p.Data[j] = orig - h
		down := penalty(false)
		p.Data[j] = orig
		fd := (up - down) / (2 * h)
		// Central differences have error O(h²·f''') ≈ 1e-9 here; 1e-5 relative leaves room
		// for rounding of the two penalties (≈1e-16/h).
		if math.Abs(fd-p.Grad[j]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: d penalty/d %s[%d] = %v, finite difference %v", what, p.Name, j, p.Grad[j], fd)
		}
	}
	nn.ZeroGrads(ps)
}

// TestRegularizerShapesTraining trains an NRE with and without a strong L2 penalty on its
// logits: the penalty must reach the weights (smaller logits) and be reported per epoch.
func TestRegularizerShapesTraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	prior, theta, x := gaussianPairs(rng, 1000)
	meanAbs := func(reg Regularizer) (float64, *TrainResult) {
		e := NewNRE(prior, NREConfig{Hidden: []int{32, 32}})
		res, err := e.Train(theta, x, TrainConfig{Epochs: 15, Seed: 2, Regularizer: reg})
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range e.LogRatio(theta, x) {
			s += math.Abs(v) / 1000
		}
		return s, res
	}
	free, resFree := meanAbs(nil)
	held, res := meanAbs(l2Logits{lambda: 10})
	// The unpenalized classifier separates joint from marginal pairs with |logits| of order 1;
	// λ = 10 on the squared logits makes every unit of |f| cost more than the BCE can gain.
	if !(held < 0.3*free) {
		t.Errorf("mean |log r̂| with the L2 penalty %.3f, without %.3f: expected the penalty to shrink the logits", held, free)
	}
	if res.RegName != "l2" || len(res.RegTerm) != res.Epochs || resFree.RegTerm != nil {
		t.Errorf("RegName %q, %d terms for %d epochs (%d without a regularizer)", res.RegName, len(res.RegTerm), res.Epochs, len(resFree.RegTerm))
	}
	for _, v := range res.RegTerm {
		if !(v >= 0) {
			t.Errorf("regularizer terms %v: expected non-negative values", res.RegTerm)
			break
		}
	}
}
