package calib

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// RegularizerStudyConfig sets CompareRegularizer. The zero value is 5 seeds, 300 training and
// 400 held-out pairs per seed, the default NPE and training settings, the KCCSD test's default
// kernels and 95 % intervals.
type RegularizerStudyConfig struct {
	Seeds      int             // independent repetitions (fresh data, weights and test pairs); default 5, at least 2
	TrainPairs int             // training pairs per seed; default 300
	TestPairs  int             // held-out pairs per seed; default 400
	NPE        sbi.NPEConfig   // the estimator of both arms
	Train      sbi.TrainConfig // training settings of both arms; Seed and Regularizer are set per run
	// Test configures the KCCSD statistic on the held-out pairs. Bandwidths left 0 are taken
	// by the median heuristic on the unregularized arm of each seed and reused for the
	// regularized arm, so both are measured with the same kernel.
	Test       diag.KernelTestConfig
	Confidence float64 // of the intervals; default 0.95
}

// Interval is a mean over seeds with its standard error and Student-t confidence interval
// (diag.MeanInterval).
type Interval struct{ Mean, SE, Lo, Hi float64 }

// RegularizerStudy is the outcome of CompareRegularizer. Index 0 is the unregularized NPE,
// index 1 the regularized one; each slice has one value per seed.
type RegularizerStudy struct {
	Name       string       // the regularizer's name
	Statistic  [2][]float64 // KCCSD statistic on the held-out pairs (0 in expectation when calibrated)
	PValue     [2][]float64 // its wild-bootstrap p-value
	LogProb    [2][]float64 // mean held-out log q(θ | x)
	StatMean   [2]Interval
	LogMean    [2]Interval
	StatDiff   Interval // regularized − unregularized statistic, paired over seeds
	LogDiff    Interval // regularized − unregularized log density, paired over seeds
	Confidence float64
	TestPairs  int
}

// CompareRegularizer trains an NPE with and without reg on the same simulations, Seeds times,
// and measures both on fresh held-out pairs: calibration by the KCCSD statistic
// (diag.KCCSDAmortized) and accuracy by the mean log density log q(θ | x). Seed s draws its
// training and test pairs from PCG(s, 1) and trains both arms with TrainConfig.Seed = s, so the
// arms differ only by the regularizer. The standard errors are over seeds (each seed an
// independent replicate of data, weights and test pairs), which stays valid when the estimator
// is miscalibrated — the test's bootstrap describes the statistic only under calibration — and
// the differences are paired by seed.
func CompareRegularizer(prior dist.Distribution, simulate SimulateFunc, reg sbi.Regularizer, cfg RegularizerStudyConfig) (*RegularizerStudy, error) {
	cfg, err := cfg.withDefaults(prior, simulate, reg)
	if err != nil {
		return nil, err
	}
	st := &RegularizerStudy{Name: reg.Name(), Confidence: cfg.Confidence, TestPairs: cfg.TestPairs}
	for s := 1; s <= cfg.Seeds; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 1))
		theta, x, tt, xt, err := studyData(rng, prior, simulate, cfg)
		if err != nil {
			return nil, fmt.Errorf("calib.CompareRegularizer: seed %d: %w", s, err)
		}
		test := cfg.Test
		for arm, r := range [2]sbi.Regularizer{nil, reg} {
			npe := sbi.NewNPE(prior, cfg.NPE)
			tc := cfg.Train
			tc.Seed, tc.Regularizer = uint64(s), r
			if _, err := npe.Train(theta, x, tc); err != nil {
				return nil, fmt.Errorf("calib.CompareRegularizer: seed %d, arm %d: %w", s, arm, err)
			}
			res, err := diag.KCCSDAmortized(rand.New(rand.NewPCG(uint64(s), 2)), npe, tt, xt, 0, test)
			if err != nil {
				return nil, fmt.Errorf("calib.CompareRegularizer: seed %d, arm %d: %w", s, arm, err)
			}
			if arm == 0 { // the regularized arm is measured with the same kernel
				test.TargetBandwidth, test.Dist.Bandwidth, test.Dist.GroundBandwidth = res.TargetBandwidth, res.DistBandwidth, res.GroundBandwidth
			}
			mean := stat.Mean(npe.LogProbPairs(tt, xt), nil)
			if math.IsNaN(mean) || math.IsInf(mean, 0) {
				return nil, fmt.Errorf("calib.CompareRegularizer: seed %d, arm %d: held-out mean log density %v", s, arm, mean)
			}
			if math.IsNaN(res.Statistic) || math.IsInf(res.Statistic, 0) {
				return nil, fmt.Errorf("calib.CompareRegularizer: seed %d, arm %d: KCCSD statistic %v", s, arm, res.Statistic)
			}
			st.Statistic[arm] = append(st.Statistic[arm], res.Statistic)
			st.PValue[arm] = append(st.PValue[arm], res.PValue)
			st.LogProb[arm] = append(st.LogProb[arm], mean)
		}
	}
	var errs []error
	for arm := range 2 {
		st.StatMean[arm] = interval(st.Statistic[arm], cfg.Confidence, &errs)
		st.LogMean[arm] = interval(st.LogProb[arm], cfg.Confidence, &errs)
	}
	st.StatDiff = interval(diff(st.Statistic[1], st.Statistic[0]), cfg.Confidence, &errs)
	st.LogDiff = interval(diff(st.LogProb[1], st.LogProb[0]), cfg.Confidence, &errs)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("calib.CompareRegularizer: %w", err)
	}
	return st, nil
}

