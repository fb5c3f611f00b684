package viz

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestLocalResultsRefused: LC2ST, Misspecification and PredictiveCheck dereferenced a nil line
// (gonum refuses a line through NaN or ±Inf) when the statistic at x_o, the observation or a
// null statistic was not finite, as a hand-built result or a Misspecification whose
// estimator's summary of x_o is NaN holds, and dereferenced a nil result. They now make a plot
// whose rendering returns an error naming the plot and what is wrong, as the other plots of a
// diag result do; a result that can be drawn still renders.
func TestLocalResultsRefused(t *testing.T) {
	lc2st := func(edit func(r *diag.LC2STResult)) *diag.LC2STResult {
		r := &diag.LC2STResult{Statistic: diag.LC2STMSE, Value: 0.05, PValue: 1.0 / 11, Alpha: 0.05,
			Null: []float64{0.01, 0.02, 0.015, 0.03, 0.012, 0.018, 0.022, 0.011, 0.025, 0.017},
			N:    200, Evals: 100, Grid: []float64{0, 0.5, 1}, CDF: []float64{0, 0.4, 1},
			NullLower: []float64{0, 0.45, 1}, NullUpper: []float64{0, 0.55, 1}, ObservationPValue: 0.5}
		edit(r)
		return r
	}
	misspec := func(edit func(r *diag.MisspecResult)) *diag.MisspecResult {
		r := &diag.MisspecResult{Statistic: 0.4, PValue: 0.2, Null: []float64{0.1, 0.2, 0.3, 0.5, 0.6},
			Reference: 10, Calibration: 5, Bandwidth: 1, Space: "standardized x", Alpha: 0.05}
		edit(r)
		return r
	}
	predictive := func(edit func(r *diag.PredictiveResult)) *diag.PredictiveResult {
		sims := mat.NewDense(24, 2, nil)
		for i := range 24 {
			sims.SetRow(i, []float64{float64(i), float64(i + 1)})
		}
		r, err := diag.PredictiveFromSimulations(sims, []float64{11.5, 12.5}, diag.PredictiveConfig{Label: "prior predictive"})
		if err != nil {
			t.Fatal(err)
		}
		edit(r)
		return r
	}
	checkRendering(t, []renderCase{
		{"LC2ST ok", func() *Plot { return LC2ST(lc2st(func(*diag.LC2STResult) {})) }, ""},
		{"LC2ST nil", func() *Plot { return LC2ST(nil) }, "viz: LC2ST: no result"},
		{"LC2ST NaN statistic", func() *Plot { return LC2ST(lc2st(func(r *diag.LC2STResult) { r.Value = math.NaN() })) },
			"viz: LC2ST: the result cannot be drawn: its statistic at x_o is NaN, expected a finite value"},
		{"LC2ST infinite null", func() *Plot { return LC2ST(lc2st(func(r *diag.LC2STResult) { r.Null[3] = math.Inf(1) })) },
			"viz: LC2ST: the result cannot be drawn: null statistic 4 is +Inf, expected a finite value"},
		{"LC2ST short CDF", func() *Plot { return LC2ST(lc2st(func(r *diag.LC2STResult) { r.CDF = r.CDF[:2] })) },
			"viz: LC2ST: the result cannot be drawn: it holds 3 grid points, 2 CDF values and 3 and 3 null bounds, expected one of each per grid point"},
		{"LC2ST NaN CDF", func() *Plot { return LC2ST(lc2st(func(r *diag.LC2STResult) { r.CDF[1] = math.NaN() })) },
			"viz: LC2ST: the result cannot be drawn: at grid point 2 (0.5) its CDF is NaN and its null band [0.45, 0.55], expected finite values"},

		{"Misspecification ok", func() *Plot { return Misspecification(misspec(func(*diag.MisspecResult) {})) }, ""},
		{"Misspecification nil", func() *Plot { return Misspecification(nil) }, "viz: Misspecification: no result"},
		{"Misspecification NaN statistic", func() *Plot {
			return Misspecification(misspec(func(r *diag.MisspecResult) { r.Statistic = math.NaN() }))
		}, "viz: Misspecification: the result cannot be drawn: its statistic at the observation is NaN, expected a finite value"},
		{"Misspecification NaN null", func() *Plot {
			return Misspecification(misspec(func(r *diag.MisspecResult) { r.Null[0] = math.NaN() }))
		}, "viz: Misspecification: the result cannot be drawn: null statistic 1 is NaN, expected a finite value"},

		{"PredictiveCheck ok", func() *Plot { return PredictiveCheck(predictive(func(*diag.PredictiveResult) {})) }, ""},
		{"PredictiveCheck nil", func() *Plot { return PredictiveCheck(nil) }, "viz: PredictiveCheck: no result"},
		{"PredictiveCheck NaN observation", func() *Plot {
			return PredictiveCheck(predictive(func(r *diag.PredictiveResult) { r.Observation[1] = math.NaN() }))
		}, "viz: PredictiveCheck: the result cannot be drawn: its observation of x₂ is NaN, expected a finite value"},
		{"PredictiveCheck no simulations", func() *Plot {
			return PredictiveCheck(predictive(func(r *diag.PredictiveResult) { r.Sims = nil }))
		}, "viz: PredictiveCheck: the result cannot be drawn: it holds no simulations"},
		{"PredictiveCheck short observation", func() *Plot {
			return PredictiveCheck(predictive(func(r *diag.PredictiveResult) { r.Observation = r.Observation[:1] }))
		}, "viz: PredictiveCheck: the result cannot be drawn: it holds simulations of 2 values, an observation of 1, 2 names, 2 quantiles and 2 p-values, expected one of each per value"},
		{"PredictiveCheck simulations of fewer trials (NaN padding)", func() *Plot {
			return PredictiveCheck(fewerTrials(t))
		}, ""},
		{"PredictiveCheck infinite simulation", func() *Plot {
			return PredictiveCheck(predictive(func(r *diag.PredictiveResult) { r.Sims.Set(4, 0, math.Inf(-1)) }))
		}, "viz: PredictiveCheck: the result cannot be drawn: simulation 5 of x₁ is -Inf, expected a finite value"},
	})
}

// fewerTrials is the predictive check of an observation of 2 trials against 24 simulations,
// half of 1 trial (NaN padding in x₂) and half of 2.
func fewerTrials(t *testing.T) *diag.PredictiveResult {
	sims := mat.NewDense(24, 2, nil)
	for i := range 24 {
		sims.SetRow(i, []float64{float64(i), float64(i + 1)})
		if i%2 == 0 {
			sims.Set(i, 1, math.NaN())
		}
	}
	r, err := diag.PredictiveFromSimulations(sims, []float64{11.5, 12.5}, diag.PredictiveConfig{Label: "prior predictive"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPredictiveTitleSaysWhichHaveAValue: a data value that some simulations lack (NaN padding
// of data sets of fewer trials) is ranked among those that have it; its panel title says how
// many are NaN, as a padding value's title does.
func TestPredictiveTitleSaysWhichHaveAValue(t *testing.T) {
	titles, _ := predictiveTitles(fewerTrials(t))
	if want := "NaN in 12 of 24"; !strings.Contains(titles[1], want) || !strings.Contains(titles[1], "q = ") {
		t.Errorf("title %q, want the quantile and %q", titles[1], want)
	}
	if strings.Contains(titles[0], "NaN") {
		t.Errorf("title %q of a value every simulation has says NaN", titles[0])
	}
}
