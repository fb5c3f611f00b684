package calib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
)

// TestCANVIRefusesBadInput: values that used to be replaced by defaults or that crashed in a
// nil dereference get an error saying what was expected.
func TestCANVIRefusesBadInput(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	cands := []sbi.Amortized{m.estimator(1, 0)}
	nilSim := func(*rand.Rand, *mat.Dense) *mat.Dense { return nil }
	shortSim := func(rng *rand.Rand, th *mat.Dense) *mat.Dense { return mat.NewDense(1, 1, nil) }
	panicSim := func(*rand.Rand, *mat.Dense) *mat.Dense { panic("simulator broke") }
	tests := []struct {
		name string
		sim  SimulateFunc
		cfg  CANVIConfig
		want string
	}{
		{"negative NCal", m.simulate, CANVIConfig{NCal: -5}, "NCal = -5"},
		{"negative NRecal", m.simulate, CANVIConfig{NRecal: -1}, "NRecal = -1"},
		{"negative NTest", m.simulate, CANVIConfig{NTest: -100}, "NTest = -100"},
		{"alpha NaN", m.simulate, CANVIConfig{Alpha: math.NaN()}, "Alpha = NaN"},
		{"alpha 1.5", m.simulate, CANVIConfig{Alpha: 1.5}, "Alpha = 1.5"},
		{"alpha negative", m.simulate, CANVIConfig{Alpha: -0.1}, "Alpha = -0.1"},
		{"simulator returns nil", nilSim, CANVIConfig{NCal: 50, NTest: 5}, "simulator returned nil"},
		{"simulator returns too few rows", shortSim, CANVIConfig{NCal: 50, NTest: 5}, "returned 1 rows for 50 parameters"},
		{"simulator panics", panicSim, CANVIConfig{NCal: 50, NTest: 5}, "simulator broke"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				_, err = CANVI(rand.New(rand.NewPCG(1, 2)), cands, m.prior(), tc.sim, tc.cfg)
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestConformalRefusesNaNAlpha: α = NaN passed the range check (NaN compares false) and gave a
// threshold from a meaningless rank.
func TestConformalRefusesNaNAlpha(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	rng := rand.New(rand.NewPCG(3, 4))
	th := m.prior().Sample(rng, 200)
	x := m.simulate(rng, th)
	for _, a := range []float64{math.NaN(), 0, 1, -0.2, 2} {
		if _, err := NewConformal(m.estimator(1, 0), th, x, a); err == nil || !strings.Contains(err.Error(), "(0, 1)") {
			t.Errorf("NewConformal with alpha %v: error %v, want one asking for (0, 1)", a, err)
		}
		if _, err := NewGroupConformal(m.estimator(1, 0), th, x, a, nil); err == nil || !strings.Contains(err.Error(), "(0, 1)") {
			t.Errorf("NewGroupConformal with alpha %v: error %v, want one asking for (0, 1)", a, err)
		}
	}
}

// TestFitAffineRefusesNonFiniteObjective: draws at a scale where the energy score overflows
// (uniform on ±1e308, whose differences exceed the largest float64) give the objective a value
// that is not finite at the identity map; returning that map as a fit hides that nothing was
// fitted.
func TestFitAffineRefusesNonFiniteObjective(t *testing.T) {
	const M = 20
	rng := rand.New(rand.NewPCG(5, 6))
	thetaBar := mat.NewDense(M, 1, nil)
	draws := make([]*mat.Dense, M)
	for i := range M {
		thetaBar.Set(i, 0, 1e308*(2*rng.Float64()-1))
		draws[i] = mat.NewDense(30, 1, nil)
		for k := range 30 {
			draws[i].Set(k, 0, 1e308*(2*rng.Float64()-1))
		}
	}
	res, err := FitAffine(rng, thetaBar, draws, nil, ScoreCalConfig{})
	if err == nil || !strings.Contains(err.Error(), "not finite") {
		var obj float64
		if res != nil {
			obj = res.Objective
		}
		t.Fatalf("error %v (objective %v), want one saying the objective is not finite", err, obj)
	}
}

// TestFitAffineRefusesNoProgress: at parameters of scale 1e300 the energy score is finite (its
// norms are scaled where the plain sums overflow), but the optimizer, which takes steps of
// the map's parameters on θ's own scale, cannot move from the identity map; FitAffine
// returned that unfitted map with no error (only its Status said Failure). It is an error
// naming the scale now.
func TestFitAffineRefusesNoProgress(t *testing.T) {
	const M = 20
	rng := rand.New(rand.NewPCG(5, 6))
	thetaBar := mat.NewDense(M, 1, nil)
	draws := make([]*mat.Dense, M)
	for i := range M {
		thetaBar.Set(i, 0, 1e300*rng.NormFloat64())
		draws[i] = mat.NewDense(30, 1, nil)
		for k := range 30 {
			draws[i].Set(k, 0, 1e300*rng.NormFloat64())
		}
	}
	res, err := FitAffine(rng, thetaBar, draws, nil, ScoreCalConfig{})
	if err == nil || !strings.Contains(err.Error(), "could not move") || !strings.Contains(err.Error(), "rescale θ") {
		status := ""
		if res != nil {
			status = res.Status
		}
		t.Fatalf("error %v (status %q), want one saying the optimizer could not move from the identity map and to rescale θ", err, status)
	}
}

// TestCANVIReportsDropped: CANVI leaves out the calibration pairs and test observations that
// hold NaN, as NewConformal and MeasureCoverage do, and says how many it left out of each set
// in every candidate and in its table instead of discarding the count.
func TestCANVIReportsDropped(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	sim := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
		x := m.simulate(rng, th)
		r, c := x.Dims()
		for i := 0; i < r; i += 10 {
			for j := range c {
				x.Set(i, j, math.NaN())
			}
		}
		return x
	}
	cands := []sbi.Amortized{m.estimator(1, 0), m.estimator(2, 0)}
	res, err := CANVI(rand.New(rand.NewPCG(3, 5)), cands, m.prior(), sim, CANVIConfig{Alpha: 0.1, NCal: 200, NTest: 20, Volume: VolumeConfig{Samples: 200}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Candidates {
		if c.Dropped != 20 || c.DroppedTest != 2 {
			t.Errorf("candidate %d: dropped %d calibration pairs and %d test observations, want 20 and 2", i, c.Dropped, c.DroppedTest)
		}
	}
	html := res.MIMEBundle()["text/html"].(string)
	for _, want := range []string{"20 of 200 calibration pairs of D_C", "2 of 20 test observations of D_T", "180 fresh pairs (20 dropped"} {
		if !strings.Contains(html, want) {
			t.Errorf("CANVI's table does not say %q:\n%s", want, html)
		}
	}
}
