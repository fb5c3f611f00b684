package diag_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
)

// firstWords is the verdict up to its first colon.
func firstWords(v string) string {
	if i := strings.Index(v, ":"); i > 0 {
		return v[:i]
	}
	return v
}

// L-C2ST of an estimator whose posterior is half as wide as the true one, at one observation,
// trained on 300 calibration pairs with a small classifier (the defaults, sbi's, train 101
// classifiers of two hidden layers on thousands of pairs).
func ExampleLocalC2ST() {
	theta, x := jointSample(300)
	res, err := diag.LocalC2ST(shrinkModel{width: 0.5}, theta, x, []float64{0.5}, diag.LC2STConfig{
		Seed: 1, Null: 19, Evals: 500, Hidden: []int{16}, MaxEpochs: 40, LearningRate: 0.03, BatchSize: 600})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(firstWords(res.Verdict()), res.PValue)
	// Output: rejected 0.05
}

// The misspecification check of an observation against 2000 simulations of the same model:
// one it could produce, and one 6 standard deviations away.
func ExampleMisspecification() {
	_, x := jointSample(2000)
	for _, xo := range []float64{0.8, 8.5} {
		res, err := diag.Misspecification(nil, x, []float64{xo}, diag.MisspecConfig{Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("x_o = %.1f: %s (p = %.3f)\n", xo, firstWords(res.Verdict()), res.PValue)
	}
	// Output:
	// x_o = 0.8: consistent with the simulations (p = 0.574)
	// x_o = 8.5: atypical of the simulations (p = 0.001)
}

// simulator is x = θ + N(0, 1), a compiled sbi.Simulator.
type simulator struct{}

func (simulator) DataDim() int { return 1 }

func (simulator) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		x.Set(i, 0, theta.At(i, 0)+rng.NormFloat64())
	}
}

// A posterior predictive check at an observation, with the exact posterior, and a prior
// predictive check of an observation that the prior cannot explain.
func ExamplePredictiveCheck() {
	xo := []float64{1.2}
	post := shrinkModel{width: 1}.Posterior(xo)
	res, err := diag.PredictiveCheck(post, simulator{}, xo, diag.PredictiveConfig{Seed: 1, Label: "posterior predictive"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s; quantile %.2f\n", firstWords(res.Verdict()), res.Quantile[0])
	var prior sbi.Posterior = normal1{0, 1}
	res, err = diag.PredictiveCheck(prior, simulator{}, []float64{9}, diag.PredictiveConfig{Seed: 1, Label: "prior predictive"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(firstWords(res.Verdict()))
	// Output:
	// consistent with the posterior predictive simulations; quantile 0.67
	// atypical of the prior predictive simulations at family-wise level 0.05 (per-test level 0.0167)
}

// R̂ and the effective sample sizes of four chains: mixing chains, then chains stuck apart.
func ExampleSplitRhat() {
	rng := rand.New(rand.NewPCG(1, 1))
	chains := func(shift float64) [][]float64 {
		out := make([][]float64, 4)
		for c := range out {
			for range 1000 {
				out[c] = append(out[c], shift*float64(c)+rng.NormFloat64())
			}
		}
		return out
	}
	for _, shift := range []float64{0, 3} {
		ch := chains(shift)
		r, _ := diag.SplitRhat(ch)
		bulk, _ := diag.ESSBulk(ch)
		fmt.Printf("shift %v: R̂ %.2f, bulk ESS above 1000: %v\n", shift, r, bulk > 1000)
	}
	// Output:
	// shift 0: R̂ 1.00, bulk ESS above 1000: true
	// shift 3: R̂ 2.69, bulk ESS above 1000: false
}

// SBC ranks of an over-confident posterior seen through the ECDF difference and its
// simultaneous band.
func ExampleSBCECDF() {
	theta, x := jointSample(500)
	sbc, err := diag.SBC(shrinkModel{width: 0.6}, theta, x, diag.RankConfig{Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := diag.SBCECDF(sbc, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Verdict()[:strings.Index(e.Verdict(), ";")])
	// Output: not uniform: θ1 (over-confident: ranks piled at both ends
}

// Posterior z-scores and contraction of the exact posterior: z SD about 1, contraction 1/2.
func ExampleRecovery() {
	theta, x := jointSample(500)
	r, err := diag.Recovery(shrinkModel{width: 1}, theta, x, diag.RecoveryConfig{Samples: 500, Seed: 1, PriorVar: []float64{1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, zSD, contraction := r.Summary()
	fmt.Printf("z SD %.1f, contraction %.2f\n", zSD[0], contraction[0])
	// Output: z SD 1.0, contraction 0.50
}

// sbibm's MMD between two samples of one law and of two laws, and the median distance of
// predictive simulations from an observation.
func ExampleMMD() {
	rng := rand.New(rand.NewPCG(1, 1))
	sample := func(mu float64) *mat.Dense {
		m := mat.NewDense(1000, 2, nil)
		for i := range 1000 {
			m.Set(i, 0, mu+rng.NormFloat64())
			m.Set(i, 1, rng.NormFloat64())
		}
		return m
	}
	ref := sample(0)
	same, _ := diag.MMD(ref, sample(0))
	shifted, _ := diag.MMD(ref, sample(1))
	fmt.Printf("same law %.3f, shifted by 1 SD %.3f\n", same, shifted)
	med, _ := diag.MedianDistance(sample(0), []float64{0, 0})
	fmt.Printf("median distance from the centre %.2f\n", med)
	// Output:
	// same law 0.001, shifted by 1 SD 0.119
	// median distance from the centre 1.17
}