// MustCompareRegularizer is CompareRegularizer for notebook cells: it panics with the error.
func MustCompareRegularizer(prior dist.Distribution, simulate SimulateFunc, reg sbi.Regularizer, cfg RegularizerStudyConfig) *RegularizerStudy {
	return safe.Must(CompareRegularizer(prior, simulate, reg, cfg))
}

func (c RegularizerStudyConfig) withDefaults(prior dist.Distribution, simulate SimulateFunc, reg sbi.Regularizer) (RegularizerStudyConfig, error) {
	var errs []error
	if prior == nil || simulate == nil || reg == nil {
		errs = append(errs, errors.New("calib.CompareRegularizer: prior, simulator and regularizer are required"))
	}
	if c.Seeds == 0 {
		c.Seeds = 5
	}
	if c.TrainPairs == 0 {
		c.TrainPairs = 300
	}
	if c.TestPairs == 0 {
		c.TestPairs = 400
	}
	if c.Confidence == 0 {
		c.Confidence = 0.95
	}
	if c.Seeds < 2 {
		errs = append(errs, fmt.Errorf("calib.CompareRegularizer: Seeds = %d, want ≥ 2 for a standard error over seeds", c.Seeds))
	}
	if c.TrainPairs < 2 || c.TestPairs < 2 {
		errs = append(errs, fmt.Errorf("calib.CompareRegularizer: TrainPairs = %d, TestPairs = %d, want ≥ 2 each", c.TrainPairs, c.TestPairs))
	}
	if !(c.Confidence > 0 && c.Confidence < 1) {
		errs = append(errs, fmt.Errorf("calib.CompareRegularizer: Confidence = %v, want a value in (0, 1)", c.Confidence))
	}
	return c, errors.Join(errs...)
}

// studyData draws the training and held-out pairs of one seed.
func studyData(rng *rand.Rand, prior dist.Distribution, simulate SimulateFunc, cfg RegularizerStudyConfig) (theta, x, tt, xt *mat.Dense, err error) {
	err = safe.Call("calib.CompareRegularizer: simulator", func() error {
		theta = prior.Sample(rng, cfg.TrainPairs)
		x = simulate(rng, theta)
		tt = prior.Sample(rng, cfg.TestPairs)
		xt = simulate(rng, tt)
		return nil
	})
	return theta, x, tt, xt, err
}

// diff returns a − b.
func diff(a, b []float64) []float64 {
	return floats.SubTo(make([]float64, len(a)), a, b)
}

// interval is diag.MeanInterval as an Interval; its error is appended to errs.
func interval(v []float64, conf float64, errs *[]error) Interval {
	m, se, lo, hi, err := diag.MeanInterval(v, conf)
	if err != nil {
		*errs = append(*errs, err)
	}
	return Interval{m, se, lo, hi}
}

// MIMEBundle shows both arms and the paired differences.
func (s *RegularizerStudy) MIMEBundle() map[string]any {
	t := &table.Table{
		Title:  fmt.Sprintf("NPE with and without the %s regularizer: %d seeds, %d held-out pairs each, mean ± SE [%s interval]", s.Name, len(s.Statistic[0]), s.TestPairs, text.Percent(s.Confidence)),
		Header: []string{"", "KCCSD statistic (held out)", "mean log q(θ | x) (held out)"},
	}
	f := func(iv Interval) string {
		return fmt.Sprintf("%.4g ± %.2g [%.4g, %.4g]", iv.Mean, iv.SE, iv.Lo, iv.Hi)
	}
	t.Add("unregularized", f(s.StatMean[0]), f(s.LogMean[0]))
	t.Add(s.Name, f(s.StatMean[1]), f(s.LogMean[1]))
	t.Add("difference (paired)", f(s.StatDiff), f(s.LogDiff))
	return t.Bundle()
}
