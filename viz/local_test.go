package viz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
)

// TestLC2STPlot checks what the L-C2ST plot draws against the result: the curve is the CDF of
// the predicted probabilities on the grid, the band the null quantiles, the histogram the null
// statistics and the vertical line the statistic at x_o.
func TestLC2STPlot(t *testing.T) {
	theta, x := normalPairs(3, 200, 1)
	r, err := diag.LocalC2ST(normalModel{width: 0.5}, theta, x, []float64{0.3},
		diag.LC2STConfig{Seed: 1, Null: 19, Evals: 300, Hidden: []int{8}, MaxEpochs: 30, LearningRate: 0.03, BatchSize: 400})
	if err != nil {
		t.Fatal(err)
	}
	lay := lc2stLayers(r)
	for k, p := range lay.pp {
		if p.X != r.Grid[k] || p.Y != r.CDF[k] {
			t.Fatalf("curve point %d = %v, want (%v, %v)", k, p, r.Grid[k], r.CDF[k])
		}
	}
	if want := bandPolygon(r.Grid, r.NullLower, r.NullUpper); !slices.Equal(lay.band, want) {
		t.Error("band is not the null quantiles")
	}
	if !slices.Equal(lay.null, r.Null) || lay.observed != r.Value {
		t.Error("histogram or observed line differ from the result")
	}
	// Counted the way the histogram bins them, all 19 null statistics are drawn.
	lo, hi := math.Min(minOf(r.Null), r.Value), math.Max(maxOf(r.Null), r.Value)
	var total float64
	for _, c := range binCounts(r.Null, 20, lo, hi) {
		total += c
	}
	if total != 19 {
		t.Errorf("histogram holds %v of 19 null statistics", total)
	}
	checkPlot(t, "lc2st", LC2ST(r), fmt.Sprintf("null band (95%%, 19 classifiers)"), "indistinguishable (all ½)", "classifier at x_o",
		"null statistics (19)", fmt.Sprintf("at x_o: %.3g, p = %.3g ≤ α = 0.05", r.Value, r.PValue))
	t.Logf("%s", r)
}

func TestMisspecificationPlot(t *testing.T) {
	_, x := normalPairs(4, 600, 2)
	r, err := diag.Misspecification(nil, x, []float64{5, -5}, diag.MisspecConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Reject() {
		t.Fatalf("an observation 3.5 SD out in both values: %s", r)
	}
	checkPlot(t, "misspecification", Misspecification(r), "300 held-out simulations", fmt.Sprintf("observation, p = %.3g ≤ α = 0.05", r.PValue))
}

// TestPredictiveCheckPlot: flagged data values come first in the panels, and the panel count is
// capped.
func TestPredictiveCheckPlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	sims := mat.NewDense(1000, 20, nil)
	for i := range 1000 {
		for j := range 20 {
			sims.Set(i, j, rng.NormFloat64())
		}
	}
	xo := make([]float64, 20)
	xo[7] = 6 // a glitch in x₈
	r, err := diag.PredictiveFromSimulations(sims, xo, diag.PredictiveConfig{Label: "posterior predictive"})
	if err != nil {
		t.Fatal(err)
	}
	panels := predictivePanels(r)
	if len(panels) != MaxPredictivePanels || panels[0] != 7 {
		t.Errorf("panels %v: want %d, x₈ first", panels, MaxPredictivePanels)
	}
	if !r.Reject() || !strings.Contains(r.Verdict(), "x₈ (above") {
		t.Errorf("verdict %q", r.Verdict())
	}
	checkPlot(t, "predictive", PredictiveCheck(r), "posterior predictive simulations (1000)", "observation", "16 of 20 data values (flagged first)")
}

// TestMCMCPlot: the rank counts drawn are each chain's draws ranked among all, summing to the
// draws per chain; chains in two modes give rank plots far from flat.
func TestMCMCPlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	chains := make([][][]float64, 4)
	for c := range chains {
		for range 200 {
			chains[c] = append(chains[c], []float64{float64(c%2)*5 + rng.NormFloat64(), rng.NormFloat64()})
		}
	}
	h, err := sbi.NewMCMCHealth("test", chains)
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		lay := mcmcLayers(h, d)
		for c, counts := range lay.ranks {
			var s float64
			for _, v := range counts {
				s += v
			}
			if s != 200 || !slices.Equal(lay.traces[c], h.Traces[d][c]) {
				t.Fatalf("θ%d chain %d: rank counts sum to %v, want 200", d+1, c, s)
			}
		}
		// In two modes each chain's ranks fill one half: the first chain (low mode) has no
		// draws ranked in the top half.
		var top float64
		for _, v := range lay.ranks[0][rankBins/2:] {
			top += v
		}
		if d == 0 && top > 5 {
			t.Errorf("low-mode chain has %v draws ranked in the upper half", top)
		}
	}
	checkPlot(t, "mcmc", MCMC(h), "4 of 4 chains", "flat: chains mixed")
}

// TestSBCECDFPlot: the drawn curve, band and rings are the result's.
func TestSBCECDFPlot(t *testing.T) {
	r := fakeSBC(500, 99)
	e, err := diag.SBCECDF(r, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		lay := ecdfLayers(e, d)
		if !slices.Equal(lay.band, bandPolygon(e.Z, e.Lower, e.Upper)) {
			t.Errorf("θ%d: band differs", d+1)
		}
		for j, p := range lay.diff {
			if p.X != e.Z[j] || p.Y != e.Diff[d][j] {
				t.Fatalf("θ%d point %d: %v", d+1, j, p)
			}
		}
		if len(lay.outside) != len(e.Outside()[d]) {
			t.Errorf("θ%d: %d rings, %d points outside", d+1, len(lay.outside), len(e.Outside()[d]))
		}
	}
	// fakeSBC: uniform ranks for θ₁, ranks piled in the middle for θ₂.
	if len(e.Outside()[0]) != 0 || len(e.Outside()[1]) == 0 || !strings.Contains(e.Verdict(), "θ2 (under-confident") {
		t.Errorf("verdict %q", e.Verdict())
	}
	checkPlot(t, "sbc_ecdf", SBCECDF(e), "simultaneous 95% band (500 pairs)", "ECDF − uniform", "outside the band")
}

