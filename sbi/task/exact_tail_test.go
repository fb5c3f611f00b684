package task

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// millsRatio returns Φ(−x)/φ(x) for x ≥ 3 from its continued fraction
// 1/(x + 1/(x + 2/(x + 3/(x + …)))), evaluated from the 2000th level up.
func millsRatio(x float64) float64 {
	t := x
	for n := 2000; n >= 1; n-- {
		t = x + float64(n)/t
	}
	return 1 / t
}

// refLogPhi returns log Φ(z) for z ≤ −3: −z²/2 − ½·log 2π + log R(−z).
func refLogPhi(z float64) float64 {
	return -z*z/2 - 0.5*math.Log(2*math.Pi) + math.Log(millsRatio(-z))
}

// refLogMass returns log(Φ(b) − Φ(a)) for a box far in a tail (b ≤ −3 or a ≥ 3).
func refLogMass(a, b float64) float64 {
	if a > 0 {
		a, b = -b, -a
	}
	la, lb := refLogPhi(a), refLogPhi(b)
	return lb + math.Log1p(-math.Exp(la-lb))
}

// TestTruncMixtureTailMass checks the log-mass of gaussian_linear_uniform's truncated posterior
// N(μ, 0.1) on [−1, 1] where μ lies far outside the box, against the closed form of Mills'
// ratio's continued fraction, to 1e−14: in the lower tail beyond μ ≈ 12.9, where Φ((1 − μ)/σ) is
// subnormal (math.Log on amd64 was about 14 off there, golang/go#56600) and then 0, and in the
// upper tail, where Φ(b) − Φ(a) of two values near 1 lost all its bits beyond μ ≈ −3.7 (the mass
// was 0 and the posterior refused). Ordinary means keep the bits of log(Φ(b) − Φ(a)).
func TestTruncMixtureTailMass(t *testing.T) {
	sd := math.Sqrt(0.1)
	for _, mu := range []float64{2.5, 5, 12, 12.9, 13, 13.2, 13.5, 14, 20, 40, 100, 1e6, -2, -4, -5, -12, -13, -30, -100} {
		t.Run(fmt.Sprintf("μ=%v", mu), func(t *testing.T) {
			m := newTruncMixture([]float64{mu}, []float64{sd}, []float64{1}, -1, 1)
			want := refLogMass((-1-mu)/sd, (1-mu)/sd)
			if !(math.Abs(m.logZ-want) <= 1e-14*math.Abs(want)) {
				t.Errorf("log Z = %v, want %v", m.logZ, want)
			}
		})
	}
	for _, mu := range []float64{0, 0.5, -0.7, 1.3, -1.3, 2, -1.9, 3} {
		m := newTruncMixture([]float64{mu}, []float64{sd}, []float64{1}, -1, 1)
		if want := math.Log(m.unit.CDF((1-mu)/sd) - m.unit.CDF((-1-mu)/sd)); math.Float64bits(m.logZ) != math.Float64bits(want) {
			t.Errorf("μ = %v: log Z = %v, want the bits of %v", mu, m.logZ, want)
		}
	}
}

// TestTruncMixtureTailSample checks draws of the truncated posterior where μ lies far outside the
// box: they lie in the box, and their mean distance to the box's edge nearest μ is the closed
// form σ·(β + 1/R(−β)), R Mills' ratio, of E[β − Z | Z ≤ β] at the standardized edge β ≪ 0 (the
// far edge holds a share of the mass below 1e−40), within 4 standard errors of 20000 draws (a
// correct sampler fails with probability below 1e−4); mirrored in the upper tail. Before, the
// draws in the upper tail and beyond the subnormal masses of the lower tail collapsed onto a
// bound. Ordinary means keep their draws' bits.
func TestTruncMixtureTailSample(t *testing.T) {
	sd := math.Sqrt(0.1)
	const n = 20000
	for _, mu := range []float64{5, 13, 13.5, 30, -5, -30} {
		t.Run(fmt.Sprintf("μ=%v", mu), func(t *testing.T) {
			m := newTruncMixture([]float64{mu}, []float64{sd}, []float64{1}, -1, 1)
			x := m.Sample(rand.New(rand.NewPCG(3, 4)), n)
			edge, sign := 1.0, 1.0 // the distance is sign·(edge − v)
			if mu < 0 {
				edge, sign = -1, -1
			}
			beta := sign * (edge - mu) / sd // ≪ 0
			want := sd * (beta + 1/millsRatio(-beta))
			var s, s2 float64
			for i := 0; i < n; i++ {
				v := x.At(i, 0)
				if !(v >= -1 && v <= 1) {
					t.Fatalf("draw %d = %v, outside [−1, 1]", i, v)
				}
				d := sign * (edge - v)
				s += d
				s2 += d * d
			}
			mean := s / n
			se := math.Sqrt((s2/n - mean*mean) / n)
			if !(math.Abs(mean-want) <= 4*se) {
				t.Errorf("mean distance to the edge %v, want %v (SE %v)", mean, want, se)
			}
		})
	}
	for _, mu := range []float64{0, 0.5, -0.7, 1.3, -1.3, 2, -1.9, 3} {
		m := newTruncMixture([]float64{mu}, []float64{sd}, []float64{1}, -1, 1)
		x := m.Sample(rand.New(rand.NewPCG(5, 6)), 50)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := 0; i < 50; i++ {
			rng.Float64() // the component
			a, b := m.unit.CDF((-1-mu)/sd), m.unit.CDF((1-mu)/sd)
			p := a + (b-a)*rng.Float64()
			want := math.Min(1, math.Max(-1, mu+sd*m.unit.Quantile(p)))
			if got := x.At(i, 0); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("μ = %v: draw %d = %v, want the bits of %v", mu, i, got, want)
			}
		}
	}
}

// TestTruncMixtureUnderflowingMass checks gaussian_mixture's exact posterior at x = (60, 0), where
// the masses Z_k of both components underflow (log Z_1 ≈ −1250): log Z is log(½Z_1 + ½Z_2) from
// the closed form of TestTruncMixtureTailMass (the narrow component's share is e^−10⁵), every draw
// comes from the wide component, and log-densities are finite. Before, the posterior refused x.
func TestTruncMixtureUnderflowingMass(t *testing.T) {
	x := []float64{60, 0}
	post, err := GaussianMixture().ExactPosterior(x)
	if err != nil {
		t.Fatal(err)
	}
	m := post.(*truncMixture)
	unit := m.unit
	want := math.Log(0.5) + refLogMass(-70, -50) + math.Log(unit.CDF(10)-unit.CDF(-10))
	if !(math.Abs(m.logZ-want) <= 1e-14*math.Abs(want)) {
		t.Errorf("log Z = %v, want %v", m.logZ, want)
	}
	if m.pick[0] != 1 {
		t.Errorf("the wide component is picked with probability %v, want 1", m.pick[0])
	}
	draws := post.Sample(rand.New(rand.NewPCG(7, 8)), 100)
	for i, lp := range post.LogProb(draws) {
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("log-density of draw %d (%v) = %v", i, draws.RawRowView(i), lp)
		}
	}
}
