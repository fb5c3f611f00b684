package diag

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestSteinKernel checks the closed-form Stein kernel and its score gradients against finite
// differences of the target kernel l: h = l sᵀs' + Σᵢ ∂²l/∂yᵢ∂y'ᵢ + sᵀ∇_{y'}l + s'ᵀ∇_y l.
func TestSteinKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, ell, e = 3, 1.3, 1e-4
	for _, kind := range []TargetKernelKind{GaussianTarget, IMQTarget} {
		for range 5 {
			y, y2, s, s2 := randVec(rng, d), randVec(rng, d), randVec(rng, d), randVec(rng, d)
			l := func(a, b []float64) float64 { return targetKernel(kind, ell, a, b) }
			want := l(y, y2) * dot(s, s2)
			for i := range d {
				gy := (l(shift(y, i, e), y2) - l(shift(y, i, -e), y2)) / (2 * e)
				gy2 := (l(y, shift(y2, i, e)) - l(y, shift(y2, i, -e))) / (2 * e)
				want += s[i]*gy2 + s2[i]*gy
				// ∂²l/∂yᵢ∂y'ᵢ by a four-point difference.
				want += (l(shift(y, i, e), shift(y2, i, e)) - l(shift(y, i, e), shift(y2, i, -e)) -
					l(shift(y, i, -e), shift(y2, i, e)) + l(shift(y, i, -e), shift(y2, i, -e))) / (4 * e * e)
			}
			gs, gs2 := make([]float64, d), make([]float64, d)
			got := SteinKernel(kind, ell, y, y2, s, s2, gs, gs2)
			if math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
				t.Errorf("%v: h = %.8g, finite differences %.8g", kind, got, want)
			}
			for i := range d {
				fd := (SteinKernel(kind, ell, y, y2, shift(s, i, e), s2, nil, nil) - SteinKernel(kind, ell, y, y2, shift(s, i, -e), s2, nil, nil)) / (2 * e)
				fd2 := (SteinKernel(kind, ell, y, y2, s, shift(s2, i, e), nil, nil) - SteinKernel(kind, ell, y, y2, s, shift(s2, i, -e), nil, nil)) / (2 * e)
				if math.Abs(fd-gs[i]) > 1e-6 || math.Abs(fd2-gs2[i]) > 1e-6 {
					t.Errorf("%v: ∂h/∂s[%d] = %.8g (fd %.8g), ∂h/∂s'[%d] = %.8g (fd %.8g)", kind, i, gs[i], fd, i, gs2[i], fd2)
				}
			}
		}
	}
}

// TestDistKernelClosedForms compares the exact Gaussian divergences with their base-sample
// estimates at many base points. The GFD estimate over m = 40,000 points of N(0, I) is a mean of
// i.i.d. terms: the test computes its standard error and allows four. The KGFD (m = 600) and the
// sample MMD (m = 600 draws each) are V-statistics with O(1/√m) error; the test allows 10%.
func TestDistKernelClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randGauss(t, rng, 2)
	q := randGauss(t, rng, 2)
	preds := []Prediction{p, q}

	exact, _, err := DistKernelConfig{Kind: FisherKernel, Exact: true}.prepare(rng, preds)
	if err != nil {
		t.Fatal(err)
	}
	const m = 40000
	z := mat.NewDense(m, 2, nil)
	for i := range m {
		z.SetRow(i, randVec(rng, 2))
	}
	sp, sq := p.Score(z), q.Score(z)
	terms := make([]float64, m)
	for a := range m {
		terms[a] = sqDist(sp.RawRowView(a), sq.RawRowView(a))
	}
	mean, sd := stat.MeanStdDev(terms, nil)
	if got := exact.sq(0, 1); math.Abs(got-mean) > 4*sd/math.Sqrt(m) {
		t.Errorf("GFD closed form %.5f, Monte Carlo %.5f ± %.5f", got, mean, sd/math.Sqrt(m))
	}

	for _, kind := range []DistKernelKind{KernelizedFisherKernel, MMDKernel} {
		ex, ground, err := DistKernelConfig{Kind: kind, Exact: true}.prepare(rng, preds)
		if err != nil {
			t.Fatal(err)
		}
		ap, _, err := DistKernelConfig{Kind: kind, BaseSamples: 600, GroundBandwidth: ground}.prepare(rng, preds)
		if err != nil {
			t.Fatal(err)
		}
		e, a := ex.sq(0, 1), ap.sq(0, 1)
		t.Logf("%v (ground bandwidth %.3f): closed form %.5f, estimate %.5f", kind, ground, e, a)
		if math.Abs(e-a) > 0.1*e {
			t.Errorf("%v: closed form %.5f vs estimate %.5f differ by more than 10%%", kind, e, a)
		}
	}
}

func TestKCCSDFeaturesGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d, p = 7, 2, 5
	y, sy, f := randMat(rng, n, d), randMat(rng, n, d), randMat(rng, n, p)
	for _, design := range []Design{Complete, DisjointPairs, Superdiagonals} {
		gSy, gF := mat.NewDense(n, d, nil), mat.NewDense(n, p, nil)
		KCCSDFeatures(y, sy, f, 1.5, IMQTarget, 0.8, design, gSy, gF)
		const e = 1e-6
		check := func(name string, a *mat.Dense, g *mat.Dense) {
			r, c := a.Dims()
			for i := range r {
				for j := range c {
					v := a.At(i, j)
					a.Set(i, j, v+e)
					fp := KCCSDFeatures(y, sy, f, 1.5, IMQTarget, 0.8, design, nil, nil)
					a.Set(i, j, v-e)
					fm := KCCSDFeatures(y, sy, f, 1.5, IMQTarget, 0.8, design, nil, nil)
					a.Set(i, j, v)
					if fd := (fp - fm) / (2 * e); math.Abs(fd-g.At(i, j)) > 1e-6 {
						t.Errorf("%v ∂/∂%s[%d][%d] = %.8g, finite difference %.8g", design, name, i, j, g.At(i, j), fd)
					}
				}
			}
		}
		check("sy", sy, gSy)
		check("feat", f, gF)
	}
}

// meanGaussianModel generates the paper's MGM (δ = 0, calibrated) and MMGM (δ ≠ 0) data: x ~
// N(0, I_d), y | x ~ N(x, I_d), prediction N(x + δ, I_d).
func meanGaussianModel(rng *rand.Rand, n, d int, delta float64) ([]Prediction, *mat.Dense) {
	preds := make([]Prediction, n)
	y := mat.NewDense(n, d, nil)
	for i := range n {
		x := randVec(rng, d)
		mu := make([]float64, d)
		for j := range d {
			mu[j] = x[j] + delta
			y.Set(i, j, x[j]+rng.NormFloat64())
		}
		std := make([]float64, d)
		for j := range std {
			std[j] = 1
		}
		preds[i] = dist.NewNormal(mu, std) // the exact kernels read its moments

	}
	return preds, y
}

// linearGaussianModel is the paper's LGM: x ~ N(0, I₅), y ~ N(Σᵢ i·xᵢ, 1) = the prediction.
func linearGaussianModel(rng *rand.Rand, n int) ([]Prediction, *mat.Dense) {
	preds := make([]Prediction, n)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		var mu float64
		for k := 1; k <= 5; k++ {
			mu += float64(k) * rng.NormFloat64()
		}
		preds[i] = dist.NewMultivariateNormal([]float64{mu}, mat.NewSymDense(1, []float64{1}))
		y.Set(i, 0, mu+rng.NormFloat64())
	}
	return preds, y
}

type testFunc func(*rand.Rand, []Prediction, *mat.Dense, KernelTestConfig) (*KernelTestResult, error)

