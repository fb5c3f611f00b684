package disttest

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// The suite's own tests: its checks pass correct distributions (level) and fail
// distributions that are wrong in one way each (power).

// failures runs check on a recorder and returns what it reported.
func failures(check func(tb reporter)) []string {
	r := &recorder{}
	guarded(r, check)
	return r.reports
}

// suiteFailures runs the suite on d and returns the failures of each check by name.
func suiteFailures(d dist.Distribution, cfg Config) map[string][]string {
	out := map[string][]string{}
	for _, f := range Check(d, cfg) {
		out[f.Check] = f.Reports
	}
	return out
}

// offset is a distribution whose LogProb is off by a constant.
type offset struct {
	dist.Distribution
	by float64
}

func (o offset) LogProb(x *mat.Dense) []float64 {
	lp := o.Distribution.LogProb(x)
	for i := range lp {
		lp[i] += o.by
	}
	return lp
}

// moved is a distribution whose Sample moves coordinate j of every draw to
// center + scale·(x − center) + shift.
type moved struct {
	dist.Distribution
	j                    int
	center, scale, shift float64
}

func (m moved) Sample(rng *rand.Rand, n int) *mat.Dense {
	x := m.Distribution.Sample(rng, n)
	for i := range n {
		x.Set(i, m.j, m.center+m.scale*(x.At(i, m.j)-m.center)+m.shift)
	}
	return x
}

// sampledBy is a distribution whose Sample is another's.
type sampledBy struct {
	dist.Distribution
	sampler dist.Distribution
}

func (s sampledBy) Sample(rng *rand.Rand, n int) *mat.Dense { return s.sampler.Sample(rng, n) }

// Distributions of the statistical tests.
var (
	normal2  = dist.NewNormal([]float64{0.5, -1}, []float64{1, 2})
	normal10 = dist.NewStandardNormal(10)
	products = dist.NewIndependent(dist.NewGamma([]float64{0.5}, []float64{1}), dist.NewBeta([]float64{2}, []float64{5}))
	logBox   = dist.NewExp(dist.NewUniformCube(-4, 1, 2))
)

func correlated(rho float64) *dist.MultivariateNormal {
	return dist.NewMultivariateNormal([]float64{0, 0}, mat.NewSymDense(2, []float64{1, rho, rho, 1}))
}

// TestLevel runs the statistical checks on correct distributions at Level 0.1 over 100 seeds
// and counts the seeds at which each fails: at most 20 (a binomial count of rate 0.1 exceeds 20
// with probability 0.001).
func TestLevel(t *testing.T) {
	const seeds, level, most = 100, 0.1, 20
	band := mat.NewSymDense(5, nil)
	for j := range 5 {
		band.SetSym(j, j, 1)
		if j > 0 {
			band.SetSym(j, j-1, 0.5)
		}
	}
	for _, tc := range []struct {
		name string
		d    dist.Distribution
	}{
		{"Normal", normal2},
		{"GammaBeta", products},
		{"LogUniform", logBox},
		{"MultivariateNormal5", dist.NewMultivariateNormal(make([]float64, 5), band)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count := map[string]int{}
			for seed := uint64(1); seed <= seeds; seed++ {
				cfg, err := Config{Seed: seed, Samples: 1000, Level: level}.withDefaults(tc.d.Dim())
				if err != nil {
					t.Fatal(err)
				}
				p, err := newPlan(tc.d, cfg)
				if len(failures(func(tb reporter) { p.checkNormalized(tb, err) })) > 0 {
					count["normalized"]++
				}
				if len(failures(func(tb reporter) { p.checkAgrees(tb, err) })) > 0 {
					count["agrees"]++
				}
			}
			t.Logf("seeds failed of %d at level %g: %v", seeds, level, count)
			for check, n := range count {
				if n > most {
					t.Errorf("%s failed at %d of %d seeds at level %g, expected at most %d", check, n, seeds, level, most)
				}
			}
		})
	}
}

