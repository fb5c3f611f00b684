// The jobs of the nre-bnre study (spec.json): a method × budget sweep of NRE and BNRE.
//
// A "train" job simulates `budget` pairs of the task (the same pairs for both methods: the
// simulation seed depends on the budget only), trains NRE, or BNRE with the balancing penalty
// of weight `lambda`, and measures the classifier on test pairs drawn with the study's fixed
// test seed: the balancing statistic B̂ = mean σ(log r̂) on joint pairs + mean σ(log r̂) on
// marginal pairs (1 for a balanced classifier), with its standard error, and the mean
// unnormalised log posterior density log p(θ) + log r̂(θ, x) of the true parameters. The
// "summary" job collects |1 − B̂| per method and budget.
//
// gosbi study run examples/studies/nre-bnre/spec.json --dir runs/nre-bnre
package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

func main() {
	if err := study.RunCurrent(map[string]study.Func{"train": train, "summary": summary}); err != nil {
		panic(err)
	}
}

func train(j *study.Job) error {
	t, err := task.Get(j.String("task"))
	if err != nil {
		return err
	}
	n := j.Int("budget")
	rng := rand.New(rand.NewPCG(uint64(n), 1)) // the same simulations for NRE and BNRE
	theta := t.Prior().Sample(rng, n)
	x := t.Simulate(rng, theta)
	cfg := sbi.TrainConfig{Epochs: j.Int("epochs"), BatchSize: 64, Seed: j.Seed}
	switch j.String("method") {
	case "NRE":
	case "BNRE":
		cfg.Regularizer = calib.NewBalanceRegularizer(j.Float("lambda"))
	default:
		return fmt.Errorf("method = %q, expected NRE or BNRE", j.String("method"))
	}
	e := sbi.NewNRE(t.Prior(), sbi.NREConfig{Hidden: []int{j.Int("hidden"), j.Int("hidden")}})
	res, err := e.Train(theta, x, cfg)
	if err != nil {
		return err
	}
	j.Set("val_loss", res.ValLoss[len(res.ValLoss)-1])

	testRNG := rand.New(rand.NewPCG(uint64(j.Int("testseed")), 2))
	m := j.Int("test")
	testTheta := t.Prior().Sample(testRNG, m)
	testX := t.Simulate(testRNG, testTheta)
	_, d := testTheta.Dims()
	rolled := mat.NewDense(m, d, nil) // θ of the next pair: a draw from p(θ)p(x)
	for i := 0; i < m; i++ {
		rolled.SetRow(i, testTheta.RawRowView((i+1)%m))
	}
	joint, marginal := e.LogRatio(testTheta, testX), e.LogRatio(rolled, testX)
	bj, vj := meanVar(joint)
	bm, vm := meanVar(marginal)
	j.Set("balance", bj+bm)
	j.Set("balance_se", math.Sqrt((vj+vm)/float64(m)))
	lp := e.LogProbPairs(testTheta, testX)
	mean := 0.0
	for _, v := range lp {
		mean += v / float64(m)
	}
	j.Set("logp", mean)
	j.Logf("%s, budget %d: B̂ = %.4f, E[log p̂] = %.3f", j.String("method"), n, bj+bm, mean)
	return e.SaveFile(j.Path("nre.model"))
}

// meanVar returns the mean and the variance of σ(v).
func meanVar(v []float64) (mean, variance float64) {
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = 1 / (1 + math.Exp(-x))
		mean += s[i] / float64(len(v))
	}
	for _, x := range s {
		variance += (x - mean) * (x - mean) / float64(len(v)-1)
	}
	return mean, variance
}

func summary(j *study.Job) error {
	rs, err := j.Inputs("train")
	if err != nil {
		return err
	}
	for _, r := range rs {
		b, err := r.Metric("balance")
		if err != nil {
			return err
		}
		j.Set("imbalance_"+r.Params["method"]+"_"+r.Params["budget"], math.Abs(1-b))
	}
	return nil
}
