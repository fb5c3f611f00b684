package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ar1LogLik is the exact Gaussian log-likelihood of a stationary AR(1) with unit innovation
// variance: x₁ ~ N(0, 1/(1−φ²)), x_t | x_{t−1} ~ N(φx_{t−1}, 1).
func ar1LogLik(x []float64, phi float64) float64 {
	v := 1 / (1 - phi*phi)
	ll := -0.5*math.Log(2*math.Pi*v) - x[0]*x[0]/(2*v)
	for t := 1; t < len(x); t++ {
		r := x[t] - phi*x[t-1]
		ll -= 0.5*math.Log(2*math.Pi) + r*r/2
	}
	return ll
}

// TestWhittleAR1 compares the Whittle log-likelihood with the exact Gaussian one on a long
// AR(1) (n = 15,000, φ = 0.6, simulated by the ARFIMA simulator with φ₂ = ϑ₁ = d = 0). On a grid
// of φ over ±4 standard errors (se = √((1−φ²)/n) = 0.0065) around the truth, the log-likelihood
// differences to the grid's centre must agree within 0.5 nats (they reach 8 nats), the two
// maximizers within 0.1 se, and the curvatures within 3%. A Whittle likelihood with the
// spectral density off by the factor 2 (f/2: the full-sum form without halving) fails the
// difference check (power).
func TestWhittleAR1(t *testing.T) {
	tk := ARFIMA()
	x := tk.Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(1, 0.6, 0, 0, 0)).RawRowView(0)
	w, err := tk.Whittle(x)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt((1 - 0.36) / ARFIMALength)
	wl := func(phi float64) float64 { return w.LogLikelihood([]float64{phi, 0, 0, 0}) }
	centre := 0.6
	worst := 0.0
	for k := -4; k <= 4; k++ {
		phi := centre + float64(k)*se
		dExact := ar1LogLik(x, phi) - ar1LogLik(x, centre)
		dWhittle := wl(phi) - wl(centre)
		worst = math.Max(worst, math.Abs(dExact-dWhittle))
		if math.Abs(dExact-dWhittle) > 0.5 {
			t.Errorf("φ = %.4f: log-likelihood change %.3f exact, %.3f Whittle", phi, dExact, dWhittle)
		}
	}
	argmax := func(f func(float64) float64) float64 { // golden section on [0.5, 0.7]
		a, b := 0.5, 0.7
		g := (math.Sqrt(5) - 1) / 2
		for b-a > 1e-9 {
			c, d := b-g*(b-a), a+g*(b-a)
			if f(c) > f(d) {
				b = d
			} else {
				a = c
			}
		}
		return (a + b) / 2
	}
	pe, pw := argmax(func(p float64) float64 { return ar1LogLik(x, p) }), argmax(wl)
	curv := func(f func(float64) float64, p float64) float64 {
		const h = 1e-3
		return -(f(p+h) - 2*f(p) + f(p-h)) / (h * h)
	}
	ce, cw := curv(func(p float64) float64 { return ar1LogLik(x, p) }, pe), curv(wl, pw)
	t.Logf("MLE exact %.5f, Whittle %.5f (se %.4f); curvature %.0f vs %.0f; largest difference gap %.3f nats", pe, pw, se, ce, cw, worst)
	if math.Abs(pe-pw) > 0.1*se {
		t.Errorf("maximizers %.5f (exact) and %.5f (Whittle) differ by more than 0.1 se", pe, pw)
	}
	if math.Abs(cw/ce-1) > 0.03 {
		t.Errorf("curvature %.1f (Whittle) against %.1f (exact)", cw, ce)
	}
	// Power: halving the spectral density doubles the I/f term.
	bad := func(phi float64) float64 {
		var ll float64
		for k, iv := range w.I {
			lf := arfimaLogSpec([]float64{phi, 0, 0, 0}, w.cos[k], w.sin[k], w.cos2[k], w.sin2[k], w.lsin[k]) - math.Ln2
			ll -= lf + iv*math.Exp(-lf)
		}
		return ll
	}
	phi := centre + 4*se
	if d := math.Abs((ar1LogLik(x, phi) - ar1LogLik(x, centre)) - (bad(phi) - bad(centre))); d <= 0.5 {
		t.Errorf("a mis-scaled Whittle likelihood passes the difference check (gap %.3f)", d)
	}
}