// TestPower checks that the statistical checks fail distributions that are wrong in one way
// each, at the defaults and seeds 1 to 5 (the package documentation states these powers), and
// that no other check fails.
func TestPower(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     dist.Distribution
		fails string
	}{
		{"Normal2 density ×e^0.05", offset{normal2, 0.05}, "normalized"},
		{"Normal2 density ×e^−0.05", offset{normal2, -0.05}, "normalized"},
		{"Normal10 density ×e^0.05", offset{normal10, 0.05}, "normalized"},
		{"GammaBeta density ×e^0.05", offset{products, 0.05}, "normalized"},
		{"LogUniform density ×e^−0.05", offset{logBox, -0.05}, "normalized"},
		{"Normal2 shift 0.15 sd", moved{normal2, 0, 0.5, 1, 0.15}, "agrees"},
		{"Normal10 shift 0.2 sd", moved{normal10, 3, 0, 1, 0.2}, "agrees"},
		{"GammaBeta shift 0.15 sd", moved{products, 0, 0.5, 1, 0.15 * math.Sqrt(0.5)}, "agrees"},
		{"Normal2 scale 1.1", moved{normal2, 0, 0.5, 1.1, 0}, "agrees"},
		{"Normal2 scale 0.9", moved{normal2, 1, -1, 0.9, 0}, "agrees"},
		{"Normal10 scale 1.15", moved{normal10, 3, 0, 1.15, 0}, "agrees"},
		{"Normal10 scale 0.85", moved{normal10, 7, 0, 0.85, 0}, "agrees"},
		{"correlation 0.5 left out", sampledBy{correlated(0.5), dist.NewStandardNormal(2)}, "agrees"},
		{"correlation 0.3 added", sampledBy{dist.NewStandardNormal(2), correlated(0.3)}, "agrees"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				got := suiteFailures(tc.d, Config{Seed: seed})
				if len(got[tc.fails]) == 0 {
					t.Errorf("seed %d: %s passed", seed, tc.fails)
				}
				for check, f := range got {
					if check != tc.fails {
						t.Errorf("seed %d: %s failed too: %v", seed, check, f)
					}
				}
			}
		})
	}
}

// Distributions that break one promise of the interface each.

// wideDim says it has one coordinate more than it draws.
type wideDim struct{ dist.Distribution }

func (w wideDim) Dim() int { return w.Distribution.Dim() + 1 }

// narrowDraws draws one coordinate less than Dim.
type narrowDraws struct{ dist.Distribution }

func (d narrowDraws) Sample(rng *rand.Rand, n int) *mat.Dense {
	return mat.DenseCopyOf(d.Distribution.Sample(rng, n).Slice(0, n, 0, d.Dim()-1))
}

// nanSupport has a NaN bound.
type nanSupport struct{ dist.Distribution }

func (n nanSupport) Support() (low, high []float64) {
	low, high = n.Distribution.Support()
	low[0] = math.NaN()
	return low, high
}

// globalRand draws from the global source rather than its rng.
type globalRand struct{ dist.Distribution }

func (g globalRand) Sample(_ *rand.Rand, n int) *mat.Dense {
	return g.Distribution.Sample(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), n)
}

// fixedRand draws from a generator of its own, whatever the seed.
type fixedRand struct{ dist.Distribution }

func (f fixedRand) Sample(_ *rand.Rand, n int) *mat.Dense {
	return f.Distribution.Sample(rand.New(rand.NewPCG(7, 7)), n)
}

// narrowSupport reports a Support box narrower than where it draws.
type narrowSupport struct{ dist.Distribution }

func (narrowSupport) Support() (low, high []float64) {
	return []float64{-1, -1}, []float64{1, 1}
}

// lostDraws has LogProb −Inf at the draws whose first coordinate is above 0.5.
type lostDraws struct{ dist.Distribution }

