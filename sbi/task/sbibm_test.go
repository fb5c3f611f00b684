package task

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/internal/sbibmtest"
)

// TestTwoMoonsSimulator inverts the map of the definition: for fixed θ, p = x − (−|z₀|, z₁)
// must have radius ‖p − (0.25, 0)‖ ~ N(0.1, 0.01²) and angle ~ U(−π/2, π/2) (mean 0,
// variance π²/12). Tolerance: 5 standard errors of n draws.
func TestTwoMoonsSimulator(t *testing.T) {
	const n = 20000
	theta := []float64{0.3, -0.7}
	x := TwoMoons().Simulate(rand.New(rand.NewPCG(1, 2)), constTheta(n, theta...))
	z0 := (theta[0] + theta[1]) / math.Sqrt2
	z1 := (theta[1] - theta[0]) / math.Sqrt2
	r, a := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		u := x.At(i, 0) + math.Abs(z0) - 0.25
		v := x.At(i, 1) - z1
		r[i], a[i] = math.Hypot(u, v), math.Atan2(v, u)
	}
	if m, se := meanSE(r); math.Abs(m-0.1) > 5*se {
		t.Errorf("radius mean %v ± %v, want 0.1", m, se)
	}
	if v, se := varSE(r); math.Abs(v-1e-4) > 5*se {
		t.Errorf("radius variance %v ± %v, want 1e-4", v, se)
	}
	if m, se := meanSE(a); math.Abs(m) > 5*se {
		t.Errorf("angle mean %v ± %v, want 0", m, se)
	}
	if v, se := varSE(a); math.Abs(v-math.Pi*math.Pi/12) > 5*se {
		t.Errorf("angle variance %v ± %v, want π²/12", v, se)
	}
}

// TestTwoMoonsExactPosteriorMatchesReference compares 700 exact posterior draws with 700
// sbibm reference samples with an energy-distance permutation test (149 permutations): the
// p-value must exceed 0.001 for every observation tested, and the test must reject (p ≤ 0.01)
// the exact posterior of another observation, which shows that it has power.
func TestTwoMoonsExactPosteriorMatchesReference(t *testing.T) {
	sbibmtest.Use(t)
	tm := TwoMoons()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 4, 7} {
		t.Run(fmt.Sprintf("obs%d", k), func(t *testing.T) {
			xo, err := tm.Observation(k)
			needData(t, err)
			ref, err := tm.ReferencePosterior(k)
			needData(t, err)
			post, err := tm.ExactPosterior(xo)
			if err != nil {
				t.Fatal(err)
			}
			if p := energyTest(post.Sample(rng, 700), rows(ref, 700), 149, rng); p <= 0.001 {
				t.Errorf("observation %d: exact posterior differs from the reference, p = %v", k, p)
			}
		})
	}
	t.Run("power", func(t *testing.T) {
		ref1, err := tm.ReferencePosterior(1)
		needData(t, err)
		x2, err := tm.Observation(2)
		needData(t, err)
		post2, err := tm.ExactPosterior(x2)
		if err != nil {
			t.Fatal(err)
		}
		if p := energyTest(post2.Sample(rng, 700), rows(ref1, 700), 149, rng); p > 0.01 {
			t.Errorf("posterior of observation 2 not told apart from the reference of observation 1: p = %v", p)
		}
	})
}

// TestTwoMoonsExactPosteriorNormalized integrates exp(LogProb) over the prior box on a
// 1500×1500 midpoint grid: the result must be 1 within 2% (the Monte Carlo normalizer has a
// relative error near 0.3%, the grid one near 1%).
func TestTwoMoonsExactPosteriorNormalized(t *testing.T) {
	post, err := TwoMoons().ExactPosterior([]float64{-0.6396706, 0.16234657})
	if err != nil {
		t.Fatal(err)
	}
	const g = 1500
	h := 2.0 / g
	pts := mat.NewDense(g*g, 2, nil)
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			pts.Set(i*g+j, 0, -1+(float64(i)+0.5)*h)
			pts.Set(i*g+j, 1, -1+(float64(j)+0.5)*h)
		}
	}
	total := 0.0
	for _, lp := range post.LogProb(pts) {
		total += math.Exp(lp) * h * h
	}
	if math.Abs(total-1) > 0.02 {
		t.Errorf("∫ posterior = %v, want 1", total)
	}
}