func rejectionRate(t testing.TB, seed uint64, reps int, gen func(*rand.Rand) ([]Prediction, *mat.Dense), test testFunc, cfg KernelTestConfig) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	rej := 0
	for range reps {
		preds, y := gen(rng)
		res, err := test(rng, preds, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reject {
			rej++
		}
	}
	return float64(rej) / float64(reps)
}

// TestKCCSDTypeI runs the calibrated models of the paper (n = 128 unless named) 100 times each
// at level 0.05. The
// rejection count is Binomial(100, 0.05) under a valid test: sd 0.022, so the bound 0.12 is
// three sd above the level (the paper's own 140 null values all lie in [0, 0.12]).
func TestKCCSDTypeI(t *testing.T) {
	const reps = 100
	mgm := func(rng *rand.Rand) ([]Prediction, *mat.Dense) { return meanGaussianModel(rng, 128, 2, 0) }
	// The other kernels and the SKCE run at n = 64 to keep the suite short.
	mgm64 := func(rng *rand.Rand) ([]Prediction, *mat.Dense) { return meanGaussianModel(rng, 64, 2, 0) }
	lgm := func(rng *rand.Rand) ([]Prediction, *mat.Dense) { return linearGaussianModel(rng, 128) }
	cases := []struct {
		name string
		gen  func(*rand.Rand) ([]Prediction, *mat.Dense)
		test testFunc
		cfg  KernelTestConfig
	}{
		{"MGM KCCSD exact Fisher + Gaussian", mgm, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200}},
		{"MGM KCCSD approx Fisher + IMQ (n = 64)", mgm64, KCCSDTest, KernelTestConfig{Target: IMQTarget, Bootstrap: 200}},
		{"MGM KCCSD approx kernelized Fisher + Gaussian (n = 64)", mgm64, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Kind: KernelizedFisherKernel}, Bootstrap: 200}},
		{"MGM KCCSD exact MMD + Gaussian (n = 64)", mgm64, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel, Exact: true}, Bootstrap: 200}},
		{"LGM KCCSD exact Fisher + Gaussian", lgm, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200}},
		{"MGM KCCSD linear time", mgm, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Design: DisjointPairs, Bootstrap: 200}},
		{"MGM KCCSD superdiagonals R = 10", mgm, KCCSDTest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Design: Superdiagonals, Bootstrap: 200}},
		{"MGM SKCE exact (n = 64)", mgm64, SKCETest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200}},
		{"MGM SKCE approx MMD (n = 64)", mgm64, SKCETest, KernelTestConfig{Dist: DistKernelConfig{Kind: MMDKernel}, Bootstrap: 200}},
	}
	for i, tc := range cases {
		rate := rejectionRate(t, uint64(10+i), reps, tc.gen, tc.test, tc.cfg)
		t.Logf("%s: false rejection rate %.2f", tc.name, rate)
		if rate > 0.12 {
			t.Errorf("%s: false rejection rate %.2f over %d repetitions, want ≤ 0.12", tc.name, rate, reps)
		}
	}
}

// TestKCCSDPower runs the paper's miscalibrated MMGM with δ = 0.1·1 100 times at each n: the
// rejection rate must grow with n (allowing binomial noise of two sd, ≤ 0.1, between
// neighbours) and reach ≥ 0.9 at n = 512 (the paper: ≈ 0.98; at 0.98 the binomial sd is 0.014).
//
// The paper does not state d. Its δ = 0.1·e₁ curve (0.34 at n = 512) matches d = 2 here, but
// with d = 2 the all-dimensions shift has only twice the squared signal, i.e. the power of the
// e₁ curve at 2n (paper: 0.67 at n = 1024; here 0.72–0.78 at 512), not 0.98. The all-dimensions
// curve of the paper (0.25, 0.45, 0.77, 0.98) is reproduced with d = 5, used here.
func TestKCCSDPower(t *testing.T) {
	if testing.Short() {
		t.Skip("power curve takes several seconds")
	}
	const reps = 100
	cfg := KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200}
	prev := 0.0
	for i, n := range []int{64, 128, 256, 512} {
		gen := func(rng *rand.Rand) ([]Prediction, *mat.Dense) { return meanGaussianModel(rng, n, 5, 0.1) }
		rate := rejectionRate(t, uint64(40+i), reps, gen, KCCSDTest, cfg)
		t.Logf("MMGM δ = 0.1·1 (d = 5), KCCSD exact Fisher + Gaussian, n = %d: rejection rate %.2f", n, rate)
		if rate < prev-0.1 {
			t.Errorf("n = %d: power %.2f fell below %.2f at the previous n", n, rate, prev)
		}
		prev = rate
		if n == 512 && rate < 0.9 {
			t.Errorf("n = 512: power %.2f, want ≥ 0.9", rate)
		}
	}
}

