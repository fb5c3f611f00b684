package task

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTCSLCPSimulator: the points have mean (0.7, −2.9) and variances θ₁⁴, θ₂⁴; the covariance
// averages ρ = tanh(u), u ~ U(−3, 3), whose mean is 0. Tolerances: 5 standard errors.
func TestTCSLCPSimulator(t *testing.T) {
	const n = 10000
	th := []float64{1.1, -0.9}
	x := TCSLCP().Simulate(rand.New(rand.NewPCG(2, 3)), constTheta(n, th...))
	var px, py, pxy []float64
	for i := 0; i < n; i++ {
		for k := 0; k < 4; k++ {
			a, b := x.At(i, 2*k), x.At(i, 2*k+1)
			px, py, pxy = append(px, a), append(py, b), append(pxy, (a-0.7)*(b+2.9))
		}
	}
	for _, c := range []struct {
		name          string
		got, want, se float64
	}{
		{"mean x", mean(px), 0.7, se(px)}, {"mean y", mean(py), -2.9, se(py)},
		{"var x", variance(px), math.Pow(th[0], 4), varianceSE(px)},
		{"var y", variance(py), math.Pow(th[1], 4), varianceSE(py)},
		// Points of one simulation share ρ, so the covariance's standard error is taken over
		// simulations (the mean of each simulation's 4 products).
		{"cov", mean(pxy), 0, se(blockMeans(pxy, 4))},
	} {
		if math.Abs(c.got-c.want) > 5*c.se {
			t.Errorf("tc_slcp %s = %v, want %v ± %v", c.name, c.got, c.want, 5*c.se)
		}
	}
	// θ = 0 gives a degenerate covariance: x is exactly the mean.
	x = TCSLCP().Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(2, 0, 0))
	if x.At(0, 0) != 0.7 || x.At(0, 1) != -2.9 {
		t.Errorf("θ = 0 gives %v", x.RawRowView(0))
	}
}

func blockMeans(v []float64, b int) []float64 {
	out := make([]float64, len(v)/b)
	for i := range out {
		for _, x := range v[i*b : (i+1)*b] {
			out[i] += x / float64(b)
		}
	}
	return out
}

// TestWeinbergSimulator compares E[cos θ] with the law the simulator defines: density
// ∝ clamp(f(c)/m², 0, 1) on [−1, 1] (m the grid maximum of f), computed by quadrature. For
// G_F = 1, f ≥ 0 and m > 1, so the law is ∝ f, whose mean is A/4; for G_F = 0.25, m < 1 and the
// double division truncates f; for G_F = 2, f < 0 near c = 1 (|A| > 2) and those c never occur.
// Tolerance: 5 standard errors.
func TestWeinbergSimulator(t *testing.T) {
	const n = 2000
	for _, g := range []float64{2, 0.25, 1} { // m < 1 at 0.25; f < 0 near c = 1 at 2
		x := Weinberg().Simulate(rand.New(rand.NewPCG(4, 4)), constTheta(n, g))
		var all []float64
		for i := 0; i < n; i++ {
			all = append(all, x.RawRowView(i)...)
		}
		a := 2 * math.Tanh((80.0-90)/90*10) * g
		f := func(c float64) float64 { return (1 + c*c + a*c) / (8.0 / 3) }
		m := math.Max(f(-1), f(1))
		var num, den float64
		const q = 200000
		for i := 0; i < q; i++ {
			c := -1 + (float64(i)+0.5)*2/q
			w := math.Max(0, math.Min(f(c)/m/m, 1))
			num += c * w
			den += w
		}
		want := num / den
		if g == 1 && math.Abs(want-a/4) > 1e-6 {
			t.Fatalf("quadrature %v, closed form %v", want, a/4)
		}
		if got, s := meanSE(all); math.Abs(got-want) > 5*s {
			t.Errorf("G_F = %v: E[cos θ] = %v ± %v, want %v", g, got, s, want)
		}
		for _, v := range all {
			if v < -1 || v > 1 {
				t.Fatalf("cos θ = %v outside [−1, 1]", v)
			}
		}
	}
}

// TestMG1Simulator: percentiles are sorted and ≥ the shortest service time θ₁; for a fixed
// service time 1 and rare arrivals (rate 0.1) the inter-departure times are close to the
// Exp(0.1) gaps, whose sample median over 50 has expectation (H₅₀ − H₂₄ + H₅₀ − H₂₅)/(2·0.1)
// ≈ 7.03 (order statistics of exponentials); queueing after gaps shorter than 1 lowers it by
// less than 0.1, so the average median must lie within 5 standard errors + 0.15 of 7.03.
func TestMG1Simulator(t *testing.T) {
	const n = 4000
	x := MG1().Simulate(rand.New(rand.NewPCG(6, 6)), constTheta(n, 1, 1, 0.1))
	med := column(x, 2)
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		for j := 1; j < 5; j++ {
			if r[j] < r[j-1] {
				t.Fatalf("percentiles not sorted: %v", r)
			}
		}
		if r[0] < 1-1e-12 {
			t.Fatalf("minimum inter-departure time %v below the service time 1", r[0])
		}
	}
	h := func(k int) float64 {
		s := 0.0
		for i := 1; i <= k; i++ {
			s += 1 / float64(i)
		}
		return s
	}
	want := (h(50) - h(25) + h(50) - h(24)) / 2 / 0.1
	if m, s := meanSE(med); math.Abs(m-want) > 5*s+0.15 {
		t.Errorf("median inter-departure time %v ± %v, want about %v", m, s, want)
	}
}

