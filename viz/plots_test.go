package viz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/diag"
)

// fakeSBC builds ranks in {0, …, m}: uniform for the first parameter, piled up in the middle
// (an over-dispersed posterior) for the second.
func fakeSBC(n, m int) *diag.SBCResult {
	rng := rand.New(rand.NewPCG(5, 5))
	r := &diag.SBCResult{Samples: m, Ranks: make([][]int, 2), Bins: 10, PValues: []float64{0.5, 1e-9}, ChiSq: []float64{9, 300}}
	for d := range 2 {
		r.Ranks[d] = make([]int, n)
		for i := range n {
			u := rng.Float64()
			if d == 1 {
				u = 0.5 + (u-0.5)*0.6
			}
			r.Ranks[d][i] = int(u * float64(m+1))
		}
	}
	return r
}

func TestSBCRanks(t *testing.T) {
	checkPlot(t, "sbc_ranks", SBCRanks(fakeSBC(2000, 99)), "99% band of uniform ranks", "expected count")
}

func TestLoss(t *testing.T) {
	l := NewLoss()
	var updates []string
	var updateFlags []bool
	runenv.SetDisplay(func(o runenv.Output) {
		if _, ok := o.Data["image/png"].([]byte); !ok {
			t.Error("live update without a PNG")
		}
		updates = append(updates, o.DisplayID)
		updateFlags = append(updateFlags, o.Update)
	})
	defer runenv.SetDisplay(nil)
	for e := range 60 {
		train := 3*math.Exp(-float64(e)/12) + 1
		val := train + 0.05*float64(e)/10 + 0.1
		l.Add(train, val)
	}
	l.Finish()
	if len(updates) < 2 || updates[0] != l.DisplayID() || updates[len(updates)-1] != l.DisplayID() {
		t.Errorf("updates %v, want at least the first and the final one with id %q", updates, l.DisplayID())
	}
	// the first output shows the plot, every later one replaces it in place
	for i, u := range updateFlags {
		if u != (i > 0) {
			t.Errorf("output %d has Update %v", i, u)
		}
	}
	if l.Epochs() != 60 {
		t.Errorf("Epochs() = %d, want 60", l.Epochs())
	}
	p := l.Plot()
	best, at := minIndex(l.val)
	checkPlot(t, "loss", p, "training", "validation", "best: "+trimBest(best)+" (epoch "+itoa(at+1)+")")
}

func trimBest(v float64) string { return strings.TrimSpace(fmtG4(v)) }

type gauss2 struct{ mu, sd [2]float64 }

func (g gauss2) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		for d := range 2 {
			z := (theta.At(i, d) - g.mu[d]) / g.sd[d]
			out[i] -= 0.5 * z * z
		}
		// A second, smaller mode makes the contours non-trivial.
		z0, z1 := (theta.At(i, 0)+1.5)/0.4, (theta.At(i, 1)-1.5)/0.4
		out[i] = math.Log(math.Exp(out[i]) + 0.6*math.Exp(-0.5*(z0*z0+z1*z1)))
	}
	return out
}

func TestDensity2D(t *testing.T) {
	f := gauss2{mu: [2]float64{0.5, -0.5}, sd: [2]float64{0.8, 0.5}}
	p, err := Density2D(f, DensityConfig{Lower: []float64{-3, -3}, Upper: []float64{3, 3}, Truth: []float64{0.4, -0.3}})
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "density2d", p, "HPD 68%, 95%", "true parameters")
	if _, err := Density2D(f, DensityConfig{Lower: []float64{0}, Upper: []float64{1}}); err == nil {
		t.Error("a 1-D box: no error")
	}
}

func TestBudgetSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var series []SweepSeries
	for s, name := range []string{"method A", "method B", "method C"} {
		ser := SweepSeries{Label: name}
		for e := 10; e <= 17; e++ {
			ser.Budgets = append(ser.Budgets, math.Exp2(float64(e)))
			runs := make([]float64, 5)
			for r := range runs {
				runs[r] = (float64(s)-1)*0.05 - 0.1*math.Exp(-float64(e-10)/3)*float64(2-s) + 0.01*rng.NormFloat64()
			}
			ser.Values = append(ser.Values, runs)
		}
		series = append(series, ser)
	}
	p, err := BudgetSweep(SweepConfig{YLabel: "coverage AUC", Reference: []float64{0}, RefLabel: "calibrated"}, series...)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "budget_sweep", p, "method A", "method B", "method C", "calibrated")
	if got := budgetLabel(1024); got != "2^10" {
		t.Errorf("budgetLabel(1024) = %q, want 2^10", got)
	}
	if got := budgetLabel(10000); got != "10k" {
		t.Errorf("budgetLabel(10000) = %q, want 10k", got)
	}
	if _, err := BudgetSweep(SweepConfig{}, SweepSeries{Budgets: []float64{0}, Values: [][]float64{{1}}}); err == nil {
		t.Error("zero budget: no error")
	}
}

