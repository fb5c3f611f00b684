package calib

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
	"github.com/gosbi/gosbi/sbi/internal/table"
)

// Partition splits the observation space into groups 0, 1, …, Groups()−1: every observation x
// belongs to exactly one, Group(x). Group-conditional conformal calibration keeps one threshold
// per group. Build one with PartitionFunc, NewKMeansPartition, or any type with these methods.
type Partition interface {
	Groups() int
	Group(x []float64) int
}

// PartitionFunc is the partition into k groups given by a function of the observation, which
// must return a value in 0…k−1 for every x (e.g. func(x []float64) int { if x[0] > 0 { return 1 };
// return 0 }).
func PartitionFunc(k int, group func(x []float64) int) Partition {
	return funcPartition{k: k, f: group}
}

type funcPartition struct {
	k int
	f func(x []float64) int
}

func (p funcPartition) Groups() int           { return p.k }
func (p funcPartition) Group(x []float64) int { return p.f(x) }

// groupOf returns the group of every row of x, or an error naming the first row whose group
// lies outside 0…k−1 (a KMeansPartition places a row with NaN or ±Inf in none).
func groupOf(p Partition, x *mat.Dense) ([]int, error) {
	k := p.Groups()
	n, _ := x.Dims()
	g := make([]int, n)
	for i := range n {
		g[i] = p.Group(x.RawRowView(i))
		if g[i] < 0 || g[i] >= k {
			return nil, groupError(g[i], k, x.RawRowView(i), fmt.Sprintf("observation %d", i))
		}
	}
	return g, nil
}

// groupError is the error for an observation x, named by which, that the partition put in
// group g outside 0…k−1; it names NaN or ±Inf in x as the likely cause.
func groupError(g, k int, x []float64, which string) error {
	if !pairs.AllFinite(x) {
		return fmt.Errorf("calib: the partition put %s, which holds NaN or ±Inf, in group %d; want 0…%d (a k-means partition cannot place observation rows with NaN or ±Inf, having no nearest centre: padding of an observation of fewer trials? partition such observations with PartitionFunc, by their number of trials, say)", which, g, k-1)
	}
	return fmt.Errorf("calib: the partition put %s in group %d; want 0…%d (Groups() = %d)", which, g, k-1, k)
}

// GroupConformal is an amortized posterior calibrated by split conformal prediction separately
// in every group of a partition of the observations (Patel et al., CANVI, Appendix A): with the
// score s(x, θ) = −log q(θ | x), the region of an observation x in group g is
// C(x) = {θ : −log q(θ|x) ≤ Thresholds[g]}, where Thresholds[g] is the conformal quantile of the
// calibration scores of the pairs whose observation lies in g. For fresh pairs (Θ, X) from
// prior × simulator,
//
//	P(Θ ∈ C(X) | X ∈ g) ≥ 1 − Alpha   for every group g,
//
// over the draws of the calibration pairs and of (Θ, X), whatever q is, provided the partition
// was fixed without the calibration pairs (it may be fitted to other simulated observations:
// NewKMeansPartition). The single threshold of NewConformal only guarantees the average of
// these coverages over groups; an estimator that is over-confident in one group under-covers
// there.
type GroupConformal struct {
	Estimator  sbi.Amortized
	Partition  Partition
	Alpha      float64   // miscoverage; the regions cover with probability ≥ 1 − Alpha in every group
	Thresholds []float64 // per group; +Inf (the whole space) where a group has too few pairs
	N          []int     // calibration pairs per group
	Dropped    int       // calibration pairs dropped because θ or x had a NaN or infinite entry

	scores [][]float64 // sorted calibration scores per group
}

