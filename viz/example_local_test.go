package viz_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/viz"
)

// gauss1 is N(mu, sd²) in one dimension, an sbi.Posterior.
type gauss1 struct{ mu, sd float64 }

func (g gauss1) Dim() int { return 1 }
func (g gauss1) Sample(rng *rand.Rand, n int) *mat.Dense {
	m := mat.NewDense(n, 1, nil)
	for i := range n {
		m.Set(i, 0, g.mu+g.sd*rng.NormFloat64())
	}
	return m
}
func (g gauss1) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		z := (theta.At(i, 0) - g.mu) / g.sd
		out[i] = -z*z/2 - math.Log(g.sd*math.Sqrt(2*math.Pi))
	}
	return out
}

// narrow is an estimator of θ ~ N(0, 1), x = θ + N(0, 1) whose posterior is 0.6 times as wide
// as the true N(x/2, ½).
type narrow struct{}

func (narrow) Posterior(x []float64) sbi.Posterior { return gauss1{x[0] / 2, 0.6 * math.Sqrt(0.5)} }
func (n narrow) LogProbPairs(theta, x *mat.Dense) []float64 {
	r, _ := theta.Dims()
	out := make([]float64, r)
	for i := range r {
		out[i] = n.Posterior(x.RawRowView(i)).LogProb(theta.Slice(i, i+1, 0, 1).(*mat.Dense))[0]
	}
	return out
}

func pairs(n int) (theta, x *mat.Dense) {
	rng := rand.New(rand.NewPCG(2, 3))
	theta, x = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		t := rng.NormFloat64()
		theta.Set(i, 0, t)
		x.Set(i, 0, t+rng.NormFloat64())
	}
	return theta, x
}

// The L-C2ST plot of an over-confident estimator at one observation: the PP-plot against the
// null band, and the statistic against the null statistics.
func ExampleLC2ST() {
	theta, x := pairs(300)
	res, err := diag.LocalC2ST(narrow{}, theta, x, []float64{0.3}, diag.LC2STConfig{
		Seed: 1, Null: 19, Evals: 500, Hidden: []int{16}, MaxEpochs: 40, LearningRate: 0.03, BatchSize: 600})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := viz.LC2ST(res)
	fmt.Println(res.Reject(), p.Legend()[:3])
	// Output: true [null band (95%, 19 classifiers) indistinguishable (all ½) classifier at x_o]
}

// SBC of the over-confident estimator drawn as ECDF differences with the simultaneous band,
// and its recovery view.
func ExampleSBCECDF() {
	theta, x := pairs(400)
	sbc, err := diag.SBC(narrow{}, theta, x, diag.RankConfig{Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := diag.SBCECDF(sbc, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(viz.SBCECDF(e).Legend())
	rec, err := diag.Recovery(narrow{}, theta, x, diag.RecoveryConfig{Samples: 200, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(viz.Recovery(rec).Legend())
	// Output:
	// [simultaneous 95% band (400 pairs) ECDF − uniform outside the band]
	// [test pairs (400) z = ±2]
}

// Two posteriors' marginals overlaid, and the conditional pair plot of a correlated density.
func ExampleMarginals() {
	rng := rand.New(rand.NewPCG(4, 4))
	a, b := mat.NewDense(2000, 2, nil), mat.NewDense(2000, 2, nil)
	for i := range 2000 {
		a.Set(i, 0, rng.NormFloat64())
		a.Set(i, 1, rng.NormFloat64())
		b.Set(i, 0, 0.5*rng.NormFloat64())
		b.Set(i, 1, 1+rng.NormFloat64())
	}
	fmt.Println(viz.Marginals(viz.MarginalsConfig{Labels: []string{"NPE", "NRE"}}, a, b).Legend())
	p, err := viz.ConditionalPairs(gauss1{0, 1}, viz.ConditionalConfig{At: []float64{0.2}, Lower: []float64{-3}, Upper: []float64{3}})
	fmt.Println(err, p.Legend())
	// Output:
	// [NPE NRE]
	// <nil> [conditional density, others fixed the point held fixed]
}

// The diagnostics at an observation: misspecification, a posterior predictive check, and the
// health of MCMC chains.
func ExampleMisspecification() {
	_, x := pairs(1000)
	m, err := diag.Misspecification(nil, x, []float64{7}, diag.MisspecConfig{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Reject(), viz.Misspecification(m).Legend())
	pp, err := diag.PredictiveFromSimulations(x, []float64{0.5}, diag.PredictiveConfig{Label: "prior predictive"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pp.Reject(), viz.PredictiveCheck(pp).Legend())
	chains := make([][][]float64, 4)
	rng := rand.New(rand.NewPCG(5, 5))
	for c := range chains {
		for range 100 {
			chains[c] = append(chains[c], []float64{rng.NormFloat64()})
		}
	}
	h, err := diag.MCMCHealth("user", chains)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(viz.MCMC(h).Legend())
	// Output:
	// true [500 held-out simulations observation, p = 0.002 ≤ α = 0.05]
	// false [prior predictive simulations (1000) observation]
	// [4 of 4 chains flat: chains mixed]
}