func (l lostDraws) LogProb(x *mat.Dense) []float64 {
	lp := l.Distribution.LogProb(x)
	for i := range lp {
		if x.At(i, 0) > 0.5 {
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

// noSupportCheck is a box whose LogProb is −log(volume) everywhere, even outside.
type noSupportCheck struct{ *dist.BoxUniform }

func (b noSupportCheck) LogProb(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	lp := make([]float64, n)
	for i := range lp {
		lp[i] = -math.Log(4)
	}
	return lp
}

// nanOut gives NaN for a row holding NaN.
type nanOut struct{ dist.Distribution }

func (d nanOut) LogProb(x *mat.Dense) []float64 {
	lp := d.Distribution.LogProb(x)
	for i := range lp {
		if !finite(x.RawRowView(i)) && math.IsNaN(x.RawRowView(i)[0]) {
			lp[i] = math.NaN()
		}
	}
	return lp
}

// panicsOnNaN panics on a row holding NaN.
type panicsOnNaN struct{ dist.Distribution }

func (d panicsOnNaN) LogProb(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	for i := range n {
		for _, v := range x.RawRowView(i) {
			if math.IsNaN(v) {
				panic("NaN in x")
			}
		}
	}
	return d.Distribution.LogProb(x)
}

// firstColumns reads the first Dim columns of any x, without a panic on a wrong width.
type firstColumns struct{ dist.Distribution }

func (d firstColumns) LogProb(x *mat.Dense) []float64 {
	n, c := x.Dims()
	return d.Distribution.LogProb(mat.DenseCopyOf(x.Slice(0, n, 0, min(c, d.Dim()))))
}

// longPoints reads the first Dim values of a longer point in InSupport.
type longPoints struct{ dist.Distribution }

func (d longPoints) InSupport(x []float64) bool {
	return len(x) >= d.Dim() && d.Distribution.InSupport(x[:d.Dim()])
}

// overwrites sets its argument to 0 after computing the log densities.
type overwrites struct{ dist.Distribution }

func (d overwrites) LogProb(x *mat.Dense) []float64 {
	lp := d.Distribution.LogProb(x)
	x.Zero()
	return lp
}

// ignoresStride reads its argument's backing array as if it were contiguous.
type ignoresStride struct{ dist.Distribution }

func (d ignoresStride) LogProb(x *mat.Dense) []float64 {
	n, c := x.Dims()
	raw := x.RawMatrix()
	return d.Distribution.LogProb(mat.NewDense(n, c, append([]float64(nil), raw.Data[:n*c]...)))
}

// batchMean subtracts a tenth of the batch's mean first coordinate: LogProb depends on the
// other rows.
type batchMean struct{ dist.Distribution }

func (d batchMean) LogProb(x *mat.Dense) []float64 {
	lp := d.Distribution.LogProb(x)
	var m float64
	for i := range lp {
		m += x.At(i, 0) / float64(len(lp))
	}
	for i := range lp {
		lp[i] -= m / 10
	}
	return lp
}

// looseSupport says that points with a first coordinate above 0.5 are not InSupport, where
// LogProb is finite.
type looseSupport struct{ dist.Distribution }

func (d looseSupport) InSupport(x []float64) bool {
	return d.Distribution.InSupport(x) && x[0] <= 0.5
}

// degenerate draws the same point every time.
type degenerate struct{ dist.Distribution }

func (degenerate) Sample(rng *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 2, nil)
	for i := range n {
		x.SetRow(i, []float64{0.25 + 0*rng.Float64(), -0.5})
	}
	return x
}

// TestChecksFail runs the suite on distributions that break one promise each and checks that
// the check of that promise fails, saying what it found.
func TestChecksFail(t *testing.T) {
	box := dist.NewUniformCube(-1, 1, 2)
	std := dist.NewStandardNormal(2)
	for _, tc := range []struct {
		name, check, says string
		d                 dist.Distribution
	}{
		{"Dim one too many", "shape", "expected Dim = 3", wideDim{std}},
		{"draws one column short", "shape", "is 1×1, expected 1×2", narrowDraws{std}},
		{"NaN bound", "shape", "low[0] = NaN", nanSupport{box}},
		{"global source", "reproducible", "same seed gave different draws", globalRand{std}},
		{"own fixed seed", "reproducible", "same 50 draws for two different seeds", fixedRand{std}},
		{"Support too narrow", "draws", "outside the Support box", narrowSupport{std}},
		{"draws of density 0", "draws", "expected a finite log density", lostDraws{box}},
		{"density outside", "outside", "expected −Inf outside the support", noSupportCheck{box}},
		{"NaN for NaN", "outside", "LogProb([NaN", nanOut{std}},
		{"panic on NaN", "outside", "panicked: NaN in x", panicsOnNaN{std}},
		{"no panic on width", "width", "did not panic", firstColumns{std}},
		{"long point InSupport", "width", "for a point of 3 values", longPoints{std}},
		{"argument overwritten", "batch", "changed its argument", overwrites{std}},
		{"stride ignored", "batch", "on a view into a wider matrix", ignoresStride{std}},
		{"batch-dependent", "batch", "in a batch of", batchMean{std}},
		{"InSupport narrower than LogProb", "consistent", "but InSupport is false", looseSupport{box}},
		{"no density", "agrees", "inconclusive", degenerate{std}},
		{"no density", "normalized", "inconclusive", degenerate{std}},
	} {
		t.Run(tc.name+"/"+tc.check, func(t *testing.T) {
			got := suiteFailures(tc.d, Config{})[tc.check]
			if len(got) == 0 {
				t.Fatalf("%s passed", tc.check)
			}
			for _, f := range got {
				if strings.Contains(f, tc.says) {
					return
				}
			}
			t.Errorf("%s failed without saying %q: %q", tc.check, tc.says, got)
		})
	}
}

// TestCorrectPass runs every check on correct distributions of each kind of support, and on
// one whose LogProb is unnormalized with Config.Unnormalized.
func TestCorrectPass(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    dist.Distribution
		cfg  Config
	}{
		{"Normal2", normal2, Config{}},
		{"GammaBeta", products, Config{}},
		{"LogUniform", logBox, Config{}},
		{"unnormalized", offset{normal2, 3}, Config{Unnormalized: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for check, f := range suiteFailures(tc.d, tc.cfg) {
				t.Errorf("%s failed: %v", check, f)
			}
		})
	}
}

func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		dim  int
		says string
	}{
		{Config{Samples: 100}, 2, "expected at least 500"},
		{Config{Samples: MaxValues}, 2, "use at most 524288 samples"},
		{Config{Level: 1}, 2, "expected a false-alarm rate in (0, 1)"},
		{Config{Level: -0.1}, 2, "expected a false-alarm rate in (0, 1)"},
		{Config{Level: math.NaN()}, 2, "expected a false-alarm rate in (0, 1)"},
	} {
		if _, err := tc.cfg.withDefaults(tc.dim); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: error %v, want one saying %q", tc.cfg, err, tc.says)
		}
	}
}

