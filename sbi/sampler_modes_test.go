package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestSliceChainsShareModesByMass checks how the slice sampler's chains divide themselves
// between two well-separated modes that no coordinate-wise move can cross: the posterior
// 0.3·N((−1.5, −1.5), 0.1²I) + 0.7·N((1.5, 1.5), 0.1²I) on the box [−3, 3]². The share of
// draws in each mode is then the share of chains started there, so the initialization must
// place each chain independently, in mode A with probability 0.3. Over R runs of C chains,
// the counts k_r of chains in mode A then give Σ (k_r − 0.3C)² / (0.21C) ~ χ²_R; the test
// rejects above the 0.999 quantile (level 10⁻³). Chains started from one shared pool of
// candidates (the sampler before each chain had its own) start from the few candidates that
// carry the pool's weight, so k_r/C scatters like the mode of a handful of points: the
// statistic is then about R·(1 + C/ESS), with an ESS of a few for modes this narrow, far
// beyond the bound (power: the shared pool of 1,000 gave 104.8).
func TestSliceChainsShareModesByMass(t *testing.T) {
	const (
		wA    = 0.3
		sd    = 0.1
		runs  = 8
		C     = 100
		chi2Q = 26.12 // 0.999 quantile of χ² with 8 degrees of freedom
	)
	prior := dist.NewUniformCube(-3, 3, 2)
	logN := func(row []float64, c float64) float64 {
		a, b := (row[0]-c)/sd, (row[1]-c)/sd
		return -0.5*(a*a+b*b) - math.Log(2*math.Pi*sd*sd)
	}
	lr := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		for i := range out {
			row := theta.RawRowView(i)
			a, b := math.Log(wA)+logN(row, -1.5), math.Log(1-wA)+logN(row, 1.5)
			m := math.Max(a, b)
			out[i] = m + math.Log(math.Exp(a-m)+math.Exp(b-m)) + math.Log(36) // minus the prior's log-density
		}
		return out
	}
	post := newRatioPosterior("test", nil, prior, lr, nil, SamplerConfig{Method: SamplerMCMC, BurnIn: 10, Thin: 1})
	var stat float64
	total := 0
	for r := range runs {
		draws, err := post.SampleContext(t.Context(), rand.New(rand.NewPCG(7, uint64(r))), C)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for c := range C {
			if draws.At(c, 0)+draws.At(c, 1) < 0 {
				k++
			}
		}
		total += k
		d := float64(k) - wA*C
		stat += d * d / (wA * (1 - wA) * C)
		t.Logf("run %d: %d of %d chains in mode A (expected %.0f ± %.1f)", r, k, C, wA*C, math.Sqrt(wA*(1-wA)*C))
	}
	if stat > chi2Q {
		t.Errorf("χ² of the chains' shares of mode A over %d runs = %.1f > %.2f (level 10⁻³): share %.3f of %d chains, expected %.1f",
			runs, stat, chi2Q, float64(total)/(runs*C), runs*C, wA)
	}
}
