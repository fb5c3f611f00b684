package diag

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// KernelTestSpec is one curve of a rejection-rate study: the KCCSD test (or, with SKCE, the
// SKCE test) under Config, shown as Name.
type KernelTestSpec struct {
	Name   string
	SKCE   bool
	Config KernelTestConfig
}

// maxRejectionTests bounds reps·len(ns)·len(tests), the number of tests one call runs.
const maxRejectionTests = 1 << 22

// RejectionCounts is the simulation behind the paper's rejection-rate figures (Glaser et al.,
// Section 7): for each sample size ns[k] it draws reps datasets from data (SyntheticData with
// N = ns[k]) and counts how many of them each test rejects, counts[t][k] for tests[t]. Every
// test sees the same datasets, so the curves of a panel are a paired comparison, as in the
// paper. Dataset r of size n is drawn from PCG(seed, n·2³² + r) and test t on it uses the stream
// PCG(seed ^ (t+1)·φ, n·2³² + r) (φ = 0x9E3779B97F4A7C15), so the counts depend on seed alone,
// not on the number of workers (datasets run on GOMAXPROCS goroutines).
func RejectionCounts(seed uint64, data SyntheticConfig, tests []KernelTestSpec, ns []int, reps int) ([][]int, error) {
	return RejectionCountsContext(runenv.Context(), seed, data, tests, ns, reps)
}

// MustRejectionCounts is RejectionCounts for notebook cells: it returns the counts alone and
// panics with RejectionCounts's error.
func MustRejectionCounts(seed uint64, data SyntheticConfig, tests []KernelTestSpec, ns []int, reps int) [][]int {
	return safe.Must(RejectionCounts(seed, data, tests, ns, reps))
}

// RejectionCountsContext is RejectionCounts stopped by ctx instead of the host's context.
func RejectionCountsContext(ctx context.Context, seed uint64, data SyntheticConfig, tests []KernelTestSpec, ns []int, reps int) ([][]int, error) {
	if err := checkRejectionArgs(data, tests, ns, reps); err != nil {
		return nil, err
	}
	// hits[k][r][t] is written by the one worker that runs dataset (k, r).
	hits := make([][][]bool, len(ns))
	for k := range ns {
		hits[k] = make([][]bool, reps)
	}
	jobs := len(ns) * reps
	err := forEachPair(ctx, "rejection counts", "datasets", jobs, 0, func(job int) error {
		k, r := job/reps, job%reps
		n := ns[k]
		stream := uint64(n)<<32 | uint64(r)
		cfg := data
		cfg.N = n
		preds, y, err := SyntheticData(rand.New(rand.NewPCG(seed, stream)), cfg)
		if err != nil {
			return err
		}
		row := make([]bool, len(tests))
		for t, spec := range tests {
			rng := rand.New(rand.NewPCG(seed^(uint64(t+1)*0x9E3779B97F4A7C15), stream))
			var res *KernelTestResult
			if spec.SKCE {
				res, err = SKCETestContext(ctx, rng, preds, y, spec.Config)
			} else {
				res, err = KCCSDTestContext(ctx, rng, preds, y, spec.Config)
			}
			if err != nil {
				return fmt.Errorf("diag.RejectionCounts: test %q at n = %d, dataset %d: %w", spec.Name, n, r, err)
			}
			row[t] = res.Reject
		}
		hits[k][r] = row
		return nil
	})
	if err != nil {
		return nil, err
	}
	counts := make([][]int, len(tests))
	for t := range tests {
		counts[t] = make([]int, len(ns))
		for k := range ns {
			for r := 0; r < reps; r++ {
				if hits[k][r][t] {
					counts[t][k]++
				}
			}
		}
	}
	return counts, nil
}

func checkRejectionArgs(data SyntheticConfig, tests []KernelTestSpec, ns []int, reps int) error {
	var errs []error
	if len(tests) == 0 {
		errs = append(errs, errors.New("diag.RejectionCounts: no tests: pass at least one KernelTestSpec"))
	}
	if len(ns) == 0 {
		errs = append(errs, errors.New("diag.RejectionCounts: no sample sizes: pass at least one n ≥ 2"))
	}
	for _, n := range ns {
		if n < 2 {
			errs = append(errs, fmt.Errorf("diag.RejectionCounts: sample size %d, want ≥ 2 (a U-statistic needs two pairs)", n))
			break
		}
	}
	if reps < 1 {
		errs = append(errs, fmt.Errorf("diag.RejectionCounts: reps = %d, want ≥ 1 datasets per sample size", reps))
	}
	if total := float64(reps) * float64(len(ns)) * float64(len(tests)); total > maxRejectionTests {
		errs = append(errs, fmt.Errorf("diag.RejectionCounts: %g tests requested (reps × sample sizes × tests), at most %d: split the study", total, maxRejectionTests))
	}
	probe := data
	probe.N = 2
	if _, err := probe.check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// MeanInterval is the mean of independent replicates v (one value per seed or dataset), its
// standard error s/√m (s the sample standard deviation, m = len(v)) and the two-sided Student-t
// confidence interval mean ± t_{m−1, 1−(1−conf)/2}·se. It is valid for any statistic whose
// replicates are independent and identically distributed with finite variance and roughly
// normal mean — for the KCCSD statistic of independent datasets or training seeds whether the
// predictions are calibrated or not (the statistic's wild bootstrap gives a null threshold, not
// a standard error). It needs m ≥ 2 finite values and 0 < conf < 1.
func MeanInterval(v []float64, conf float64) (mean, se, lo, hi float64, err error) {
	m := len(v)
	if m < 2 {
		return 0, 0, 0, 0, fmt.Errorf("diag.MeanInterval: %d replicates, want ≥ 2 for a standard error", m)
	}
	if !(conf > 0 && conf < 1) {
		return 0, 0, 0, 0, fmt.Errorf("diag.MeanInterval: confidence %v, want a value in (0, 1) such as 0.95", conf)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, 0, 0, fmt.Errorf("diag.MeanInterval: replicate %d is %v, want finite values", i, x)
		}
	}
	mean, se = meanSE(v, 0, 1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(m - 1)}.Quantile(1 - (1-conf)/2)
	return mean, se, mean - t*se, mean + t*se, nil
}