// NewGroupConformal computes one conformal threshold of est at miscoverage alpha per group of
// the partition, each from the calibration pairs (θᵢ, xᵢ) whose observation lies in that group.
// The pairs must be fresh draws of prior × simulator, independent of the data est was trained
// or selected on and of the data the partition was fitted to. Rows with non-finite entries are
// dropped and counted (padded observations of sbi.AmortizedTrials are kept, as in
// NewConformal, and the partition sees them padded: a KMeansPartition refuses them). A group with fewer than (1−α)/α pairs gets the threshold +Inf: the
// calibration is returned together with an error naming those groups and the pairs they need.
// A group gets +Inf too when the estimator gives zero density (log q = −Inf) to more than
// n − k of its n pairs; the error names those groups apart.
func NewGroupConformal(est sbi.Amortized, theta, x *mat.Dense, alpha float64, p Partition) (*GroupConformal, error) {
	if !(alpha > 0 && alpha < 1) { // NaN fails too
		return nil, fmt.Errorf("calib: miscoverage alpha must be in (0, 1), got %g (for 90%% regions use 0.1)", alpha)
	}
	if est == nil {
		return nil, errors.New("calib: NewGroupConformal needs an estimator, got nil")
	}
	if p == nil || p.Groups() < 1 {
		return nil, errors.New("calib: NewGroupConformal needs a partition with at least one group")
	}
	theta, x, dropped, err := finitePairs(est, theta, x, "calibration pair")
	if err != nil {
		return nil, err
	}
	n, _ := theta.Dims()
	if n == 0 {
		return nil, fmt.Errorf("calib: no finite calibration pairs (%d dropped); simulate fresh pairs from prior × simulator", dropped)
	}
	groups, err := groupOf(p, x)
	if err != nil {
		return nil, err
	}
	s := ConformalScores(est, theta, x)
	k := p.Groups()
	c := &GroupConformal{Estimator: est, Partition: p, Alpha: alpha, Dropped: dropped,
		Thresholds: make([]float64, k), N: make([]int, k), scores: make([][]float64, k)}
	for i, v := range s {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("calib: the estimator returned a NaN log density for calibration pair %d; check the estimator", i)
		}
		c.scores[groups[i]] = append(c.scores[groups[i]], v)
	}
	for g := range k {
		sort.Float64s(c.scores[g])
		c.N[g] = len(c.scores[g])
	}
	c.setThresholds()
	return c, c.shortGroups()
}

// MustNewGroupConformal is NewGroupConformal for notebook cells: it panics with the error.
func MustNewGroupConformal(est sbi.Amortized, theta, x *mat.Dense, alpha float64, p Partition) *GroupConformal {
	c, err := NewGroupConformal(est, theta, x, alpha, p)
	if err != nil {
		panic(err)
	}
	return c
}

func (c *GroupConformal) setThresholds() {
	for g, s := range c.scores {
		if len(s) == 0 {
			c.Thresholds[g] = math.Inf(1)
			continue
		}
		c.Thresholds[g] = quantileSorted(s, c.Alpha)
	}
}

// shortGroups is the error for the groups whose threshold is +Inf, or nil.
func (c *GroupConformal) shortGroups() error {
	var short, holes []string
	for g, t := range c.Thresholds {
		if !math.IsInf(t, 1) {
			continue
		}
		if k := conformalRank(c.N[g], c.Alpha); k <= c.N[g] {
			holes = append(holes, fmt.Sprintf("group %d: %d of %d pairs, at most %d allowed", g, infiniteScores(c.scores[g]), c.N[g], c.N[g]-k))
			continue
		}
		short = append(short, fmt.Sprintf("group %d has %d", g, c.N[g]))
	}
	if len(short) == 0 && len(holes) == 0 {
		return nil
	}
	tooFew := fmt.Sprintf("too few calibration pairs for miscoverage %g (%s; each needs at least %d)",
		c.Alpha, strings.Join(short, ", "), int(math.Ceil((1-c.Alpha)/c.Alpha)))
	if len(holes) == 0 {
		return fmt.Errorf("calib: %s: their regions are the whole space; simulate more pairs or merge groups", tooFew)
	}
	msg := fmt.Sprintf("the estimator gives zero density (log q = −Inf) to too many calibration pairs for miscoverage %g (%s)", c.Alpha, strings.Join(holes, "; "))
	advice := "check the estimator's support"
	if len(short) > 0 {
		msg += "; " + tooFew
		advice += ", and simulate more pairs or merge groups"
	}
	return fmt.Errorf("calib: %s: their regions are the whole space; %s", msg, advice)
}

