package viz_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/viz"
)

// A coverage plot of HPD ranks; in a notebook the plot shows inline as the last expression
// of a cell, here it is rendered to PNG bytes.
func ExampleCoverage() {
	rng := rand.New(rand.NewPCG(1, 1))
	ranks := make([]float64, 1000)
	for i := range ranks {
		ranks[i] = rng.Float64()
	}
	cov, err := diag.CoverageFromRanks(ranks, diag.Levels(19))
	if err != nil {
		fmt.Println(err)
		return
	}
	cov.Label = "uniform ranks"
	p := viz.Coverage(cov)
	data, err := p.PNG()
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := png.Decode(bytes.NewReader(data))
	fmt.Println(err, img.Bounds().Dx() > 500, p.Legend())
	// Output: <nil> true [simultaneous 95% band, all 19 levels (n = 1000) pointwise 95% band, each level calibrated uniform ranks (AUC +0.013)]
}

// A corner plot of 10,000 draws with the true parameters marked.
func ExampleCornerWith() {
	rng := rand.New(rand.NewPCG(2, 2))
	s := mat.NewDense(10000, 2, nil)
	for i := range 10000 {
		a := rng.NormFloat64()
		s.Set(i, 0, a)
		s.Set(i, 1, 0.8*a+0.6*rng.NormFloat64())
	}
	p := viz.CornerWith(viz.CornerConfig{Names: []string{"α", "β"}, Truth: []float64{0.2, 0.1}}, s)
	svg, err := p.SVG()
	fmt.Println(err, bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")))
	// Output: <nil> true
}

// A live training curve: show l once in a cell, then Add after every epoch; the notebook
// redraws it in place.
func ExampleLoss() {
	// In a notebook, the worker's display sink shows the plot at the first Add and replaces
	// it in place afterwards; here a sink records what it would receive.
	var outputs []runenv.Output
	runenv.SetDisplay(func(o runenv.Output) { outputs = append(outputs, o) })
	defer runenv.SetDisplay(nil)

	l := viz.NewLoss()
	for e := range 20 {
		train := 2 * math.Exp(-float64(e)/5)
		l.Add(train, train+0.1)
	}
	l.Finish()
	first, last := outputs[0], outputs[len(outputs)-1]
	fmt.Println(l.Epochs(), l.Plot().Legend()[2])
	fmt.Println("shown:", !first.Update, "replaced in place:", last.Update && last.DisplayID == first.DisplayID)
	// Output:
	// 20 best: 0.1447 (epoch 20)
	// shown: true replaced in place: true
}

// A sweep over a regularization weight λ rather than the simulation budget; MustBudgetSweep
// returns the plot alone, so in a notebook it can end a cell.
func ExampleMustBudgetSweep() {
	lambdas := []float64{0.1, 1, 10}
	p := viz.MustBudgetSweep(viz.SweepConfig{XLabel: "weight λ", YLabel: "coverage AUC", Reference: []float64{0}},
		viz.SweepSeries{Label: "calibrated NPE", Budgets: lambdas, Values: [][]float64{{-0.08, -0.06}, {-0.02, 0.01}, {0.03, 0.05}}})
	fmt.Println(p.Legend())
	// Output: [calibrated NPE reference]
}
