package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// regionModel is θ ~ N(0, 1), x = (u, y) with u ~ U(−1, 1) independent of θ and y | θ ~
// N(θ, 1): the posterior is N(y/2, ½) whatever u. Its estimator q is that posterior where
// u ≤ 0 and over-confident (sd scaled by shrink) where u > 0: miscalibrated in one region only.
type regionModel struct{ shrink float64 }

func (m regionModel) pairs(rng *rand.Rand, n int) (*mat.Dense, *mat.Dense) {
	theta := mat.NewDense(n, 1, nil)
	x := mat.NewDense(n, 2, nil)
	for i := range n {
		t := rng.NormFloat64()
		theta.Set(i, 0, t)
		x.Set(i, 0, 2*rng.Float64()-1)
		x.Set(i, 1, t+rng.NormFloat64())
	}
	return theta, x
}

func (m regionModel) Posterior(x []float64) sbi.Posterior {
	sd := math.Sqrt(0.5)
	if x[0] > 0 {
		sd *= m.shrink
	}
	return diagGauss{mean: []float64{x[1] / 2}, sd: []float64{sd}}
}

func (m regionModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	lp := make([]float64, n)
	for i := range n {
		lp[i] = m.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 1).(*mat.Dense))[0]
	}
	return lp
}

var signPartition = PartitionFunc(2, func(x []float64) int {
	if x[0] > 0 {
		return 1
	}
	return 0
})

// TestGroupConformalGuarantee checks the per-group guarantee of CANVI App. A statistically on
// regionModel (over-confident, sd × 0.5, for u > 0 only), α = 0.1. Each of R = 400
// repetitions draws 200 fresh calibration pairs (about 100 per group) and 400 test pairs, and
// records every group's coverage. Group-conditional calibration must give, in both groups, a
// mean coverage c̄ with 0.9 − 4·se ≤ c̄ ≤ 0.9 + E[1/(n_g+1)] + 4·se, where se is the standard
// error of c̄ from the binomial laws: one repetition's coverage has variance about
// α(1−α)(1/(n_g+2) + 1/m_g) (the conformal quantile's Beta noise plus the test count's), here
// se ≈ 0.0018. Power: the single threshold of NewConformal on the same pairs covers ≈ 0.82 in
// the over-confident group and ≈ 0.98 in the other, which the same check must reject on both
// sides, while its pooled coverage still meets 1 − α.
func TestGroupConformalGuarantee(t *testing.T) {
	const (
		reps, nCal, nTest = 400, 200, 400
		alpha             = 0.1
	)
	m := regionModel{shrink: 0.5}
	rng := rand.New(rand.NewPCG(31, 1))
	var group, global [2]float64 // summed coverage per group
	var pooled float64
	var v, upper [2]float64 // summed per-repetition variance and 1/(n_g+1)
	for range reps {
		thC, xC := m.pairs(rng, nCal)
		thT, xT := m.pairs(rng, nTest)
		gc, err := NewGroupConformal(m, thC, xC, alpha, signPartition)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewConformal(m, thC, xC, alpha)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := gc.GroupCoverage(thT, xT)
		if err != nil {
			t.Fatal(err)
		}
		in := c.Contains(thT, xT)
		pooled += fractionTrue(in)
		cr, err := CoverageByGroup(in, xT, signPartition, 1-alpha)
		if err != nil {
			t.Fatal(err)
		}
		for g := range 2 {
			group[g] += gr.Coverage[g]
			global[g] += cr.Coverage[g]
			v[g] += alpha * (1 - alpha) * (1/float64(gc.N[g]+2) + 1/float64(gr.N[g]))
			upper[g] += 1 / float64(gc.N[g]+1)
		}
	}
	for g := range 2 {
		cbar, gbar := group[g]/reps, global[g]/reps
		se := math.Sqrt(v[g]/reps) / math.Sqrt(reps)
		lo, hi := 1-alpha-4*se, 1-alpha+upper[g]/reps+4*se
		t.Logf("group %d: group-conditional coverage %.4f, global %.4f (se %.4f, band [%.4f, %.4f])", g, cbar, gbar, se, lo, hi)
		if cbar < lo || cbar > hi {
			t.Errorf("group %d: group-conditional mean coverage %.4f outside [%.4f, %.4f]", g, cbar, lo, hi)
		}
		if g == 1 && gbar >= lo {
			t.Errorf("group 1 (over-confident): the global threshold covers %.4f, want below %.4f (the check has no power)", gbar, lo)
		}
		if g == 0 && gbar <= hi {
			t.Errorf("group 0 (calibrated): the global threshold covers %.4f, want above %.4f (the upper check has no power)", gbar, hi)
		}
	}
	pooledSE := math.Sqrt(alpha * (1 - alpha) * (1.0/(nCal+2) + 1.0/nTest) / reps) // pooled over both groups
	if p := pooled / reps; p < 1-alpha-4*pooledSE {
		t.Errorf("global threshold: pooled coverage %.4f below %.4f", p, 1-alpha-4*pooledSE)
	}
}