// WithAlpha returns the same calibration at another miscoverage, reusing the calibration scores.
func (c *GroupConformal) WithAlpha(alpha float64) *GroupConformal {
	d := *c
	d.Alpha = alpha
	d.Thresholds = make([]float64, len(c.Thresholds))
	d.setThresholds()
	return &d
}

// Threshold is the threshold of the group of observation x. It panics when the partition puts
// x outside its groups, as a KMeansPartition does an x with NaN or ±Inf.
func (c *GroupConformal) Threshold(x []float64) float64 {
	g := c.Partition.Group(x)
	if g < 0 || g >= len(c.Thresholds) {
		panic(groupError(g, len(c.Thresholds), x, "the observation"))
	}
	return c.Thresholds[g]
}

// Contains reports for every row i whether θᵢ lies in the region C(xᵢ) of xᵢ's group. It panics
// when the partition puts an observation outside its groups (a mistake in the partition), and,
// as Conformal.Contains does, at a pair where the estimator's log density is NaN.
func (c *GroupConformal) Contains(theta, x *mat.Dense) []bool {
	return c.contains(theta, x, "Contains")
}

func (c *GroupConformal) contains(theta, x *mat.Dense, caller string) []bool {
	groups, err := groupOf(c.Partition, x)
	if err != nil {
		panic(err)
	}
	s := mustRegionScores(c.Estimator, theta, x, caller)
	in := make([]bool, len(s))
	for i, v := range s {
		in[i] = v <= c.Thresholds[groups[i]]
	}
	return in
}

// Coverage is the fraction of pairs (θᵢ, xᵢ) with θᵢ in C(xᵢ), over all groups. It panics as
// Contains does; GroupCoverage returns those errors.
func (c *GroupConformal) Coverage(theta, x *mat.Dense) float64 {
	return fractionTrue(c.contains(theta, x, "Coverage"))
}

// GroupCoverage is the coverage of the regions on test pairs in every group (see
// CoverageByGroup). A NaN log density of the estimator at a test pair, or an observation the
// partition puts outside its groups, is an error.
func (c *GroupConformal) GroupCoverage(theta, x *mat.Dense) (*GroupCoverageResult, error) {
	groups, err := groupOf(c.Partition, x)
	if err != nil {
		return nil, err
	}
	if r, _ := theta.Dims(); r != len(groups) {
		return nil, fmt.Errorf("calib: GroupCoverage: %d parameters but %d observations; want one per row", r, len(groups))
	}
	s := ConformalScores(c.Estimator, theta, x)
	if err := checkTestScores(s, "GroupCoverage"); err != nil {
		return nil, err
	}
	in := make([]bool, len(s))
	for i, v := range s {
		in[i] = v <= c.Thresholds[groups[i]]
	}
	return CoverageByGroup(in, x, c.Partition, 1-c.Alpha)
}

// MustGroupCoverage is GroupCoverage for notebook cells: it panics with the error.
func (c *GroupConformal) MustGroupCoverage(theta, x *mat.Dense) *GroupCoverageResult {
	r, err := c.GroupCoverage(theta, x)
	if err != nil {
		panic(err)
	}
	return r
}

// Region is the conformal region C(x) for one observation, with the threshold of its group.
// It panics as Threshold does.
func (c *GroupConformal) Region(x []float64) *Region {
	th := c.Threshold(x)
	return &Region{Posterior: c.Estimator.Posterior(x), Threshold: th}
}

