package task

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestSolveSDEMoments checks Euler–Maruyama against exact moments from 5000 paths (step
// 2·10⁻³, whose O(dt) bias is below 0.4% here, a fifth of a standard error), within 5
// standard errors: the Ornstein–Uhlenbeck process of Bon et al. (dX = 2(1 − X)dt + √20 dW from
// X₀ = 10), whose X₁ has mean 1 + 9e⁻² and variance 5(1 − e⁻⁴), and at T = 3 its stationary
// variance σ²/(2γ) = 5 up to e⁻¹²; and geometric
// Brownian motion dX = 0.5·X dW from 1 (multiplicative noise, as in the Lotka–Volterra model),
// whose X₁ has mean 1 and variance e^{0.25} − 1.
func TestSolveSDEMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ou := func(_ float64, x, a, b []float64) { a[0], b[0] = 2*(1-x[0]), math.Sqrt(20) }
	gbm := func(_ float64, x, a, b []float64) { a[0], b[0] = 0, 0.5*x[0] }
	const n = 5000
	for _, tc := range []struct {
		name       string
		f          SDEFunc
		x0, T      float64
		mean, vari float64
	}{
		{"OU, T = 1", ou, 10, 1, 1 + 9*math.Exp(-2), 5 * (1 - math.Exp(-4))},
		{"OU, T = 3", ou, 10, 3, 1 + 9*math.Exp(-6), 5 * (1 - math.Exp(-12))},
		{"GBM, T = 1", gbm, 1, 1, 1, math.Exp(0.25) - 1},
	} {
		v := make([]float64, n)
		for i := range v {
			sol, err := SolveSDE(rng, tc.f, 0, []float64{tc.x0}, []float64{tc.T}, 2e-3)
			if err != nil {
				t.Fatal(err)
			}
			v[i] = sol[0][0]
		}
		if m, s := meanSE(v); math.Abs(m-tc.mean) > 5*s {
			t.Errorf("%s: mean %.4f ± %.4f, want %.4f", tc.name, m, s, tc.mean)
		}
		if vv, s := varSE(v); math.Abs(vv-tc.vari) > 5*s {
			t.Errorf("%s: variance %.4f ± %.4f, want %.4f", tc.name, vv, s, tc.vari)
		}
	}
	if _, err := SolveSDE(rng, ou, 0, []float64{0}, []float64{1}, 0); err == nil {
		t.Error("step 0 was accepted")
	}
	blow := func(_ float64, x, a, b []float64) { a[0], b[0] = 10*x[0], 0 }
	if _, err := SolveSDE(rng, blow, 0, []float64{1}, []float64{10}, 1e-3); err == nil {
		t.Error("a path growing like e^{10t} did not fail at 1e8")
	}
}

