package calib

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi/internal/binom"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// Split-conformal coverage, what is guaranteed and what varies (Vovk 2012; Angelopoulos &
// Bates, "A Gentle Introduction to Conformal Prediction", 2021, §3.2). With n calibration pairs
// and k = ⌈(n+1)(1−α)⌉ ≤ n, for continuous scores:
//
//   - marginally, over the draw of the calibration set and of a test pair, the coverage
//     P(Θ ∈ C(X)) lies in [1−α, 1−α+1/(n+1)) — this is the guarantee;
//   - given one calibration set, the coverage of its regions is itself random across
//     calibration sets, distributed as Beta(k, n+1−k), with standard deviation about
//     √(α(1−α)/n);
//   - the number of m fresh test pairs a given calibration covers is therefore
//     Beta-Binomial(m, k, n+1−k).

// guaranteeBand returns [1−α, 1−α+1/(n+1)] and the central 95% range of the coverage of one
// calibration set, Beta(k, n+1−k); ok is false when k > n (the region is the whole space).
func guaranteeBand(n int, alpha float64) (lo, hi, calLo, calHi float64, ok bool) {
	k := conformalRank(n, alpha)
	if k > n {
		return 1, 1, 1, 1, false
	}
	b := distuv.Beta{Alpha: float64(k), Beta: float64(n + 1 - k)}
	return 1 - alpha, 1 - alpha + 1/float64(n+1), b.Quantile(0.025), b.Quantile(0.975), true
}

// Guarantee states in words what the split-conformal guarantee of c promises and how much the
// coverage of this one calibration varies.
func (c *Conformal) Guarantee() string {
	lo, hi, calLo, calHi, ok := guaranteeBand(c.N, c.Alpha)
	if !ok {
		return fmt.Sprintf("%d calibration pairs are too few for level %.4g: the region is the whole space", c.N, 1-c.Alpha)
	}
	if math.IsInf(c.Threshold, 1) {
		return fmt.Sprintf("the threshold is +Inf: the estimator gives zero density to more than a share α = %.4g of the %d calibration pairs, so the region is the whole space and covers everything", c.Alpha, c.N)
	}
	return fmt.Sprintf("guarantee (continuous scores): averaged over calibration sets and over x from prior × simulator, the coverage is in [%.4g, %.4g]; "+
		"the regions of this one calibration set (n = %d) cover a fraction that varies from set to set, in [%.3g, %.3g] for 95%% of sets; "+
		"no coverage is promised at any particular x. MeasureCoverage compares it with fresh test pairs",
		lo, hi, c.N, calLo, calHi)
}

// ConformalCoverage is the coverage of the regions of a Conformal measured on fresh test
// pairs, beside what the guarantee says about it.
type ConformalCoverage struct {
	Alpha   float64 // miscoverage of the calibration
	NCal    int     // calibration pairs
	N       int     // test pairs used (finite ones)
	Dropped int     // test pairs dropped for a NaN or infinite entry
	Covered int     // test pairs whose θ lies in C(x)

	Coverage     float64 // Covered/N
	Lower, Upper float64 // 95% Clopper–Pearson interval of the coverage of these regions

	// GuaranteeLower and GuaranteeUpper bound the marginal coverage, on average over
	// calibration sets: 1−α and 1−α+1/(n+1).
	GuaranteeLower, GuaranteeUpper float64
	// SetLower and SetUpper hold the coverage of one calibration set with probability 0.95
	// (Beta(k, n+1−k)).
	SetLower, SetUpper float64
	// PValue is the two-sided p-value of Covered under the Beta-Binomial(N, k, n+1−k) law
	// that the guarantee implies for fresh test pairs exchangeable with the calibration pairs.
	PValue float64
}

// MeasureCoverage counts the test pairs (θᵢ, xᵢ), fresh draws from prior × simulator
// independent of the calibration pairs, whose θᵢ lies in C(xᵢ), and sets the result beside
// the guarantee. Pairs with non-finite entries are dropped and counted (padded observations
// of sbi.AmortizedTrials are kept, as in NewConformal). A NaN log density of
// the estimator at a test pair is an error.
func (c *Conformal) MeasureCoverage(theta, x *mat.Dense) (*ConformalCoverage, error) {
	if theta == nil || x == nil {
		return nil, fmt.Errorf("calib: MeasureCoverage needs test pairs, got nil")
	}
	if r, _ := theta.Dims(); r != x.RawMatrix().Rows {
		return nil, fmt.Errorf("calib: MeasureCoverage: %d parameters but %d observations; want one per row", r, x.RawMatrix().Rows)
	}
	theta, x, dropped, err := finitePairs(c.Estimator, theta, x, "test pair")
	if err != nil {
		return nil, err
	}
	m, _ := theta.Dims()
	if m == 0 {
		return nil, fmt.Errorf("calib: MeasureCoverage: no finite test pairs (%d dropped)", dropped)
	}
	lo, hi, calLo, calHi, ok := guaranteeBand(c.N, c.Alpha)
	if !ok {
		return nil, fmt.Errorf("calib: MeasureCoverage: %d calibration pairs are too few for level %.4g (the region is the whole space)", c.N, 1-c.Alpha)
	}
	if math.IsInf(c.Threshold, 1) {
		return nil, fmt.Errorf("calib: MeasureCoverage: the threshold is +Inf (the estimator gives zero density to more than a share %.4g of the calibration pairs): the region is the whole space and covers every pair, which the guarantee's law does not describe", c.Alpha)
	}
	scores := ConformalScores(c.Estimator, theta, x)
	if err := checkTestScores(scores, "MeasureCoverage"); err != nil {
		return nil, err
	}
	covered := 0
	for _, v := range scores {
		if v <= c.Threshold {
			covered++
		}
	}
	r := &ConformalCoverage{Alpha: c.Alpha, NCal: c.N, N: m, Dropped: dropped, Covered: covered,
		Coverage: float64(covered) / float64(m), GuaranteeLower: lo, GuaranteeUpper: hi, SetLower: calLo, SetUpper: calHi}
	r.Lower, r.Upper = clopperPearson(covered, m)
	k := conformalRank(c.N, c.Alpha)
	r.PValue = betaBinomialPValue(covered, m, float64(k), float64(c.N+1-k))
	return r, nil
}

