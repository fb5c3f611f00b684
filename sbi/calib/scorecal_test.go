package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/quantile"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestEnergyGradient compares the analytic gradient of the energy objective with central
// finite differences, for both families, β = 1 and 1.5, with scaling, weights and a penalty.
func TestEnergyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const M, N, d = 5, 40, 3
	cal := &calData{thetaBar: mat.NewDense(M, d, nil), weights: []float64{1, 0.5, 2, 1, 0.1}}
	for m := range M {
		dr := mat.NewDense(N, d, nil)
		for i := range N {
			for j := range d {
				dr.Set(i, j, rng.NormFloat64()+float64(j))
			}
		}
		cal.draws = append(cal.draws, dr)
		cal.means = append(cal.means, colMeans(dr))
		for j := range d {
			cal.thetaBar.Set(m, j, rng.NormFloat64())
		}
	}
	cal.perm = make([]int, N)
	for i := range N {
		cal.perm[i] = (i + 1) % N
	}
	for _, fam := range []AffineFamily{DiagonalAffine, LowerTriangularAffine} {
		for _, beta := range []float64{1, 1.5} {
			o := &energyObjective{cal: cal, d: d, n: N, beta: beta, family: fam, penalty: 0.3, scale: []float64{1, 2, 0.5}}
			if beta == 1.5 {
				o.centre = []float64{0.1, 0.2, 0.3} // MeanShift
			}
			x := make([]float64, o.nParams())
			for i := range x {
				x[i] = 0.3 * rng.NormFloat64()
			}
			g := make([]float64, len(x))
			o.value(x, g)
			const h = 1e-6
			for i := range x {
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				fd := (o.value(xp, nil) - o.value(xm, nil)) / (2 * h)
				if math.Abs(fd-g[i]) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("%v β=%g: ∂F/∂x[%d] analytic %.8g, finite difference %.8g", fam, beta, i, g[i], fd)
				}
			}
		}
	}
}

// TestFitAffineRecovers uses an approximate posterior whose mean is shifted by +0.5 and whose sd
// is half the true one, for a 2-D conjugate Gaussian model where the exact posterior is
// N(w x, τ²I). The calibration parameters come from the prior itself, so unit weights are the
// exact importance weights, and the family holds the exact map b = −0.5, L = 2I, which is then
// the population optimum (Bon et al., Theorem 1). With M = 400 datasets the fitted location has
// sd ≈ τ/√M ≈ 0.045 and the fitted scale ≈ 2/√(2M) ≈ 0.07; the test allows four of each.
func TestFitAffineRecovers(t *testing.T) {
	const M = 400
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(21, 22))
	approx := m.estimator(0.5, 0.5)
	thetaBar := m.prior().Sample(rng, M)
	x := m.simulate(rng, thetaBar)
	draws := make([]*mat.Dense, M)
	for i := range M {
		draws[i] = approx.Posterior(x.RawRowView(i)).Sample(rng, 200)
	}
	tolB, tolL := 4*m.tau()/math.Sqrt(M), 4*2/math.Sqrt(2*M)
	for _, fam := range []AffineFamily{DiagonalAffine, LowerTriangularAffine} {
		res, err := FitAffine(rng, thetaBar, draws, nil, ScoreCalConfig{Family: fam})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: L = %v, b = %.3f, objective %.4f → %.4f in %d iterations (%s)", fam,
			mat.Formatted(res.L, mat.Squeeze()), res.B, res.Initial, res.Objective, res.Iterations, res.Status)
		for j := range 2 {
			if math.Abs(res.B[j]+0.5) > tolB {
				t.Errorf("%v: b[%d] = %.3f, want −0.5 ± %.2f", fam, j, res.B[j], tolB)
			}
			if math.Abs(res.L.At(j, j)-2) > tolL {
				t.Errorf("%v: L[%d][%d] = %.3f, want 2 ± %.2f", fam, j, j, res.L.At(j, j), tolL)
			}
		}
		if fam == LowerTriangularAffine && math.Abs(res.L.At(1, 0)) > tolL {
			t.Errorf("off-diagonal L[1][0] = %.3f, want 0 ± %.2f", res.L.At(1, 0), tolL)
		}
		// The diagnostic: the approximate posteriors' 90% intervals cover far less than 0.9 (an
		// interval of half the width, shifted by 0.5/τ sd); the adjusted ones 0.9 up to the
		// binomial sd over 400 datasets, 0.015 (tolerance 0.05).
		l90 := 16 // DiagnosticLevels()[16] = 0.90
		for j := range 2 {
			before, after := res.CoverageBefore.Coverage[j][l90], res.Coverage.Coverage[j][l90]
			if before > 0.6 || math.Abs(after-0.9) > 0.05 {
				t.Errorf("%v θ%d: 90%% coverage %.3f → %.3f, want < 0.6 → 0.90 ± 0.05", fam, j, before, after)
			}
		}
		if b := res.MIMEBundle(); b["text/html"] == "" {
			t.Error("empty MIMEBundle")
		}
	}
}

