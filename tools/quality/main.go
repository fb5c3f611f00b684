// Command quality measures the estimators of package sbi against the sbibm reference
// posteriors: for each task and method it simulates a training set, trains, draws 10,000
// posterior samples for each observation and scores them with diag.C2ST (sbibm's z-scored
// classifier two-sample test), diag.MMD (sbibm's MMD², unbiased, Gaussian kernel with the
// reference's median distance, not z-scored) and diag.MedianDistance (sbibm's MEDDIST: the
// median distance of simulations from the posterior draws to the observation), the columns
// of the sbibm paper's figures, then prints a table of the means with the C2ST bar it must
// meet. -mmd=false skips MMD, which costs about 3·10⁸ kernel evaluations per observation.
//
//	GOSBI_DATA=/path/to/sbibm go run ./tools/quality -rows npe:two_moons,nre:two_moons,nle:two_moons
//
// It is heavy (minutes per row on two cores), so it is a command and not part of the tests.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/flow"
	"github.com/gosbi/gosbi/sbi/task"
	"gonum.org/v1/gonum/mat"
)

// bars are the C2ST bars at 10,000 simulations (the sbibm paper's numbers in comments).
var bars = map[string]float64{
	"npe:two_moons":       0.65, // sbibm NPE 0.61
	"npe:slcp":            0.92, // 0.90
	"npe:gaussian_linear": 0.62, // 0.55
	"npe:sir":             0.70, // 0.68
	"nre:two_moons":       0.80, // sbibm NRE 0.76
	"nle:two_moons":       0.75, // sbibm NLE 0.71
	"nle:slcp":            0.82, // 0.77
	"nle:gaussian_linear": 0.62, // 0.55
}

func main() {
	rows := flag.String("rows", "npe:two_moons,npe:gaussian_linear,npe:slcp,npe:sir,nre:two_moons", "comma-separated method:task rows")
	sims := flag.Int("sims", 10000, "training simulations")
	obs := flag.Int("obs", 10, "observations 1…obs")
	samples := flag.Int("samples", 10000, "posterior samples per observation")
	seed := flag.Uint64("seed", 1, "seed of simulation and training")
	flow := flag.String("flow", "nsf", "NPE flow (sbibm's NPE uses nsf)")
	withMMD := flag.Bool("mmd", true, "compute sbibm's MMD (slow: 10,000 × 10,000 kernel evaluations, three times)")
	var sampler sbi.SamplerConfig
	flag.IntVar(&sampler.Chains, "chains", 0, "NRE/NLE posteriors: MCMC chains (0: the default, 100)")
	flag.IntVar(&sampler.BurnIn, "burnin", 0, "NRE/NLE posteriors: MCMC sweeps of burn-in (0: the default, 200)")
	flag.IntVar(&sampler.Thin, "thin", 0, "NRE/NLE posteriors: keep every thin-th MCMC sweep (0: the default, 5)")
	method := flag.String("sampler", "", `NRE/NLE posteriors: "auto" (the default: grid for ≤ 3 bounded parameters, else mcmc), "mcmc", "grid" or "importance"`)
	flag.Parse()
	sampler.Method = sbi.SamplerMethod(*method)
	runenv.SetProgress(func(ev runenv.ProgressEvent) {
		if strings.HasPrefix(ev.Label, "train") && ev.Done%20 == 0 && ev.Message != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", ev.Label, ev.Message)
		}
	})
	fmt.Printf("| row | sims | C2ST per observation | mean C2ST | bar | mean MMD | mean MEDDIST | train | epochs |\n|---|---|---|---|---|---|---|---|---|\n")
	failed := false
	for _, row := range strings.Split(*rows, ",") {
		ok, err := runRow(row, *sims, *obs, *samples, *seed, *flow, *withMMD, sampler)
		if err != nil {
			fmt.Fprintf(os.Stderr, "quality: %s: %v\n", row, err)
			os.Exit(2)
		}
		failed = failed || !ok
	}
	if failed {
		os.Exit(1)
	}
}