// MIMEBundle shows the thresholds per group.
func (c *GroupConformal) MIMEBundle() map[string]any {
	t := &table.Table{Title: "Group-conditional conformal calibration (CANVI App. A, score −log q)",
		Header: []string{"group", "calibration pairs", "threshold τ on −log q", "guarantee: mean coverage over calibration sets", "this set's coverage (95% of sets)"}}
	for g, th := range c.Thresholds {
		band, set := "[0, 1]: too few pairs, region is the whole space", ""
		if lo, hi, calLo, calHi, ok := guaranteeBand(c.N[g], c.Alpha); ok && !math.IsInf(th, 1) {
			band, set = fmt.Sprintf("[%.4g, %.4g]", lo, hi), fmt.Sprintf("[%.3g, %.3g]", calLo, calHi)
		} else if ok {
			band = "1: zero density at too many pairs, region is the whole space"
		}
		t.Add(fmt.Sprint(g), fmt.Sprint(c.N[g]), table.G(th), band, set)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("target coverage %.4g within every group: on average over calibration sets and over x of the group (the upper end holds for continuous scores); one calibration set's coverage varies as the last column says", 1-c.Alpha))
	if c.Dropped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d calibration pairs dropped (non-finite)", c.Dropped))
	}
	return t.Bundle()
}

// GroupCoverageResult is the empirical coverage of a region map on test pairs, per group of a
// partition, with the binomial band of each group's count.
type GroupCoverageResult struct {
	Nominal  float64   // the coverage the regions claim, 1 − α
	N        []int     // test pairs per group
	Covered  []int     // of them, covered
	Coverage []float64 // Covered/N (NaN for an empty group)
	// Lower and Upper bound the central 99% binomial interval of the coverage of N pairs
	// around Nominal (normal approximation): a group outside it under-covers (Coverage <
	// Lower) or over-covers (Coverage > Upper) beyond test-set noise.
	Lower, Upper []float64
}