// TestTCLotkaVolterraSimulator: every step changes one population by ±1, starting from
// (50, 100); the first event is a predator birth with probability E[k₁xy/(k₁xy + k₂x + k₃y +
// k₄xy)] over the prey's log-uniform rates, computed by quadrature (tolerance 5 standard errors).
func TestTCLotkaVolterraSimulator(t *testing.T) {
	const n = 4000
	th := []float64{-3, -1}
	x := TCLotkaVolterra().Simulate(rand.New(rand.NewPCG(7, 7)), constTheta(n, th...))
	births := 0.0
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		pred, prey := r[:tcLVSteps], r[tcLVSteps:]
		if pred[0] == 51 {
			births++
		}
		p0, q0 := 50.0, 100.0
		for s := 0; s < tcLVSteps; s++ {
			if pred[s] == 0 && prey[s] == 0 && s > 0 {
				break // extinct: the rest stays 0
			}
			if math.Abs(pred[s]-p0)+math.Abs(prey[s]-q0) != 1 {
				t.Fatalf("sim %d step %d: (%v, %v) after (%v, %v)", i, s, pred[s], prey[s], p0, q0)
			}
			p0, q0 = pred[s], prey[s]
		}
	}
	k1, k2 := math.Exp(th[0]), math.Exp(th[1])
	const g = 400
	want := 0.0
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			k3 := math.Exp(-4 + (float64(i)+0.5)*(5+1e-5)/g)
			k4 := math.Exp(-4 + (float64(j)+0.5)*(5+1e-5)/g)
			want += k1 * 5000 / (k1*5000 + k2*50 + k3*100 + k4*5000) / (g * g)
		}
	}
	got := births / n
	if math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/n) {
		t.Errorf("first-event predator birth frequency %v, want %v", got, want)
	}
}

// TestSpatialSIRSimulator checks special cases: with β = 0 nothing spreads, so the infected
// count is the number of distinct initial cells (mean ≈ 1 + 3 = 4, minus rare collisions);
// with β = 0 and γ = 1 every initial infection has recovered at the end; the three images are
// indicators that cover every cell.
func TestSpatialSIRSimulator(t *testing.T) {
	const n = 400
	const cells = sirGrid * sirGrid
	// Expected distinct initial cells: E[K] − E[K(K−1)]/(2·2500) to first order, with
	// K = 1 + Poisson(3), E[K(K−1)] = 15; tolerance 5 standard errors.
	want := 4 - 15.0/5000
	x := SpatialSIR().Simulate(rand.New(rand.NewPCG(8, 8)), constTheta(n, 0, 0))
	counts := make([]float64, n)
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		for c := 0; c < cells; c++ {
			counts[i] += r[cells+c]
			if r[c]+r[cells+c]+r[2*cells+c] != 1 {
				t.Fatalf("cell %d is not one-hot: %v %v %v", c, r[c], r[cells+c], r[2*cells+c])
			}
		}
	}
	if m, s := meanSE(counts); math.Abs(m-want) > 5*s {
		t.Errorf("β = 0: infected count %v ± %v, want 4", m, s)
	}
	x = SpatialSIR().Simulate(rand.New(rand.NewPCG(8, 8)), constTheta(n, 0, 1))
	recs := make([]float64, n)
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		for c := 0; c < cells; c++ {
			if r[cells+c] != 0 {
				t.Fatalf("β = 0, γ = 1: cell %d still infected", c)
			}
			recs[i] += r[2*cells+c]
		}
	}
	if m, s := meanSE(recs); math.Abs(m-want) > 5*s {
		t.Errorf("β = 0, γ = 1: recovered count %v ± %v, want 4", m, s)
	}
	// With spreading, the epidemic grows beyond the initial cells.
	x = SpatialSIR().Simulate(rand.New(rand.NewPCG(9, 9)), constTheta(200, 0.9, 0.05))
	grown := 0.0
	for i := 0; i < 200; i++ {
		r := x.RawRowView(i)
		for c := 0; c < cells; c++ {
			grown += (r[cells+c] + r[2*cells+c]) / 200
		}
	}
	if grown < 50 {
		t.Errorf("β = 0.9: only %v cells ever infected on average", grown)
	}
}
