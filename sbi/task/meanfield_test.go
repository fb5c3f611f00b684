package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// ouData simulates one bivariate OU dataset at the paper's truth μ = 1, D = 10, ρ = 0.5.
func ouData(seed uint64) []float64 {
	return BivariateOrnsteinUhlenbeck().Simulate(rand.New(rand.NewPCG(seed, 1)), constTheta(1, 1, 10, 0.5)).RawRowView(0)
}

// TestBivariateOULikelihood compares the sufficient-statistic likelihood with the sum of the
// 100 bivariate normal log densities of dist.MultivariateNormal, and the analytic gradient of
// the log joint in u = (μ, log D, logit ρ) with central differences.
func TestBivariateOULikelihood(t *testing.T) {
	tk := BivariateOrnsteinUhlenbeck()
	x := ouData(1)
	for _, th := range [][]float64{{1, 10, 0.5}, {-2, 3, 0.1}, {0.5, 20, 0.9}} {
		m, s := ouMoments(th[0], th[1], 5)
		cov := mat.NewSymDense(2, []float64{s * s, th[2] * s * s, th[2] * s * s, s * s})
		mvn := dist.NewMultivariateNormal([]float64{m, m}, cov)
		var want float64
		for _, lp := range mvn.LogProb(mat.NewDense(ouN, 2, x)) {
			want += lp
		}
		if got := tk.LogLikelihood(th, x); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("θ = %v: log-likelihood %.10g, direct %.10g", th, got, want)
		}
	}
	st := newBOUStats(x)
	u := []float64{0.7, math.Log(8), 0.3}
	g := make([]float64, 3)
	st.logJointU(u, g)
	for j := range 3 {
		const h = 1e-6
		up, um := append([]float64(nil), u...), append([]float64(nil), u...)
		up[j] += h
		um[j] -= h
		fd := (st.logJointU(up, nil) - st.logJointU(um, nil)) / (2 * h)
		if math.Abs(fd-g[j]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂u%d = %.8g, finite difference %.8g", j, g[j], fd)
		}
	}
}

// laplace returns the mode of the log joint in u and its Hessian there (central differences of
// the analytic gradient).
func laplace(t *testing.T, st bouStats, init []float64) ([]float64, *mat.SymDense) {
	res, err := optimize.Minimize(optimize.Problem{
		Func: func(u []float64) float64 { return -st.logJointU(u, nil) },
		Grad: func(g, u []float64) {
			st.logJointU(u, g)
			for j := range g {
				g[j] = -g[j]
			}
		},
	}, init, &optimize.Settings{GradientThreshold: 1e-8}, &optimize.BFGS{})
	mode := res.X
	g := make([]float64, 3)
	st.logJointU(mode, g)
	if gn := math.Hypot(math.Hypot(g[0], g[1]), g[2]); gn > 1e-5 {
		t.Fatalf("no mode found: gradient %v (%v)", g, err)
	}
	H := mat.NewSymDense(3, nil)
	gp, gm := make([]float64, 3), make([]float64, 3)
	for j := range 3 {
		const h = 1e-5
		up, um := append([]float64(nil), mode...), append([]float64(nil), mode...)
		up[j] += h
		um[j] -= h
		st.logJointU(up, gp)
		st.logJointU(um, gm)
		for k := 0; k <= j; k++ {
			H.SetSym(j, k, -(gp[k]-gm[k])/(2*h))
		}
	}
	return mode, H
}