// conjGauss is the conjugate Gaussian example of Bon et al. (Appendix D.1): y₁…y₁₀ ~ N(μ, 1),
// μ ~ N(0, 4²), and an approximate posterior N((μ_post − μ_err)/σ_err, (σ_post/σ_err)²) with
// μ_err ~ N(0.5, 0.025²), σ_err ~ |N(1.5, 0.025²)| drawn once per dataset.
type conjGauss struct{}

const conjN, conjSigma0 = 10, 4.0

func (conjGauss) simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	n, _ := theta.Dims()
	y := mat.NewDense(n, conjN, nil)
	for i := range n {
		for k := range conjN {
			y.Set(i, k, theta.At(i, 0)+rng.NormFloat64())
		}
	}
	return y
}

func (conjGauss) post(y []float64) (mean, sd float64) {
	var s float64
	for _, v := range y {
		s += v
	}
	prec := 1/(conjSigma0*conjSigma0) + float64(len(y))
	return s / prec, math.Sqrt(1 / prec)
}

func (c conjGauss) approx(rng *rand.Rand, y []float64) (mean, sd float64) {
	mp, sp := c.post(y)
	muErr := 0.5 + 0.025*rng.NormFloat64()
	sdErr := math.Abs(1.5 + 0.025*rng.NormFloat64())
	return (mp - muErr) / sdErr, sp / sdErr
}

func (c conjGauss) refit(rng *rand.Rand, y []float64, n int) (*mat.Dense, error) {
	mean, sd := c.approx(rng, y)
	out := mat.NewDense(n, 1, nil)
	for i := range n {
		out.Set(i, 0, mean+sd*rng.NormFloat64())
	}
	return out, nil
}

// conjPrediction is what the conjugate Gaussian example gives at the population optimum of
// Bayesian score calibration with unit weights (M, N → ∞), over observed datasets from μ = 1.
// Each posterior is normal with sd s, and its mean m varies across datasets as N(mean, meanSD²).
//
// Derivation, with k = n/(n + 1/σ₀²) and ȳ | μ ~ N(μ, 1/n): the exact posterior is N(kȳ, k/n);
// the approximate one N(μ̂, σ̂²) with μ̂ = (kȳ − μ_err)/σ_err and σ̂ = √(k/n)/σ_err. Calibration
// draws θ̄ ~ N(c, (Dσ̂)²), c = μ̂(y) the observed approximate mean and D = 2, then ỹ | θ̄. The
// map sends N(μ̂, σ̂²) to N(μ̂ + b, (Lσ̂)²), whose energy score at θ̄ depends on θ̄ − μ̂ − b
// only, so the expected score is that of N(b, (Lσ̂)²) against the law of Z = θ̄ − μ̂(ỹ), and by
// strict propriety (Z is normal) the optimum is b = E Z, Lσ̂ = sd Z:
//
//	E Z   = c(1 − k/1.5) + 0.5/1.5,
//	Var Z = (1 − k/1.5)²(Dσ̂)² + (k/1.5)²/n + (0.025/1.5)²   (the last term is μ_err's noise).
//
// The adjusted posterior for y is N(c + E Z, Var Z): mean (2 − k/1.5)c + 1/3, and across
// datasets c ~ N((k − 0.5)/1.5, (k/1.5)²/n + (0.025/1.5)²). σ_err's noise (sd 0.025 on 1.5)
// changes these numbers by less than 10⁻³ and is left out.
type conjPrediction struct {
	mean, meanSD, sd float64
}

