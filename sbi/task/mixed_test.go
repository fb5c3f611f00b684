package task

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestMixedExactPosterior checks the conjugate posterior of the mixed task by calibration:
// for θ drawn from the prior and T trials simulated from it, the posterior CDF of each
// parameter at the true value is uniform. Kolmogorov–Smirnov over 2000 replications at
// a false-alarm rate of 10⁻³ per test (critical value 1.95/√n); power: the same statistic for
// a posterior of β whose rate is built from Σ τ instead of Σ 1/τ is far outside.
func TestMixedExactPosterior(t *testing.T) {
	tk := Mixed()
	rng := rand.New(rand.NewPCG(9, 9))
	const reps = 2000
	crit := 1.95 / math.Sqrt(reps)
	for _, T := range []int{1, 5} {
		var uBeta, uRho, uWrong []float64
		for r := 0; r < reps; r++ {
			theta := tk.Prior().Sample(rng, 1)
			rep := mat.NewDense(T, 2, nil)
			for i := 0; i < T; i++ {
				rep.SetRow(i, tk.Simulate(rng, theta).RawRowView(0))
			}
			post, err := tk.ExactPosteriorTrials(rep)
			if err != nil {
				t.Fatal(err)
			}
			var invTau, sumTau, ones float64
			for i := 0; i < T; i++ {
				invTau += 1 / rep.At(i, 0)
				sumTau += rep.At(i, 0)
				ones += rep.At(i, 1)
			}
			n := float64(T)
			uBeta = append(uBeta, distuv.Gamma{Alpha: 1 + 2*n, Beta: 0.5 + invTau}.CDF(theta.At(0, 0)))
			uRho = append(uRho, distuv.Beta{Alpha: 2 + ones, Beta: 2 + n - ones}.CDF(theta.At(0, 1)))
			uWrong = append(uWrong, distuv.Gamma{Alpha: 1 + 2*n, Beta: 0.5 + sumTau}.CDF(theta.At(0, 0)))
			// the posterior the task returns must be the one these CDFs describe
			mean, _, _ := meanCov(post)
			if d := math.Abs(mean[0] - (1+2*n)/(0.5+invTau)); d > 1e-9*mean[0] {
				t.Fatalf("T=%d: posterior mean of β %v, closed form %v", T, mean[0], (1+2*n)/(0.5+invTau))
			}
			if d := math.Abs(mean[1] - (2+ones)/(4+n)); d > 1e-12 {
				t.Fatalf("T=%d: posterior mean of ρ %v, closed form %v", T, mean[1], (2+ones)/(4+n))
			}
		}
		for _, c := range []struct {
			name string
			u    []float64
		}{{"β", uBeta}, {"ρ", uRho}} {
			if d := ksUniform(c.u); d > crit {
				t.Errorf("T=%d: posterior CDF of %s at the true value: KS distance to uniform %.4f > %.4f", T, c.name, d, crit)
			}
		}
		if d := ksUniform(uWrong); d <= crit {
			t.Errorf("T=%d: a wrong posterior of β passes (KS %.4f ≤ %.4f): the test has no power", T, d, crit)
		}
	}
	if _, err := tk.ExactPosterior([]float64{-1, 0}); err == nil {
		t.Error("a negative reaction time: no error")
	}
	if _, err := tk.ExactPosterior([]float64{1, 0.5}); err == nil {
		t.Error("a choice of 0.5: no error")
	}
}

// ksUniform is the Kolmogorov–Smirnov distance between the sample u and U(0, 1).
func ksUniform(u []float64) float64 {
	s := append([]float64(nil), u...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, v := range s {
		d = math.Max(d, math.Max(float64(i+1)/n-v, v-float64(i)/n))
	}
	return d
}