// TestGaussianLinearPosterior checks the closed form (mean x/2, covariance 0.05·I) against
// sbibm's reference samples: each coordinate's mean within 5·sqrt(0.05/n) and variance within
// 5 standard errors (0.05·sqrt(2/n)) for n = 10,000 samples.
func TestGaussianLinearPosterior(t *testing.T) {
	sbibmtest.Use(t)
	gl := GaussianLinear()
	for _, k := range []int{1, 10} {
		t.Run(fmt.Sprintf("obs%d", k), func(t *testing.T) { testGaussianLinearPosterior(t, gl, k) })
	}
}

func testGaussianLinearPosterior(t *testing.T, gl *GaussianLinearTask, k int) {
	xo, err := gl.Observation(k)
	needData(t, err)
	ref, err := gl.ReferencePosterior(k)
	needData(t, err)
	post, err := gl.ExactPosterior(xo)
	if err != nil {
		t.Fatal(err)
	}
	mean := post.(interface{ Mean() []float64 }).Mean()
	n, _ := ref.Dims()
	for j := 0; j < 10; j++ {
		c := column(ref, j)
		m, _ := meanSE(c)
		v, _ := varSE(c)
		if math.Abs(mean[j]-xo[j]/2) > 1e-12 {
			t.Fatalf("closed-form mean %v, want x/2 = %v", mean[j], xo[j]/2)
		}
		if math.Abs(m-mean[j]) > 5*math.Sqrt(0.05/float64(n)) {
			t.Errorf("obs %d θ%d: reference mean %v, closed form %v", k, j, m, mean[j])
		}
		if math.Abs(v-0.05) > 5*0.05*math.Sqrt(2/float64(n)) {
			t.Errorf("obs %d θ%d: reference variance %v, closed form 0.05", k, j, v)
		}
	}
}

// TestTruncatedExactPosteriors compares the exact posteriors of gaussian_linear_uniform and
// gaussian_mixture with sbibm's reference samples (energy test as for two_moons) and checks
// that their LogProb integrates to 1 (gaussian_mixture, on a grid).
func TestTruncatedExactPosteriors(t *testing.T) {
	sbibmtest.Use(t)
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tk := range []Task{GaussianLinearUniform(), GaussianMixture()} {
		t.Run(tk.Name(), func(t *testing.T) {
			xo, err := tk.Observation(2)
			needData(t, err)
			ref, err := tk.ReferencePosterior(2)
			needData(t, err)
			post, err := tk.(ExactPosterior).ExactPosterior(xo)
			if err != nil {
				t.Fatal(err)
			}
			if p := energyTest(post.Sample(rng, 600), rows(ref, 600), 99, rng); p <= 0.01 {
				t.Errorf("%s: exact posterior differs from the reference, p = %v", tk.Name(), p)
			}
		})
	}
	post, _ := GaussianMixture().ExactPosterior([]float64{9.5, -3})
	const g = 1000
	h := 20.0 / g
	total := 0.0
	pts := mat.NewDense(g, 2, nil)
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			pts.Set(j, 0, -10+(float64(i)+0.5)*h)
			pts.Set(j, 1, -10+(float64(j)+0.5)*h)
		}
		for _, lp := range post.LogProb(pts) {
			total += math.Exp(lp) * h * h
		}
	}
	if math.Abs(total-1) > 1e-3 {
		t.Errorf("gaussian_mixture posterior integrates to %v", total)
	}
}

// TestGaussianSimulators: x − θ must have mean 0 and variance 0.1 (gaussian_linear) and be the
// ½/½ mixture of N(0,1) and N(0,0.01) for gaussian_mixture (variance ½(1 + 0.01), fraction
// within |z| < 0.3 from the mixture CDF). Tolerances: 5 standard errors.
func TestGaussianSimulators(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(1, 1))
	th := make([]float64, 10)
	for j := range th {
		th[j] = 0.1 * float64(j-5)
	}
	x := GaussianLinear().Simulate(rng, constTheta(n, th...))
	for j := 0; j < 10; j += 3 {
		d := column(x, j)
		for i := range d {
			d[i] -= th[j]
		}
		if m, se := meanSE(d); math.Abs(m) > 5*se {
			t.Errorf("gaussian_linear noise mean %v", m)
		}
		if v, se := varSE(d); math.Abs(v-0.1) > 5*se {
			t.Errorf("gaussian_linear noise variance %v ± %v", v, se)
		}
	}
	x = GaussianMixture().Simulate(rng, constTheta(n, 2, -3))
	d := column(x, 0)
	inner := 0.0
	for i := range d {
		d[i] -= 2
		if math.Abs(d[i]) < 0.3 {
			inner++
		}
	}
	if v, se := varSE(d); math.Abs(v-0.505) > 5*se {
		t.Errorf("gaussian_mixture noise variance %v ± %v, want 0.505", v, se)
	}
	unit := distuv.UnitNormal
	p := 0.5*(unit.CDF(0.3)-unit.CDF(-0.3)) + 0.5*(unit.CDF(3)-unit.CDF(-3))
	if f := inner / n; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/n) {
		t.Errorf("gaussian_mixture: fraction within 0.3 is %v, want %v", f, p)
	}
}