func conjPredictions() (approx, adjusted, exact conjPrediction) {
	const n, D = float64(conjN), 2.0
	k := n / (n + 1/(conjSigma0*conjSigma0))
	sdHat := math.Sqrt(k/n) / 1.5
	cMean := (k - 0.5) / 1.5
	cSD := math.Sqrt(k*k/(1.5*1.5)/n + 0.025*0.025/(1.5*1.5))
	approx = conjPrediction{cMean, cSD, sdHat}
	a := 1 - k/1.5
	varZ := a*a*D*D*sdHat*sdHat + k*k/(1.5*1.5)/n + 0.025*0.025/(1.5*1.5)
	adjusted = conjPrediction{(1+a)*cMean + 0.5/1.5, (1 + a) * cSD, math.Sqrt(varZ)}
	exact = conjPrediction{k, k / math.Sqrt(n), math.Sqrt(k / n)}
	return approx, adjusted, exact
}

// coverage is the probability that the central ρ interval, m ± z s, holds the truth 1.
func (p conjPrediction) coverage(rho float64) float64 {
	z := distuv.UnitNormal.Quantile((1 + rho) / 2)
	return distuv.UnitNormal.CDF((1-p.mean+z*p.sd)/p.meanSD) - distuv.UnitNormal.CDF((1-p.mean-z*p.sd)/p.meanSD)
}

// TestScoreCalibrationConjugateGaussian repeats the paper's conjugate Gaussian experiment
// (Appendix D.1, Table 2: unit weights, M = 100, inflation 2) on 200 observed datasets from
// μ = 1 and compares the coverage of central intervals, the bias and the sd with conjPredictions.
//
// The method cannot reach 0.85 coverage of 90% intervals here. Its population optimum covers
// 0.74: with unit weights the energy score is maximized by the posterior under the importance
// distribution N(c, (2σ̂)²), centred on the biased approximate mean c ≈ 0.33 with sd 0.42,
// about the width of the likelihood (sd 0.32), so the adjusted mean (2 − k/1.5)c + 1/3 ≈ 0.77
// keeps a bias of −0.23 with sd 0.25. Importance weights do not rescue it: the shared shift b
// fits the calibration datasets, whose approximate means centre on (c − 0.5)/1.5 ≈ −0.11, not the
// observed 0.33, and the approximation's error 0.5μ̂ + 0.5 grows with the mean; the α = 0 and
// clipped fits cover 0.72–0.82 in simulation (200 datasets).
//
// The paper's column "Coverage (90%)" (approximate 0.24, adjusted 0.98, exact 1.00) is that of
// 99% intervals. For a normal posterior with sd s whose mean misses the truth by N(bias, τ²)
// across datasets, MSE = s² + bias² + τ², and the paper's own MSE, bias and sd columns imply 99%
// coverages 0.27, 0.985 and 0.998 (and within 0.03 of every other printed row), but 90%
// coverages 0.04, 0.86 and 0.96; 100 of 100 datasets covered at 90% has probability
// 0.9¹⁰⁰ ≈ 3·10⁻⁵. For the stated model conjPredictions gives 0.06 → 0.74 (exact 0.90) at 90% and
// 0.27 → 0.93 (exact 0.99) at 99%: the test checks both levels, and the 99% one is the paper's
// rise from 0.24 to above 0.85.
//
// Tolerances: a coverage count over 200 datasets is Binomial(200, p) (sd √(p(1 − p)/200): 0.031
// at p = 0.74, 0.018 at 0.93); the test accepts the counts between its 0.001 and 0.999 quantiles,
// which near p = 0.99 are far from symmetric about the mean. The average bias has standard error
// meanSD/√200 ≈ 0.02 (3 se allowed). The fitted sd L·σ̂ varies by ≈ s/√(2M) ≈ 0.018 between
// datasets, a standard error of 0.0013 for the average, but finite M and N bias it by O(1/M)
// relative, so it is allowed 0.015 (6%).
func TestScoreCalibrationConjugateGaussian(t *testing.T) {
	var c conjGauss
	const reps = 200
	levels := []float64{0.9, 0.99}
	truth := mat.NewDense(1, 1, []float64{1})
	rng := rand.New(rand.NewPCG(31, 32))
	covApprox, covAdjusted, covExact := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	var bias, sd float64
	for range reps {
		y := c.simulate(rng, truth).RawRowView(0)
		obs, _ := c.refit(rng, y, 1000)
		res, err := ScoreCalibrate(rng, obs, c.simulate, c.refit, ScoreCalConfig{M: 100, N: 100})
		if err != nil {
			t.Fatal(err)
		}
		adj := res.Adjust(obs)
		mp, sp := c.post(y)
		for l, rho := range levels {
			if coversCentral(obs, 1, rho) {
				covApprox[l] += 1.0 / reps
			}
			if coversCentral(adj, 1, rho) {
				covAdjusted[l] += 1.0 / reps
			}
			if math.Abs(1-mp) <= distuv.UnitNormal.Quantile((1+rho)/2)*sp {
				covExact[l] += 1.0 / reps
			}
		}
		m, s := meanSD(adj.RawMatrix().Data)
		bias += (m - 1) / reps
		sd += s / reps
	}
	pApprox, pAdjusted, pExact := conjPredictions()
	for l, rho := range levels {
		t.Logf("%.0f%% coverage over %d datasets: approximate %.3f (predicted %.3f), adjusted %.3f (%.3f), exact %.3f (%.3f)",
			100*rho, reps, covApprox[l], pApprox.coverage(rho), covAdjusted[l], pAdjusted.coverage(rho), covExact[l], pExact.coverage(rho))
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"approximate", covApprox[l], pApprox.coverage(rho)},
			{"adjusted", covAdjusted[l], pAdjusted.coverage(rho)},
			{"exact", covExact[l], pExact.coverage(rho)},
		} {
			lo, hi := binomialRange(reps, c.want, 0.001)
			if k := int(math.Round(c.got * reps)); k < lo || k > hi {
				t.Errorf("%s posterior: %.0f%% coverage %d/%d, want %d to %d (predicted %.3f)", c.name, 100*rho, k, reps, lo, hi, c.want)
			}
		}
	}
	if covAdjusted[1] < 0.85 {
		t.Errorf("adjusted 99%% coverage %.3f, want ≥ 0.85", covAdjusted[1])
	}
	wantBias, biasTol := pAdjusted.mean-1, 3*pAdjusted.meanSD/math.Sqrt(reps)
	t.Logf("adjusted bias %.3f (predicted %.3f), sd %.3f (predicted %.3f)", bias, wantBias, sd, pAdjusted.sd)
	if math.Abs(bias-wantBias) > biasTol || math.Abs(sd-pAdjusted.sd) > 0.015 {
		t.Errorf("adjusted bias %.3f and sd %.3f, want %.3f ± %.3f and %.3f ± 0.015", bias, sd, wantBias, biasTol, pAdjusted.sd)
	}
}

