package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

func TestConformalQuantileIndex(t *testing.T) {
	scores := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5} // n = 9
	tests := []struct {
		scores []float64
		alpha  float64
		want   float64
	}{
		{scores, 0.1, 9},               // k = ⌈10·0.9⌉ = 9
		{scores, 0.5, 5},               // k = ⌈10·0.5⌉ = 5
		{scores, 0.25, 8},              // k = ⌈7.5⌉ = 8
		{scores[:8], 0.1, math.Inf(1)}, // k = ⌈8.1⌉ = 9 > 8
	}
	for _, tc := range tests {
		if got := ConformalQuantile(tc.scores, tc.alpha); got != tc.want {
			t.Errorf("ConformalQuantile(n=%d, α=%g) = %g, want %g", len(tc.scores), tc.alpha, got, tc.want)
		}
	}
}

// TestConformalCoverage checks CANVI's guarantee on estimators that are over-confident (sd
// halved) and under-confident (sd doubled) for a 2-D conjugate Gaussian model. With n = 20,000
// calibration and 20,000 test pairs, the coverage on the test pairs has sd ≤ √(0.25/n + 0.25/n)
// = 0.005 (binomial test noise plus the Beta-distributed coverage of the calibrated threshold),
// so ±0.02 is four standard deviations.
func TestConformalCoverage(t *testing.T) {
	const n = 20000
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(7, 1))
	for _, scale := range []float64{0.5, 2} {
		est := m.estimator(scale, 0)
		thC := m.prior().Sample(rng, n)
		xC := m.simulate(rng, thC)
		thT := m.prior().Sample(rng, n)
		xT := m.simulate(rng, thT)
		c, err := NewConformal(est, thC, xC, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		for _, alpha := range []float64{0.05, 0.1, 0.25, 0.5} {
			ca := c.WithAlpha(alpha)
			cov := ca.Coverage(thT, xT)
			naive := naiveHPDCoverage(est, m, thT, xT, alpha)
			t.Logf("scale %g α %.2f: conformal coverage %.4f (naive HPD %.4f)", scale, alpha, cov, naive)
			if math.Abs(cov-(1-alpha)) > 0.02 {
				t.Errorf("scale %g α %g: coverage %.4f, want %.2f ± 0.02", scale, alpha, cov, 1-alpha)
			}
			// The estimator is miscalibrated: its own HPD regions miss the level by far more.
			if math.Abs(naive-(1-alpha)) < 0.05 {
				t.Errorf("scale %g α %g: naive HPD coverage %.4f is near nominal; the test model is not miscalibrated", scale, alpha, naive)
			}
		}
	}
}

// naiveHPDCoverage is the coverage of q's own (1−α) HPD regions: for an isotropic 2-D Gaussian
// the HPD region is the disk with squared radius −2 s² log α.
func naiveHPDCoverage(est gaussEstimator, m linGaussModel, theta, x interface{ At(i, j int) float64 }, alpha float64) float64 {
	r2 := -2 * est.sd * est.sd * math.Log(alpha)
	n := 20000
	k := 0
	for i := range n {
		var s float64
		for j := range m.d {
			z := theta.At(i, j) - est.shrink*x.At(i, j)
			s += z * z
		}
		if s <= r2 {
			k++
		}
	}
	return float64(k) / float64(n)
}

func TestCalibrateErrors(t *testing.T) {
	m := linGaussModel{d: 1, s0: 1, sigma: 1}
	rng := rand.New(rand.NewPCG(1, 1))
	th := m.prior().Sample(rng, 5)
	x := m.simulate(rng, th)
	if _, err := NewConformal(m.estimator(1, 0), th, x, 1.5); err == nil {
		t.Error("alpha 1.5: want an error")
	}
	c, err := NewConformal(m.estimator(1, 0), th, x, 0.05)
	if err == nil || !math.IsInf(c.Threshold, 1) {
		t.Errorf("5 pairs at α = 0.05: want an error and an infinite threshold, got %v, %v", c.Threshold, err)
	}
	x.Set(2, 0, math.NaN())
	c, _ = NewConformal(m.estimator(1, 0), th, x, 0.5)
	if c.Dropped != 1 || c.N != 4 {
		t.Errorf("one NaN row: dropped %d, used %d; want 1 and 4", c.Dropped, c.N)
	}
}

// TestRegionVolume compares the mixture importance-sampled volume of 2-D conformal regions with
// the grid volume. The region of an isotropic Gaussian is a disk, so the grid (400² cells over
// a box of side 16 sd) is accurate to well under 1%; the mixture estimate with K = 10 levels and
// S = 2000 draws each has a relative standard error of a few percent per observation, which the
// test checks too, so 15% is several standard errors.
func TestRegionVolume(t *testing.T) {
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, scale := range []float64{0.3, 2} {
		est := m.estimator(scale, 0)
		th := m.prior().Sample(rng, 5000)
		c, err := NewConformal(est, th, m.simulate(rng, th), 0.1)
		if err != nil {
			t.Fatal(err)
		}
		xs := m.simulate(rng, m.prior().Sample(rng, 3))
		for i := range 3 {
			x := xs.RawRowView(i)
			r := c.Region(x)
			mc, se := r.Volume(rng, m.prior(), VolumeConfig{Samples: 2000, Levels: 10})
			pooled, pse := r.Volume(rng, m.prior(), VolumeConfig{Samples: 2000, Levels: 10, Pooled: true})
			half := 8 * m.tau()
			lo := []float64{m.w()*x[0] - half, m.w()*x[1] - half}
			hi := []float64{m.w()*x[0] + half, m.w()*x[1] + half}
			grid, err := r.GridVolume(lo, hi, 400)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("scale %g x %d: mixture volume %.4f ± %.4f, pooled %.4f ± %.4f, grid %.4f", scale, i, mc, se, pooled, pse, grid)
			if math.Abs(mc-grid) > 0.15*grid {
				t.Errorf("scale %g: mixture volume %.4f vs grid %.4f differ by more than 15%%", scale, mc, grid)
			}
			if math.Abs(pooled-grid) > 0.15*grid {
				t.Errorf("scale %g: pooled mixture volume %.4f vs grid %.4f differ by more than 15%%", scale, pooled, grid)
			}
			if se > 0.05*grid {
				t.Errorf("scale %g: standard error %.4f is above 5%% of the volume %.4f", scale, se, grid)
			}
		}
	}
}