// CoverageByGroup is the coverage of any region map on test pairs (θᵢ, xᵢ), per group of the
// partition: in[i] says whether θᵢ lies in the region of xᵢ (Conformal.Contains,
// GroupConformal.Contains, …) and nominal is the coverage the regions claim. It compares a
// global calibration with a group-conditional one on the same test pairs and partition.
func CoverageByGroup(in []bool, x *mat.Dense, p Partition, nominal float64) (*GroupCoverageResult, error) {
	n, _ := x.Dims()
	if len(in) != n {
		return nil, fmt.Errorf("calib: %d coverage indicators for %d observations; want one per row of x", len(in), n)
	}
	if !(nominal > 0 && nominal < 1) {
		return nil, fmt.Errorf("calib: nominal coverage %g, want a value in (0, 1)", nominal)
	}
	groups, err := groupOf(p, x)
	if err != nil {
		return nil, err
	}
	k := p.Groups()
	r := &GroupCoverageResult{Nominal: nominal, N: make([]int, k), Covered: make([]int, k),
		Coverage: make([]float64, k), Lower: make([]float64, k), Upper: make([]float64, k)}
	for i, g := range groups {
		r.N[g]++
		if in[i] {
			r.Covered[g]++
		}
	}
	const z99 = 2.5758293035489004 // Φ⁻¹(0.995)
	for g := range k {
		if r.N[g] == 0 {
			r.Coverage[g], r.Lower[g], r.Upper[g] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		m := float64(r.N[g])
		r.Coverage[g] = float64(r.Covered[g]) / m
		half := z99 * math.Sqrt(nominal*(1-nominal)/m)
		r.Lower[g], r.Upper[g] = math.Max(0, nominal-half), math.Min(1, nominal+half)
	}
	return r, nil
}

// MustCoverageByGroup is CoverageByGroup for notebook cells: it panics with the error.
func MustCoverageByGroup(in []bool, x *mat.Dense, p Partition, nominal float64) *GroupCoverageResult {
	r, err := CoverageByGroup(in, x, p, nominal)
	if err != nil {
		panic(err)
	}
	return r
}

// MIMEBundle shows the coverage per group and whether it lies in its band.
func (r *GroupCoverageResult) MIMEBundle() map[string]any {
	t := &table.Table{Title: fmt.Sprintf("Coverage per group (nominal %.4g)", r.Nominal),
		Header: []string{"group", "test pairs", "coverage", "99% band at nominal", "verdict"}}
	for g := range r.N {
		verdict := "inconclusive: no test pairs"
		switch {
		case r.N[g] == 0:
		case r.Coverage[g] < r.Lower[g]:
			verdict = "under-covers"
		case r.Coverage[g] > r.Upper[g]:
			verdict = "over-covers"
		default:
			verdict = "within the band"
		}
		t.Add(fmt.Sprint(g), fmt.Sprint(r.N[g]), table.G(r.Coverage[g]), fmt.Sprintf("[%.4g, %.4g]", r.Lower[g], r.Upper[g]), verdict)
	}
	t.Notes = append(t.Notes, "band: central 99% of the binomial count of covered test pairs if the group's coverage were exactly nominal; it leaves out the calibration set's own noise")
	return t.Bundle()
}

func fractionTrue(in []bool) float64 {
	k := 0
	for _, v := range in {
		if v {
			k++
		}
	}
	return float64(k) / float64(len(in))
}

// KMeansConfig sets NewKMeansPartition.
type KMeansConfig struct {
	// Iterations bounds Lloyd's iterations after the k-means++ start; default 100.
	Iterations int
	// Balls makes the groups the balls around the centres of radius half the distance to the
	// nearest other centre (the authors' code for CANVI App. A), so that they are disjoint, and
	// adds a last group K for the observations outside every ball. Without it the groups are
	// the Voronoi cells of the centres (every observation in the group of its nearest centre).
	Balls bool
}

// KMeansPartition is a partition of the observation space from k-means centres (see
// NewKMeansPartition).
type KMeansPartition struct {
	Centres *mat.Dense // K×dim(x)
	Radius  []float64  // with Balls: the radius of each ball; nil otherwise
}

// NewKMeansPartition clusters the observations (one per row of x) into k groups with Lloyd's
// algorithm from a k-means++ start (Arthur and Vassilvitskii 2007), in the coordinates of x as
// given (standardize x first if its coordinates have different scales). Fit it to observations
// simulated apart from the calibration pairs: the per-group guarantee of GroupConformal needs a
// partition that does not depend on them.
func NewKMeansPartition(rng *rand.Rand, x *mat.Dense, k int, cfg KMeansConfig) (*KMeansPartition, error) {
	n, d := x.Dims()
	if k < 1 || n < k {
		return nil, fmt.Errorf("calib: k-means needs 1 ≤ k ≤ number of observations, got k = %d for %d observations", k, n)
	}
	for i := range n {
		if !pairs.AllFinite(x.RawRowView(i)) {
			return nil, fmt.Errorf("calib: observation %d has a NaN or infinite entry; drop it before clustering", i)
		}
	}
	if cfg.Iterations <= 0 {
		cfg.Iterations = 100
	}
	centres := kmeansPlusPlus(rng, x, k)
	assign := make([]int, n)
	for it := 0; it < cfg.Iterations; it++ {
		changed := false
		for i := range n {
			if g, _ := nearest(centres, x.RawRowView(i)); it == 0 || g != assign[i] {
				assign[i], changed = g, true
			}
		}
		if !changed {
			break
		}
		sums := mat.NewDense(k, d, nil)
		counts := make([]int, k)
		for i, g := range assign {
			counts[g]++
			row := sums.RawRowView(g)
			for j, v := range x.RawRowView(i) {
				row[j] += v
			}
		}
		for g := range k {
			if counts[g] == 0 { // an emptied cluster keeps its centre
				continue
			}
			row := centres.RawRowView(g)
			for j, v := range sums.RawRowView(g) {
				row[j] = v / float64(counts[g])
			}
		}
	}
	p := &KMeansPartition{Centres: centres}
	if cfg.Balls {
		if k < 2 {
			return nil, errors.New("calib: k-means balls need at least 2 centres (the radius is half the distance to the nearest other centre)")
		}
		p.Radius = make([]float64, k)
		for a := range k {
			best := math.Inf(1)
			for b := range k {
				if b != a {
					best = math.Min(best, math.Sqrt(sqDist(centres.RawRowView(a), centres.RawRowView(b))))
				}
			}
			p.Radius[a] = best / 2
		}
	}
	return p, nil
}

// MustNewKMeansPartition is NewKMeansPartition for notebook cells: it panics with the error.
func MustNewKMeansPartition(rng *rand.Rand, x *mat.Dense, k int, cfg KMeansConfig) *KMeansPartition {
	p, err := NewKMeansPartition(rng, x, k, cfg)
	if err != nil {
		panic(err)
	}
	return p
}

// Groups is K, or K+1 with balls (the last group holds the observations outside every ball).
func (p *KMeansPartition) Groups() int {
	k, _ := p.Centres.Dims()
	if p.Radius != nil {
		return k + 1
	}
	return k
}

// Group is the index of the nearest centre; with balls, K when x lies outside that centre's
// ball. An observation with NaN or ±Inf has no nearest centre: it is put in no group, −1,
// which GroupConformal and CoverageByGroup report as an error.
func (p *KMeansPartition) Group(x []float64) int {
	if !pairs.AllFinite(x) {
		return -1
	}
	g, d2 := nearest(p.Centres, x)
	if p.Radius != nil && !(d2 <= p.Radius[g]*p.Radius[g]) {
		k, _ := p.Centres.Dims()
		return k
	}
	return g
}

// MIMEBundle shows the centres.
func (p *KMeansPartition) MIMEBundle() map[string]any {
	t := &table.Table{Title: "k-means partition of the observations", Header: []string{"group", "centre", "radius"}}
	k, _ := p.Centres.Dims()
	for g := range k {
		r := "Voronoi cell"
		if p.Radius != nil {
			r = table.G(p.Radius[g])
		}
		t.Add(fmt.Sprint(g), fmt.Sprintf("%.4g", p.Centres.RawRowView(g)), r)
	}
	if p.Radius != nil {
		t.Add(fmt.Sprint(k), "outside every ball", "")
	}
	return t.Bundle()
}

// nearest returns the index of the row of centres nearest to x and the squared distance.
func nearest(centres *mat.Dense, x []float64) (int, float64) {
	k, _ := centres.Dims()
	best, bestD := 0, math.Inf(1)
	for g := range k {
		if d := sqDist(centres.RawRowView(g), x); d < bestD {
			best, bestD = g, d
		}
	}
	return best, bestD
}

// kmeansPlusPlus picks k starting centres: the first uniformly, each next one with probability
// proportional to the squared distance to the nearest centre chosen so far.
func kmeansPlusPlus(rng *rand.Rand, x *mat.Dense, k int) *mat.Dense {
	n, d := x.Dims()
	c := mat.NewDense(k, d, nil)
	c.SetRow(0, x.RawRowView(rng.IntN(n)))
	dist := make([]float64, n)
	for i := range n {
		dist[i] = sqDist(x.RawRowView(i), c.RawRowView(0))
	}
	for g := 1; g < k; g++ {
		var total float64
		for _, v := range dist {
			total += v
		}
		pick := rng.IntN(n)
		if total > 0 {
			u := rng.Float64() * total
			for i, v := range dist {
				u -= v
				if u < 0 {
					pick = i
					break
				}
			}
		}
		c.SetRow(g, x.RawRowView(pick))
		for i := range n {
			dist[i] = math.Min(dist[i], sqDist(x.RawRowView(i), c.RawRowView(g)))
		}
	}
	return c
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		t := a[i] - b[i]
		s += t * t
	}
	return s
}