// TestBudgetSweepXLabel checks the x-axis label: the budget by default, XLabel when set.
func TestBudgetSweepXLabel(t *testing.T) {
	ser := SweepSeries{Label: "NPE", Budgets: []float64{0.01, 0.1, 1}, Values: [][]float64{{0.1, 0.2}, {0.15}, {0.3, 0.2}}}
	for _, c := range []struct{ xlabel, want string }{{"", "simulation budget"}, {"weight λ", "weight λ"}} {
		p := MustBudgetSweep(SweepConfig{XLabel: c.xlabel, YLabel: "AUC"}, ser)
		svg, err := p.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), c.want) {
			t.Errorf("XLabel %q: the SVG has no text %q", c.xlabel, c.want)
		}
	}
}

// TestMustBudgetSweepPanics checks that bad input panics with BudgetSweep's error.
func TestMustBudgetSweepPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "budgets must be positive") {
			t.Errorf("MustBudgetSweep of a zero budget: recovered %v, want BudgetSweep's error", r)
		}
	}()
	MustBudgetSweep(SweepConfig{}, SweepSeries{Budgets: []float64{0}, Values: [][]float64{{1}}})
}

func TestGrid(t *testing.T) {
	var plots []*Plot
	for i, pw := range []float64{1, 1.5, 0.7, 2} {
		r, err := diag.CoverageFromRanks(ranks(uint64(i+10), 1000, pw), nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Label = "ranks"
		p := Coverage(r)
		p.Title = []string{"panel 1", "panel 2", "panel 3", "panel 4"}[i]
		plots = append(plots, p)
	}
	g := Grid(2, plots...)
	if g.Width != 2*plots[0].Width || g.Height != 2*plots[0].Height {
		t.Errorf("grid is %v×%v, want twice a panel %v×%v", g.Width, g.Height, plots[0].Width, plots[0].Height)
	}
	// The legend is the union of the panels' legends in order; panel 2 (over-confident) is the
	// first with ringed levels.
	checkPlot(t, "grid", g, "simultaneous 95% band, all 19 levels (n = 1000)", "pointwise 95% band, each level", "calibrated",
		"ranks (AUC "+fmtSigned(mustAUC(plots[0]))+")", "ranks (AUC "+fmtSigned(mustAUC(plots[1]))+")", flaggedName,
		"ranks (AUC "+fmtSigned(mustAUC(plots[2]))+")", "ranks (AUC "+fmtSigned(mustAUC(plots[3]))+")")
}

// mustAUC reads the AUC back from a coverage plot's last legend entry that has one.
func mustAUC(p *Plot) float64 {
	e := p.legend[len(p.legend)-1]
	for i := len(p.legend) - 1; i >= 0 && !strings.Contains(e, "AUC "); i-- {
		e = p.legend[i]
	}
	var v float64
	if _, err := fmtSscanf(e[strings.Index(e, "AUC ")+4:len(e)-1], &v); err != nil {
		panic(err)
	}
	return v
}

func TestSaveAndErrors(t *testing.T) {
	dir := t.TempDir()
	r, _ := diag.CoverageFromRanks(ranks(1, 100, 1), nil)
	p := Coverage(r)
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		path := filepath.Join(dir, "c"+ext)
		if err := p.Save(path); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v, size %d", path, err, st.Size())
		}
	}
	if err := p.Save(filepath.Join(dir, "c.bmp")); err == nil {
		t.Error("unknown extension: no error")
	}
	var shown []runenv.Output
	runenv.SetDisplay(func(o runenv.Output) { shown = append(shown, o) })
	defer runenv.SetDisplay(nil)
	p.Show()
	if len(shown) != 1 || shown[0].Data["image/png"] == nil || shown[0].Data["image/svg+xml"] == nil || shown[0].DisplayID != "" {
		t.Errorf("Show displayed %+v, want one plot", shown)
	}
	p.Width = 6 * vg.Centimeter
	if data, err := p.PNG(); err != nil || len(data) == 0 {
		t.Errorf("resized PNG: %v", err)
	}
}

func TestMarginalCoveragePlot(t *testing.T) {
	theta, x := normalPairs(3, 500, 2)
	r, err := diag.MarginalCoverage(normalModel{width: 0.8}, theta, x, diag.RankConfig{Samples: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	auc := func(d int) string {
		var s float64
		for k, l := range r.Levels {
			s += (r.Coverage[d][k] - l) / float64(len(r.Levels))
		}
		return fmtSigned(s)
	}
	// The band holds over both parameters and all levels, and its legend says so.
	want := []string{"simultaneous 95% band, all 2 parameters × 19 levels (n = 500)", "pointwise 95% band, each level", "calibrated", "θ₁ (AUC " + auc(0) + ")", "θ₂ (AUC " + auc(1) + ")"}
	for _, c := range r.Coverage {
		if lay := coverageLayers([]*diag.CoverageResult{{N: r.N, Levels: r.Levels, Coverage: c}}); len(lay.flagged[0]) > 0 {
			want = append(want, flaggedName)
			break
		}
	}
	checkPlot(t, "marginal", MarginalCoverage(r), want...)
}
