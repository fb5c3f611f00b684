package viz_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/viz"
)

// The pair plot of posterior draws (sbi's pairplot): histograms on the diagonal and smoothed
// 2-D densities with their 68% and 95% regions below it; two sets are told apart by colour.
func ExampleCorner() {
	rng := rand.New(rand.NewPCG(5, 5))
	a, b := mat.NewDense(5000, 3, nil), mat.NewDense(5000, 3, nil)
	for i := range 5000 {
		for j := range 3 {
			a.Set(i, j, rng.NormFloat64())
			b.Set(i, j, 0.5+0.7*rng.NormFloat64())
		}
	}
	p := viz.Corner(a, b)
	svg, err := p.SVG()
	fmt.Println(err, bytes.Contains(svg, []byte("<svg")))
	fmt.Println(p)
	// Output:
	// <nil> true
	// plot 387×387 pt [samples 1, samples 2]
}

// SBC ranks drawn as histograms with the band of uniform ranks (sbi's sbc_rank_plot); the
// panel of an over-confident estimator shows the ∪ shape of ranks piled at both ends.
func ExampleSBCRanks() {
	theta, x := pairs(500)
	sbc, err := diag.SBC(narrow{}, theta, x, diag.RankConfig{Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := viz.SBCRanks(sbc)
	fmt.Println(p)
	fmt.Println("χ² test rejects uniform ranks:", sbc.PValues[0] < 0.01)
	// Output:
	// plot 170×142 pt [99% band of uniform ranks, expected count]
	// χ² test rejects uniform ranks: true
}

// TARP's expected coverage against the credibility level (sbi's plot_tarp), saved to a file
// whose extension chooses the format.
func ExampleTARP() {
	theta, x := pairs(500)
	res, err := diag.TARP(narrow{}, theta, x, diag.RankConfig{Samples: 200, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "viz-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	p := viz.TARP(res)
	err = p.Save(filepath.Join(dir, "tarp.png"))
	fmt.Println(err, p.Legend())
	// Output: <nil> [calibrated ATC -4.550]
}

// Several plots in one figure: Row lays them side by side, Grid in rows of a given width.
func ExampleGrid() {
	theta, x := pairs(300)
	cfg := diag.RankConfig{Samples: 99, Seed: 1}
	cov, err := diag.RankCoverage(narrow{}, theta, x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	marg, err := diag.MarginalCoverage(narrow{}, theta, x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	tarp, err := diag.TARP(narrow{}, theta, x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := viz.Grid(2, viz.Coverage(cov), viz.MarginalCoverage(marg), viz.TARP(tarp))
	_, err = g.PNG()
	fmt.Println(err, g)
	r := viz.Row(viz.Coverage(cov), viz.TARP(tarp))
	fmt.Println(r)
	// Output:
	// <nil> plot 1058×567 pt [simultaneous 95% band, all 19 levels (n = 300), pointwise 95% band, each level, calibrated, rank estimate (AUC -0.143), outside the simultaneous band, θ₁ (AUC -0.135), ATC -6.307]
	// plot 917×283 pt [simultaneous 95% band, all 19 levels (n = 300), pointwise 95% band, each level, calibrated, rank estimate (AUC -0.143), outside the simultaneous band, ATC -6.307]
}
