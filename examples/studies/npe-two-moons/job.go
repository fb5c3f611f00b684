// The jobs of the npe-two-moons study (spec.json): a budget × seed sweep of NPE.
//
// A "train" job simulates `budget` pairs of the task with its seed, trains NPE on them and
// measures it on test pairs drawn with the study's fixed test seed (the same for every job):
// the mean log density of the true parameters (logp, with its standard error logp_se) and the HPD ranks of the test pairs
// (ranks and levels, for viz.StudyCoverage). The "summary" job averages logp over the seeds of
// each budget.
//
// gosbi study run examples/studies/npe-two-moons/spec.json --dir runs/npe-two-moons
package main

import (
	"math"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
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
	rng := rand.New(rand.NewPCG(j.Seed, 1))
	theta := t.Prior().Sample(rng, j.Int("budget"))
	x := t.Simulate(rng, theta)
	e := sbi.NewNPE(t.Prior(), sbi.NPEConfig{Transforms: j.Int("transforms"), Hidden: j.Int("hidden")})
	res, err := e.Train(theta, x, sbi.TrainConfig{Epochs: j.Int("epochs"), BatchSize: 50, Seed: j.Seed})
	if err != nil {
		return err
	}
	j.Set("val_loss", res.ValLoss[len(res.ValLoss)-1])
	j.Set("epochs", float64(len(res.ValLoss)))

	testRNG := rand.New(rand.NewPCG(uint64(j.Int("testseed")), 2))
	testTheta := t.Prior().Sample(testRNG, j.Int("test"))
	testX := t.Simulate(testRNG, testTheta)
	lp := e.LogProbPairs(testTheta, testX)
	mean, variance := 0.0, 0.0
	for _, v := range lp {
		mean += v / float64(len(lp))
	}
	for _, v := range lp {
		variance += (v - mean) * (v - mean) / float64(len(lp)-1)
	}
	j.Set("logp", mean)
	j.Set("logp_se", math.Sqrt(variance/float64(len(lp))))
	cov, err := diag.RankCoverage(e, testTheta, testX, diag.RankConfig{Samples: j.Int("samples"), Seed: j.Seed, Workers: 1})
	if err != nil {
		return err
	}
	j.SetSeries("ranks", cov.Ranks)
	j.SetSeries("levels", cov.Levels)
	j.Set("dropped", float64(cov.Dropped))
	j.Logf("budget %d, seed %d: %d epochs, validation loss %.3f, E[log q(θ|x)] %.3f", j.Int("budget"), j.Int("seed"), len(res.ValLoss), res.ValLoss[len(res.ValLoss)-1], mean)
	return e.SaveFile(j.Path("npe.model"))
}

func summary(j *study.Job) error {
	rs, err := j.Inputs("train")
	if err != nil {
		return err
	}
	sums, counts := map[string]float64{}, map[string]int{}
	for _, r := range rs {
		v, err := r.Metric("logp")
		if err != nil {
			return err
		}
		sums[r.Params["budget"]] += v
		counts[r.Params["budget"]]++
	}
	for b, s := range sums {
		j.Set("logp_budget_"+b, s/float64(counts[b]))
	}
	return nil
}