// TestARFIMASimulation ties the simulator to the model. Fractionally integrated noise (d =
// 0.3, series of 256, 400 of them): the sample autocovariances at lags 0–3 match γ(k) of
// fiAutocov within 5 standard errors across series. ARFIMA(2, d, 1) at the paper's truth
// (0.45, 0.1, −0.4, 0.4), n = 15,000: the periodogram divided by the spectral density has mean 1
// over the Fourier frequencies k ≥ 50 (asymptotically Exp(1) and independent: tolerance 5/√K).
func TestARFIMASimulation(t *testing.T) {
	short, err := NewARFIMA(256)
	if err != nil {
		t.Fatal(err)
	}
	const reps = 400
	x := short.Simulate(rand.New(rand.NewPCG(2, 2)), constTheta(reps, 0, 0, 0, 0.3))
	g := make([]float64, 4)
	fiAutocov(0.3, g)
	for lag := range 4 {
		v := make([]float64, reps)
		for r := range reps {
			row := x.RawRowView(r)
			for i := 0; i+lag < len(row); i++ {
				v[r] += row[i] * row[i+lag] / float64(len(row)-lag)
			}
		}
		// The process has mean zero, so Σ x_i x_{i+lag}/(n−lag) is unbiased for γ(lag).
		if m, s := meanSE(v); math.Abs(m-g[lag]) > 5*s {
			t.Errorf("FI(0.3) lag %d: autocovariance %.4f ± %.4f, want %.4f", lag, m, s, g[lag])
		}
	}
	tk := ARFIMA()
	truth := []float64{0.45, 0.1, -0.4, 0.4}
	y := tk.Simulate(rand.New(rand.NewPCG(3, 3)), constTheta(1, truth...)).RawRowView(0)
	I := Periodogram(y)
	var ratio []float64
	for k := 50; k < len(I); k++ {
		ratio = append(ratio, I[k-1]/tk.SpectralDensity(truth, 2*math.Pi*float64(k)/ARFIMALength))
	}
	if m := mean(ratio); math.Abs(m-1) > 5/math.Sqrt(float64(len(ratio))) {
		t.Errorf("mean periodogram/spectral density %.4f over %d frequencies, want 1", m, len(ratio))
	}
}

// TestARFIMAPrior checks the prior's density against its sampler: the mean of 16·p(θ) over
// uniform draws of the bounding box [−2, 2] × [−1, 1]² × [−½, ½] (volume 16) is the prior
// mass, 1 within 5 standard errors; atanh(2d) of prior draws is N(0, 1); and draws lie in the
// stationary region. The round trip through the unconstrained coordinates is the identity.
func TestARFIMAPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	p := arfimaPrior{}
	const n = 200000
	box := mat.NewDense(n, 4, nil)
	for i := range n {
		box.SetRow(i, []float64{4*rng.Float64() - 2, 2*rng.Float64() - 1, 2*rng.Float64() - 1, rng.Float64() - 0.5})
	}
	v := p.LogProb(box)
	for i := range v {
		v[i] = 16 * math.Exp(v[i])
	}
	if m, s := meanSE(v); math.Abs(m-1) > 5*s {
		t.Errorf("prior mass %.4f ± %.4f, want 1", m, s)
	}
	draws := p.Sample(rng, 20000)
	dt := make([]float64, 20000)
	tk := ARFIMA()
	u, back := make([]float64, 4), make([]float64, 4)
	for i := range dt {
		row := draws.RawRowView(i)
		if !p.InSupport(row) {
			t.Fatalf("draw %v outside the stationary region", row)
		}
		dt[i] = math.Atanh(2 * row[3])
		if !tk.ToUnconstrained(row, u) {
			t.Fatalf("ToUnconstrained refused %v", row)
		}
		tk.FromUnconstrained(u, back)
		for j := range 4 {
			if math.Abs(back[j]-row[j]) > 1e-12 {
				t.Fatalf("round trip %v → %v", row, back)
			}
		}
	}
	if m, s := meanSE(dt); math.Abs(m) > 5*s {
		t.Errorf("atanh 2d: mean %.4f ± %.4f", m, s)
	}
	if vv, s := varSE(dt); math.Abs(vv-1) > 5*s {
		t.Errorf("atanh 2d: variance %.4f ± %.4f", vv, s)
	}
}