// TestScoreCalibrationConjugateGaussianMeanShift removes both causes of the residual bias found
// in TestScoreCalibrationConjugateGaussian, outside the paper's settings: a shift that follows
// the approximate mean (MeanShift, b + B(μ̂ − μ̄)) and an importance distribution inflated ×4, so
// that it acts as a weak prior. The family then holds the conditional law of θ̄ given μ̂ under the
// calibration joint, which is its optimum (strict propriety). With u = 1.5μ̂ + 0.5 = k(θ̄ + ε) − η
// (ε ~ N(0, 1/n), η the μ_err noise) and V = (4σ̂)²: g = kV/Var u, Var u = k²V + k²/n + 0.025²,
// the adjusted mean is c + g(1.5c + 0.5 − kc) and its sd √(V − gkV). Over 100 datasets this
// predicts a bias of −0.08, sd 0.30 and 90% coverage 0.88; the count must lie between the 0.001
// and 0.999 quantiles of Binomial(100, 0.88), the bias within 3 standard errors (0.3/√100), the
// average fitted sd within 0.02 (its standard error is 0.002, finite M and N bias it by O(1/M)).
func TestScoreCalibrationConjugateGaussianMeanShift(t *testing.T) {
	var c conjGauss
	const reps, D = 100, 4.0
	approx, _, _ := conjPredictions()
	const n = float64(conjN)
	k := n / (n + 1/(conjSigma0*conjSigma0))
	V := D * D * approx.sd * approx.sd
	varU := k*k*V + k*k/n + 0.025*0.025
	g := k * V / varU
	slope := 1 + g*(1.5-k)
	pred := conjPrediction{slope*approx.mean + 0.5*g, slope * approx.meanSD, math.Sqrt(V - g*k*V)}

	truth := mat.NewDense(1, 1, []float64{1})
	rng := rand.New(rand.NewPCG(61, 62))
	var cover int
	var bias, sd float64
	for range reps {
		y := c.simulate(rng, truth).RawRowView(0)
		obs, _ := c.refit(rng, y, 1000)
		res, err := ScoreCalibrate(rng, obs, c.simulate, c.refit, ScoreCalConfig{M: 100, N: 100, Inflation: D, MeanShift: true})
		if err != nil {
			t.Fatal(err)
		}
		adj := res.Adjust(obs)
		if coversCentral(adj, 1, 0.9) {
			cover++
		}
		m, s := meanSD(adj.RawMatrix().Data)
		bias += (m - 1) / reps
		sd += s / reps
	}
	lo, hi := binomialRange(reps, pred.coverage(0.9), 0.001)
	t.Logf("90%% coverage %d/%d (predicted %.3f), bias %.3f (%.3f), sd %.3f (%.3f)", cover, reps, pred.coverage(0.9), bias, pred.mean-1, sd, pred.sd)
	if cover < lo || cover > hi {
		t.Errorf("90%% coverage %d/%d, want %d to %d", cover, reps, lo, hi)
	}
	if tol := 3 * pred.meanSD / math.Sqrt(reps); math.Abs(bias-(pred.mean-1)) > tol {
		t.Errorf("bias %.3f, want %.3f ± %.3f", bias, pred.mean-1, tol)
	}
	if math.Abs(sd-pred.sd) > 0.02 {
		t.Errorf("sd %.3f, want %.3f ± 0.02", sd, pred.sd)
	}
}