// TestMarginalsPlot: each set's density histogram integrates to its share inside the range
// (all of it here), and the curves follow the sets' spread.
func TestMarginalsPlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a, b := mat.NewDense(4000, 2, nil), mat.NewDense(4000, 2, nil)
	for i := range 4000 {
		a.Set(i, 0, rng.NormFloat64())
		a.Set(i, 1, 2+0.5*rng.NormFloat64())
		b.Set(i, 0, 0.5+0.5*rng.NormFloat64())
		b.Set(i, 1, 2+rng.NormFloat64())
	}
	cols, _ := finiteSets("Marginals", []*mat.Dense{a, b})
	lo, hi := cornerRanges(cols, CornerConfig{})
	for d := range 2 {
		curves := marginalCurves(cols, d, 40, lo[d], hi[d])
		for s, pts := range curves {
			var mass, mean float64
			w := (hi[d] - lo[d]) / 40
			for k := range 40 {
				mass += pts[k].Y * w
				mean += pts[k].Y * w * (pts[k].X + w/2)
			}
			// The range is the 0.5–99.5% quantiles padded by 5% of their span: at least 99%
			// of each set lies inside.
			if mass < 0.99 || mass > 1+1e-12 {
				t.Errorf("θ%d set %d: histogram mass %v", d+1, s, mass)
			}
			want := []float64{0, 0.5, 2, 2}[2*d+s]
			if math.Abs(mean-want) > 0.05 {
				t.Errorf("θ%d set %d: drawn mean %.3f, want %.1f", d+1, s, mean, want)
			}
		}
	}
	checkPlot(t, "marginals", Marginals(MarginalsConfig{Labels: []string{"NPE", "reference"}, Truth: []float64{0, 2}}, a, b),
		"NPE", "reference", "true parameters")
}

// corrGauss is a 3-D Gaussian log density with correlation 0.8 between θ₁ and θ₂.
type corrGauss struct{}

func (corrGauss) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		a, b, c := theta.At(i, 0), theta.At(i, 1), theta.At(i, 2)
		out[i] = -(a*a-1.6*a*b+b*b)/(2*0.36) - c*c/2
	}
	return out
}

// TestConditionalPairsPlot: the slices drawn are the density over the pair with the third
// parameter fixed, scaled to their maximum; the diagonal is the conditional density, here
// N(0.8·θ₂, 0.36) for θ₁ given θ₂ = 1, normalized on the grid.
func TestConditionalPairsPlot(t *testing.T) {
	o := ConditionalConfig{At: []float64{0, 1, 0.5}, Lower: []float64{-3, -3, -3}, Upper: []float64{3, 3, 3}, Points: 60, Names: []string{"a", "b", "c"}}
	c, err := conditionalLayers(corrGauss{}, o)
	if err != nil {
		t.Fatal(err)
	}
	for k, x := range c.xs[0] {
		want := math.Exp(-(x-0.8)*(x-0.8)/(2*0.36)) / math.Sqrt(2*math.Pi*0.36)
		if math.Abs(c.line[0][k]-want) > 1e-3 {
			t.Fatalf("conditional density of a at %v: %v, want %v", x, c.line[0][k], want)
		}
	}
	g := c.slice[1][0] // (a, b) with c = 0.5: the density divided by its largest grid value
	lp := func(a, b float64) float64 { return -(a*a-1.6*a*b+b*b)/(2*0.36) - 0.125 }
	top := math.Inf(-1)
	for r := range 60 {
		for q := range 60 {
			top = math.Max(top, lp(g.X(q), g.Y(r)))
		}
	}
	for r := range 60 {
		for q := range 60 {
			if want := math.Exp(lp(g.X(q), g.Y(r)) - top); math.Abs(g.Z(q, r)-want) > 1e-12 {
				t.Fatalf("slice at (%v, %v): %v, want %v", g.X(q), g.Y(r), g.Z(q, r), want)
			}
		}
	}
	p, err := ConditionalPairs(corrGauss{}, o)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "conditional_pairs", p, "conditional density, others fixed", "the point held fixed")
	if _, err := ConditionalPairs(corrGauss{}, ConditionalConfig{At: []float64{0}}); err == nil {
		t.Error("no box: no error")
	}
}

// TestRecoveryPlot: one point per pair at (contraction, z).
func TestRecoveryPlot(t *testing.T) {
	theta, x := normalPairs(6, 300, 2)
	r, err := diag.Recovery(normalModel{width: 0.6}, theta, x, diag.RecoveryConfig{Samples: 200, Seed: 1, PriorVar: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		pts := recoveryPoints(r, d)
		if len(pts) != 300 || pts[17] != (plotter.XY{X: r.Contraction[d][17], Y: r.ZScore[d][17]}) {
			t.Errorf("θ%d: %d points, point 17 %v", d+1, len(pts), pts[17])
		}
	}
	_, zs, _ := r.Summary()
	if zs[0] < 1.4 { // posterior 0.6 times too narrow: z SD ≈ 1/0.6
		t.Errorf("z SD %.2f for an over-confident posterior", zs[0])
	}
	checkPlot(t, "recovery", Recovery(r), "test pairs (300)", "z = ±2")
}
