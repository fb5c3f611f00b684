package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// normalChains draws m chains of n independent N(mu_c, 1) draws, mu_c = shift·c.
func normalChains(seed uint64, m, n int, shift float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float64, m)
	for c := range out {
		out[c] = make([]float64, n)
		for i := range out[c] {
			out[c][i] = shift*float64(c) + rng.NormFloat64()
		}
	}
	return out
}

// ar1Chains draws m stationary AR(1) chains θ_{i+1} = ρθ_i + √(1−ρ²)·ε, whose integrated
// autocorrelation time is τ = (1+ρ)/(1−ρ), so ESS = S(1−ρ)/(1+ρ).
func ar1Chains(seed uint64, m, n int, rho float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	s := math.Sqrt(1 - rho*rho)
	out := make([][]float64, m)
	for c := range out {
		out[c] = make([]float64, n)
		x := rng.NormFloat64()
		for i := range out[c] {
			out[c][i] = x
			x = rho*x + s*rng.NormFloat64()
		}
	}
	return out
}

// TestRhatIID checks R̂ of independent normal chains against 1 within 4 of its standard
// deviations (RhatSD), over several chain shapes, from 4 long chains to 100 short ones.
func TestRhatIID(t *testing.T) {
	for _, c := range []struct{ m, n int }{{4, 1000}, {4, 100}, {100, 10}, {20, 50}} {
		sd := RhatSD(c.m, c.n)
		for seed := uint64(1); seed <= 5; seed++ {
			ch := normalChains(seed, c.m, c.n, 0)
			r := SplitRhat(ch)
			// The split R̂ is the larger of two nearly unbiased estimates (bulk and folded).
			if r > 1+4*sd || r < 1-4*sd {
				t.Errorf("%d chains × %d, seed %d: split R̂ = %.5f, want 1 ± %.5f (4 SD)", c.m, c.n, seed, r, 4*sd)
			}
		}
	}
}

// TestRhatSDMatchesSpread checks the derived standard deviation of R̂ against the spread
// of 400 replications (bulk R̂ alone, whose first-order distribution RhatSD describes).
func TestRhatSDMatchesSpread(t *testing.T) {
	const m, n, reps = 8, 40, 400
	var s, ss float64
	for r := range reps {
		ch := Split(normalChains(uint64(100+r), m, n, 0))
		v := Rhat(RankNormalize(ch))
		s += v
		ss += v * v
	}
	mean := s / reps
	sd := math.Sqrt(ss/reps - mean*mean)
	want := RhatSD(m, n)
	// The sample SD of 400 replications has relative SE ≈ 1/√(2·399) ≈ 0.035; the first-order
	// formula is accurate to O(1/h): allow 20%.
	if math.Abs(sd/want-1) > 0.2 {
		t.Errorf("SD of split R̂ over %d replications %.5f, derived %.5f", reps, sd, want)
	}
	if math.Abs(mean-1) > 4*want/math.Sqrt(reps)+1.0/float64(n) {
		t.Errorf("mean split R̂ %.5f, want 1 (bias at most O(1/n))", mean)
	}
}

// TestRhatDisjoint: chains sampling different places give R̂ ≫ 1.
func TestRhatDisjoint(t *testing.T) {
	ch := normalChains(3, 4, 500, 5) // means 0, 5, 10, 15
	if r := SplitRhat(ch); r < 2 {
		t.Errorf("chains with means 5 SD apart: split R̂ = %.3f, want ≫ 1", r)
	}
	// One chain that drifts: its halves differ, which splitting detects.
	drift := make([][]float64, 4)
	base := normalChains(4, 4, 400, 0)
	for c := range drift {
		drift[c] = make([]float64, 400)
		for i := range drift[c] {
			drift[c][i] = base[c][i]
			if c == 0 {
				drift[c][i] += 6 * float64(i) / 400
			}
		}
	}
	if r := SplitRhat(drift); r < 1.05 {
		t.Errorf("a drifting chain: split R̂ = %.4f, want > 1.05", r)
	}
	// Same location, different scale: the folded R̂ catches it, the bulk R̂ alone does not.
	scale := normalChains(5, 4, 1000, 0)
	for i := range scale[0] {
		scale[0][i] *= 4
	}
	s := Split(scale)
	if bulk, both := Rhat(RankNormalize(s)), SplitRhat(scale); both < 1.05 || both <= bulk {
		t.Errorf("one chain 4× wider: bulk R̂ %.4f, split R̂ with folding %.4f; want folding to flag it", bulk, both)
	}
}

