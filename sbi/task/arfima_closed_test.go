package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFIAutocovClosedForm checks the recursion of fiAutocov against the closed form of the
// autocovariance of fractionally integrated noise (Hosking 1981),
// γ(k) = Γ(1 − 2d)Γ(k + d)/(Γ(d)Γ(1 − d)Γ(k + 1 − d)), for d of both signs and lags 0–60.
func TestFIAutocovClosedForm(t *testing.T) {
	for _, d := range []float64{-0.3, 0.1, 0.3, 0.45} {
		g := make([]float64, 61)
		fiAutocov(d, g)
		for k, got := range g {
			want := math.Gamma(1-2*d) * math.Gamma(float64(k)+d) / (math.Gamma(d) * math.Gamma(1-d) * math.Gamma(float64(k)+1-d))
			if math.Abs(got-want) > 1e-10*math.Abs(want) {
				t.Errorf("d = %g, lag %d: recursion %.12g, closed form %.12g", d, k, got, want)
			}
		}
	}
}

// specAutocov is ∫_{−π}^{π} f(ω) cos(kω) dω = 2∫_0^π, by the midpoint rule in t with ω = πt⁵
// (the substitution makes the integrand of a pole ω^{−2d}, d < ½, vanish at 0).
func specAutocov(tk *ARFIMATask, theta []float64, k int) float64 {
	const n = 1 << 17
	var s float64
	for i := range n {
		tt := (float64(i) + 0.5) / n
		om := math.Pi * math.Pow(tt, 5)
		s += tk.SpectralDensity(theta, om) * math.Cos(float64(k)*om) * 5 * math.Pi * math.Pow(tt, 4) / n
	}
	return 2 * s
}

// TestSpectralDensityAutocov checks SpectralDensity against the autocovariances it must
// integrate to, γ(k) = ∫ f(ω) cos(kω) dω, for three closed forms: fractional noise with d = −0.3
// and 0.3 (Hosking's Γ-ratio, fiAutocov) and the ARMA(2, 1) of the paper's truth with d = 0,
// whose autocovariance is Σⱼ ψⱼψⱼ₊ₖ over its MA(∞) weights ψ₀ = 1, ψ₁ = φ₁ + ϑ₁,
// ψⱼ = φ₁ψⱼ₋₁ + φ₂ψⱼ₋₂. A density off by a constant factor (2π), with the opposite sign of d or
// the MA sign of the Box–Jenkins convention fails (checked by making each change).
func TestSpectralDensityAutocov(t *testing.T) {
	tk := MustNewARFIMA(64)
	g := make([]float64, 6)
	for _, d := range []float64{-0.3, 0.3} {
		fiAutocov(d, g)
		for k, want := range g {
			if got := specAutocov(tk, []float64{0, 0, 0, d}, k); math.Abs(got-want) > 1e-5*g[0] {
				t.Errorf("FI(%g) lag %d: ∫f cos = %.8f, γ = %.8f", d, k, got, want)
			}
		}
	}
	phi1, phi2, ma := 0.45, 0.1, -0.4
	psi := make([]float64, 3000)
	psi[0], psi[1] = 1, phi1+ma
	for j := 2; j < len(psi); j++ {
		psi[j] = phi1*psi[j-1] + phi2*psi[j-2]
	}
	for k := range 6 {
		var want float64
		for j := 0; j+k < len(psi); j++ {
			want += psi[j] * psi[j+k]
		}
		if got := specAutocov(tk, []float64{phi1, phi2, ma, 0}, k); math.Abs(got-want) > 1e-8 {
			t.Errorf("ARMA(2, 1) lag %d: ∫f cos = %.10f, Σψψ = %.10f", k, got, want)
		}
	}
}

// TestPeriodogramCosine checks Periodogram on closed forms: x_t = A cos(2πjt/n + c) puts
// I(ω_j) = A²n/(8π) at its own frequency and 0 at every other Fourier frequency; a constant
// series has a zero periodogram (the zero frequency is left out).
func TestPeriodogramCosine(t *testing.T) {
	const n, j, a = 64, 5, 1.7
	x := make([]float64, n)
	for i := range x {
		x[i] = a*math.Cos(2*math.Pi*float64(j*i)/n+0.4) + 3
	}
	I := Periodogram(x)
	if len(I) != (n-1)/2 {
		t.Fatalf("%d ordinates, want %d", len(I), (n-1)/2)
	}
	for k, v := range I {
		want := 0.0
		if k+1 == j {
			want = a * a * n / (8 * math.Pi)
		}
		if math.Abs(v-want) > 1e-10 {
			t.Errorf("I(ω_%d) = %.12g, want %.12g", k+1, v, want)
		}
	}
}