// TestSLCPSimulator checks the moments of the definition for fixed θ: the 4 points have mean
// (θ₁, θ₂), variances θ₃⁴ + 10⁻⁶ and θ₄⁴ + 10⁻⁶ (s = θ², variance s²), and covariance
// tanh(θ₅)·θ₃²·θ₄². Tolerances: 5 standard errors of 4·n points.
func TestSLCPSimulator(t *testing.T) {
	const n = 10000
	th := []float64{0.5, -1.2, 1.3, -0.8, 0.9}
	x := SLCP().Simulate(rand.New(rand.NewPCG(5, 5)), constTheta(n, th...))
	var px, py, pxy []float64
	for i := 0; i < n; i++ {
		for k := 0; k < 4; k++ {
			a, b := x.At(i, 2*k), x.At(i, 2*k+1)
			px, py = append(px, a), append(py, b)
			pxy = append(pxy, (a-th[0])*(b-th[1]))
		}
	}
	s1, s2 := th[2]*th[2], th[3]*th[3]
	for _, c := range []struct {
		name      string
		got, want float64
		se        float64
	}{
		{"mean x", mean(px), th[0], se(px)},
		{"mean y", mean(py), th[1], se(py)},
		{"var x", variance(px), s1*s1 + 1e-6, varianceSE(px)},
		{"var y", variance(py), s2*s2 + 1e-6, varianceSE(py)},
		{"cov", mean(pxy), math.Tanh(th[4]) * s1 * s2, se(pxy)},
	} {
		if math.Abs(c.got-c.want) > 5*c.se {
			t.Errorf("slcp %s = %v, want %v ± %v", c.name, c.got, c.want, 5*c.se)
		}
	}
}

func mean(v []float64) float64       { m, _ := meanSE(v); return m }
func se(v []float64) float64         { _, s := meanSE(v); return s }
func variance(v []float64) float64   { m, _ := varSE(v); return m }
func varianceSE(v []float64) float64 { _, s := varSE(v); return s }

// TestObservationsAgreeWithSimulators checks each stored sbibm observation against the
// simulator's definition at its true parameters: the noise recovered from (x_o, θ_o) must be
// plausible, |z| < 5, where z is the standardized noise of the definition.
func TestObservationsAgreeWithSimulators(t *testing.T) {
	sbibmtest.Use(t)
	for k := 1; k <= NumObservations; k++ {
		// two_moons: radius of p.
		x, th := observed(t, TwoMoons(), k)
		z0 := (th[0] + th[1]) / math.Sqrt2
		z1 := (th[1] - th[0]) / math.Sqrt2
		r := math.Hypot(x[0]+math.Abs(z0)-0.25, x[1]-z1)
		if z := (r - 0.1) / 0.01; math.Abs(z) > 5 {
			t.Errorf("two_moons obs %d: radius z = %v", k, z)
		}
		// gaussian_linear: (x − θ)/√0.1.
		x, th = observed(t, GaussianLinear(), k)
		for j := range x {
			if z := (x[j] - th[j]) / math.Sqrt(0.1); math.Abs(z) > 5 {
				t.Errorf("gaussian_linear obs %d: z[%d] = %v", k, j, z)
			}
		}
		// slcp: each point standardized by the Cholesky factor of Σ.
		x, th = observed(t, SLCP(), k)
		s1, s2, rho := th[2]*th[2], th[3]*th[3], math.Tanh(th[4])
		l00 := math.Sqrt(s1*s1 + 1e-6)
		l10 := rho * s1 * s2 / l00
		l11 := math.Sqrt(s2*s2 + 1e-6 - l10*l10)
		for p := 0; p < 4; p++ {
			za := (x[2*p] - th[0]) / l00
			zb := (x[2*p+1] - th[1] - l10*za) / l11
			if math.Abs(za) > 5 || math.Abs(zb) > 5 {
				t.Errorf("slcp obs %d point %d: z = %v, %v", k, p, za, zb)
			}
		}
	}
}
