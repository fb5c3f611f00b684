package diag

import (
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

// TestRecovery checks z-scores and contractions on the conjugate model θ ~ N(0, 2²I₂),
// x = θ + N(0, I₂), with posterior variance 0.8: the contraction is 1 − 0.8/4 = 0.8 and the
// z-scores of the exact posterior have SD √(1 + 1/500) ≈ 1.001 (500 draws estimate the mean).
// Over 400 pairs the mean contraction has SE 0.8·√(2/499)/4/√400 ≈ 0.0006 and the z SD has
// SE 1/√800 ≈ 0.035; the tolerances are 4 SE. A posterior 0.7 times too narrow has z SD 1/0.7.
func TestRecovery(t *testing.T) {
	for _, c := range []struct {
		width, zSD float64
	}{{1, 1.001}, {0.7, 1 / 0.7}} {
		m := gaussModel{dim: 2, tau: 2, s: 1, width: c.width}
		theta, x := m.simulate(8, 400)
		r, err := Recovery(m, theta, x, RecoveryConfig{Samples: 500, Seed: 1, PriorVar: []float64{4, 4}})
		if err != nil {
			t.Fatal(err)
		}
		zm, zs, con := r.Summary()
		for d := range 2 {
			want := 1 - 0.8*c.width*c.width/4
			if math.Abs(con[d]-want) > 4*0.0006*c.width*c.width+1e-9 {
				t.Errorf("width %v θ%d: mean contraction %.4f, want %.4f", c.width, d+1, con[d], want)
			}
			if math.Abs(zs[d]-c.zSD) > 4*0.035*c.zSD {
				t.Errorf("width %v θ%d: z SD %.3f, want %.3f", c.width, d+1, zs[d], c.zSD)
			}
			if math.Abs(zm[d]) > 4*c.zSD/20 {
				t.Errorf("width %v θ%d: z mean %.3f, want 0 ± %.3f", c.width, d+1, zm[d], 4*c.zSD/20)
			}
		}
		if !strings.Contains(r.String(), "z SD") {
			t.Errorf("summary %q", r)
		}
	}
	m := gaussModel{dim: 2, tau: 2, s: 1, width: 1}
	theta, x := m.simulate(8, 50)
	if _, err := Recovery(m, theta, x, RecoveryConfig{PriorVar: []float64{1}}); err == nil {
		t.Error("one prior variance for two parameters: no error")
	}
	r, err := Recovery(m, theta, x, RecoveryConfig{Samples: 50})
	if err != nil {
		t.Fatal(err)
	}
	if v := variance(thetaCol(theta, 0)); r.PriorVar[0] != v {
		t.Errorf("prior variance %v, want the test θ's %v", r.PriorVar[0], v)
	}
}

func thetaCol(m interface{ At(i, j int) float64 }, j int) []float64 {
	out := make([]float64, 50)
	for i := range out {
		out[i] = m.At(i, j)
	}
	return out
}

// collapsedModel is gaussModel with posteriors of zero spread: every draw is the mean.
type collapsedModel struct{ gaussModel }

func (m collapsedModel) Posterior(x []float64) sbi.Posterior {
	p := m.post(x)
	p.sd = 0
	return p
}

// TestRecoveryZeroSpread checks that a posterior whose draws of a parameter are all equal,
// whose z-score would be ±Inf (or NaN), is an error naming the pair and the parameter and
// saying why, not infinite z-scores.
func TestRecoveryZeroSpread(t *testing.T) {
	m := collapsedModel{gaussModel{dim: 2, tau: 2, s: 1, width: 1}}
	theta, x := m.simulate(8, 20)
	r, err := Recovery(m, theta, x, RecoveryConfig{Samples: 50, Seed: 1, Workers: 1, PriorVar: []float64{4, 4}})
	if err == nil {
		zm, zs, _ := r.Summary()
		t.Fatalf("no error; z mean %v, z SD %v", zm, zs)
	}
	for _, w := range []string{"pair 0", "θ1", "all equal", "no spread"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}