// TestESSIID: independent draws have ESS ≈ S. Each chain's autocovariances are centred on
// the chain's own mean, which biases ρ̂_t by −(h−t)/h² for chains of h draws (E[(θ_i − θ̄)(θ_j − θ̄)]
// = −σ²/h for i ≠ j); with the sum stopping after the first pair, τ̂ ≈ 1 − 2(h−1)/h², which
// matters for short chains only (100 chains of 10 draws: split halves of 5, τ̂ ≈ 0.68). Around
// it, the sum adds a few ρ̂_t with standard deviation 1/√S each: 12/√S bounds |τ̂ − E τ̂|.
func TestESSIID(t *testing.T) {
	for _, c := range []struct{ m, n int }{{4, 1000}, {100, 10}, {10, 400}} {
		for seed := uint64(1); seed <= 5; seed++ {
			ch := normalChains(seed, c.m, c.n, 0)
			S := float64(c.m * c.n)
			tol := 12 / math.Sqrt(S)
			for _, e := range []struct {
				name string
				ess  float64
				h    int // draws per analysed chain
			}{{"bulk", ESSBulk(ch), c.n / 2}, {"tail", ESSTail(ch), c.n / 2}, {"plain", ESS(ch), c.n}} {
				h := float64(e.h)
				wantTau := 1 - 2*(h-1)/(h*h)
				if tau := S / e.ess; math.Abs(tau-wantTau) > tol {
					t.Errorf("%d×%d seed %d: %s ESS %.0f of %.0f draws: τ̂ = %.3f, want %.3f ± %.3f", c.m, c.n, seed, e.name, e.ess, S, tau, wantTau, tol)
				}
			}
		}
	}
}

// TestESSAR1 checks the ESS of AR(1) chains against the closed form S(1−ρ)/(1+ρ). By
// Bartlett's formula the estimate of τ from autocorrelations summed up to lag M has relative
// standard deviation about √(4M/S) (Geyer 1992); M is the lag where ρ^M falls below 1/√S.
func TestESSAR1(t *testing.T) {
	for _, rho := range []float64{0.5, 0.9, -0.3} {
		const m, n = 4, 10000
		S := float64(m * n)
		want := S * (1 - rho) / (1 + rho)
		M := math.Max(1, math.Ceil(math.Log(1/math.Sqrt(S))/math.Log(math.Abs(rho))))
		tol := 4 * math.Sqrt(4*M/S)
		for seed := uint64(1); seed <= 3; seed++ {
			ch := ar1Chains(seed, m, n, rho)
			got := ESS(ch)
			if math.Abs(want/got-1) > tol {
				t.Errorf("ρ = %v seed %d: ESS %.0f, closed form %.0f (relative tolerance %.3f)", rho, seed, got, want, tol)
			}
			// Rank normalization of a Gaussian chain keeps its autocorrelation nearly the same.
			if b := ESSBulk(ch); math.Abs(want/b-1) > tol+0.05 {
				t.Errorf("ρ = %v seed %d: bulk ESS %.0f, closed form %.0f", rho, seed, b, want)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		chains [][]float64
	}{
		{"none", nil},
		{"ragged", [][]float64{{1, 2, 3, 4}, {1, 2, 3}}},
		{"short", [][]float64{{1, 2, 3}}},
		{"NaN", [][]float64{{1, 2, math.NaN(), 4}}},
	} {
		if err := Check(c.chains); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := Check([][]float64{{1, 2, 3, 4}}); err != nil {
		t.Error(err)
	}
	if r := SplitRhat([][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}); !math.IsNaN(r) {
		t.Errorf("constant chains: R̂ %v, want NaN", r)
	}
}

// TestRankNormalizeTies gives tied draws the normal score of their average rank.
func TestRankNormalizeTies(t *testing.T) {
	z := RankNormalize([][]float64{{3, 1, 1, 2}})
	if z[0][1] != z[0][2] || !(z[0][1] < z[0][3] && z[0][3] < z[0][0]) {
		t.Errorf("normal scores %v: want ties equal and the order kept", z)
	}
	// ranks 1.5 (tie), 3, 4 of S = 4
	want := []float64{4, 1.5, 1.5, 3}
	for i, r := range want {
		if w := normQ((r - 0.375) / 4.25); math.Abs(z[0][i]-w) > 1e-12 {
			t.Errorf("draw %d: score %v, want %v", i, z[0][i], w)
		}
	}
}

func normQ(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