// binomialRange is the range of counts of Binomial(n, p) outside which each tail holds
// probability at most tail: lo is the largest k with P(X < k) ≤ tail, hi the smallest with
// P(X > hi) ≤ tail.
func binomialRange(n int, p, tail float64) (lo, hi int) {
	b := distuv.Binomial{N: float64(n), P: p}
	for lo = n; lo > 0 && b.CDF(float64(lo-1)) > tail; lo-- {
	}
	for hi = 0; hi < n && 1-b.CDF(float64(hi)) > tail; hi++ {
	}
	return lo, hi
}

// coversCentral reports whether the central ρ interval of the draws' first column holds v.
func coversCentral(draws *mat.Dense, v, rho float64) bool {
	n, _ := draws.Dims()
	col := make([]float64, n)
	mat.Col(col, 0, draws)
	sortFloats(col)
	return v >= quantile.Sorted(col, (1-rho)/2) && v <= quantile.Sorted(col, (1+rho)/2)
}

func TestScoreCalibrateErrors(t *testing.T) {
	m := linGaussModel{d: 1, s0: 1, sigma: 1}
	rng := rand.New(rand.NewPCG(1, 2))
	obs := m.prior().Sample(rng, 100)
	refit := RefitAmortized(m.estimator(1, 0))
	if _, err := ScoreCalibrate(rng, obs, m.simulate, refit, ScoreCalConfig{ImportanceWeights: true}); err == nil {
		t.Error("importance weights without densities: want an error")
	}
	if _, err := ScoreCalibrate(rng, obs, m.simulate, refit, ScoreCalConfig{M: 20, N: 50, Beta: 2}); err == nil {
		t.Error("beta = 2: want an error")
	}
}

