package calib

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// trialsGauss is the exact posterior of θ ~ N(0, s0²) from up to n i.i.d. trials
// x_t ~ N(θ, σ²), one row of n values per observation, fewer trials padded with NaN at the end
// as sbi.AmortizedTrials reads them: Unpadded returns the trials present, an empty slice for a
// row of NaN, and an error for a trial after the padding.
type trialsGauss struct {
	n         int
	s0, sigma float64
}

func (m trialsGauss) Unpadded(x []float64) ([]float64, error) {
	if len(x) != m.n {
		return nil, errors.New("wrong width")
	}
	k := 0
	for k < len(x) && !math.IsNaN(x[k]) {
		k++
	}
	for _, v := range x[k:] {
		if !math.IsNaN(v) {
			return nil, errors.New("a trial after the padding")
		}
	}
	return x[:k], nil
}

func (m trialsGauss) Posterior(x []float64) sbi.Posterior {
	u, err := m.Unpadded(x)
	if err != nil {
		panic(err)
	}
	prec, s := 1/(m.s0*m.s0), 0.0
	for _, v := range u {
		prec += 1 / (m.sigma * m.sigma)
		s += v / (m.sigma * m.sigma)
	}
	return isoGauss([]float64{s / prec}, 1/math.Sqrt(prec))
}

func (m trialsGauss) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		lp[i] = m.Posterior(x.RawRowView(i)).LogProb(mat.NewDense(1, 1, theta.RawRowView(i)))[0]
	}
	return lp
}

// simulate draws observations of 1 to n−1 trials (every row padded), or of 1 to n trials
// when full.
func (m trialsGauss) simulate(full bool) SimulateFunc {
	return func(rng *rand.Rand, theta *mat.Dense) *mat.Dense {
		r, _ := theta.Dims()
		x := mat.NewDense(r, m.n, nil)
		top := m.n - 1
		if full {
			top = m.n
		}
		for i := range r {
			k := 1 + rng.IntN(top)
			for t := range m.n {
				v := math.NaN()
				if t < k {
					v = theta.At(i, 0) + m.sigma*rng.NormFloat64()
				}
				x.Set(i, t, v)
			}
		}
		return x
	}
}

// TestConformalPaddedObservations checks that the conformal methods keep the calibration and
// test pairs whose observation is padded with NaN trials for an estimator that reads the
// padding (sbi.AmortizedTrials, here an exact stand-in), as package diag does: only rows of
// NaN are dropped, a malformed padding is an error naming the pair, and the regions cover at
// 1 − α on padded pairs. With every observation padded, CANVI finds test observations.
func TestConformalPaddedObservations(t *testing.T) {
	m := trialsGauss{n: 4, s0: 2, sigma: 1}
	prior := isoGauss([]float64{0}, m.s0)
	rng := rand.New(rand.NewPCG(5, 6))
	pairs := func(n, empty int) (*mat.Dense, *mat.Dense) {
		th := prior.Sample(rng, n)
		x := m.simulate(true)(rng, th)
		for i := range empty {
			for t := range m.n {
				x.Set(i, t, math.NaN())
			}
		}
		return th, x
	}
	th, x := pairs(2000, 7)
	c, err := NewConformal(m, th, x, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if c.N != 1993 || c.Dropped != 7 {
		t.Errorf("NewConformal kept %d pairs and dropped %d, want 1993 and the 7 rows of NaN", c.N, c.Dropped)
	}
	th, x = pairs(4000, 3)
	cov, err := c.MeasureCoverage(th, x)
	if err != nil {
		t.Fatal(err)
	}
	if cov.N != 3997 || cov.Dropped != 3 {
		t.Errorf("MeasureCoverage used %d pairs and dropped %d, want 3997 and the 3 rows of NaN", cov.N, cov.Dropped)
	}
	if cov.PValue < 1e-3 { // exact posterior: covered at 1 − α
		t.Errorf("coverage %.4f of the exact posterior's regions at 0.9: p-value %.2g", cov.Coverage, cov.PValue)
	}
	g, err := NewGroupConformal(m, th, x, 0.1, PartitionFunc(1, func([]float64) int { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if g.N[0] != 3997 || g.Dropped != 3 {
		t.Errorf("NewGroupConformal kept %d pairs and dropped %d, want 3997 and 3", g.N[0], g.Dropped)
	}
	full := mat.NewDense(200, m.n, nil) // observations of n trials, to fit the partition to
	for i := range 200 {
		mu := m.s0 * rng.NormFloat64()
		for t := range m.n {
			full.Set(i, t, mu+m.sigma*rng.NormFloat64())
		}
	}
	km, err := NewKMeansPartition(rng, full, 2, KMeansConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGroupConformal(m, th, x, 0.1, km); err == nil || !strings.Contains(err.Error(), "k-means partition cannot place observation") {
		t.Errorf("NewGroupConformal with a k-means partition of padded observations: error %v, want one saying it cannot place them", err)
	}
	x.Set(10, 1, math.NaN()) // trial 2 of pair 10 now follows the padding
	x.Set(10, 2, 1)
	for name, f := range map[string]func() error{
		"NewConformal":    func() error { _, err := NewConformal(m, th, x, 0.1); return err },
		"MeasureCoverage": func() error { _, err := c.MeasureCoverage(th, x); return err },
		"NewGroupConformal": func() error {
			_, err := NewGroupConformal(m, th, x, 0.1, PartitionFunc(1, func([]float64) int { return 0 }))
			return err
		},
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "pair 10") || !strings.Contains(err.Error(), "after the padding") {
			t.Errorf("%s of a malformed padding: error %v, want one naming pair 10 and the estimator's reason", name, err)
		}
	}
	res, err := CANVI(rng, []sbi.Amortized{m}, prior, m.simulate(false), CANVIConfig{Alpha: 0.1, NCal: 200, NTest: 10, Volume: VolumeConfig{Samples: 200}})
	if err != nil {
		t.Fatalf("CANVI on padded observations: %v", err)
	}
	if res.Conformal.N != 200 {
		t.Errorf("CANVI recalibrated on %d pairs, want all 200", res.Conformal.N)
	}
}