// TestMetropolis checks the sampler on a correlated Gaussian in 3-D: the means and variances of
// 20,000 thinned draws within 0.1 sd and 10% (the chain's effective sample size is a few
// thousand), and its correlation within 0.05.
func TestMetropolis(t *testing.T) {
	prec := [3][3]float64{{2, 1, 0}, {1, 2, 0.5}, {0, 0.5, 1}}
	logT := func(u []float64) float64 {
		var q float64
		for a := range 3 {
			for b := range 3 {
				q += (u[a] - 1) * prec[a][b] * (u[b] - 1)
			}
		}
		return -q / 2
	}
	draws, err := metropolis(rand.New(rand.NewPCG(5, 5)), logT, []float64{0, 0, 0}, 20000, MCMCConfig{Burn: 5000, Thin: 3}.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	cov := mat.NewSymDense(3, []float64{prec[0][0], prec[0][1], prec[0][2], prec[1][0], prec[1][1], prec[1][2], prec[2][0], prec[2][1], prec[2][2]})
	var ch mat.Cholesky
	ch.Factorize(cov)
	ch.InverseTo(cov)
	cols := make([][]float64, 3)
	for j := range 3 {
		cols[j] = mat.Col(nil, j, draws)
		m := mean(cols[j])
		var v float64
		for _, a := range cols[j] {
			v += (a - m) * (a - m) / float64(len(cols[j]))
		}
		sd := math.Sqrt(cov.At(j, j))
		if math.Abs(m-1) > 0.1*sd || math.Abs(v/cov.At(j, j)-1) > 0.1 {
			t.Errorf("coordinate %d: mean %.3f var %.3f, want 1 and %.3f", j, m, v, cov.At(j, j))
		}
	}
	want := cov.At(0, 1) / math.Sqrt(cov.At(0, 0)*cov.At(1, 1))
	m0, m1 := mean(cols[0]), mean(cols[1])
	var c, v0, v1 float64
	for i := range cols[0] {
		c += (cols[0][i] - m0) * (cols[1][i] - m1)
		v0 += (cols[0][i] - m0) * (cols[0][i] - m0)
		v1 += (cols[1][i] - m1) * (cols[1][i] - m1)
	}
	if r := c / math.Sqrt(v0*v1); math.Abs(r-want) > 0.05 {
		t.Errorf("correlation %.3f, want %.3f", r, want)
	}
}

// TestWhittlePosterior runs the sampler on a series of 3000 at the paper's truth: every
// parameter's posterior mean lies within 4 posterior sd of the truth.
func TestWhittlePosterior(t *testing.T) {
	tk, _ := NewARFIMA(3000)
	truth := []float64{0.45, 0.1, -0.4, 0.4}
	rng := rand.New(rand.NewPCG(6, 6))
	x := tk.Simulate(rng, constTheta(1, truth...)).RawRowView(0)
	u, err := tk.WhittlePosterior(rng, x, 2000, MCMCConfig{})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := u.Dims()
	theta := mat.NewDense(n, 4, nil)
	for i := range n {
		tk.FromUnconstrained(u.RawRowView(i), theta.RawRowView(i))
	}
	for j := range 4 {
		col := mat.Col(nil, j, theta)
		m := mean(col)
		var v float64
		for _, a := range col {
			v += (a - m) * (a - m) / float64(n)
		}
		t.Logf("%s: posterior %.3f ± %.3f, truth %.2f", tk.ParamLabels()[j], m, math.Sqrt(v), truth[j])
		if math.Abs(m-truth[j]) > 4*math.Sqrt(v) {
			t.Errorf("%s: posterior mean %.3f ± %.3f, truth %.2f", tk.ParamLabels()[j], m, math.Sqrt(v), truth[j])
		}
	}
}

// TestWhittleReference compares the vectorized Whittle log-likelihood with the sum of the
// scalar log spectral densities, at prior draws, and −Inf outside the stationary region.
func TestWhittleReference(t *testing.T) {
	tk, _ := NewARFIMA(1000)
	rng := rand.New(rand.NewPCG(7, 7))
	x := tk.Simulate(rng, constTheta(1, 0.45, 0.1, -0.4, 0.4)).RawRowView(0)
	w, err := tk.Whittle(x)
	if err != nil {
		t.Fatal(err)
	}
	prior := tk.Prior().Sample(rng, 20)
	for i := range 20 {
		th := prior.RawRowView(i)
		var want float64
		for k, iv := range w.I {
			lf := arfimaLogSpec(th, w.cos[k], w.sin[k], w.cos2[k], w.sin2[k], w.lsin[k])
			want -= lf + iv*math.Exp(-lf)
		}
		if got := w.LogLikelihood(th); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("θ = %v: Whittle %.12g, scalar reference %.12g", th, got, want)
		}
	}
	if ll := w.LogLikelihood([]float64{0.5, 0.6, 0, 0}); !math.IsInf(ll, -1) {
		t.Errorf("non-stationary θ: %v", ll)
	}
}