// TestScoreCalibrateImportanceWeights runs the clipped importance-weight path on the 1-D
// conjugate model: the weights must be max-normalized with the top (1 − Clip) share clipped.
func TestScoreCalibrateImportanceWeights(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(41, 42))
	approx := m.estimator(0.5, 0.3)
	xObs := []float64{0.7}
	post := approx.Posterior(xObs)
	obs := post.Sample(rng, 2000)
	res, err := ScoreCalibrate(rng, obs, m.simulate, RefitAmortized(approx), ScoreCalConfig{
		M: 200, N: 300, ImportanceWeights: true, Clip: 0.25,
		LogPrior: m.prior().LogProb, LogApprox: post.LogProb,
	})
	if err != nil {
		t.Fatal(err)
	}
	top := 0
	for _, w := range res.Weights {
		if w > 1 || w <= 0 {
			t.Fatalf("weight %g outside (0, 1]", w)
		}
		if w == 1 {
			top++
		}
	}
	// Clipping at the 75% quantile makes about a quarter of the 200 weights equal the maximum.
	if top < 40 || top > 60 {
		t.Errorf("%d weights at the clip value, want about 50", top)
	}
	t.Logf("weighted fit: L = %.3f, b = %.3f", res.L.At(0, 0), res.B[0])
	if math.Abs(res.L.At(0, 0)-2) > 0.4 || math.Abs(res.B[0]+0.3) > 0.25 {
		t.Errorf("weighted fit L = %.3f, b = %.3f; want about 2 and −0.3", res.L.At(0, 0), res.B[0])
	}
}

