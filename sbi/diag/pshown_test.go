package diag

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// shownNum matches a number as a display writes it (without a sentence's full stop).
const shownNum = `([0-9][0-9.e+-]*[0-9]|[0-9]|NaN)`

// checkShownOrder checks that every p-value shown in text (matched by pRes, each true value the
// nearest of truth) and every level shown (matched by levelRes) compare as the true values do
// with level: never a p above the level shown at or below it, a p at or below it shown above it,
// or unequal values shown equal. At least one of each must be shown.
func checkShownOrder(t *testing.T, name, text string, truth []float64, level float64, pRes, levelRes []string) {
	t.Helper()
	all := func(res []string) []string {
		var out []string
		for _, re := range res {
			for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(text, -1) {
				out = append(out, m[1])
			}
		}
		return out
	}
	levels, ps := all(levelRes), all(pRes)
	if len(levels) == 0 || len(ps) == 0 {
		t.Errorf("%s: shows %d levels (%q) and %d p-values (%q), want both:\n%s", name, len(levels), levels, len(ps), ps, text)
		return
	}
	for _, ls := range levels {
		sl, err := strconv.ParseFloat(ls, 64)
		if err != nil {
			t.Fatalf("%s: level %q: %v", name, ls, err)
		}
		for _, s := range ps {
			sp, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: p-value %q: %v", name, s, err)
			}
			tp := nearest(truth, sp)
			if (sp <= sl) != (tp <= level) || (sp == sl) != (tp == level) {
				t.Errorf("%s: p = %v against level %v shown as %s against %s:\n%s", name, tp, level, s, ls, text)
			}
		}
	}
}

func nearest(v []float64, x float64) float64 {
	best := math.NaN()
	for _, y := range v {
		if math.IsNaN(x) && math.IsNaN(y) {
			return y
		}
		if math.IsNaN(best) || math.Abs(y-x) < math.Abs(best-x) {
			best = y
		}
	}
	return best
}

func bundleText(b map[string]any) string {
	return b["text/plain"].(string) + "\n" + b["text/html"].(string)
}

// nearLevels are p-values just above and just below the level 0.05, at the digits displays
// used to show (3 and 4 significant digits).
var nearLevels = []float64{0.05004, 0.0499, 0.050004, 0.049996, 0.05}

// TestDisplaysShowPValueOnItsSide: every display that shows a p-value beside its level or its
// verdict shows the two in the order they are in, with p just above and just below α. Before the
// fix the kernel tests showed p = 0.050004 as "0.05" beside "not rejected … at level 0.05", the
// misspecification and L-C2ST tables showed p = 0.05004 as "0.05" under a verdict "p = 0.05004
// > α = 0.05", and the predictive check showed p = 0.01004 (per-test level 0.01) as "0.01" and
// did not show the level it compares with.
func TestDisplaysShowPValueOnItsSide(t *testing.T) {
	for _, p := range nearLevels {
		kern := &KernelTestResult{Name: "KCCSD", PValue: p, Level: 0.05, Reject: p <= 0.05, Bootstrap: 19999, N: 100, Pairs: 4950}
		checkShownOrder(t, "kernel test", bundleText(kern.MIMEBundle()), []float64{p}, 0.05,
			[]string{`p = ` + shownNum, `p-value\s+` + shownNum, `<td>p-value</td><td>` + shownNum},
			[]string{`α = ` + shownNum, `level ` + shownNum})

		null := []float64{0.1, 0.2, 0.3}
		mis := &MisspecResult{PValue: p, Alpha: 0.05, Calibration: 19999, Reference: 500, Null: null, Statistic: 0.4, Space: "data"}
		checkShownOrder(t, "misspecification", bundleText(mis.MIMEBundle()), []float64{p}, 0.05,
			[]string{`p = ` + shownNum, `<th>p-value</th><td>` + shownNum},
			[]string{`α = ` + shownNum})

		lc := &LC2STResult{Statistic: "MSE", PValue: p, Alpha: 0.05, Null: make([]float64, 19999), N: 1000, Evals: 1000, ObservationPValue: 0.5}
		checkShownOrder(t, "L-C2ST", bundleText(lc.MIMEBundle()), []float64{p}, 0.05,
			[]string{`p = ` + shownNum, `<th>p-value</th><td>` + shownNum},
			[]string{`α = ` + shownNum})
	}
}