// TestSolveSDEDrift checks the time stepping without noise: the Lotka–Volterra drift at the
// paper's truth integrated by SolveSDE with σ = 0 approaches SolveODE's Dormand–Prince
// solution (tolerance 10⁻¹⁰) at first order: the error at t = 10 halves with the step
// (ratio within [1.8, 2.2]) and is below 1% of the state at step 10⁻⁴.
func TestSolveSDEDrift(t *testing.T) {
	beta := []float64{1.5, 1, 3, 1}
	lv := NewLotkaVolterraSDE(LotkaVolterraSDEConfig{})
	drift := lv.sde(beta)
	noiseless := func(tm float64, x, a, b []float64) {
		drift(tm, x, a, b)
		b[0], b[1] = 0, 0
	}
	ref, err := SolveODE(func(_ float64, y, dy []float64) {
		dy[0] = beta[0]*y[0] - beta[1]*y[0]*y[1]
		dy[1] = beta[3]*y[0]*y[1] - beta[2]*y[1]
	}, 0, []float64{1, 1}, []float64{10}, ODEConfig{RelTol: 1e-10, AbsTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	errAt := func(dt float64) float64 {
		sol, err := SolveSDE(rand.New(rand.NewPCG(1, 1)), noiseless, 0, []float64{1, 1}, []float64{10}, dt)
		if err != nil {
			t.Fatal(err)
		}
		return math.Hypot(sol[0][0]-ref[0][0], sol[0][1]-ref[0][1])
	}
	e1, e2 := errAt(2e-4), errAt(1e-4)
	t.Logf("Euler error at t = 10: %.3g (dt 2e-4), %.3g (dt 1e-4), ratio %.3f", e1, e2, e1/e2)
	if r := e1 / e2; r < 1.8 || r > 2.2 {
		t.Errorf("error ratio %.3f for halving the step, want about 2 (first order)", r)
	}
	if e2 > 0.01*math.Hypot(ref[0][0], ref[0][1]) {
		t.Errorf("error %.3g at step 1e-4", e2)
	}
}

// TestLotkaVolterraSDE checks the noise forms, the quasi-likelihood's formula and the
// approximate posterior sampler. The quasi log-likelihood with a seeded stream equals
// 2n log τ − (τ²/2)·S for the coarse path drawn from the same seed by SolveSDE. The sampler, on
// data at the paper's truth, returns finite draws of (β, τ) whose mean has a larger quasi
// log-likelihood (same coarse path) than the authors' start β = (1, 1, 1, 1).
func TestLotkaVolterraSDE(t *testing.T) {
	tk := LotkaVolterraSDE()
	a, b := make([]float64, 2), make([]float64, 2)
	tk.sde([]float64{1, 1, 1, 1})(0, []float64{2, 3}, a, b)
	if math.Abs(b[0]-0.2) > 1e-15 || math.Abs(b[1]-0.3) > 1e-15 {
		t.Errorf("multiplicative noise σ·(X, Y) = %v, want [0.2 0.3]", b)
	}
	NewLotkaVolterraSDE(LotkaVolterraSDEConfig{Additive: true}).sde([]float64{1, 1, 1, 1})(0, []float64{2, 3}, a, b)
	if b[0] != 0.1 || b[1] != 0.1 {
		t.Errorf("additive noise = %v, want [0.1 0.1]", b)
	}
	beta := []float64{1.5, 1, 3, 1}
	x := tk.Simulate(rand.New(rand.NewPCG(2, 2)), constTheta(1, beta...)).RawRowView(0)
	for i, v := range x {
		if !(v > 0) {
			t.Fatalf("population %d is %v", i, v)
		}
	}
	ll := tk.QuasiLogLikelihood(rand.New(rand.NewPCG(3, 3)), beta, 0.7, x)
	sol, err := SolveSDE(rand.New(rand.NewPCG(3, 3)), tk.sde(beta), 0, []float64{1, 1}, lvSDETimes, lvSDEApprox)
	if err != nil {
		t.Fatal(err)
	}
	var ss float64
	for i, s := range sol {
		ss += (s[0]-x[i])*(s[0]-x[i]) + (s[1]-x[lvSDESteps+i])*(s[1]-x[lvSDESteps+i])
	}
	if want := 2*lvSDESteps*math.Log(0.7) - 0.49*ss/2; math.Abs(ll-want) > 1e-9*math.Abs(want) {
		t.Errorf("quasi log-likelihood %.10g, want %.10g", ll, want)
	}
	if v := tk.QuasiLogLikelihood(rand.New(rand.NewPCG(3, 3)), []float64{6, 1, 1, 1}, 1, x); !math.IsInf(v, -1) {
		t.Errorf("β outside the prior: %v", v)
	}
	u, err := tk.QuasiPosterior(rand.New(rand.NewPCG(4, 4)), x, 500, MCMCConfig{Burn: 1000, Thin: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := u.Dims(); r != 500 || c != 5 {
		t.Fatalf("draws are %d×%d, want 500×5", r, c)
	}
	mean := make([]float64, 5)
	th := make([]float64, 5)
	for i := range 500 {
		lvQuasiMap.Forward(u.RawRowView(i), th)
		for j, v := range th {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("draw %d is %v", i, th)
			}
			mean[j] += v / 500
		}
	}
	t.Logf("approximate posterior mean of (β, τ): %.3f (truth β = %v)", mean, beta)
	seed := rand.New(rand.NewPCG(5, 5))
	var better int
	for range 10 {
		s := seed.Uint64()
		if tk.QuasiLogLikelihood(rand.New(rand.NewPCG(s, 1)), mean[:4], 1, x) > tk.QuasiLogLikelihood(rand.New(rand.NewPCG(s, 1)), []float64{1, 1, 1, 1}, 1, x) {
			better++
		}
	}
	if better < 9 {
		t.Errorf("the posterior mean %v fits better than β = (1, 1, 1, 1) on %d of 10 coarse paths, want ≥ 9", mean[:4], better)
	}
}

// TestQuasiPosteriorRedrawPath checks MCMCConfig.RedrawPath: with the coarse path redrawn at
// every evaluation the target is random, and Monte Carlo within Metropolis spreads the chain far
// wider than the fixed-path posterior (on this dataset the sd of every β grows five- to
// eightfold; the test asks for threefold), and the Whittle sampler, whose likelihood is
// deterministic, refuses the option.
func TestQuasiPosteriorRedrawPath(t *testing.T) {
	tk := LotkaVolterraSDE()
	x := tk.Simulate(rand.New(rand.NewPCG(2, 2)), constTheta(1, 1.5, 1, 3, 1)).RawRowView(0)
	sds := func(redraw bool) []float64 {
		u, err := tk.QuasiPosterior(rand.New(rand.NewPCG(4, 4)), x, 300, MCMCConfig{Burn: 1000, Thin: 2, RedrawPath: redraw})
		if err != nil {
			t.Fatalf("RedrawPath %v: %v", redraw, err)
		}
		out := make([]float64, lvParamDim)
		th := make([]float64, lvQuasiDim)
		for j := range out {
			col := make([]float64, 300)
			for i := range col {
				lvQuasiMap.Forward(u.RawRowView(i), th)
				col[i] = th[j]
			}
			_, out[j] = stat.PopMeanStdDev(col, nil)
		}
		return out
	}
	fixed, redrawn := sds(false), sds(true)
	for j := range fixed {
		t.Logf("β%d: posterior sd %.3f with a fixed path, %.3f redrawn", j+1, fixed[j], redrawn[j])
		if !(redrawn[j] > 3*fixed[j]) {
			t.Errorf("β%d: sd %.3f redrawn against %.3f fixed, want more than 3×", j+1, redrawn[j], fixed[j])
		}
	}
	ar, _ := NewARFIMA(300)
	if _, err := ar.WhittlePosterior(rand.New(rand.NewPCG(1, 1)), make([]float64, 300), 10, MCMCConfig{RedrawPath: true}); err == nil || !strings.Contains(err.Error(), "RedrawPath") {
		t.Errorf("WhittlePosterior with RedrawPath: error %v, want one naming RedrawPath", err)
	}
}

// TestLotkaVolterraSDESeries checks LogSeries' layout and SummaryStatistics against closed
// forms: for the alternating series sₜ = (−1)ᵗ of n = 101 steps the mean m is 1/101, the
// sum of squares Σ(sₜ − m)² = 101 − 1/101, and the lag-k sum Σ(sₜ − m)(sₜ₋ₖ − m) expands to
// Σsₜsₜ₋ₖ − mΣ(sₜ + sₜ₋ₖ) + (n − k)m² with Σsₜsₜ₋ₖ = ±(n − k) (so ρ₁ = −100(1 − 1/101²)/
// (101 − 1/101)); a channel 3s + 2 has 9 times the variance and correlation 1 with s, and −s
// has −1.
func TestLotkaVolterraSDESeries(t *testing.T) {
	tk := LotkaVolterraSDE()
	x := mat.NewDense(2, lvDataDim, nil)
	for k := 0; k < lvSDESteps; k++ {
		x.Set(0, k, float64(k+1))
		x.Set(0, lvSDESteps+k, float64(1000+k))
		x.Set(1, k, math.NaN())
		x.Set(1, lvSDESteps+k, 1)
	}
	s := tk.LogSeries(x)
	for k := 0; k < lvSDESteps; k++ {
		if s.At(0, 2*k) != math.Log(float64(k+1)) || s.At(0, 2*k+1) != math.Log(float64(1000+k)) {
			t.Fatalf("step %d: log series (%v, %v), want (log %d, log %d)", k, s.At(0, 2*k), s.At(0, 2*k+1), k+1, 1000+k)
		}
		if !math.IsNaN(s.At(1, 2*k)) {
			t.Fatalf("a failed simulation's step %d is %v, want NaN", k, s.At(1, 2*k))
		}
	}

	const n = lvSDESteps
	series := mat.NewDense(2, lvDataDim, nil)
	for k := 0; k < n; k++ {
		alt := 1.0
		if k%2 == 1 {
			alt = -1
		}
		series.Set(0, 2*k, alt)
		series.Set(0, 2*k+1, 3*alt+2)
		series.Set(1, 2*k, alt)
		series.Set(1, 2*k+1, -alt)
	}
	m := 1.0 / n
	ss := n - 1.0/n // Σ (sₜ − m)²
	// Σ (sₜ − m)(sₜ₋ₖ − m) = Σ sₜsₜ₋ₖ − m Σ (sₜ + sₜ₋ₖ) + (n−k)m², over t = k … n−1.
	lag := func(k int) float64 {
		prod := float64(n - k)
		if k%2 == 1 {
			prod = -prod
		}
		var sum float64 // Σ (sₜ + sₜ₋ₖ)
		for tt := k; tt < n; tt++ {
			sum += math.Pow(-1, float64(tt)) + math.Pow(-1, float64(tt-k))
		}
		return (prod - m*sum + float64(n-k)*m*m) / ss
	}
	want := []float64{m, 3*m + 2, math.Log(ss / (n - 1)), math.Log(9 * ss / (n - 1)), lag(1), lag(2), lag(1), lag(2), 1}
	got := tk.SummaryStatistics(series)
	for j, w := range want {
		if math.Abs(got.At(0, j)-w) > 1e-12 {
			t.Errorf("statistic %d = %.15g, want %.15g", j, got.At(0, j), w)
		}
	}
	if r := got.At(1, 8); math.Abs(r+1) > 1e-12 {
		t.Errorf("correlation of s and −s = %v, want −1", r)
	}
	if r1 := lag(1); math.Abs(r1-(-100*(1-1/float64(n*n))/(n-1.0/n))) > 1e-12 {
		t.Fatalf("the test's own ρ₁ %v disagrees with its closed form", r1)
	}
}