// TestMeanFieldGaussian checks the mean-field fit on a correlated Gaussian target
// N(m, Λ⁻¹) in three dimensions, where the optimum is known in closed form: the exact mean m
// with standard deviations 1/√Λⱼⱼ (the quadrature is exact for a quadratic log density). The
// fit must reach both to 1e-6, and its bound for log p̃(u) = −½(u − m)ᵀΛ(u − m), without the
// entropy's constant, E_q[log p̃] + Σⱼ log sⱼ = −3/2 − ½ Σⱼ log Λⱼⱼ.
func TestMeanFieldGaussian(t *testing.T) {
	m := []float64{1, -2, 0.5}
	prec := mat.NewSymDense(3, []float64{4, 1.5, -0.8, 1.5, 2, 0.6, -0.8, 0.6, 1})
	logJoint := func(u, grad []float64) float64 {
		var q float64
		for a := range 3 {
			var r float64
			for b := range 3 {
				r += prec.At(a, b) * (u[b] - m[b])
			}
			q += (u[a] - m[a]) * r
			if grad != nil {
				grad[a] = -r
			}
		}
		return -q / 2
	}
	fit, err := fitMeanField(logJoint, []float64{0, 0, 0}, []float64{1, 1, 1}, dist.NewSupportMap([]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}, []float64{math.Inf(1), math.Inf(1), math.Inf(1)}))
	if err != nil {
		t.Fatal(err)
	}
	want := -1.5
	for j := range 3 {
		if math.Abs(fit.Mean[j]-m[j]) > 1e-6 || math.Abs(fit.SD[j]-1/math.Sqrt(prec.At(j, j))) > 1e-6 {
			t.Errorf("coordinate %d: mean %.8f sd %.8f, want %.8f and %.8f", j, fit.Mean[j], fit.SD[j], m[j], 1/math.Sqrt(prec.At(j, j)))
		}
		want -= 0.5 * math.Log(prec.At(j, j))
	}
	if math.Abs(fit.ELBO-want) > 1e-6 {
		t.Errorf("ELBO %.8f, want %.8f", fit.ELBO, want)
	}
}

// TestBivariateOUMeanField checks the bivariate OU's mean-field fit against the Laplace
// approximation N(mode, H⁻¹) of its posterior in u = (μ, log D, logit ρ) (n = 100 pairs, nearly
// Gaussian): the mean-field standard deviations must lie within 5% of the closed form 1/√Hⱼⱼ
// and nearer to it than to the marginal sds √(H⁻¹)ⱼⱼ that a full-covariance fit would have
// (power: they differ by about 9% for log D and logit ρ, whose posterior correlation is about
// 0.4), the means within 0.25 posterior sd of the mode (they differ by the posterior's
// skewness, up to 0.2 sd here), and the draws must be uncorrelated (|r| < 4/√20000). The
// Laplace correlation of (log D, logit ρ) must agree with the paper's true-posterior
// correlation of (ρ, D), 0.42 with sd 0.06 over datasets (Table 4), within 3 sd.
func TestBivariateOUMeanField(t *testing.T) {
	tk := BivariateOrnsteinUhlenbeck()
	for seed := uint64(1); seed <= 3; seed++ {
		x := ouData(seed)
		fit, err := tk.MeanField(x)
		if err != nil {
			t.Fatal(err)
		}
		mode, H := laplace(t, newBOUStats(x), fit.Mean)
		var ch mat.Cholesky
		if !ch.Factorize(H) {
			t.Fatal("the Hessian at the mode is not positive definite")
		}
		cov := mat.NewSymDense(3, nil)
		ch.InverseTo(cov)
		for j := range 3 {
			mf := 1 / math.Sqrt(H.At(j, j))
			marg := math.Sqrt(cov.At(j, j))
			if math.Abs(fit.Mean[j]-mode[j]) > 0.25*marg {
				t.Errorf("seed %d, u%d: mean %.4f, mode %.4f (sd %.4f)", seed, j, fit.Mean[j], mode[j], marg)
			}
			if math.Abs(fit.SD[j]/mf-1) > 0.05 || math.Abs(fit.SD[j]-mf) >= math.Abs(fit.SD[j]-marg) {
				t.Errorf("seed %d, u%d: sd %.4f, mean-field closed form %.4f, marginal %.4f", seed, j, fit.SD[j], mf, marg)
			}
		}
		corr := cov.At(1, 2) / math.Sqrt(cov.At(1, 1)*cov.At(2, 2))
		t.Logf("seed %d: fit mean %.3f sd %.3f; Laplace corr(log D, logit ρ) %.3f", seed, fit.Mean, fit.SD, corr)
		if math.Abs(corr-0.42) > 3*0.06 {
			t.Errorf("seed %d: posterior correlation %.3f, paper 0.42 ± 0.06", seed, corr)
		}
	}
	fit, _ := tk.MeanField(ouData(1))
	draws := fit.Sample(rand.New(rand.NewPCG(2, 2)), 20000)
	if r := stat.Correlation(mat.Col(nil, 1, draws), mat.Col(nil, 2, draws), nil); math.Abs(r) > 4/math.Sqrt(20000) {
		t.Errorf("mean-field draws of (D, ρ) correlate: %.4f", r)
	}
	if _, err := tk.MeanField(make([]float64, 200)); err == nil {
		t.Error("constant observations were accepted")
	}
}
