package diag

import (
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/pvalue"
	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/mmd"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Sampler draws parameter vectors: an sbi.Posterior (for a posterior predictive check) or a
// prior, any dist.Distribution (for a prior predictive check).
type Sampler interface {
	Sample(rng *rand.Rand, n int) *mat.Dense
}

// PredictiveConfig configures the predictive checks. The zero value is the default.
type PredictiveConfig struct {
	Draws int     // parameter draws simulated; 0 means 1000
	Seed  uint64  // seeds the draws and the simulations
	Alpha float64 // family-wise level of the verdict over all summaries and the joint tests; 0 means 0.05
	// Label names the check in displays, e.g. "posterior predictive" or "prior predictive";
	// "" means "predictive".
	Label string
	Names []string // names of the data values; nil means x₁, x₂, …
}

// PredictiveResult compares an observation with simulations from parameter draws, per data
// value and jointly.
type PredictiveResult struct {
	Label       string
	Names       []string
	Observation []float64
	Sims        *mat.Dense // the predictive simulations that succeeded, one per row
	// Dropped counts the simulations that failed (±Inf, or no finite value) and were left
	// out. NaN in some values of a simulation is not a failure but padding, no value there:
	// a simulator that signals a failure should return nil or ±Inf.
	Dropped int

	// Per data value d: Quantile[d] is the share of simulations below x_o[d] (ties count half),
	// and PValues[d] = min(1, 2·min((1 + #{sims ≤ x_o})/(k+1), (1 + #{sims ≥ x_o})/(k+1))) the
	// two-sided rank p-value of x_o[d] among the k simulations that have a value there (not
	// NaN): all m of them unless some are padded with NaN (data sets of fewer trials).
	//
	// Where the simulations are mixed, some NaN and some not, the data value is tested twice,
	// each at half the level: the rank among the k with a value (when x_o[d] has one) and
	// whether x_o[d] has a value, p = (1 + #{sims that agree})/(m+1); PValues[d] is
	// min(1, 2·min of the two). A value that is NaN in the observation or in every simulation
	// is compared as present or absent alone: PValues[d] = (1 + #{sims that agree with
	// x_o[d]})/(m+1) when the simulations agree with one another, and Quantile[d] is NaN.
	Quantile, PValues []float64

	// Constant lists the data values equal in every simulation and in the observation (a
	// count of trials fixed by design, padding with zeros or NaN, NaN counting as equal to
	// NaN). They carry no evidence, so they are not tested, not counted in the Bonferroni
	// correction and left out of the joint tests; their Quantile and PValues are NaN. A value
	// constant in the simulations but different in the observation is tested, and is the
	// strongest misfit the test can see.
	Constant []int

	// Joint tests, calibrated on the second half of the simulations (the first half estimates
	// what they need): the Mahalanobis distance of x_o from the first half's mean and
	// covariance, and the MMD² of x_o against the first half (Gaussian kernel, median
	// bandwidth, on values standardized by the first half), each ranked among the same
	// statistic of the second-half simulations. Mahalanobis is NaN when the covariance is
	// singular or there are too few simulations for it.
	Mahalanobis, MahalanobisP float64
	MMD, MMDP                 float64

	Alpha float64
}

// PredictiveCheck draws cfg.Draws parameter vectors from src, simulates one data set for each
// with sim (on all cores; failed simulations are dropped and counted) and compares the
// observation xo with the simulations (see PredictiveFromSimulations). A parameter draw that
// holds NaN or ±Inf is an error. With a posterior as src
// it is the posterior predictive check, with the prior the prior predictive check.
func PredictiveCheck(src Sampler, sim sbi.Simulator, xo []float64, cfg PredictiveConfig) (*PredictiveResult, error) {
	if src == nil || sim == nil {
		return nil, fmt.Errorf("diag: predictive check needs a sampler (a posterior or a prior) and a simulator")
	}
	theta, rng, err := predictiveDraws(src, cfg)
	if err != nil {
		return nil, err
	}
	n, _ := theta.Dims()
	x := mat.NewDense(n, sim.DataDim(), nil)
	if err := sbi.SimulateInto(rng, sim, theta, x); err != nil {
		return nil, fmt.Errorf("diag: predictive check: %w", err)
	}
	return PredictiveFromSimulations(x, xo, cfg)
}

// PredictiveCheckFunc is PredictiveCheck with a simulator of one data set per call, such as a
// notebook cell defines (sbi.SimFunc). It simulates with sbi.SimulateAligned, so that NaN in
// some values of a data set is padding, judged per data value (see PredictiveFromSimulations),
// and not a failure as sbi.Simulate takes it: a simulation fails with nil, ±Inf or no finite
// value.
func PredictiveCheckFunc(src Sampler, f sbi.SimFunc, xo []float64, cfg PredictiveConfig) (*PredictiveResult, error) {
	if src == nil || f == nil {
		return nil, fmt.Errorf("diag: predictive check needs a sampler (a posterior or a prior) and a simulator")
	}
	theta, rng, err := predictiveDraws(src, cfg)
	if err != nil {
		return nil, err
	}
	x, err := sbi.SimulateAligned(rng, f, theta)
	if err != nil {
		return nil, fmt.Errorf("diag: predictive check: %w", err)
	}
	return PredictiveFromSimulations(x, xo, cfg)
}

func predictiveDraws(src Sampler, cfg PredictiveConfig) (*mat.Dense, *rand.Rand, error) {
	if cfg.Draws < 0 {
		return nil, nil, fmt.Errorf("diag: predictive check: Draws = %d, expected ≥ 0 (0 takes the default)", cfg.Draws)
	}
	if cfg.Draws == 0 {
		cfg.Draws = 1000
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x707063))
	var theta *mat.Dense
	err := safe.Call("diag: predictive check: drawing parameters", func() error {
		if c, ok := src.(interface {
			SampleChecked(*rand.Rand, int) (*mat.Dense, error)
		}); ok {
			var err error
			theta, err = c.SampleChecked(rng, cfg.Draws)
			return err
		}
		theta = src.Sample(rng, cfg.Draws)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if theta == nil {
		return nil, nil, fmt.Errorf("diag: predictive check: the sampler returned no draws (nil) for %d requested", cfg.Draws)
	}
	if r, _ := theta.Dims(); r != cfg.Draws {
		return nil, nil, fmt.Errorf("diag: predictive check: the sampler returned %d draws, %d requested", r, cfg.Draws)
	}
	if i, bad := firstNonFiniteRow(theta); bad {
		return nil, nil, fmt.Errorf("diag: predictive check: parameter draw %d is %v: it holds NaN or ±Inf values, and a simulation of it compares the observation with no parameter; "+
			"the sampler failed there (check the posterior's training or the prior)", i, theta.RawRowView(i))
	}
	return theta, rng, nil
}

// PredictiveFromSimulations compares the observation xo with predictive simulations x (one per
// row, from parameter draws of a posterior or a prior). Rows holding ±Inf or no finite value
// are failed simulations, dropped and counted. NaN elsewhere is padding: no value there, as
// when data sets of a varying number of trials are padded with NaN to a fixed width. Each data
// value ranks xo among the simulations that have a value there, and tests whether xo having
// one (or not) is typical of them; a simulation of fewer trials than xo still counts in the
// data values it has. The joint tests use the data values that xo and every simulation have.
// So NaN in some values of a row is never a failure, even where a simulator meant one (a
// summary it could not compute): a simulator that signals failure should return nil or ±Inf.
// String and MIMEBundle list the data values that are NaN in some simulations.
// Simulate padded data sets with sbi.SimulateAligned (or sbi.SimulateInto), which keep every
// row: sbi.Simulate drops each row holding a NaN as a failure.
//
// Ranking among the simulations with a value in data value d is exact for exchangeable xo and
// simulations even when the number of trials depends on the parameters: having a value in d is
// a property of each data set alone, so the data sets that have one are still exchangeable.
// Dropping the simulations with fewer trials than xo would not be: it ranks xo, of K trials,
// among data sets of at least K trials, from other parameters when the count depends on them.
// For a posterior predictive check, the simulations with a value in d come from the posterior
// draws reweighted by their chance of a value there, which xo, having one, has already made
// likely; the p-values are as without padding (usually conservative: see below). Zero padding
// (as DeepSetEmbedding.Pack writes) is a value: it is ranked as one.
//
// Per data value the rank of xo among the simulations gives an exact p-value when xo is
// exchangeable with them (a prior predictive check of a correct model); for a posterior
// predictive check the p-values are usually conservative, since the posterior was fitted to xo
// (Gelman, Meng and Stern 1996), but not guaranteed at level α: only P(p ≤ α) ≤ 2α holds, over
// data from the prior predictive (Meng 1994), so the verdict's family-wise level there is at
// most 2·Alpha; a large p-value is weak evidence of fit. Data values equal in every simulation
// and in xo carry no evidence and are not tested (Constant). The verdict judges the T tested values and the two joint tests together at family-wise level
// Alpha (Bonferroni: each at Alpha/(T+2)). It returns an error for fewer than 20 simulations,
// an observation of the wrong length or one holding ±Inf.
func PredictiveFromSimulations(x *mat.Dense, xo []float64, cfg PredictiveConfig) (*PredictiveResult, error) {
	return predictiveFromSimulations(x, xo, cfg, hasFinite)
}

// predictiveFromSimulations is PredictiveFromSimulations deciding with finiteRow whether a row of
// x holds a finite value (hasFinite): a test passes one that counts the rows it scans.
func predictiveFromSimulations(x *mat.Dense, xo []float64, cfg PredictiveConfig, finiteRow func([]float64) bool) (*PredictiveResult, error) {
	if x == nil {
		return nil, fmt.Errorf("diag: predictive check needs simulations, got nil")
	}
	n, D := x.Dims()
	if len(xo) != D {
		return nil, fmt.Errorf("diag: predictive check: the observation has %d values, the simulations %d", len(xo), D)
	}
	for d, v := range xo {
		if math.IsInf(v, 0) {
			return nil, fmt.Errorf("diag: predictive check: the observation's value %d is %v, expected a number (or NaN for padding)", d+1, v)
		}
	}
	if !(cfg.Alpha >= 0 && cfg.Alpha < 1) { // NaN fails too
		return nil, fmt.Errorf("diag: predictive check: Alpha = %v, expected a level in (0, 1) (0 takes 0.05)", cfg.Alpha)
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.05
	}
	if cfg.Names != nil && len(cfg.Names) != D {
		return nil, fmt.Errorf("diag: predictive check: %d names for %d data values", len(cfg.Names), D)
	}
	finite := make([]bool, n)
	for i := range n {
		finite[i] = finiteRow(x.RawRowView(i))
	}
	var keep []int
	for i := range n {
		if finite[i] && !hasInf(x.RawRowView(i)) {
			keep = append(keep, i)
		}
	}
	if len(keep) < 20 {
		return nil, fmt.Errorf("diag: predictive check needs at least 20 successful simulations, got %d of %d (a simulation fails with ±Inf, or with no finite value)", len(keep), n)
	}
	sims := rowsAt(x, keep)
	present := presentCounts(sims)
	m := len(keep)
	r := &PredictiveResult{Label: cfg.Label, Names: cfg.Names, Observation: append([]float64(nil), xo...), Sims: sims,
		Dropped: n - m, Alpha: cfg.Alpha, Quantile: make([]float64, D), PValues: make([]float64, D)}
	if r.Label == "" {
		r.Label = "predictive"
	}
	if r.Names == nil {
		r.Names = make([]string, D)
		for d := range D {
			r.Names[d] = "x" + subscriptDigits(d+1)
		}
	}
	var tested []int
	for d := range D {
		if constantEqual(sims, d, xo[d]) {
			r.Constant = append(r.Constant, d)
			r.Quantile[d], r.PValues[d] = math.NaN(), math.NaN()
			continue
		}
		tested = append(tested, d)
		r.Quantile[d], r.PValues[d] = valueP(sims, d, xo[d], present[d])
	}
	r.Mahalanobis, r.MahalanobisP, r.MMD, r.MMDP = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if joint := completeColumns(tested, xo, present, m); len(joint) > 0 {
		if err := r.jointTests(colsAt(sims, joint), pick(xo, joint)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// hasInf reports whether v holds +Inf or -Inf.
func hasInf(v []float64) bool {
	for _, f := range v {
		if math.IsInf(f, 0) {
			return true
		}
	}
	return false
}

// presentCounts returns, per column of sims, the number of rows that have a value there (not
// NaN).
func presentCounts(sims *mat.Dense) []int {
	m, D := sims.Dims()
	k := make([]int, D)
	for i := range m {
		for d, v := range sims.RawRowView(i) {
			if !math.IsNaN(v) {
				k[d]++
			}
		}
	}
	return k
}

// valueP returns the quantile and p-value of the observation's value o in column d of sims, k
// rows of which have a value there. When all rows agree in having a value or not, it is one
// test: the rank of o among them, or whether o agrees with them. When they do not, it is two,
// each at half the level (Bonferroni): whether o has a value like most rows, and the rank of o
// among the k that have one. Each is valid alone, so the data value's test stays valid whether
// or not o has a value, which the two tests' level depends on.
func valueP(sims *mat.Dense, d int, o float64, k int) (quantile, p float64) {
	m, _ := sims.Dims()
	switch {
	case k == m && !math.IsNaN(o):
		return rankP(sims, d, o)
	case k == m || k == 0:
		return math.NaN(), presenceP(sims, d, o)
	}
	quantile, rank := math.NaN(), 1.0
	if !math.IsNaN(o) {
		quantile, rank = rankP(sims, d, o)
	}
	return quantile, math.Min(1, 2*math.Min(presenceP(sims, d, o), rank))
}

// hasFinite reports whether v holds a value neither NaN nor ±Inf.
func hasFinite(v []float64) bool {
	for _, f := range v {
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return true
		}
	}
	return false
}

// same is equality with NaN equal to NaN.
func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// constantEqual reports whether column d of sims equals o in every row.
func constantEqual(sims *mat.Dense, d int, o float64) bool {
	m, _ := sims.Dims()
	for i := range m {
		if !same(sims.At(i, d), o) {
			return false
		}
	}
	return true
}

// rankP returns the quantile of o among the values of column d of sims that are not NaN (ties
// count half) and its two-sided rank p-value.
func rankP(sims *mat.Dense, d int, o float64) (quantile, p float64) {
	rows, _ := sims.Dims()
	var below, equal, m int
	for i := range rows {
		v := sims.At(i, d)
		if math.IsNaN(v) {
			continue
		}
		m++
		switch {
		case v < o:
			below++
		case v == o:
			equal++
		}
	}
	le, ge := below+equal, m-below
	return (float64(below) + 0.5*float64(equal)) / float64(m),
		math.Min(1, 2*math.Min(float64(1+le), float64(1+ge))/float64(m+1))
}

// presenceP is the p-value of a padding value: (1 + #{rows of column d that agree with o in
// being NaN or not})/(m+1), valid since under exchangeability the observation is in the
// minority that few simulations share with probability at most its share.
func presenceP(sims *mat.Dense, d int, o float64) float64 {
	m, _ := sims.Dims()
	agree := 0
	for i := range m {
		if math.IsNaN(sims.At(i, d)) == math.IsNaN(o) {
			agree++
		}
	}
	return float64(1+agree) / float64(m+1)
}

// completeColumns returns the tested data values that the observation and all m simulations
// have (not NaN): the joint tests' values, which need complete rows.
func completeColumns(tested []int, xo []float64, present []int, m int) []int {
	var out []int
	for _, d := range tested {
		if !math.IsNaN(xo[d]) && present[d] == m {
			out = append(out, d)
		}
	}
	return out
}

// jointTests sets the Mahalanobis and MMD tests of the observation xo against sims (its data
// values, finite).
func (r *PredictiveResult) jointTests(sims *mat.Dense, xo []float64) error {
	m, D := sims.Dims()
	h := m / 2
	first, second := rowsAt(sims, seq(0, h)), rowsAt(sims, seq(h, m))
	// Both joint tests see the values standardized by the first half: the Mahalanobis
	// distance does not change under it, and its sums of squares then neither overflow nor
	// underflow at extreme scales of x.
	z, err := fitZ(first)
	if err != nil {
		return fmt.Errorf("diag: predictive check: the simulations: %w", err)
	}
	zFirst, zSecond := z.apply(first), z.apply(second)
	zo := z.apply(mat.NewDense(1, D, append([]float64(nil), xo...))).RawRowView(0)
	r.Mahalanobis, r.MahalanobisP = mahalanobisRank(zFirst, zSecond, zo)
	if ref, err := mmd.New(zFirst, zSecond); err == nil {
		r.MMD = ref.Statistic(zo)
		r.MMDP = ref.PValue(r.MMD)
	}
	return nil
}

// colsAt returns the columns idx of a.
func colsAt(a *mat.Dense, idx []int) *mat.Dense {
	m, _ := a.Dims()
	out := mat.NewDense(m, len(idx), nil)
	for i := range m {
		row, dst := a.RawRowView(i), out.RawRowView(i)
		for k, d := range idx {
			dst[k] = row[d]
		}
	}
	return out
}

func pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, d := range idx {
		out[k] = v[d]
	}
	return out
}

// epsilon is the float64 machine epsilon, 2⁻⁵².
const epsilon = 0x1p-52

func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

// mahalanobisRank returns the Mahalanobis distance of xo from the mean and covariance of first,
// and its rank p-value (1 + #{second rows at least as far})/(rows of second + 1). NaN, NaN when
// first has too few rows or a singular covariance.
func mahalanobisRank(first, second *mat.Dense, xo []float64) (float64, float64) {
	n, D := first.Dims()
	if n < D+2 {
		return math.NaN(), math.NaN()
	}
	mean := make([]float64, D)
	for i := range n {
		for j, v := range first.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	cov := mat.NewSymDense(D, nil)
	for i := range n {
		row := first.RawRowView(i)
		for a := range D {
			for b := a; b < D; b++ {
				cov.SetSym(a, b, cov.At(a, b)+(row[a]-mean[a])*(row[b]-mean[b])/float64(n-1))
			}
		}
	}
	var ch mat.Cholesky
	// A covariance singular to working precision (a constant data value, values that are
	// multiples of one another) can still factorize through rounding, with distances that are
	// noise: treat a condition number of 1/ε or more as singular.
	if !ch.Factorize(cov) || !(ch.Cond() < 1/epsilon) {
		return math.NaN(), math.NaN()
	}
	dist := func(v []float64) float64 {
		d := make([]float64, D)
		for j := range d {
			d[j] = v[j] - mean[j]
		}
		var sol mat.VecDense
		if err := ch.SolveVecTo(&sol, mat.NewVecDense(D, d)); err != nil {
			return math.NaN()
		}
		return math.Sqrt(mat.Dot(mat.NewVecDense(D, d), &sol))
	}
	o := dist(xo)
	if math.IsNaN(o) {
		return math.NaN(), math.NaN()
	}
	m, _ := second.Dims()
	ge := 0
	for i := range m {
		v := dist(second.RawRowView(i))
		if math.IsNaN(v) {
			return math.NaN(), math.NaN()
		}
		if v >= o {
			ge++
		}
	}
	return o, float64(1+ge) / float64(m+1)
}

// Flagged returns the data values whose p-value is at most Alpha/(T+2), the Bonferroni level
// of each of the T tested data values (those not Constant) and the 2 joint tests.
func (r *PredictiveResult) Flagged() []int {
	lvl := r.perTestLevel()
	var out []int
	for d, p := range r.PValues {
		if p <= lvl {
			out = append(out, d)
		}
	}
	return out
}

func (r *PredictiveResult) perTestLevel() float64 { return r.Alpha / float64(r.tested()+2) }

// tested is the number of data values tested: those not Constant.
func (r *PredictiveResult) tested() int { return len(r.PValues) - len(r.Constant) }

// JointFlagged reports whether either joint test rejects at Alpha/(T+2).
func (r *PredictiveResult) JointFlagged() bool {
	lvl := r.perTestLevel()
	return r.MahalanobisP <= lvl || r.MMDP <= lvl
}

// Reject reports whether the observation is atypical of the predictive simulations at the
// family-wise level Alpha.
func (r *PredictiveResult) Reject() bool { return len(r.Flagged()) > 0 || r.JointFlagged() }

// shownP writes the per-value p-values, the joint tests' and the per-test level Alpha/(T+2) they
// are compared with, all with the digits that keep each p-value on its side of the level.
func (r *PredictiveResult) shownP() (values []string, mahal, mmd, level string) {
	all := append(append([]float64(nil), r.PValues...), r.MahalanobisP, r.MMDP)
	shown, level := pvalue.FormatAll(all, r.perTestLevel())
	d := len(r.PValues)
	return shown[:d], shown[d], shown[d+1], level
}

// ShownPValues returns the per-value p-values as Verdict, String and the plots write them:
// formatted together with the joint tests' p-values, with the digits that keep each on its side
// of the per-test level Alpha/(T+2) that Flagged compares them with; a Constant value's is "NaN".
func (r *PredictiveResult) ShownPValues() []string {
	values, _, _, _ := r.shownP()
	return values
}

// rankReach is the fewest simulations m whose smallest rank p-value 2/(m+1) is at most lvl,
// as a float64 since a tiny lvl needs more than an int holds. Beyond 2⁵³, where float64 no
// longer counts by one, it is ⌈2/lvl⌉−1 as rounded.
func rankReach(lvl float64) float64 {
	m := math.Max(1, math.Ceil(2/lvl)-1)
	if m >= 1<<53 {
		return m
	}
	for 2/(m+1) > lvl {
		m++
	}
	for m > 1 && 2/m <= lvl {
		m--
	}
	return m
}

// rankPower sorts the ranked data values (tested, with a value in the observation and in some
// simulation) by whether their rank test can reach the per-test level. Its smallest p-value is
// 2/(k+1) among the k simulations with a value there, doubled where the simulations are mixed
// (the rank test is then at half the level). best is the ranked value whose smallest p-value
// bestP is the least, -1 with bestP = 2/(m+1), the smallest rank p-value of m simulations,
// when no value is ranked; unjudged lists the ranked values whose smallest p-value is above
// the level. present[d] counts the simulations with a value in d.
func (r *PredictiveResult) rankPower(present []int) (best int, bestP float64, unjudged []int) {
	m, _ := r.Sims.Dims()
	constant := r.constantSet()
	lvl := r.perTestLevel()
	best, bestP = -1, 2/float64(m+1)
	for d, o := range r.Observation {
		k := present[d]
		if constant[d] || math.IsNaN(o) || k == 0 {
			continue
		}
		p := 2 / float64(k+1)
		if k < m {
			p = math.Min(1, 2*p)
		}
		if best < 0 || p < bestP {
			best, bestP = d, p
		}
		if p > lvl {
			unjudged = append(unjudged, d)
		}
	}
	return best, bestP, unjudged
}

// Verdict says what the numbers support, with the p-values and the per-test level
// Alpha/(T+2) they are compared with, and how many Constant values were not tested. It is
// inconclusive when no rank test can reach the per-test level with the simulations at hand;
// when some can, a data value whose rank test cannot (too few simulations have a value there)
// is named as not judged by rank, never called consistent.
func (r *PredictiveResult) Verdict() string {
	if r.tested() == 0 {
		return fmt.Sprintf("inconclusive: all %d data values are equal in every simulation and in the observation, so there is nothing to test", len(r.PValues))
	}
	return r.verdict(presentCounts(r.Sims)) + r.constantNote()
}

// constantNote says how many data values were not tested, or is "".
func (r *PredictiveResult) constantNote() string {
	switch k := len(r.Constant); k {
	case 0:
		return ""
	case 1:
		return "; 1 data value equal in every simulation and in the observation not tested"
	default:
		return fmt.Sprintf("; %d data values equal in every simulation and in the observation not tested", k)
	}
}

// verdict is Verdict's judgement of the tested values; present[d] counts the simulations with a
// value in d. It is inconclusive only when no rank test can reach the per-test level; where
// some can and others cannot, it names those that could not be judged by rank instead of
// calling them consistent.
func (r *PredictiveResult) verdict(present []int) string {
	lvl := r.perTestLevel()
	best, bestP, unjudged := r.rankPower(present)
	if bestP > lvl && !r.Reject() {
		return r.inconclusive(best, bestP, present)
	}
	values, mahal, mmd, level := r.shownP()
	if !r.Reject() {
		smallest := ""
		if k := argMin(r.PValues); k >= 0 {
			smallest = values[k]
		}
		numbers := fmt.Sprintf("(smallest per-value p = %s, Mahalanobis p = %s, MMD p = %s; each test at the per-test level %s)", smallest, mahal, mmd, level)
		if len(unjudged) > 0 {
			return fmt.Sprintf("no value rejected by the %s simulations at family-wise level %.2g, nor jointly by %s %s; but %s",
				r.Label, r.Alpha, r.jointTested(), numbers, r.unjudgedPart(unjudged, present))
		}
		return fmt.Sprintf("consistent with the %s simulations: every value and %s at family-wise level %.2g %s",
			r.Label, r.jointTested(), r.Alpha, numbers)
	}
	var parts []string
	for _, d := range r.Flagged() {
		parts = append(parts, r.flaggedPart(d, values[d], present[d]))
	}
	if r.JointFlagged() {
		parts = append(parts, fmt.Sprintf("jointly (Mahalanobis p = %s, MMD p = %s)", mahal, mmd))
	}
	return fmt.Sprintf("atypical of the %s simulations at family-wise level %.2g (per-test level %s): %s; the model with these parameters does not reproduce the observation there",
		r.Label, r.Alpha, level, strings.Join(parts, ", "))
}

// inconclusive is the verdict when no rank test can reach the per-test level: best is the
// ranked data value whose rank test comes nearest, with smallest p-value bestP (-1 when no
// value is ranked, bestP then that of all m simulations).
func (r *PredictiveResult) inconclusive(best int, bestP float64, present []int) string {
	m, _ := r.Sims.Dims()
	lvl := r.perTestLevel()
	least, level := pvalue.Format(bestP, lvl)
	if best >= 0 && present[best] < m {
		k := present[best]
		return fmt.Sprintf("inconclusive: no rank test can reach the per-test level %s (Bonferroni over %s and 2 joint tests): %s, which has a value in the most simulations, %d of %d, has the smallest rank p-value %s (with the test of having a value, each at half the level); its rank test can reach the level from %.0f simulations with a value there, about %.0f simulations in all",
			level, text.Count(r.tested(), "value"), r.Names[best], k, m, least, rankReach(lvl/2), math.Ceil(rankReach(lvl/2)*float64(m)/float64(k)))
	}
	return fmt.Sprintf("inconclusive: with %d simulations the smallest rank p-value is %s, above the per-test level %s (Bonferroni over %s and 2 joint tests); the rank tests can reach it from %.0f simulations",
		m, least, level, text.Count(r.tested(), "value"), rankReach(lvl))
}

// jointTested names the joint tests that were computed.
func (r *PredictiveResult) jointTested() string {
	switch m, d := math.IsNaN(r.MahalanobisP), math.IsNaN(r.MMDP); {
	case m && d:
		return "no joint test (neither computed)"
	case m:
		return "the MMD test (Mahalanobis not computed: singular covariance or too few simulations)"
	case d:
		return "the Mahalanobis test (MMD not computed)"
	}
	return "both joint tests"
}

// maxNamed is the most data values a verdict names in one list.
const maxNamed = 8

// unjudgedPart says which data values could not be judged by rank (at most maxNamed named),
// with how many simulations have a value there and how many would be needed.
func (r *PredictiveResult) unjudgedPart(unjudged, present []int) string {
	m, _ := r.Sims.Dims()
	lvl := r.perTestLevel()
	var names []string
	fewest := m
	for i, d := range unjudged {
		fewest = min(fewest, present[d])
		if i < maxNamed {
			names = append(names, fmt.Sprintf("%s (%d)", r.Names[d], present[d]))
		}
	}
	if len(unjudged) > maxNamed {
		names = append(names, fmt.Sprintf("%d more", len(unjudged)-maxNamed))
	}
	// Only mixed values are ever unjudged while another can reach the level: a value every
	// simulation has can reach it whenever any can. Their rank tests are at half the level.
	return fmt.Sprintf("%s could not be judged by rank with so few of the %d simulations having a value there (in parentheses): a rank test reaches the per-test level from %.0f simulations with a value, about %.0f simulations in all; whether the observation has a value there was tested",
		strings.Join(names, ", "), m, rankReach(lvl/2), math.Ceil(rankReach(lvl/2)*float64(m)/float64(fewest)))
}

// flaggedPart says how the flagged data value d departs from the simulations, p being its
// p-value as written and k the number of simulations with a value there.
func (r *PredictiveResult) flaggedPart(d int, p string, k int) string {
	m, _ := r.Sims.Dims()
	o := r.Observation[d]
	switch c, constant := r.simsConstant(d); {
	case math.IsNaN(o):
		return fmt.Sprintf("%s (NaN, padding, where %d of %d simulations hold a value: p = %s)", r.Names[d], k, m, p)
	case constant && math.IsNaN(c):
		return fmt.Sprintf("%s (%.4g where every simulation is NaN, padding: p = %s, the smallest with %d simulations)", r.Names[d], o, p, m)
	case constant:
		return fmt.Sprintf("%s (%.4g where every simulation gives %.4g: p = %s, the smallest with %d simulations)", r.Names[d], o, c, p, m)
	}
	if _, rank := rankP(r.Sims, d, o); k < m && presenceP(r.Sims, d, o) <= rank {
		return fmt.Sprintf("%s (%.4g where %d of %d simulations have a value, the others NaN: p = %s)", r.Names[d], o, k, m, p)
	}
	side := "above"
	if r.Quantile[d] < 0.5 {
		side = "below"
	}
	among := ""
	if k < m {
		among = fmt.Sprintf(" with a value (%d of %d)", k, m)
	}
	return fmt.Sprintf("%s (%s the simulations%s: quantile %.3f, p = %s)", r.Names[d], side, among, r.Quantile[d], p)
}

// simsConstant returns the value of data value d when it is the same in every simulation (NaN
// equal to NaN).
func (r *PredictiveResult) simsConstant(d int) (float64, bool) {
	c := r.Sims.At(0, d)
	return c, constantEqual(r.Sims, d, c)
}

// argMin is the index of the smallest of v (NaN never), or -1 when there is none.
func argMin(v []float64) int {
	k := -1
	for i, x := range v {
		if !math.IsNaN(x) && (k < 0 || x < v[k]) {
			k = i
		}
	}
	return k
}

// String is a text summary with one line per data value; the p-values are written as the
// verdict writes them.
func (r *PredictiveResult) String() string {
	var b strings.Builder
	m, _ := r.Sims.Dims()
	fmt.Fprintf(&b, "%s check (%d simulations): %s\n", r.Label, m, r.Verdict())
	values, _, _, _ := r.shownP()
	constant := r.constantSet()
	for d := range r.PValues {
		if constant[d] {
			fmt.Fprintf(&b, "  %-6s x_o %10.4g  equal in every simulation, not tested\n", r.Names[d], r.Observation[d])
			continue
		}
		fmt.Fprintf(&b, "  %-6s x_o %10.4g  quantile %.3f  p %s\n", r.Names[d], r.Observation[d], r.Quantile[d], values[d])
	}
	if nan := r.partlyNaN(); nan != "" {
		fmt.Fprintf(&b, "  %s\n", nan)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "  %d failed simulations left out\n", r.Dropped)
	}
	return b.String()
}

// MIMEBundle shows the result as an HTML table (flagged values, p ≤ Alpha/(T+2), in bold
// vermillion) and text; viz.PredictiveCheck draws the simulations' histograms with the
// observation.
func (r *PredictiveResult) MIMEBundle() map[string]any {
	var b strings.Builder
	m, _ := r.Sims.Dims()
	values, mahal, mmd, level := r.shownP()
	fmt.Fprintf(&b, "<div><b>%s check</b> — %d simulations: <i>%s</i>", html.EscapeString(capitalize(r.Label)), m, html.EscapeString(r.Verdict()))
	fmt.Fprintf(&b, `<table style="font-size:90%%"><tr><th></th><th>x_o</th><th>quantile</th><th>p (flagged at p ≤ %s)</th></tr>`, level)
	flag := map[int]bool{}
	for _, d := range r.Flagged() {
		flag[d] = true
	}
	constant := r.constantSet()
	for d := range r.PValues {
		if constant[d] {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%.4g</td><td colspan=2>equal in every simulation, not tested</td></tr>", html.EscapeString(r.Names[d]), r.Observation[d])
			continue
		}
		style := ""
		if flag[d] {
			style = ` style="color:#D55E00;font-weight:bold"`
		}
		fmt.Fprintf(&b, "<tr%s><th>%s</th><td>%.4g</td><td>%.3f</td><td>%s</td></tr>", style, html.EscapeString(r.Names[d]), r.Observation[d], r.Quantile[d], values[d])
	}
	if nan := r.partlyNaN(); nan != "" {
		fmt.Fprintf(&b, "<tr><th>NaN</th><td colspan=3>%s</td></tr>", html.EscapeString(nan))
	}
	fmt.Fprintf(&b, "<tr><th>joint</th><td colspan=3>Mahalanobis %.3g (p %s), MMD² %.3g (p %s)</td></tr></table></div>", r.Mahalanobis, mahal, r.MMD, mmd)
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

// partlyNaN lists the tested data values that are NaN in some simulations but not all, with
// how many: "NaN in some simulations (padding, or a failed summary): x₇ in 400 of 800, …", or
// "" when there are none. Such a NaN is read as padding, so a simulator that meant it as a
// failure sees it here and not in Dropped.
func (r *PredictiveResult) partlyNaN() string {
	m, _ := r.Sims.Dims()
	present := presentCounts(r.Sims)
	constant := r.constantSet()
	var parts []string
	for d, k := range present {
		if !constant[d] && k > 0 && k < m {
			parts = append(parts, fmt.Sprintf("%s in %d of %d", r.Names[d], m-k, m))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "NaN in some simulations (padding, or a failed summary): " + strings.Join(parts, ", ")
}

// constantSet marks the Constant data values.
func (r *PredictiveResult) constantSet() map[int]bool {
	set := make(map[int]bool, len(r.Constant))
	for _, d := range r.Constant {
		set[d] = true
	}
	return set
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// subscriptDigits writes n with Unicode subscript digits.
func subscriptDigits(n int) string {
	const digits = "₀₁₂₃₄₅₆₇₈₉"
	s := fmt.Sprint(n)
	var b strings.Builder
	for _, c := range s {
		b.WriteString(string([]rune(digits)[c-'0']))
	}
	return b.String()
}