// TestPredictiveDisplayShowsPValueOnItsSide: the predictive check flags a data value at p ≤
// α/(D+2); its verdict, text and table show that level and each p-value on its side of it, for
// p just above and just below it, flagged or not, and for the joint tests; so does
// ShownPValues, which the plots write.
func TestPredictiveDisplayShowsPValueOnItsSide(t *testing.T) {
	sims := mat.NewDense(2000, 3, nil)
	for _, tc := range []struct {
		name        string
		ps          []float64
		mahal, mmdp float64
	}{
		{"one flagged just below, one not just above", []float64{0.00999, 0.01004, 0.5}, 0.3, 0.4},
		{"none flagged, one just above", []float64{0.010004, 0.2, 0.5}, 0.3, 0.4},
		{"joint flagged just below", []float64{0.3, 0.2, 0.5}, 0.009996, 0.01004},
		{"Mahalanobis not computed", []float64{0.0100004, 0.2, 0.5}, math.NaN(), 0.4},
	} {
		r := &PredictiveResult{Label: "posterior predictive", Names: []string{"a", "b", "c"}, Observation: []float64{1, 2, 3},
			Sims: sims, Quantile: []float64{0.99, 0.01, 0.5}, PValues: tc.ps, Mahalanobis: 2, MahalanobisP: tc.mahal, MMD: 0.1, MMDP: tc.mmdp, Alpha: 0.05}
		lvl := 0.05 / 5
		truth := append(append([]float64(nil), tc.ps...), tc.mahal, tc.mmdp)
		b := r.MIMEBundle()
		checkShownOrder(t, tc.name+" (verdict)", r.Verdict(), truth, lvl,
			[]string{`p = ` + shownNum}, []string{`per-test level ` + shownNum})
		checkShownOrder(t, tc.name+" (text)", b["text/plain"].(string), truth, lvl,
			[]string{`p = ` + shownNum, `quantile [0-9.]+  p ` + shownNum}, []string{`per-test level ` + shownNum})
		checkShownOrder(t, tc.name+" (HTML)", b["text/html"].(string), truth, lvl,
			[]string{`p = ` + shownNum, `</td><td>` + shownNum + `</td></tr>`, `\(p ` + shownNum + `\)`},
			[]string{`per-test level ` + shownNum, `p ≤ ` + shownNum})
		shown := r.ShownPValues()
		if len(shown) != len(tc.ps) {
			t.Fatalf("%s: ShownPValues = %q, want one per data value", tc.name, shown)
		}
		text := "p = " + strings.Join(shown, ", p = ") + "; per-test level " + strconv.FormatFloat(lvl, 'g', -1, 64)
		checkShownOrder(t, tc.name+" (ShownPValues)", text, tc.ps, lvl, []string{`p = ` + shownNum}, []string{`per-test level ` + shownNum})
	}
}

// TestSBCTableShowsFlagOnItsSide: the SBC table marks a χ² p-value below 0.01; a marked value
// is shown below 0.01 and an unmarked one above it (the values here are not 0.01).
func TestSBCTableShowsFlagOnItsSide(t *testing.T) {
	r := &SBCResult{Samples: 99, Ranks: [][]int{{1}, {2}, {3}}, Bins: 10, ChiSq: []float64{20, 21, 5},
		PValues: []float64{0.009999, 0.010004, 0.5}, KSPValues: []float64{0.1, 0.2, 0.3}}
	h := r.MIMEBundle()["text/html"].(string)
	marked := regexp.MustCompile(`<td style="color:#D55E00">`+shownNum+`</td>`).FindAllStringSubmatch(h, -1)
	plain := regexp.MustCompile(`<th>θ\d</th><td>[0-9.]+</td><td>`+shownNum+`</td>`).FindAllStringSubmatch(h, -1)
	if len(marked) != 1 || len(plain) != 2 {
		t.Fatalf("want 1 marked and 2 unmarked p-values:\n%s", h)
	}
	if v, _ := strconv.ParseFloat(marked[0][1], 64); !(v < 0.01) {
		t.Errorf("marked p-value 0.009999 shown as %s, not below 0.01", marked[0][1])
	}
	for _, m := range plain {
		if v, _ := strconv.ParseFloat(m[1], 64); !(v > 0.01) {
			t.Errorf("unmarked p-value shown as %s, not above 0.01:\n%s", m[1], h)
		}
	}
}
