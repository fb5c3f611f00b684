package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// ar1 draws m stationary AR(1) chains of n draws with coefficient rho, shifted by shift·c for
// chain c.
func ar1(seed uint64, m, n int, rho, shift float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([][]float64, m)
	s := math.Sqrt(1 - rho*rho)
	for c := range out {
		out[c] = make([]float64, n)
		v := rng.NormFloat64()
		for i := range out[c] {
			out[c][i] = v + shift*float64(c)
			v = rho*v + s*rng.NormFloat64()
		}
	}
	return out
}

// TestMCMCDiagnostics checks the exported diagnostics against closed forms: independent
// chains have R̂ within 4 of its SD 1/(h√(2(2m−1))) of 1 and ESS ≈ S; AR(1) chains with
// ρ = 0.8 have ESS = S(1−ρ)/(1+ρ) = S/9 within 4 Bartlett SDs √(4M/S) (M = 17, the lag where
// ρ^M < 1/√S); chains 6 SD apart have R̂ ≫ 1, and the health flags them.
func TestMCMCDiagnostics(t *testing.T) {
	const m, n = 4, 5000
	S := float64(m * n)
	iid := ar1(1, m, n, 0, 0)
	r, err := SplitRhat(iid)
	if err != nil {
		t.Fatal(err)
	}
	if sd := 1 / (float64(n/2) * math.Sqrt(2*(2*m-1))); math.Abs(r-1) > 4*sd {
		t.Errorf("independent chains: R̂ %.5f, want 1 ± %.5f", r, 4*sd)
	}
	for name, f := range map[string]func([][]float64) (float64, error){"bulk": ESSBulk, "tail": ESSTail} {
		e, err := f(iid)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(S/e-1) > 12/math.Sqrt(S) {
			t.Errorf("independent chains: %s ESS %.0f of %.0f draws", name, e, S)
		}
	}
	corr := ar1(2, m, n, 0.8, 0)
	e, _ := ESSBulk(corr)
	if want, tol := S/9, 4*math.Sqrt(4*17/S); math.Abs(want/e-1) > tol {
		t.Errorf("AR(1) ρ = 0.8: bulk ESS %.0f, closed form %.0f (relative tolerance %.3f)", e, want, tol)
	}
	apart := ar1(3, m, 500, 0, 6)
	if r, _ := SplitRhat(apart); r < 1.5 {
		t.Errorf("chains 6 SD apart: R̂ %.3f, want ≫ 1", r)
	}
	chains := make([][][]float64, m)
	for c := range m {
		for i := range 500 {
			chains[c] = append(chains[c], []float64{apart[c][i], iid[c][i]})
		}
	}
	h, err := MCMCHealth("test", chains)
	if err != nil {
		t.Fatal(err)
	}
	if w := h.Warnings(); len(w) == 0 || !strings.Contains(w[0], "θ1") || strings.Contains(w[0], "θ2") {
		t.Errorf("warnings %q, want R̂ flagged for θ1 only", w)
	}
	if _, err := SplitRhat([][]float64{{1, 2, 3}}); err == nil {
		t.Error("3 draws: no error")
	}
	if _, err := MCMCHealth("test", [][][]float64{{{1}, {2}}, {{1}}}); err == nil {
		t.Error("ragged chains: no error")
	}
}
