package diag

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/progresstest"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
)

func TestLevels(t *testing.T) {
	l := Levels(19)
	if len(l) != 19 || math.Abs(l[0]-0.05) > 1e-12 || math.Abs(l[18]-0.95) > 1e-12 || math.Abs(l[9]-0.5) > 1e-12 {
		t.Fatalf("Levels(19) = %v, want 0.05, 0.10, …, 0.95", l)
	}
	if got := Levels(1); len(got) != 1 || got[0] != 0.5 {
		t.Fatalf("Levels(1) = %v, want [0.5]", got)
	}
}

// TestCoverageConvention pins the sign convention: a true parameter always at the posterior
// mode (α = 1) is covered at every level (conservative, AUC > 0); one always in the far tail
// (α = 0) is never covered (over-confident, AUC < 0).
func TestCoverageConvention(t *testing.T) {
	levels := []float64{0.25, 0.5, 0.75}
	cases := []struct {
		name                 string
		rank                 float64
		cov                  float64
		auc, calib, conserve float64
	}{
		{"at the mode", 1, 1, 0.5, 0.5, 0},
		{"in the tail", 0, 0, -0.5, 0.5, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := CoverageFromRanks([]float64{c.rank, c.rank}, levels)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range r.Coverage {
				if v != c.cov {
					t.Errorf("coverage at %v = %v, want %v", levels[k], v, c.cov)
				}
			}
			if math.Abs(r.AUC-c.auc) > 1e-12 || math.Abs(r.CalibrationError-c.calib) > 1e-12 || math.Abs(r.ConservativenessError-c.conserve) > 1e-12 {
				t.Errorf("AUC, calibration, conservativeness = %v, %v, %v; want %v, %v, %v",
					r.AUC, r.CalibrationError, r.ConservativenessError, c.auc, c.calib, c.conserve)
			}
		})
	}
	// Ranks 0.1, 0.6, 0.9: covered at L iff α ≥ 1 − L. At L = 0.5 only 0.6 and 0.9 qualify.
	r, err := CoverageFromRanks([]float64{0.1, 0.6, 0.9}, []float64{0.2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Coverage[0] != 1.0/3 || r.Coverage[1] != 2.0/3 {
		t.Errorf("coverage = %v, want [1/3 2/3]", r.Coverage)
	}
	wantAUC := ((1.0/3 - 0.2) + (2.0/3 - 0.5)) / 2
	if math.Abs(r.AUC-wantAUC) > 1e-12 {
		t.Errorf("AUC = %v, want %v", r.AUC, wantAUC)
	}
}

func TestCoverageFromRanksErrors(t *testing.T) {
	for _, c := range []struct {
		name          string
		ranks, levels []float64
	}{
		{"empty", nil, nil},
		{"rank above 1", []float64{1.5}, nil},
		{"NaN rank", []float64{math.NaN()}, nil},
		{"level 1", []float64{0.5}, []float64{0.5, 1}},
		{"decreasing", []float64{0.5}, []float64{0.6, 0.5}},
	} {
		if _, err := CoverageFromRanks(c.ranks, c.levels); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestBinomialBand(t *testing.T) {
	// Binomial(100, 0.5): P(X ≤ 39) = 0.0176, P(X ≤ 40) = 0.0284, P(X ≤ 59) = 0.9716,
	// P(X ≤ 60) = 0.9824, so the central 95% interval is [40, 60].
	lo, hi := BinomialBand(100, []float64{0.5}, 0.95)
	if lo[0] != 0.40 || hi[0] != 0.60 {
		t.Fatalf("band = [%v, %v], want [0.40, 0.60]", lo[0], hi[0])
	}
}

// strictBand is the per-level band with a Bonferroni correction over the levels, so that an
// exactly calibrated estimator leaves it at some level with probability at most 0.001.
func strictBand(n int, levels []float64) (lo, hi []float64) {
	return BinomialBand(n, levels, 1-0.001/float64(len(levels)))
}

func assertInBand(t *testing.T, what string, r *CoverageResult) {
	t.Helper()
	lo, hi := strictBand(r.N, r.Levels)
	for k, c := range r.Coverage {
		if c < lo[k] || c > hi[k] {
			t.Errorf("%s: coverage %.4f at level %.2f outside the band [%.4f, %.4f]", what, c, r.Levels[k], lo[k], hi[k])
		}
	}
}

func TestRankCoverageExactPosterior(t *testing.T) {
	m := gaussModel{dim: 3, tau: 2, s: 0.5, width: 1}
	theta, x := m.simulate(1, 2000)
	r, err := RankCoverage(m, theta, x, RankConfig{Samples: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	assertInBand(t, "exact posterior", r)
	// With n = 2000 the AUC of an exact posterior has a standard deviation below 0.01
	// (each coverage value has sd ≤ 0.5/√2000 ≈ 0.011 and the mean of 19 correlated values
	// is no wider); 0.03 is three of them.
	if math.Abs(r.AUC) > 0.03 {
		t.Errorf("AUC of the exact posterior = %.4f, want ≈ 0", r.AUC)
	}
}

func TestCoverageSign(t *testing.T) {
	cases := []struct {
		name    string
		width   float64
		wantPos bool
	}{
		{"too narrow is over-confident", 0.6, false},
		{"too wide is conservative", 1.6, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := gaussModel{dim: 2, tau: 2, s: 0.5, width: c.width}
			theta, x := m.simulate(2, 1000)
			r, err := RankCoverage(m, theta, x, RankConfig{Samples: 200, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if (r.AUC > 0) != c.wantPos || math.Abs(r.AUC) < 0.05 {
				t.Errorf("AUC = %.4f, want %s and clearly away from 0", r.AUC, map[bool]string{true: "> 0", false: "< 0"}[c.wantPos])
			}
			if c.wantPos && r.ConservativenessError != 0 {
				t.Errorf("conservative estimator has conservativeness error %v, want 0", r.ConservativenessError)
			}
			if !c.wantPos && r.ConservativenessError < 0.05 {
				t.Errorf("over-confident estimator has conservativeness error %v, want > 0.05", r.ConservativenessError)
			}
		})
	}
}

// TestGridAndRankAgree runs both estimators on the same pairs of a 2-D box model, exact and
// too narrow. The exact posterior must fall in the band for both; for the narrow one the two
// estimates must differ by less than the half-width of the band (the rank estimator's Monte
// Carlo noise and the grid's discretisation are both far smaller).
func TestGridAndRankAgree(t *testing.T) {
	for _, width := range []float64{1, 0.7} {
		m := boxModel{dim: 2, lo: -3, hi: 3, s: 0.6, width: width}
		theta, x := m.simulate(4, 1000)
		grid, err := GridCoverage(m, theta, x, GridConfig{}.BoxOf(m))
		if err != nil {
			t.Fatal(err)
		}
		rank, err := RankCoverage(m, theta, x, RankConfig{Samples: 400, Seed: 8})
		if err != nil {
			t.Fatal(err)
		}
		if width == 1 {
			assertInBand(t, "grid, exact", grid)
			assertInBand(t, "rank, exact", rank)
			continue
		}
		lo, hi := strictBand(grid.N, grid.Levels)
		for k := range grid.Levels {
			if d := math.Abs(grid.Coverage[k] - rank.Coverage[k]); d > (hi[k]-lo[k])/2 {
				t.Errorf("level %.2f: grid %.4f and rank %.4f differ by %.4f, more than %.4f",
					grid.Levels[k], grid.Coverage[k], rank.Coverage[k], d, (hi[k]-lo[k])/2)
			}
		}
		if grid.AUC >= 0 || rank.AUC >= 0 {
			t.Errorf("narrow posterior: AUC grid %.4f rank %.4f, want both < 0", grid.AUC, rank.AUC)
		}
	}
}

func TestGridCoverage1D(t *testing.T) {
	m := boxModel{dim: 1, lo: 0, hi: 1, s: 0.1, width: 1}
	theta, x := m.simulate(6, 2000)
	r, err := GridCoverage(m, theta, x, GridConfig{Lower: []float64{0}, Upper: []float64{1}, Points: 200})
	if err != nil {
		t.Fatal(err)
	}
	assertInBand(t, "1-D grid", r)
}

func TestGridCoverageErrors(t *testing.T) {
	m := gaussModel{dim: 4, tau: 1, s: 1, width: 1}
	theta, x := m.simulate(1, 3)
	if _, err := GridCoverage(m, theta, x, GridConfig{}); err == nil {
		t.Error("4 parameters: no error")
	}
	m.dim = 2
	theta, x = m.simulate(1, 3)
	for _, o := range []GridConfig{
		{},
		{Lower: []float64{0, 0}, Upper: []float64{1}},
		{Lower: []float64{0, 1}, Upper: []float64{1, 1}},
		{Lower: []float64{0, 0}, Upper: []float64{1, 1}, Points: 1},
	} {
		if _, err := GridCoverage(m, theta, x, o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
}

func TestWorkersDoNotChangeResult(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := m.simulate(9, 300)
	a, err := RankCoverage(m, theta, x, RankConfig{Samples: 50, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := RankCoverage(m, theta, x, RankConfig{Samples: 50, Seed: 1, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Ranks {
		if a.Ranks[i] != b.Ranks[i] {
			t.Fatalf("rank %d: %v with 1 worker, %v with 4", i, a.Ranks[i], b.Ranks[i])
		}
	}
}

func TestCancellationAndProgress(t *testing.T) {
	m := gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}
	theta, x := m.simulate(9, 200)

	rec := progresstest.Record(t)
	if _, err := RankCoverage(m, theta, x, RankConfig{Samples: 20}); err != nil {
		t.Fatal(err)
	}
	if last := rec.Last(); !last.Finished || last.Done != 200 || last.Total != 200 {
		t.Errorf("last progress event %+v, want finished with 200 of 200", last)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	_, err := RankCoverage(m, theta, x, RankConfig{Samples: 20})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("rank estimator with a cancelled context: err = %v, want context.Canceled", err)
	}
	_, err = GridCoverage(m, theta, x, GridConfig{Lower: []float64{-3, -3}, Upper: []float64{3, 3}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("grid estimator with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestMIMEBundle(t *testing.T) {
	r, err := CoverageFromRanks([]float64{0.1, 0.5, 0.9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := r.MIMEBundle()
	for _, k := range []string{"text/html", "text/plain"} {
		if s, ok := b[k].(string); !ok || len(s) < 50 {
			t.Errorf("MIMEBundle[%q] = %v, want a summary", k, b[k])
		}
	}
}

// TestRegionCoverage: for the exact 1-D Gaussian posterior the score |θ − μ|/σ of the truth
// is half-normal, so thresholds z_{(1+L)/2} give regions of exact coverage L.
func TestRegionCoverage(t *testing.T) {
	m := gaussModel{dim: 1, tau: 2, s: 0.5, width: 1}
	theta, x := m.simulate(31, 3000)
	scores := make([]float64, 3000)
	for i := range scores {
		p := m.post(x.RawRowView(i))
		scores[i] = math.Abs(theta.At(i, 0)-p.mu[0]) / p.sd
	}
	levels := Levels(19)
	thr := make([]float64, len(levels))
	for k, l := range levels {
		thr[k] = stdNormal.Quantile((1 + l) / 2)
	}
	r, err := RegionCoverage(scores, thr, levels)
	if err != nil {
		t.Fatal(err)
	}
	assertInBand(t, "conformal-style regions", r)
	if _, err := RegionCoverage(scores, thr[:3], levels); err == nil {
		t.Error("too few thresholds: no error")
	}
}

// nanModel wraps a model and returns NaN log densities, as a broken estimator would.
type nanModel struct{ gaussModel }

type nanPost struct{ gaussPost }

func (m nanModel) Posterior(x []float64) sbi.Posterior { return nanPost{m.post(x)} }

func (nanPost) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

func TestNaNDensityIsAnError(t *testing.T) {
	m := nanModel{gaussModel{dim: 2, tau: 1, s: 0.5, width: 1}}
	theta, x := m.simulate(1, 50)
	if _, err := RankCoverage(m, theta, x, RankConfig{Samples: 10}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("rank estimator: err = %v, want one naming NaN", err)
	}
	if _, err := GridCoverage(m, theta, x, GridConfig{Lower: []float64{-3, -3}, Upper: []float64{3, 3}, Points: 10}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("grid estimator: err = %v, want one naming NaN", err)
	}
}

// Every coverage estimator names itself with its CoverageMethod constant, the value a figure
// legend and the text summary print.
func TestCoverageMethod(t *testing.T) {
	m := gaussModel{dim: 1, tau: 1, s: 1, width: 1}
	theta, x := m.simulate(3, 40)
	levels := Levels(3)
	run := map[CoverageMethod]func() (*CoverageResult, error){
		MethodGrid: func() (*CoverageResult, error) {
			return GridCoverage(m, theta, x, GridConfig{Lower: []float64{-5}, Upper: []float64{5}, Points: 50, Levels: levels})
		},
		MethodRank: func() (*CoverageResult, error) {
			return RankCoverage(m, theta, x, RankConfig{Levels: levels, Samples: 19, Seed: 1})
		},
		MethodRanks: func() (*CoverageResult, error) { return CoverageFromRanks([]float64{0.1, 0.5, 0.9}, levels) },
		MethodRegions: func() (*CoverageResult, error) {
			return RegionCoverage([]float64{0.1, 0.5, 0.9}, []float64{0.2, 0.6, 1}, levels)
		},
	}
	for want, f := range run {
		r, err := f()
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if r.Method != want {
			t.Errorf("Method %q, want %q", r.Method, want)
		}
		if s := r.String(); !strings.Contains(s, string(want)) {
			t.Errorf("%s: summary %q does not name the method", want, s)
		}
	}
	rep, err := NewReport(m, theta, x, ReportConfig{Levels: levels, Samples: 19, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Coverage.Method != MethodRank {
		t.Errorf("NewReport coverage Method %q, want %q", rep.Coverage.Method, MethodRank)
	}
}

// TestCoverageNamesConfidence: the verdict, the table and the HTML note name the bands'
// confidence as it was asked for, a 99.9% band not as "100%".
func TestCoverageNamesConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want string
	}{
		{0.95, "95%"},
		{0.9, "90%"},
		{0.995, "99.5%"},
		{0.999, "99.9%"},
		{0.9999, "99.99%"},
	} {
		const n = 20000
		levels := Levels(19)
		r := &CoverageResult{Levels: levels, N: n, Coverage: append([]float64(nil), levels...), Confidence: c.conf, SimConfidence: c.conf}
		r.Lower, r.Upper = BinomialBand(n, levels, c.conf)
		r.SimLower, r.SimUpper = SimultaneousBand(n, levels, c.conf)
		r.Coverage[9] = (r.Lower[9] + r.SimLower[9]) / 2 // outside the pointwise band only
		b := r.MIMEBundle()
		for _, s := range []struct{ where, text, want string }{
			{"verdict", r.Verdict(), "inside the simultaneous " + c.want + " band"},
			{"verdict", r.Verdict(), "below the pointwise " + c.want + " band"},
			{"table", r.String(), "pointwise " + c.want},
			{"table", r.String(), "simultaneous " + c.want},
			{"HTML", b["text/html"].(string), "above the pointwise " + c.want + " band"},
			{"HTML", b["text/html"].(string), "outside the simultaneous " + c.want + " band"},
		} {
			if !strings.Contains(s.text, s.want) {
				t.Errorf("confidence %v: %s %q, want it to name %q", c.conf, s.where, s.text, s.want)
			}
		}
	}
}
