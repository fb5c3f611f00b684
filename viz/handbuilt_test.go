package viz

import (
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// handSBC is an SBC result built by hand: 40 ranks of M = 9 draws for two parameters.
func handSBC() *diag.SBCResult {
	r := &diag.SBCResult{Samples: 9, Ranks: make([][]int, 2), PValues: []float64{0.5, 0.4}}
	for d := range r.Ranks {
		for i := range 40 {
			r.Ranks[d] = append(r.Ranks[d], (i*(d+3))%10)
		}
	}
	return r
}

// TestHandBuiltResultsRefused: MarginalCoverage, SBCRanks, SBCECDF, Recovery and TARP given a result built by
// hand that they cannot draw (no parameters, no points, mismatched lengths, NaN) make a plot
// whose rendering returns an error naming the plot and what is wrong, instead of a panic
// (a division by zero in the layout, an index out of range or a nil pointer); a result that
// can be drawn still renders. Report shows such a plot as a line saying why.
func TestHandBuiltResultsRefused(t *testing.T) {
	ecdf, err := diag.SBCECDF(handSBC(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ecdfWith := func(edit func(r *diag.ECDFResult)) *diag.ECDFResult {
		r := *ecdf
		r.Diff = [][]float64{append([]float64(nil), ecdf.Diff[0]...), append([]float64(nil), ecdf.Diff[1]...)}
		edit(&r)
		return &r
	}
	sbcWith := func(edit func(r *diag.SBCResult)) *diag.SBCResult {
		r := handSBC()
		edit(r)
		return r
	}
	rec := func() *diag.RecoveryResult {
		return &diag.RecoveryResult{ZScore: [][]float64{{0.1, -0.5, 1.2}}, Contraction: [][]float64{{0.6, 0.7, 0.8}}, N: 3, Samples: 100}
	}
	recWith := func(edit func(r *diag.RecoveryResult)) *diag.RecoveryResult {
		r := rec()
		edit(r)
		return r
	}
	tarp := func() *diag.TARPResult {
		return &diag.TARPResult{Alpha: []float64{0, 0.25, 0.5, 0.75, 1}, ECP: []float64{0, 0.2, 0.5, 0.8, 1}}
	}
	tarpWith := func(edit func(r *diag.TARPResult)) *diag.TARPResult {
		r := tarp()
		edit(r)
		return r
	}
	marg := func() *diag.MarginalResult {
		levels := []float64{0.25, 0.5, 0.75}
		lo, hi := diag.BinomialBand(40, levels, diag.DefaultConfidence)
		return &diag.MarginalResult{N: 40, Levels: levels, Coverage: [][]float64{{0.2, 0.5, 0.8}, {0.3, 0.45, 0.7}}, Lower: lo, Upper: hi}
	}
	margWith := func(edit func(r *diag.MarginalResult)) *diag.MarginalResult {
		r := marg()
		edit(r)
		return r
	}
	checkRendering(t, []renderCase{
		{"MarginalCoverage ok", func() *Plot { return MarginalCoverage(marg()) }, ""},
		{"MarginalCoverage nil", func() *Plot { return MarginalCoverage(nil) }, "viz: MarginalCoverage: no result"},
		{"MarginalCoverage no parameters", func() *Plot { return MarginalCoverage(margWith(func(r *diag.MarginalResult) { r.Coverage = nil })) },
			"viz: MarginalCoverage: the result cannot be drawn: it holds no parameters"},
		{"MarginalCoverage short coverage", func() *Plot {
			return MarginalCoverage(margWith(func(r *diag.MarginalResult) { r.Coverage[1] = r.Coverage[1][:2] }))
		}, "viz: MarginalCoverage: the result cannot be drawn: parameter 2: it holds 2 coverage values for 3 levels"},
		{"MarginalCoverage NaN coverage", func() *Plot {
			return MarginalCoverage(margWith(func(r *diag.MarginalResult) { r.Coverage[0][1] = math.NaN() }))
		}, "viz: MarginalCoverage: the result cannot be drawn: parameter 1: its coverage at level 0.5 is NaN"},

		{"SBCRanks ok", func() *Plot { return SBCRanks(handSBC()) }, ""},
		{"SBCRanks nil", func() *Plot { return SBCRanks(nil) }, "viz: SBCRanks: no result"},
		{"SBCRanks no parameters", func() *Plot { return SBCRanks(&diag.SBCResult{Samples: 9}) },
			"viz: SBCRanks: the result cannot be drawn: it holds no parameters"},
		{"SBCRanks no ranks", func() *Plot { return SBCRanks(sbcWith(func(r *diag.SBCResult) { r.Ranks = [][]int{{}, {}} })) },
			"viz: SBCRanks: the result cannot be drawn: parameter 1 holds no ranks"},
		{"SBCRanks ragged", func() *Plot { return SBCRanks(sbcWith(func(r *diag.SBCResult) { r.Ranks[1] = r.Ranks[1][:5] })) },
			"viz: SBCRanks: the result cannot be drawn: parameter 2 holds 5 ranks, parameter 1 holds 40"},
		{"SBCRanks rank out of range", func() *Plot { return SBCRanks(sbcWith(func(r *diag.SBCResult) { r.Ranks[0][3] = 10 })) },
			"viz: SBCRanks: the result cannot be drawn: parameter 1 has rank 10, expected one in [0, 9]"},
		{"SBCRanks no samples", func() *Plot { return SBCRanks(sbcWith(func(r *diag.SBCResult) { r.Samples = 0 })) },
			"viz: SBCRanks: the result cannot be drawn: it holds Samples = 0 posterior draws per pair, expected at least 1"},
		{"SBCRanks no p-values", func() *Plot { return SBCRanks(sbcWith(func(r *diag.SBCResult) { r.PValues = nil })) },
			"viz: SBCRanks: the result cannot be drawn: it holds 0 p-values for 2 parameters"},

		{"SBCECDF ok", func() *Plot { return SBCECDF(ecdf) }, ""},
		{"SBCECDF nil", func() *Plot { return SBCECDF(nil) }, "viz: SBCECDF: no result"},
		{"SBCECDF no parameters", func() *Plot { return SBCECDF(ecdfWith(func(r *diag.ECDFResult) { r.Diff = nil })) },
			"viz: SBCECDF: the result cannot be drawn: it holds no parameters"},
		{"SBCECDF no points", func() *Plot {
			return SBCECDF(ecdfWith(func(r *diag.ECDFResult) { r.Z, r.Lower, r.Upper, r.Diff = nil, nil, nil, [][]float64{nil} }))
		}, "viz: SBCECDF: the result cannot be drawn: it holds no evaluation points"},
		{"SBCECDF short diff", func() *Plot { return SBCECDF(ecdfWith(func(r *diag.ECDFResult) { r.Diff[1] = r.Diff[1][:2] })) },
			"viz: SBCECDF: the result cannot be drawn: parameter 2 holds 2 ECDF differences for 9 points"},
		{"SBCECDF short band", func() *Plot { return SBCECDF(ecdfWith(func(r *diag.ECDFResult) { r.Upper = r.Upper[:1] })) },
			"viz: SBCECDF: the result cannot be drawn: its band holds 9 lower and 1 upper bounds for 9 points"},
		{"SBCECDF NaN diff", func() *Plot { return SBCECDF(ecdfWith(func(r *diag.ECDFResult) { r.Diff[0][4] = math.NaN() })) },
			"viz: SBCECDF: the result cannot be drawn: parameter 1 has ECDF difference NaN at z = 0.5"},

		{"Recovery ok", func() *Plot { return Recovery(rec()) }, ""},
		{"Recovery nil", func() *Plot { return Recovery(nil) }, "viz: Recovery: no result"},
		{"Recovery no parameters", func() *Plot { return Recovery(&diag.RecoveryResult{}) },
			"viz: Recovery: the result cannot be drawn: it holds no parameters"},
		{"Recovery no pairs", func() *Plot {
			return Recovery(recWith(func(r *diag.RecoveryResult) { r.ZScore, r.Contraction = [][]float64{{}}, [][]float64{{}} }))
		}, "viz: Recovery: the result cannot be drawn: parameter 1 holds no test pairs"},
		{"Recovery no contraction", func() *Plot { return Recovery(recWith(func(r *diag.RecoveryResult) { r.Contraction = nil })) },
			"viz: Recovery: the result cannot be drawn: it holds contractions of 0 parameters and z-scores of 1"},
		{"Recovery short contraction", func() *Plot {
			return Recovery(recWith(func(r *diag.RecoveryResult) { r.Contraction[0] = r.Contraction[0][:1] }))
		}, "viz: Recovery: the result cannot be drawn: parameter 1 holds 1 contractions for 3 z-scores"},
		{"Recovery NaN", func() *Plot { return Recovery(recWith(func(r *diag.RecoveryResult) { r.ZScore[0][1] = math.NaN() })) },
			"viz: Recovery: the result cannot be drawn: parameter 1, pair 2: z-score NaN, contraction 0.7; expected finite values"},

		{"TARP ok", func() *Plot { return TARP(tarp()) }, ""},
		{"TARP nil", func() *Plot { return TARP(nil) }, "viz: TARP: no result"},
		{"TARP no levels", func() *Plot { return TARP(&diag.TARPResult{}) },
			"viz: TARP: the result cannot be drawn: it holds no credibility levels"},
		{"TARP short ECP", func() *Plot { return TARP(tarpWith(func(r *diag.TARPResult) { r.ECP = r.ECP[:2] })) },
			"viz: TARP: the result cannot be drawn: it holds 2 coverage values for 5 levels"},
		{"TARP NaN ECP", func() *Plot { return TARP(tarpWith(func(r *diag.TARPResult) { r.ECP[2] = math.NaN() })) },
			"viz: TARP: the result cannot be drawn: its coverage at level 0.5 is NaN, expected a fraction in [0, 1]"},
		{"TARP NaN level", func() *Plot { return TARP(tarpWith(func(r *diag.TARPResult) { r.Alpha[2] = math.NaN() })) },
			"viz: TARP: the result cannot be drawn: its level 3 is NaN, expected one in [0, 1]"},
	})

	// Report replaces the plots it cannot draw by a line saying why.
	rep := &diag.Report{
		SBC:  sbcWith(func(r *diag.SBCResult) { r.Ranks = nil }),
		TARP: tarpWith(func(r *diag.TARPResult) { r.ECP[2] = math.NaN() }),
	}
	noPanic(t, "Report", func() {
		figs := Report(rep).Figures
		want := map[string]string{
			"TARP":      "TARP: cannot draw the plot: viz: TARP: the result cannot be drawn: its coverage at level 0.5 is NaN",
			"SBC ranks": "SBC ranks: cannot draw the plot: viz: SBCRanks: the result cannot be drawn: it holds no parameters",
		}
		for _, f := range figs {
			for k, w := range want {
				if strings.HasPrefix(f.Title, k+":") {
					if !strings.HasPrefix(f.Title, w) || f.PNG != nil {
						t.Errorf("Report figure %q (PNG %d bytes), want the line %q", f.Title, len(f.PNG), w)
					}
					delete(want, k)
				}
			}
		}
		for k, w := range want {
			t.Errorf("Report: no figure %q, want the line %q", k, w)
		}
	})
}

// renderCase is a figure built from a result, and the start of the error its rendering must
// give ("" for a figure that renders).
type renderCase struct {
	name string
	plot func() *Plot
	want string
}

// checkRendering renders each case's figure as PNG: it must not panic, must fail with the
// case's error (or render when there is none), and a figure that fails draws no legend.
func checkRendering(t *testing.T, cases []renderCase) {
	t.Helper()
	for _, c := range cases {
		noPanic(t, c.name, func() {
			p := c.plot()
			_, err := p.PNG()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s: %v", c.name, err)
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("%s: PNG error %v, want one starting %q", c.name, err, c.want)
			case c.want != "" && len(p.Legend()) != 0:
				t.Errorf("%s: legend %q of a figure that draws nothing", c.name, p.Legend())
			}
		})
	}
}
