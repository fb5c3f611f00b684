package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// APT's atomic loss equals its scalar formula, from the NPE's own log-densities and the
// prior's: mean over i of log Σₖ exp(log q(θ_{i+k} | xᵢ) − log p(θ_{i+k})) − (log q(θᵢ | xᵢ) −
// log p(θᵢ)), for K = 4 atoms and for a batch shorter than K (the atoms clamp to the batch).
// With APT off the loss is NPE's −mean log q.
func TestAtomicLossFormula(t *testing.T) {
	prior := dist.NewNormal([]float64{0, 1}, []float64{1, 2})
	rng := rand.New(rand.NewPCG(1, 1))
	theta := prior.Sample(rng, 300)
	x := mat.NewDense(300, 2, nil)
	for i := 0; i < 300; i++ {
		x.Set(i, 0, theta.At(i, 0)+0.5*rng.NormFloat64())
		x.Set(i, 1, theta.At(i, 0)*theta.At(i, 1)+0.5*rng.NormFloat64())
	}
	npe := NewNPE(prior, NPEConfig{Hidden: 16, Transforms: 2})
	if _, err := npe.Train(theta, x, TrainConfig{Epochs: 3, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	d := &trainData{theta: theta, x: x, thetaZ: npe.zt.apply(theta), xZ: npe.zx.apply(x)}
	lq := npe.logProbPairs(theta, x, false)
	lp := prior.LogProb(theta)
	m := (*npeModel)(npe)
	for _, c := range []struct {
		idx []int
		K   int
	}{{[]int{5, 17, 3, 250, 99, 42, 7, 8}, 4}, {[]int{11, 12, 13}, 4}} {
		// log q(θ_r | x_i) for every atom r of row i, by LogProbPairs on the paired rows.
		B := len(c.idx)
		K := min(c.K, B)
		want := 0.0
		for i := range B {
			th := mat.NewDense(K, 2, nil)
			xs := mat.NewDense(K, 2, nil)
			for k := range K {
				th.SetRow(k, theta.RawRowView(c.idx[(i+k)%B]))
				xs.SetRow(k, x.RawRowView(c.idx[i]))
			}
			l := npe.logProbPairs(th, xs, false)
			mx := math.Inf(-1)
			for k := range K {
				l[k] -= lp[c.idx[(i+k)%B]]
				mx = math.Max(mx, l[k])
			}
			s := 0.0
			for k := range K {
				s += math.Exp(l[k] - mx)
			}
			want += mx + math.Log(s) - l[0]
		}
		want /= float64(B)
		tp := nn.NewTape()
		tp.NoGrad = true
		m.apt = aptState{atoms: c.K}
		got := m.batchLoss(tp, d, c.idx, nil).Item()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("batch of %d, %d atoms: atomic loss %.12g, formula %.12g", B, c.K, got, want)
		}
		m.apt = aptState{}
		tp.Reset()
		plain := m.batchLoss(tp, d, c.idx, nil).Item()
		wantPlain := 0.0
		for _, r := range c.idx {
			wantPlain -= lq[r]
		}
		if wantPlain /= float64(B); math.Abs(plain-wantPlain) > 1e-9*math.Max(1, math.Abs(wantPlain)) {
			t.Errorf("APT off: loss %.12g, −mean log q %.12g", plain, wantPlain)
		}
	}
}