// TestWhittleInformation checks the information matrix against the closed forms of its
// entries at θ = (φ, 0, ϑ, d), an ARFIMA(1, d, 1) seen through the AR(2) parameters. With
// v = φ(B)⁻¹ε and w = ϑ(B)⁻¹ε (weights φᵏ and (−ϑ)ᵏ) the ARMA entries are E vₜ₋ᵢvₜ₋ⱼ and
// E vₜ₋ᵢwₜ₋₁: 1/(1 − φ²) and φ/(1 − φ²) for the AR block, 1/(1 + φϑ) and −ϑ/(1 + φϑ) for AR ×
// MA, 1/(1 − ϑ²) for MA; d has π²/6, and its gradient −2 log|1 − e^{−iω}| = 2 Re Σₖ e^{−ikω}/k
// gives d × φⱼ = Σₖ φᵏ/(k + j): −log(1 − φ)/φ and (−log(1 − φ) − φ)/φ², and d × MA log(1 + ϑ)/ϑ.
// Outside the stationary region it returns an error.
func TestWhittleInformation(t *testing.T) {
	tk := ARFIMA()
	const phi, ma = 0.6, 0.3
	info, err := tk.WhittleInformation([]float64{phi, 0, ma, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	lg := -math.Log(1 - phi)
	want := [4][4]float64{
		{1 / (1 - phi*phi), phi / (1 - phi*phi), 1 / (1 + phi*ma), lg / phi},
		{0, 1 / (1 - phi*phi), -ma / (1 + phi*ma), (lg - phi) / (phi * phi)},
		{0, 0, 1 / (1 - ma*ma), math.Log(1+ma) / ma},
		{0, 0, 0, math.Pi * math.Pi / 6},
	}
	for a := range 4 {
		for b := a; b < 4; b++ {
			if got := info.At(a, b); math.Abs(got-want[a][b]) > 1e-6*math.Max(1, math.Abs(want[a][b])) {
				t.Errorf("I[%d][%d] = %.9f, want %.9f", a, b, got, want[a][b])
			}
		}
	}
	if _, err := tk.WhittleInformation([]float64{0.5, 0.6, 0, 0}); err == nil {
		t.Error("non-stationary θ: no error")
	}
}

// TestWhittlePosteriorPower ties the Whittle posterior to the information matrix and checks
// LikelihoodPower. On a series of 3000 at (0.45, 0.1, 0.4, 0.4), the posterior sd of each
// parameter (2000 draws) must lie within 20% of the asymptotic √(I⁻¹ⱼⱼ/n) (the draws' sd has a
// Monte Carlo error of about 4% at their effective size; n = 3000 is not asymptotic for the
// sd's of the AR and MA parts, which the prior and curvature move by a few %); with power 2
// the sd's shrink by √2: the mean over the four parameters of log(sd₁/sd₂) within 0.1 of
// log √2 = 0.347 (a power that is ignored gives 0).
func TestWhittlePosteriorPower(t *testing.T) {
	const n = 3000
	tk := MustNewARFIMA(n)
	truth := []float64{0.45, 0.1, 0.4, 0.4}
	rng := rand.New(rand.NewPCG(8, 8))
	x := tk.Simulate(rng, constTheta(1, truth...)).RawRowView(0)
	info, err := tk.WhittleInformation(truth)
	if err != nil {
		t.Fatal(err)
	}
	var cov mat.SymDense
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		t.Fatal("information not positive definite")
	}
	if err := ch.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	sds := func(p float64) []float64 {
		u, err := tk.WhittlePosterior(rng, x, 2000, MCMCConfig{LikelihoodPower: p})
		if err != nil {
			t.Fatal(err)
		}
		th := make([]float64, 4)
		cols := make([][]float64, 4)
		for i := range 2000 {
			tk.FromUnconstrained(u.RawRowView(i), th)
			for j := range 4 {
				cols[j] = append(cols[j], th[j])
			}
		}
		out := make([]float64, 4)
		for j := range 4 {
			v, _ := varSE(cols[j])
			out[j] = math.Sqrt(v)
		}
		return out
	}
	s1, s2 := sds(1), sds(2)
	var logRatio float64
	for j := range 4 {
		asym := math.Sqrt(cov.At(j, j) / n)
		t.Logf("%s: sd %.4f (power 1), %.4f (power 2), asymptotic %.4f", tk.ParamLabels()[j], s1[j], s2[j], asym)
		if math.Abs(s1[j]/asym-1) > 0.2 {
			t.Errorf("%s: posterior sd %.4f, asymptotic %.4f", tk.ParamLabels()[j], s1[j], asym)
		}
		logRatio += math.Log(s1[j]/s2[j]) / 4
	}
	if math.Abs(logRatio-math.Log(math.Sqrt2)) > 0.1 {
		t.Errorf("mean log sd ratio of power 1 to power 2 %.3f, want %.3f", logRatio, math.Log(math.Sqrt2))
	}
	if _, err := tk.WhittlePosterior(rng, x, 10, MCMCConfig{LikelihoodPower: -1}); err == nil {
		t.Error("negative power: no error")
	}
}
