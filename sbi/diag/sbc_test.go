package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestKolmogorovQ(t *testing.T) {
	// Tabulated critical values of the Kolmogorov distribution: Q(1.3581) = 0.05, Q(1.6276) = 0.01.
	for _, c := range []struct{ lambda, q float64 }{{1.3581, 0.05}, {1.6276, 0.01}} {
		if got := kolmogorovQ(c.lambda); math.Abs(got-c.q) > 2e-4 {
			t.Errorf("Q(%v) = %v, want %v", c.lambda, got, c.q)
		}
	}
}

func TestKSUniformPValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	u, sq := make([]float64, 2000), make([]float64, 2000)
	for i := range u {
		u[i] = rng.Float64()
		sq[i] = u[i] * u[i]
	}
	if p := KSUniformPValue(u); p < 0.001 {
		t.Errorf("uniform sample: p = %v, want > 0.001", p)
	}
	// U² has CDF √t: D = max(√t − t) = 1/4, far beyond the 1/√2000 scale.
	if p := KSUniformPValue(sq); p > 1e-6 {
		t.Errorf("U² sample: p = %v, want < 1e-6", p)
	}
}

func TestChiSquareUniform(t *testing.T) {
	// Counts 30, 10, 20 against 20 each: X² = (100 + 100 + 0)/20 = 10 on 2 degrees of freedom,
	// p = exp(−10/2).
	s, p := chiSquareUniform([]int{30, 10, 20})
	if math.Abs(s-10) > 1e-12 || math.Abs(p-math.Exp(-5)) > 1e-12 {
		t.Errorf("χ² = %v, p = %v; want 10, %v", s, p, math.Exp(-5))
	}
}

func TestSBC(t *testing.T) {
	cases := []struct {
		name   string
		model  gaussModel
		biased bool
	}{
		{"exact", gaussModel{dim: 2, tau: 2, s: 0.5, width: 1}, false},
		{"shifted mean", gaussModel{dim: 2, tau: 2, s: 0.5, width: 1, shift: 0.5}, true},
		{"too wide", gaussModel{dim: 2, tau: 2, s: 0.5, width: 1.5}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			theta, x := c.model.simulate(11, 2000)
			r, err := SBC(c.model, theta, x, RankConfig{Samples: 99, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if r.Bins != 100 || len(r.Ranks) != 2 || len(r.Ranks[0]) != 2000 {
				t.Fatalf("bins %d, ranks %d×%d; want 100 bins and 2×2000 ranks", r.Bins, len(r.Ranks), len(r.Ranks[0]))
			}
			for d, p := range r.PValues {
				// The exact posterior fails at 0.001 with probability 0.001 per parameter and
				// test; the miscalibrated ones are far off (their χ² is in the hundreds).
				if !c.biased && p < 0.001 || c.biased && p > 1e-6 {
					t.Errorf("parameter %d: χ² p-value %.3g", d, p)
				}
				if ks := r.KSPValues[d]; !c.biased && ks < 0.001 || c.biased && ks > 1e-6 {
					t.Errorf("parameter %d: KS p-value %.3g", d, ks)
				}
			}
		})
	}
}

func TestMarginalCoverage(t *testing.T) {
	for _, width := range []float64{1, 0.6} {
		m := gaussModel{dim: 2, tau: 2, s: 0.5, width: width}
		theta, x := m.simulate(12, 2000)
		r, err := MarginalCoverage(m, theta, x, RankConfig{Samples: 200, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := strictBand(r.N, r.Levels)
		for d := range r.Coverage {
			for k, c := range r.Coverage[d] {
				// For width w the central ρ interval of the approximation covers the truth
				// with probability 2Φ(w·z_{(1+ρ)/2}) − 1 (a scaled Gaussian).
				want := 2*stdNormal.CDF(width*stdNormal.Quantile((1+r.Levels[k])/2)) - 1
				shift := want - r.Levels[k]
				if c < lo[k]+shift || c > hi[k]+shift {
					t.Errorf("width %v, θ[%d], level %.2f: coverage %.4f, want %.4f ± band", width, d, r.Levels[k], c, want)
				}
			}
		}
	}
}

func TestTARP(t *testing.T) {
	exact := gaussModel{dim: 2, tau: 2, s: 0.5, width: 1}
	theta, x := exact.simulate(13, 2000)
	r, err := TARP(exact, theta, x, RankConfig{Samples: 200, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	if r.KSPValue < 0.001 {
		t.Errorf("exact posterior: TARP KS p-value %.3g, want > 0.001", r.KSPValue)
	}
	// ATC sums 50 ECP deviations, each with SD ≤ 0.5/√2000 ≈ 0.011 but strongly correlated: its
	// SD is atcSD(2000) = 0.357 by the closed form, and 4 SDs bound it.
	t.Logf("exact posterior: ATC %.3f", r.ATC)
	if bound := 4 * atcSD(len(r.F)); math.Abs(r.ATC) > bound {
		t.Errorf("exact posterior: ATC %.3f, want 0 ± %.3f", r.ATC, bound)
	}
	narrow := gaussModel{dim: 2, tau: 2, s: 0.5, width: 0.5}
	r, err = TARP(narrow, theta, x, RankConfig{Samples: 200, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	// ATC at least 4 SDs of the exact posterior's ATC below 0.
	t.Logf("narrow posterior: ATC %.3f", r.ATC)
	if bound := -4 * atcSD(len(r.F)); r.KSPValue > 1e-6 || r.ATC > bound {
		t.Errorf("narrow posterior: KS p-value %.3g, ATC %.3f; want p < 1e-6 and ATC < %.3f", r.KSPValue, r.ATC, bound)
	}
}

func TestExpectedLogProb(t *testing.T) {
	m := gaussModel{dim: 2, tau: 2, s: 0.5, width: 1}
	theta, x := m.simulate(14, 4000)
	r, err := ExpectedLogProb(m, nil, theta, x)
	if err != nil {
		t.Fatal(err)
	}
	// For the exact Gaussian posterior, log q(θ*|x) = −d/2·log(2πσ²) − ½·χ²_d, whose mean is
	// −d/2·log(2πσ²) − d/2; 4 standard errors bound the Monte Carlo error.
	v := m.tau * m.tau * m.s * m.s / (m.tau*m.tau + m.s*m.s)
	want := -float64(m.dim)/2*math.Log(2*math.Pi*v) - float64(m.dim)/2
	if math.Abs(r.Mean-want) > 4*r.StdErr {
		t.Errorf("mean log density %.4f ± %.4f, want %.4f", r.Mean, r.StdErr, want)
	}
	if !math.IsNaN(r.Prior) {
		t.Errorf("prior value %v without a prior, want NaN", r.Prior)
	}

	b := boxModel{dim: 2, lo: -3, hi: 3, s: 0.5, width: 1}
	theta, x = b.simulate(15, 500)
	r, err = ExpectedLogProb(b, b, theta, x)
	if err != nil {
		t.Fatal(err)
	}
	if want := -2 * math.Log(6); math.Abs(r.Prior-want) > 1e-12 {
		t.Errorf("prior value %v, want %v", r.Prior, want)
	}
	if r.Mean <= r.Prior {
		t.Errorf("exact posterior %.3f not above the prior %.3f", r.Mean, r.Prior)
	}
}