// TestFitAffineMeanShift fits the conjugate Gaussian example's approximation, whose mean is
// (μ_post − 0.5)/1.5, on M = 1600 datasets with θ̄ from the prior (unit weights exact). The
// exact posterior is μ_post = μ̂ + (0.5 μ̂ + 0.5) with sd 1.5 σ̂: slope B = 0.5 and L = 1.5, which
// only the mean-dependent shift can represent.
//
// L's optimum is above 1.5: μ_err and σ_err vary per dataset (sd 0.025), adding
// 0.025²(μ̂² + 1) to the variance of θ̄ about the shifted mean, which over the prior's μ̂
// (E μ̂² ≈ 7.2, against σ_post² ≈ 0.1) makes L ≈ 1.54 by the variance alone (one scale fitted
// to datasets of different spreads, and the error of the N = 200 draws' own mean, widen it a
// little more). The fit's error has no closed form (an M-estimator of a Monte Carlo energy
// score), so it was measured: over seeds 1 to 200 of the data's generator (PCG(seed, 52)) the
// slope has mean 0.4991 and sd 0.0031 (largest distance from 0.5: 0.0088), L mean 1.550 and
// sd 0.0296 (largest distance from 1.550: 0.086). The test allows 5 sds about 0.5 and 1.550
// (the means' own errors, 0.0002 and 0.002, are negligible): 0.016 and 0.15. At M = 400 the
// sds are 0.0066 and 0.0625 (L's 5 sds, 0.31, would pass a 20% error).
//
// The intercept b is the shift at the centre μ̄ (the mean of the M approximate means), where
// the exact shift 0.5 μ̂ + 0.5 is 0.5 μ̄ + 0.5. At the centre b's error does not depend on the
// slope's, and the residuals θ̄ − μ̂ − b(μ̂) have sd L σ̂ (σ̂ = σ_post/1.5 the approximation's sd),
// so a least-squares b would have sd L σ̂/√M = 0.0081. Over the same 200 seeds the fitted b
// minus 0.5 μ̄ + 0.5 has mean 0.0003 and sd 0.0085 (largest distance 0.027): the energy-score
// fit is nearly as precise. The test allows 5 of the derived sds, 0.041 (4.8 measured ones);
// the intercept of the uncorrected approximation, 0, and the exact map's intercept at μ̂ = 0
// instead of at μ̄, 0.5, must fail that check.
func TestFitAffineMeanShift(t *testing.T) {
	const M = 1600
	const slopeWant, slopeTol, LWant, LTol = 0.5, 0.016, 1.550, 0.15
	sdHat := math.Sqrt(1/(conjN+1/(conjSigma0*conjSigma0))) / 1.5
	bTol := 5 * LWant * sdHat / math.Sqrt(M)
	var c conjGauss
	rng := rand.New(rand.NewPCG(51, 52))
	thetaBar := mat.NewDense(M, 1, nil)
	for m := range M {
		thetaBar.Set(m, 0, conjSigma0*rng.NormFloat64())
	}
	x := c.simulate(rng, thetaBar)
	draws := make([]*mat.Dense, M)
	for m := range M {
		draws[m], _ = c.refit(rng, x.RawRowView(m), 200)
	}
	shared, err := FitAffine(rng, thetaBar, draws, nil, ScoreCalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := FitAffine(rng, thetaBar, draws, nil, ScoreCalConfig{MeanShift: true})
	if err != nil {
		t.Fatal(err)
	}
	slope, L := res.ShiftSlope.At(0, 0), res.L.At(0, 0)
	t.Logf("mean shift: slope %.4f (want %g), L %.3f (want %.3f); objective %.4f vs %.4f with one shared shift",
		slope, slopeWant, L, LWant, res.Objective, shared.Objective)
	if math.Abs(slope-slopeWant) > slopeTol {
		t.Errorf("mean shift fit slope %.4f; want %g ± %g (5 sd over seeds)", slope, slopeWant, slopeTol)
	}
	if math.Abs(L-LWant) > LTol {
		t.Errorf("mean shift fit L %.3f; want %.3f ± %g (5 sd over seeds)", L, LWant, LTol)
	}
	bWant := 0.5 + slopeWant*res.ShiftCentre[0]
	interceptOK := func(b float64) bool { return math.Abs(b-bWant) <= bTol }
	if !interceptOK(res.B[0]) {
		t.Errorf("mean shift fit intercept %.4f at the centre %.4f; want %.4f ± %.3f (5 sd of M = %d datasets)", res.B[0], res.ShiftCentre[0], bWant, bTol, M)
	}
	for _, wrong := range []float64{0, 0.5} {
		if interceptOK(wrong) {
			t.Errorf("the intercept check passes the wrong intercept %g (want %.4f ± %.3f)", wrong, bWant, bTol)
		}
	}
	if res.Objective >= shared.Objective {
		t.Errorf("the richer family scores %.4f, no better than the shared shift %.4f", res.Objective, shared.Objective)
	}
}

// TestScoreCalibrateExactImportanceWeights runs the unclipped importance weights (Clip = 0) on
// the 1-D conjugate model, where the approximate posterior N(w x + 0.3, (τ/2)²) is off by a shift
// and a scale that one affine map undoes for every x: with the exact weights π(θ̄)/π̄(θ̄) the
// calibration objective is the prior-predictive expected score, whose optimum in the family is
// that map, b = −0.3 and L = 2 (Bon et al., Theorem 1). The weights vary, so the fit has the
// precision of M_eff = (Σw)²/Σw² unit-weight datasets: b has sd ≈ τ/√M_eff and L relative sd
// ≈ 1/√(2 M_eff) (as in TestFitAffineRecovers); the test allows 4 of each. Power: unit weights
// on the same calibration draws make the objective that of the importance distribution's
// prior N(c, (2·τ/2)²), whose optimum is b ≈ −0.13 and L ≈ 1.83 (the law of θ̄ − (w x̃ + 0.3)
// under it), and the same tolerances, with M_eff = M, must reject it.
func TestScoreCalibrateExactImportanceWeights(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	approx := m.estimator(0.5, 0.3)
	post := approx.Posterior([]float64{0.7})
	for _, c := range []struct {
		weights bool
		exact   bool
	}{{true, true}, {false, false}} {
		rng := rand.New(rand.NewPCG(43, 44))
		obs := post.Sample(rng, 2000)
		res, err := ScoreCalibrate(rng, obs, m.simulate, RefitAmortized(approx), ScoreCalConfig{
			M: 3000, N: 200, ImportanceWeights: c.weights, Clip: 0,
			LogPrior: m.prior().LogProb, LogApprox: post.LogProb,
		})
		if err != nil {
			t.Fatal(err)
		}
		var sw, sw2 float64
		for _, w := range res.Weights {
			sw += w
			sw2 += w * w
		}
		mEff := sw * sw / sw2
		tolB, tolL := 4*m.tau()/math.Sqrt(mEff), 4*2/math.Sqrt(2*mEff)
		L, b := res.L.At(0, 0), res.B[0]
		t.Logf("importance weights %v: M_eff %.0f, L = %.3f (2 ± %.3f), b = %.3f (−0.3 ± %.3f)", c.weights, mEff, L, tolL, b, tolB)
		if ok := math.Abs(L-2) <= tolL && math.Abs(b+0.3) <= tolB; ok != c.exact {
			t.Errorf("importance weights %v: L = %.3f, b = %.3f within 2 ± %.3f and −0.3 ± %.3f: %v, want %v", c.weights, L, b, tolL, tolB, ok, c.exact)
		}
	}
}