// MustMeasureCoverage is MeasureCoverage for notebook cells: it returns the result alone and
// panics with MeasureCoverage's error.
func (c *Conformal) MustMeasureCoverage(theta, x *mat.Dense) *ConformalCoverage {
	return safe.Must(c.MeasureCoverage(theta, x))
}

// checkTestScores returns an error naming the first test pair (counting the finite ones) at
// which the estimator's log density is NaN: such a pair is neither in nor out of a region,
// and counting it as uncovered would blame the test pairs for the estimator's fault.
func checkTestScores(scores []float64, caller string) error {
	for i, v := range scores {
		if math.IsNaN(v) {
			return fmt.Errorf("calib: %s: the estimator returned a NaN log density for test pair %d; check the estimator", caller, i)
		}
	}
	return nil
}

// clopperPearson is the exact two-sided 95% interval of a binomial proportion k/n.
func clopperPearson(k, n int) (float64, float64) { return binom.ClopperPearson(k, n, 0.025) }

// betaBinomialPValue is the two-sided p-value of j under Beta-Binomial(m, a, b): the total
// probability of the outcomes no more likely than j,
//
//	P(J = i) = C(m, i) B(i+a, m−i+b) / B(a, b).
func betaBinomialPValue(j, m int, a, b float64) float64 {
	logPMF := func(i int) float64 {
		return lchoose(m, i) + lbeta(float64(i)+a, float64(m-i)+b) - lbeta(a, b)
	}
	lj := logPMF(j)
	var p float64
	for i := 0; i <= m; i++ {
		if li := logPMF(i); li <= lj+1e-9 {
			p += math.Exp(li)
		}
	}
	return math.Min(1, p)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

func lbeta(a, b float64) float64 {
	x, _ := math.Lgamma(a)
	y, _ := math.Lgamma(b)
	z, _ := math.Lgamma(a + b)
	return x + y - z
}

// Consistent reports whether the measured coverage is consistent with the guarantee at the
// 1% level (PValue > 0.01).
func (r *ConformalCoverage) Consistent() bool { return r.PValue > 0.01 }

// Verdict says what the measurement shows against the guarantee.
func (r *ConformalCoverage) Verdict() string {
	if r.Consistent() {
		return fmt.Sprintf("consistent with the guarantee (p = %.3g): the deviation from [%.4g, %.4g] is what one calibration set of %d pairs and %d test pairs produce by chance",
			r.PValue, r.GuaranteeLower, r.GuaranteeUpper, r.NCal, r.N)
	}
	side := "below"
	if r.Coverage > r.GuaranteeUpper {
		side = "above"
	}
	return fmt.Sprintf("%s what the guarantee allows (p = %.3g): the test pairs are not exchangeable with the calibration pairs (another prior or simulator, calibration pairs reused from training or selection, or discrete scores)",
		side, r.PValue)
}

// String is a text summary.
func (r *ConformalCoverage) String() string {
	return fmt.Sprintf("conformal coverage %.4g on %d test pairs (95%% interval [%.4g, %.4g]) at level %.4g: %s",
		r.Coverage, r.N, r.Lower, r.Upper, 1-r.Alpha, r.Verdict())
}

// MIMEBundle shows the measured coverage beside the guarantee.
func (r *ConformalCoverage) MIMEBundle() map[string]any {
	t := &table.Table{Title: "Conformal coverage on fresh test pairs", Header: []string{"quantity", "value"}}
	t.Add("measured coverage", fmt.Sprintf("%.4g (%d of %d test pairs)", r.Coverage, r.Covered, r.N))
	t.Add("its 95% interval", fmt.Sprintf("[%.4g, %.4g]", r.Lower, r.Upper))
	t.Add("guarantee: coverage averaged over calibration sets and x", fmt.Sprintf("[%.4g, %.4g]", r.GuaranteeLower, r.GuaranteeUpper))
	t.Add(fmt.Sprintf("coverage of one calibration set of %d pairs (95%% of sets)", r.NCal), fmt.Sprintf("[%.3g, %.3g]", r.SetLower, r.SetUpper))
	if r.Dropped > 0 {
		t.Add("dropped test pairs (non-finite)", fmt.Sprint(r.Dropped))
	}
	t.Notes = append(t.Notes, r.Verdict())
	return t.Bundle()
}