func TestRegionSample(t *testing.T) {
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(5, 6))
	est := m.estimator(2, 0) // under-confident: the region is a small part of q's mass
	th := m.prior().Sample(rng, 4000)
	c, err := NewConformal(est, th, m.simulate(rng, th), 0.5)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Region([]float64{0.5, -1})
	s, err := r.Sample(rng, 500)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range r.Contains(s) {
		if !in {
			t.Fatalf("sample %d lies outside the region", i)
		}
	}
	if n, _ := s.Dims(); n != 500 {
		t.Errorf("got %d samples, want 500", n)
	}
}

// TestCANVISelection gives CANVI three candidates of which only the first has the posterior's
// mean; its regions are the true HPD balls, the smallest at any coverage, so it must be selected,
// and the recalibrated regions must cover at 1 − α (n = 10,000 test pairs: sd ≈ 0.0045 including
// the recalibration noise, tolerance 0.02).
func TestCANVISelection(t *testing.T) {
	m := linGaussModel{d: 2, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(9, 9))
	cands := []gaussEstimator{
		m.estimator(2, 0),        // under-confident, right mean
		m.estimator(1, 0.8),      // biased mean
		{shrink: 1, sd: m.tau()}, // no shrinkage towards the prior
	}
	var as []sbi.Amortized
	for _, c := range cands {
		as = append(as, c)
	}
	res, err := CANVI(rng, as, m.prior(), m.simulate, CANVIConfig{Alpha: 0.1, NCal: 5000, NTest: 40, Volume: VolumeConfig{Samples: 500}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Candidates {
		t.Logf("candidate %d: threshold %.3f volume %.3f ± %.3f", i, c.Threshold, c.Volume, c.VolumeSE)
	}
	if res.Selected != 0 {
		t.Errorf("selected candidate %d, want 0", res.Selected)
	}
	th := m.prior().Sample(rng, 10000)
	cov := res.Conformal.Coverage(th, m.simulate(rng, th))
	if math.Abs(cov-0.9) > 0.02 {
		t.Errorf("recalibrated coverage %.4f, want 0.90 ± 0.02", cov)
	}
	if b := res.MIMEBundle(); b["text/plain"] == "" {
		t.Error("empty MIMEBundle")
	}
}

// halfNormal is N(0, 1) restricted to θ ≥ 0 by rejection, like an NPE posterior whose flow
// leaks half its mass out of the prior's support: it draws from 2φ but reports the density φ
// (not renormalized) and its acceptance rate.
type halfNormal struct{}

func (halfNormal) Dim() int { return 1 }

func (halfNormal) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 1, nil)
	for i := range n {
		out.Set(i, 0, math.Abs(rng.NormFloat64()))
	}
	return out
}

func (halfNormal) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		v := theta.At(i, 0)
		lp[i] = math.Inf(-1)
		if v >= 0 {
			lp[i] = -0.5*v*v - 0.5*math.Log(2*math.Pi)
		}
	}
	return lp
}

func (halfNormal) AcceptanceRate() float64 { return 0.5 }

// TestRegionVolumeTruncated checks the volume of a region of a posterior that samples by
// rejection: {θ ≥ 0 : −log φ(θ) ≤ τ} = [0, 1.5] has volume 1.5 exactly. Treating the draws as
// coming from φ instead of 2φ would bias the estimate by up to a factor 2; the estimate must
// lie within 4 of its standard errors of 1.5.
func TestRegionVolumeTruncated(t *testing.T) {
	r := &Region{Posterior: halfNormal{}, Threshold: 0.5*1.5*1.5 + 0.5*math.Log(2*math.Pi)}
	prior := boxUniform1{lo: 0, hi: 4}
	rng := rand.New(rand.NewPCG(11, 12))
	vol, se := r.Volume(rng, prior, VolumeConfig{Samples: 4000, Levels: 10})
	t.Logf("volume %.4f ± %.4f (exact 1.5)", vol, se)
	if math.Abs(vol-1.5) > 4*se || se > 0.05 {
		t.Errorf("volume %.4f ± %.4f, want 1.5", vol, se)
	}
}

// boxUniform1 is the uniform distribution on [lo, hi].
type boxUniform1 struct{ lo, hi float64 }

func (boxUniform1) Dim() int { return 1 }

func (b boxUniform1) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, 1, nil)
	for i := range n {
		out.Set(i, 0, b.lo+(b.hi-b.lo)*rng.Float64())
	}
	return out
}

func (b boxUniform1) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		v := theta.At(i, 0)
		lp[i] = math.Inf(-1)
		if v >= b.lo && v <= b.hi {
			lp[i] = -math.Log(b.hi - b.lo)
		}
	}
	return lp
}