// TestSKCEPower checks the baseline on the same alternative at n = 512 (paper: 0.98).
func TestSKCEPower(t *testing.T) {
	if testing.Short() {
		t.Skip("power check takes seconds")
	}
	gen := func(rng *rand.Rand) ([]Prediction, *mat.Dense) { return meanGaussianModel(rng, 512, 5, 0.1) }
	rate := rejectionRate(t, 77, 30, gen, SKCETest, KernelTestConfig{Dist: DistKernelConfig{Exact: true}, Bootstrap: 200})
	t.Logf("MMGM δ = 0.1·1 (d = 5), SKCE exact, n = 512: rejection rate %.2f (30 repetitions)", rate)
	// 30 repetitions: at a power of 0.98 the binomial sd is 0.026; 0.85 leaves five sd.
	if rate < 0.85 {
		t.Errorf("SKCE power %.2f at n = 512, want ≥ 0.85", rate)
	}
}

func TestPosteriorPredictionScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	g := randGauss(t, rng, 3)
	pp := PosteriorPrediction(gaussPosterior{g}, 0)
	y := randMat(rng, 4, 3)
	want, got := g.Score(y), pp.Score(y)
	for i := range 4 {
		for j := range 3 {
			if math.Abs(want.At(i, j)-got.At(i, j)) > 1e-5*(1+math.Abs(want.At(i, j))) {
				t.Errorf("score[%d][%d] = %.8g by finite differences, %.8g exact", i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

func TestKCCSDErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	preds, y := meanGaussianModel(rng, 10, 2, 0)
	if _, err := KCCSDTest(rng, preds[:9], y, KernelTestConfig{}); err == nil {
		t.Error("9 predictions for 10 targets: want an error")
	}
	pp := []Prediction{}
	for i := range 10 {
		pp = append(pp, PosteriorPrediction(gaussPosterior{dist.NewMultivariateNormal(preds[i].(*dist.Normal).Mean(), preds[i].(*dist.Normal).Covariance())}, 0))
	}
	if _, err := KCCSDTest(rng, pp, y, KernelTestConfig{Dist: DistKernelConfig{Exact: true}}); err == nil {
		t.Error("exact kernel on non-Gaussian predictions: want an error")
	}
	res, err := KCCSDTest(rng, pp, y, KernelTestConfig{})
	if err != nil {
		t.Fatalf("approximate kernel on posterior predictions: %v", err)
	}
	if b := res.MIMEBundle(); b["text/plain"] == "" {
		t.Error("empty MIMEBundle")
	}
}

// gaussPosterior exposes a Gaussian only through sbi.Posterior.
type gaussPosterior struct{ g *dist.MultivariateNormal }

func (p gaussPosterior) Dim() int                                { return p.g.Dim() }
func (p gaussPosterior) Sample(rng *rand.Rand, n int) *mat.Dense { return p.g.Sample(rng, n) }
func (p gaussPosterior) LogProb(theta *mat.Dense) []float64 {
	n, d := theta.Dims()
	lp := make([]float64, n)
	var ch mat.Cholesky
	ch.Factorize(p.g.Covariance())
	mean := p.g.Mean()
	for i := range n {
		diff := mat.NewVecDense(d, nil)
		for j := range d {
			diff.SetVec(j, theta.At(i, j)-mean[j])
		}
		var sol mat.VecDense
		_ = ch.SolveVecTo(&sol, diff)
		lp[i] = -0.5*mat.Dot(diff, &sol) - 0.5*ch.LogDet() - float64(d)/2*math.Log(2*math.Pi)
	}
	return lp
}

func randGauss(t *testing.T, rng *rand.Rand, d int) *dist.MultivariateNormal {
	a := randMat(rng, d, d)
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(0.5, a)
	for i := range d {
		cov.SetSym(i, i, cov.At(i, i)+0.5)
	}
	return dist.NewMultivariateNormal(randVec(rng, d), cov)
}

func randVec(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func randMat(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		m.SetRow(i, randVec(rng, c))
	}
	return m
}

func shift(v []float64, i int, e float64) []float64 {
	w := append([]float64(nil), v...)
	w[i] += e
	return w
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestSKCEExpectations compares the closed-form Gaussian-kernel expectations of the exact SKCE,
// general and shared-covariance paths, with Monte Carlo over 200,000 draws (sd of the mean of a
// kernel in [0, 1] ≤ 0.5/√200000 ≈ 0.0011; tolerance 0.005).
func TestSKCEExpectations(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	gd := randGauss(t, rng, 2)
	hd := dist.NewMultivariateNormal(randVec(rng, 2), gd.Covariance())
	g, _ := asGaussian(gd)
	h, _ := asGaussian(hd)
	y := randMat(rng, 2, 2)
	const ell, n = 1.1, 200000
	zg, zh := gd.Sample(rng, n), hd.Sample(rng, n)
	var point, pair float64
	for a := range n {
		point += targetKernel(GaussianTarget, ell, zg.RawRowView(a), y.RawRowView(1)) / n
		pair += targetKernel(GaussianTarget, ell, zg.RawRowView(a), zh.RawRowView(a)) / n
	}
	zero := mat.NewSymDense(2, nil)
	general := [2]float64{gaussKernelMean(g.Mean, y.RawRowView(1), g.Cov, zero, ell), gaussKernelMean(g.Mean, h.Mean, g.Cov, h.Cov, ell)}
	sh := newSharedCovMeans([]*gaussian{g, h}, y, ell)
	shared := [2]float64{sh.point(0, 1), sh.pair(0, 1)}
	for k, mc := range [2]float64{point, pair} {
		if math.Abs(general[k]-mc) > 0.005 || math.Abs(shared[k]-mc) > 0.005 {
			t.Errorf("expectation %d: general %.5f, shared %.5f, Monte Carlo %.5f", k, general[k], shared[k], mc)
		}
	}
}

// TestKCCSDAmortized tests amortized Gaussian estimators of a 2-D conjugate model through their
// log densities only: the exact posterior must not be rejected and an over-confident one (sd
// halved) must be, both at n = 300 with fixed seeds. Under H₀ the p-value is uniform, so a
// valid test fails the first check with probability 0.01; at this n the over-confident
// estimator's statistic lies far beyond the bootstrap null.
func TestKCCSDAmortized(t *testing.T) {
	m := gaussModel{dim: 2, tau: 2, s: 1, width: 1}
	rng := rand.New(rand.NewPCG(17, 18))
	theta, x := m.simulate(18, 300)
	exact, err := KCCSDAmortized(rng, m, theta, x, 0, KernelTestConfig{Bootstrap: 300})
	if err != nil {
		t.Fatal(err)
	}
	m.width = 0.5
	over, err := KCCSDAmortized(rng, m, theta, x, 0, KernelTestConfig{Bootstrap: 300})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact posterior p = %.3f, over-confident p = %.3f", exact.PValue, over.PValue)
	if exact.PValue <= 0.01 {
		t.Errorf("exact posterior rejected, p = %.3f", exact.PValue)
	}
	if over.PValue > 0.01 {
		t.Errorf("over-confident posterior not rejected, p = %.3f", over.PValue)
	}
}