func runRow(row string, sims, obs, samples int, seed uint64, flowKind string, withMMD bool, sampler sbi.SamplerConfig) (bool, error) {
	method, name, found := strings.Cut(row, ":")
	if !found {
		return false, fmt.Errorf("row %q, expected method:task such as npe:two_moons", row)
	}
	t, err := task.Get(name)
	if err != nil {
		return false, err
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	sim, err := task.Simulate(rng, t, t.Prior().Sample(rng, sims))
	if err != nil {
		return false, err
	}
	var est sbi.Amortized
	var res *sbi.TrainResult
	start := time.Now()
	cfg := sbi.TrainConfig{Seed: seed}
	switch method {
	case "npe":
		e := sbi.NewNPE(t.Prior(), sbi.NPEConfig{Flow: flow.Kind(flowKind)})
		res, err = e.Train(sim.Theta, sim.X, cfg)
		est = e
	case "nre":
		e := sbi.NewNRE(t.Prior(), sbi.NREConfig{Sampler: sampler})
		res, err = e.Train(sim.Theta, sim.X, cfg)
		est = e
	case "nle":
		e := sbi.NewNLE(t.Prior(), sbi.NLEConfig{Sampler: sampler}) // sbi's (and sbibm's) MAF
		res, err = e.Train(sim.Theta, sim.X, cfg)
		est = e
	default:
		return false, fmt.Errorf("method %q, expected npe, nre or nle", method)
	}
	if err != nil {
		return false, err
	}
	trainTime := time.Since(start)
	var scores []string
	var sum, sumMMD, sumMed float64
	label := row
	for k := 1; k <= obs; k++ {
		xo, err := t.Observation(k)
		if err != nil {
			return false, err
		}
		ref, err := t.ReferencePosterior(k)
		if err != nil {
			return false, err
		}
		sampleStart := time.Now()
		draws, err := sbi.SampleMany(est, rand.New(rand.NewPCG(seed, uint64(100+k))), matRow(xo), samples)
		if err != nil {
			return false, err
		}
		if rp, ok := est.Posterior(xo).(*sbi.RatioPosterior); ok {
			label = fmt.Sprintf("%s (%s sampler)", row, rp.Method())
		}
		sampleTime := time.Since(sampleStart)
		r, err := diag.C2STWith(ref, draws[0], diag.C2STConfig{Seed: 1})
		if err != nil {
			return false, err
		}
		scores = append(scores, fmt.Sprintf("%.3f", r.Accuracy))
		sum += r.Accuracy
		mmd := math.NaN()
		if withMMD {
			if mmd, err = diag.MMD(ref, draws[0]); err != nil {
				return false, err
			}
		}
		sumMMD += mmd
		// MEDDIST: one simulation per posterior draw, failed simulations dropped (sbibm drops
		// them too).
		pred, err := task.Simulate(rand.New(rand.NewPCG(seed, uint64(200+k))), t, draws[0])
		if err != nil {
			return false, err
		}
		med, err := diag.MedianDistance(pred.X, xo)
		if err != nil {
			return false, err
		}
		sumMed += med
		fmt.Fprintf(os.Stderr, "%s obs %d: C2ST %.3f, MMD %.4f, MEDDIST %.4g (sampling %s)\n", row, k, r.Accuracy, mmd, med, sampleTime.Round(time.Second))
	}
	mean := sum / float64(obs)
	mmdCell := "–"
	if withMMD {
		mmdCell = fmt.Sprintf("%.4f", sumMMD/float64(obs))
	}
	bar, hasBar := bars[row]
	barText := "–"
	ok := true
	if hasBar {
		barText = fmt.Sprintf("≤ %.2f", bar)
		ok = mean <= bar
	}
	fmt.Printf("| %s | %d | %s | **%.3f** | %s | %s | %.4g | %s | %d (best %d) |\n", label, sims, strings.Join(scores, " "), mean, barText,
		mmdCell, sumMed/float64(obs), trainTime.Round(time.Second), res.Epochs, res.BestEpoch)
	return ok, nil
}

// matRow returns x as a 1-row matrix.
func matRow(x []float64) *mat.Dense { return mat.NewDense(1, len(x), append([]float64(nil), x...)) }