// pilotCounter is a distribution that counts the calls of Sample for n draws.
type pilotCounter struct {
	dist.Distribution
	n     int
	calls *int
}

func (c pilotCounter) Sample(rng *rand.Rand, n int) *mat.Dense {
	if n == c.n {
		*c.calls++
	}
	return c.Distribution.Sample(rng, n)
}

// TestPlanBuiltLazily: the checks that need no proposal (reproducible, draws, outside, width,
// batch) run without one; the statistical checks build it when the first of them runs, once
// for all three (two draws of Config.Samples: the pilot and the comparison).
func TestPlanBuiltLazily(t *testing.T) {
	const samples = 600 // a size no other check draws
	calls := 0
	d := pilotCounter{Distribution: normal2, n: samples, calls: &calls}
	cfg, err := Config{Samples: samples}.withDefaults(d.Dim())
	if err != nil {
		t.Fatal(err)
	}
	cs := checks(d, cfg)
	for _, c := range cs {
		before := calls
		if rep := failures(c.run); len(rep) > 0 {
			t.Errorf("%s: %v", c.name, rep)
		}
		statistical := c.name == "consistent" || c.name == "normalized" || c.name == "agrees"
		if !statistical && calls != 0 {
			t.Errorf("after %s: %d draws of the proposal's size, want none before a statistical check", c.name, calls)
		}
		if statistical && c.name != "consistent" && calls != before {
			t.Errorf("%s drew the pilot again (%d draws of the proposal's size in all)", c.name, calls)
		}
	}
	if calls != 2 {
		t.Errorf("%d draws of Config.Samples in all, want 2 (the pilot and the comparison)", calls)
	}
}
