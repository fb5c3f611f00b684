package viz

import (
	"html"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/diag"
)

// svgTexts is the text a plot draws, one string per text element of its SVG.
func svgTexts(t *testing.T, p *Plot) []string {
	t.Helper()
	b, err := p.SVG()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

var (
	shownP     = regexp.MustCompile(`p = ([0-9][0-9.e+-]*[0-9]|[0-9]|NaN)`)
	shownAlpha = regexp.MustCompile(`α = ([0-9][0-9.e+-]*[0-9]|[0-9])`)
)

// checkPShown checks that the p-values drawn in texts (each the nearest of truth) compare with
// the true level, and with every level drawn, as the true values do, and that at least one is
// drawn.
func checkPShown(t *testing.T, name string, texts []string, truth []float64, level float64) {
	t.Helper()
	all := strings.Join(texts, "\n")
	levels := []float64{level}
	for _, m := range shownAlpha.FindAllStringSubmatch(all, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		levels = append(levels, v)
	}
	ps := shownP.FindAllStringSubmatch(all, -1)
	if len(ps) == 0 {
		t.Errorf("%s: no p-value drawn:\n%s", name, all)
	}
	for _, m := range ps {
		sp, _ := strconv.ParseFloat(m[1], 64)
		tp := truth[0]
		for _, v := range truth {
			if math.Abs(v-sp) < math.Abs(tp-sp) {
				tp = v
			}
		}
		for _, sl := range levels {
			if (sp <= sl) != (tp <= level) || (sp == sl) != (tp == level) {
				t.Errorf("%s: p = %v against level %v drawn as %s against %v:\n%s", name, tp, level, m[1], sl, all)
			}
		}
	}
}

// TestPlotsShowPValueOnItsSide: the misspecification, L-C2ST and predictive-check plots draw
// each p-value on its side of the level the verdict compares it with, for p just above and
// just below it, and the misspecification plot says inconclusive where diag's verdict does.
// Before the fix p = 0.05004 was drawn as "p = 0.05" beside "consistent" or "no evidence", the
// predictive panels drew p = 0.01004 (not flagged) and 0.00999 (flagged) both as "p = 0.01",
// and the misspecification plot of 9 calibration simulations said "consistent".
func TestPlotsShowPValueOnItsSide(t *testing.T) {
	null := []float64{0.1, 0.2, 0.3}
	for _, p := range []float64{0.05004, 0.0499, 0.050004, 0.049996, 0.05} {
		mis := &diag.MisspecResult{PValue: p, Alpha: 0.05, Calibration: 19999, Reference: 500, Null: null, Statistic: 0.4, Space: "data"}
		texts := svgTexts(t, Misspecification(mis))
		checkPShown(t, "misspecification", texts, []float64{p}, 0.05)
		if atypical := strings.Contains(strings.Join(texts, "\n"), "atypical"); atypical != (p <= 0.05) {
			t.Errorf("misspecification at p = %v: title says atypical %v", p, atypical)
		}

		lc := &diag.LC2STResult{Statistic: "MSE", Value: 0.3, Null: make([]float64, 19999), PValue: p, Alpha: 0.05, N: 1000, Evals: 1000,
			Grid: []float64{0, 0.5, 1}, CDF: []float64{0, 0.5, 1}, NullLower: []float64{0, 0.4, 1}, NullUpper: []float64{0, 0.6, 1}, ObservationPValue: 0.5}
		texts = svgTexts(t, LC2ST(lc))
		checkPShown(t, "L-C2ST", texts, []float64{p}, 0.05)
		if rejected := strings.Contains(strings.Join(texts, "\n"), "rejected"); rejected != (p <= 0.05) {
			t.Errorf("L-C2ST at p = %v: title says rejected %v", p, rejected)
		}
	}

	few := &diag.MisspecResult{PValue: 0.1, Alpha: 0.05, Calibration: 9, Reference: 500, Null: null, Statistic: 0.4, Space: "data"}
	if texts := strings.Join(svgTexts(t, Misspecification(few)), "\n"); !strings.Contains(texts, "inconclusive") {
		t.Errorf("misspecification with 9 calibration simulations at α = 0.05 (diag: %q) drawn as:\n%s", few.Verdict(), texts)
	}

	rng := rand.New(rand.NewPCG(1, 1))
	sims := mat.NewDense(2000, 3, nil)
	for i := range 2000 {
		for j := range 3 {
			sims.Set(i, j, rng.NormFloat64())
		}
	}
	ps := []float64{0.00999, 0.01004, 0.5}
	r := &diag.PredictiveResult{Label: "posterior predictive", Names: []string{"a", "b", "c"}, Observation: []float64{1, 2, 3},
		Sims: sims, Quantile: []float64{0.99, 0.01, 0.5}, PValues: ps, MahalanobisP: 0.3, MMDP: 0.4, Alpha: 0.05}
	checkPShown(t, "predictive check", svgTexts(t, PredictiveCheck(r)), ps, 0.05/5)
}