// TestGroupConformalErrors: bad partitions and small groups are reported, not silently used.
func TestGroupConformalErrors(t *testing.T) {
	m := regionModel{shrink: 1}
	rng := rand.New(rand.NewPCG(2, 2))
	th, x := m.pairs(rng, 30)
	bad := PartitionFunc(2, func(x []float64) int { return 2 })
	if _, err := NewGroupConformal(m, th, x, 0.1, bad); err == nil {
		t.Error("a partition returning group 2 of 2 was accepted")
	}
	// 30 pairs, α = 0.05: each group needs 19; with about 15 per group the thresholds are +Inf.
	c, err := NewGroupConformal(m, th, x, 0.05, signPartition)
	if err == nil || c == nil || !math.IsInf(c.Thresholds[0], 1) {
		t.Errorf("too few pairs per group: err %v, calibration %v", err, c)
	}
	if _, err := NewGroupConformal(m, th, x, 1.5, signPartition); err == nil {
		t.Error("alpha 1.5 was accepted")
	}
	if _, err := CoverageByGroup(make([]bool, 3), x, signPartition, 0.9); err == nil {
		t.Error("3 indicators for 30 observations were accepted")
	}
}

// TestKMeansPartition: three clusters of 2-D points, 5 apart with sd 0.3, are found (centres
// within 0.1, i.e. > 7 standard errors 0.3/√200 of a cluster mean); with balls, a far point
// falls in the last group.
func TestKMeansPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	truth := [][]float64{{0, 0}, {5, 0}, {0, 5}}
	x := mat.NewDense(600, 2, nil)
	for i := range 600 {
		c := truth[i%3]
		x.Set(i, 0, c[0]+0.3*rng.NormFloat64())
		x.Set(i, 1, c[1]+0.3*rng.NormFloat64())
	}
	p, err := NewKMeansPartition(rng, x, 3, KMeansConfig{Balls: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range truth {
		g, d2 := nearest(p.Centres, c)
		if math.Sqrt(d2) > 0.1 {
			t.Errorf("no centre near %v: nearest %v", c, p.Centres.RawRowView(g))
		}
		if r := p.Radius[g]; math.Abs(r-2.5) > 0.1 {
			t.Errorf("ball radius %v, want about 2.5", r)
		}
		if p.Group(c) != g {
			t.Errorf("centre %v not in its own group", c)
		}
	}
	if p.Groups() != 4 || p.Group([]float64{20, 20}) != 3 {
		t.Errorf("groups %d; far point in group %d, want 3 of 4", p.Groups(), p.Group([]float64{20, 20}))
	}
	if _, err := NewKMeansPartition(rng, x.Slice(0, 2, 0, 2).(*mat.Dense), 3, KMeansConfig{}); err == nil {
		t.Error("3 clusters of 2 points were accepted")
	}
}

// TestKMeansPartitionRefusesNonFinite: an observation with NaN or ±Inf has no nearest centre,
// so KMeansPartition.Group places it in no group (−1), and GroupConformal's Threshold and
// Region refuse it, naming the cause, instead of using group 0's threshold.
func TestKMeansPartitionRefusesNonFinite(t *testing.T) {
	centres := mat.NewDense(2, 2, []float64{-1, 0, 1, 0})
	for _, balls := range []bool{false, true} {
		p := &KMeansPartition{Centres: centres}
		if balls {
			p.Radius = []float64{1, 1}
		}
		c := &GroupConformal{Estimator: regionModel{shrink: 1}, Partition: p, Alpha: 0.1, Thresholds: make([]float64, p.Groups())}
		for _, x := range [][]float64{{math.NaN(), 0}, {0, math.Inf(1)}, {math.Inf(-1), math.NaN()}} {
			if g := p.Group(x); g != -1 {
				t.Errorf("balls %v: Group(%v) = %d, want −1", balls, x, g)
			}
			for name, f := range map[string]func(){
				"Threshold": func() { c.Threshold(x) },
				"Region":    func() { c.Region(x) },
			} {
				msg := panicMessage(f)
				if !strings.Contains(msg, "NaN or ±Inf") {
					t.Errorf("balls %v: %s(%v) panicked with %q, want a panic saying the observation holds NaN or ±Inf", balls, name, x, msg)
				}
			}
		}
	}
}

// panicMessage runs f and returns what it panicked with, as text, or "" when it returned.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}
