// Command moonscov measures the expected coverage of the HPD regions of an NPE trained by
// certify.Certify on two_moons, on a large independent test set (claim (b) of notebooks/certified-posterior-evidence).
//
// It trains through certify.Certify with certify.NoRemedies() and a tiny final test set, so
// that the training set and the training seed are those of a Certify run with the same Seed and
// training budget (the notebook's run is -seed 1 -sims 8000), then measures the coverage of
// the trained estimator with diag.RankCoverage on -test fresh pairs from a stream no Certify
// run draws, and prints one line per level with the binomial standard error. The estimator is
// saved (-save) so that it can be measured again with other draws or pairs (-load).
//
//	nice -n 5 go run ./tools/moonscov -variant maf -seed 1 -save maf1.npe > maf1.txt
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/task"
)

func main() {
	variant := flag.String("variant", "maf", "estimator: maf (sbi's default NPE), nsf (sbibm's NPE)")
	patience := flag.Int("patience", 0, "early-stopping patience; 0 means the default (20)")
	batch := flag.Int("batch", 0, "training batch size; 0 means the default (200)")
	transforms := flag.Int("transforms", 0, "flow transforms; 0 means the default (5)")
	seed := flag.Uint64("seed", 1, "Certify's Seed: the training set and the training seed")
	sims := flag.Int("sims", 8000, "training simulations")
	test := flag.Int("test", 5000, "independent test pairs")
	draws := flag.Int("draws", 500, "posterior draws per test pair (HPD ranks)")
	testSeed := flag.Uint64("testseed", 0x5eed_7e57, "seed of the independent test set (no Certify stream)")
	skip := flag.Int("skip", 0, "measure only the test pairs from this index on (with -load, to add pairs)")
	save := flag.String("save", "", "save the trained NPE here")
	load := flag.String("load", "", "measure this saved NPE instead of training one")
	ranks := flag.String("ranks", "", "write the HPD ranks here, one per line")
	power := flag.String("power", "", "instead of measuring: read the HPD ranks of this file and estimate the probability that Certify's final test of -n pairs certifies the posterior they come from")
	n := flag.Int("n", 2000, "final test pairs for -power")
	flag.Parse()
	if *power != "" {
		if err := finalTestPower(*power, *n); err != nil {
			log.Fatal(err)
		}
		return
	}

	if *skip < 0 || *skip >= *test {
		log.Fatalf("-skip %d: expected 0 or more and less than -test (%d)", *skip, *test)
	}
	moons := task.MustGet("two_moons")
	levels := certify.DefaultLevels()
	var est *sbi.NPE
	t0 := time.Now()
	if *load != "" {
		e, err := sbi.LoadNPEFile(*load, moons.Prior())
		if err != nil {
			log.Fatal(err)
		}
		est = e
	} else {
		cfg := certify.Config{Simulations: *sims + 100, TestSimulations: 100, Samples: 100, SBCSamples: -1,
			Remedies: certify.NoRemedies(), Seed: *seed}
		cfg.Train.Patience, cfg.Train.BatchSize = *patience, *batch
		npe := sbi.NPEConfig{Transforms: *transforms}
		switch *variant {
		case "maf":
			npe.Flow = sbi.MAF
		case "nsf":
			npe.Flow = sbi.NSF
		default:
			log.Fatalf("unknown variant %q", *variant)
		}
		cfg.New = func() sbi.Estimator { return sbi.NewNPE(moons.Prior(), npe) }
		cert, err := certify.Certify(moons.Prior(), moons, nil, cfg)
		if err != nil {
			log.Fatal(err)
		}
		est = cert.Estimator.(*sbi.NPE)
		fmt.Printf("# trained in %.0f s: %s\n", time.Since(t0).Seconds(), cert.Steps[0].Note)
		if *save != "" {
			if err := est.SaveFile(*save); err != nil {
				log.Fatal(err)
			}
		}
	}

	rng := rand.New(rand.NewPCG(*testSeed, 7))
	theta := moons.Prior().Sample(rng, *test)
	s, err := sbi.SimulateBatch(rng, moons, theta)
	if err != nil {
		log.Fatal(err)
	}
	th, x := s.Theta, s.X
	if *skip > 0 {
		n, _ := th.Dims()
		th = mat.DenseCopyOf(th.Slice(*skip, n, 0, 2))
		x = mat.DenseCopyOf(x.Slice(*skip, n, 0, 2))
	}
	t1 := time.Now()
	cov, err := diag.RankCoverage(est, th, x, diag.RankConfig{Levels: levels, Samples: *draws, Seed: *testSeed + 1 + uint64(*skip)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("# variant %s patience %d batch %d transforms %d seed %d: %d test pairs (skip %d), %d draws, %.0f s\n", *variant, *patience, *batch, *transforms, *seed, cov.N, *skip, *draws, time.Since(t1).Seconds())
	fmt.Println("level coverage se deviation")
	for k, l := range cov.Levels {
		c := cov.Coverage[k]
		fmt.Printf("%.2f %.4f %.4f %+.4f\n", l, c, math.Sqrt(c*(1-c)/float64(cov.N)), c-l)
	}
	if *ranks != "" {
		var b strings.Builder
		for _, r := range cov.Ranks {
			fmt.Fprintf(&b, "%.6f\n", r)
		}
		if err := atomicfile.WriteFile(*ranks, []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// finalTestPower draws final test sets of n pairs from the HPD ranks in path (the bootstrap:
// the ranks stand for the posterior's distribution of ranks, dependence between the levels
// included) and reports the share of them that certify.Decide certifies against the default
// target, with its Monte Carlo standard error.
func finalTestPower(path string, n int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var all []float64
	for _, f := range strings.Fields(string(data)) {
		var r float64
		if _, err := fmt.Sscan(f, &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, r)
	}
	const sets = 4000
	rng := rand.New(rand.NewPCG(1, 2))
	levels := certify.DefaultLevels()
	verdicts := map[certify.Verdict]int{}
	sample := make([]float64, n)
	for range sets {
		for i := range sample {
			sample[i] = all[rng.IntN(len(all))]
		}
		cov, err := diag.CoverageFromRanks(sample, levels)
		if err != nil {
			return err
		}
		d, err := certify.Decide(cov, certify.Target{})
		if err != nil {
			return err
		}
		verdicts[d.Verdict]++
	}
	p := float64(verdicts[certify.Certified]) / sets
	fmt.Printf("%s: %d ranks; final test of %d pairs, %d bootstrap sets: certified %.3f ± %.3f (verdicts %v); exactly calibrated: ≥ %.3f\n",
		path, len(all), n, sets, p, math.Sqrt(p*(1-p)/sets), verdicts, certify.Target{}.Power(n))
	return nil
}
