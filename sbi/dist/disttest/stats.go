package disttest

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi/dist"
)

// The importance sampler's proposal, in the unconstrained coordinates u of the Support box:
// the mixture (1−cauchyShare)·N(m, s²S) + cauchyShare·Cauchy(m, s²S), with m and S the mean
// and covariance of Sample's pilot draws in u and s = inflation. The Gaussian part covers the
// bulk of the density, the multivariate Cauchy part (t with one degree of freedom) its tails,
// so that the weights p/q stay bounded for any density with tails lighter than Cauchy's in u.
const (
	inflation   = 1.25
	cauchyShare = 0.1
	// proposalFactor is the number of proposal points per draw of Sample.
	proposalFactor = 4
	// minESS is the least effective sample size of the weights at which the statistical
	// checks decide; below it they say they are inconclusive.
	minESS = 200
	// maxPairs is the most pairs of coordinates the agrees check compares.
	maxPairs = 45
)

// probs are the probabilities at whose pilot quantiles the agrees check compares the
// distribution functions.
var probs = []float64{0.05, 0.2, 0.5, 0.8, 0.95}

// plan holds the draws and the weighted proposal points of the statistical checks.
type plan struct {
	d        dist.Distribution
	cfg      Config
	dim      int
	sm       dist.SupportMap
	mean, sd []float64  // of the pilot draws in u
	pilot    *mat.Dense // pilot draws in u, rows with every coordinate finite
	prop     *mat.Dense // proposal points in u
	logw     []float64  // log p_u/q at the proposal points: −Inf where p is 0 or θ(u) is on a bound
	draws    *mat.Dense // Sample's draws in u, for the comparison
	problems []string   // inconsistencies of LogProb and InSupport at the proposal points
	count    int        // number of problems, of which problems lists the first maxReports
}

// inconclusive marks an error that keeps the statistical checks from deciding.
var errInconclusive = errors.New("inconclusive")

func inconclusive(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInconclusive, fmt.Sprintf(format, args...))
}

// newPlan draws the pilot, builds the proposal, and draws and weighs its points.
func newPlan(d dist.Distribution, cfg Config) (p *plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("a method of the distribution panicked while the statistical checks drew and weighed their points: %v", r)
		}
	}()
	dim := d.Dim()
	low, high := d.Support()
	if len(low) != dim || len(high) != dim {
		return nil, inconclusive("Support() has %d and %d bounds, expected Dim = %d", len(low), len(high), dim)
	}
	for j := range low {
		if !(low[j] < high[j]) {
			return nil, inconclusive("Support(): low[%d] = %v, high[%d] = %v is no box to map the proposal onto", j, low[j], j, high[j])
		}
	}
	p = &plan{d: d, cfg: cfg, dim: dim, sm: dist.NewSupportMap(low, high)}
	if err := p.fitPilot(); err != nil {
		return nil, err
	}
	chol, err := p.proposalCholesky(p.pilotMoments())
	if err != nil {
		return nil, err
	}
	p.propose(chol)
	p.draws = p.toU(d.Sample(cfg.rng(streamCompare), cfg.Samples))
	return p, nil
}

// toU maps the rows of theta to u; a coordinate on a bound maps to ±Inf, one outside to NaN.
func (p *plan) toU(theta *mat.Dense) *mat.Dense {
	n, _ := theta.Dims()
	u := mat.NewDense(n, p.dim, nil)
	for i := range n {
		p.sm.Inverse(theta.RawRowView(i), u.RawRowView(i))
	}
	return u
}

// fitPilot draws the pilot and sets its mean in u.
func (p *plan) fitPilot() error {
	all := p.toU(p.d.Sample(p.cfg.rng(streamPilot), p.cfg.Samples))
	var rows []float64
	n := 0
	for i := range p.cfg.Samples {
		if row := all.RawRowView(i); finite(row) {
			rows = append(rows, row...)
			n++
		}
	}
	if n < p.cfg.Samples/2 {
		return inconclusive("only %d of %d draws of Sample lie strictly inside the Support box, too few to fit the proposal", n, p.cfg.Samples)
	}
	p.pilot = mat.NewDense(n, p.dim, rows)
	p.mean = make([]float64, p.dim)
	for i := range n {
		for j, v := range p.pilot.RawRowView(i) {
			p.mean[j] += v / float64(n)
		}
	}
	return nil
}

// pilotMoments sets the pilot's standard deviations in u and returns the proposal's
// covariance s²·S, S the pilot's covariance, both from one pass over the pilot.
func (p *plan) pilotMoments() *mat.SymDense {
	n, _ := p.pilot.Dims()
	p.sd = make([]float64, p.dim)
	cov := mat.NewSymDense(p.dim, nil)
	raw := cov.RawSymmetric()
	s, stride := raw.Data, raw.Stride // upper triangle: the sums of the products of deviations
	for i := range n {
		row := p.pilot.RawRowView(i)
		for a, v := range row {
			p.sd[a] += (v - p.mean[a]) * (v - p.mean[a]) / float64(n-1)
			for b := a; b < p.dim; b++ {
				s[a*stride+b] += (row[a] - p.mean[a]) * (row[b] - p.mean[b])
			}
		}
	}
	for j := range p.sd {
		p.sd[j] = math.Sqrt(p.sd[j])
	}
	for a := range p.dim {
		for b := a; b < p.dim; b++ {
			s[a*stride+b] = inflation * inflation * s[a*stride+b] / float64(n-1)
		}
	}
	return cov
}

// proposalCholesky returns the lower Cholesky factor of the proposal's covariance cov.
func (p *plan) proposalCholesky(cov *mat.SymDense) (*mat.TriDense, error) {
	var c mat.Cholesky
	if !c.Factorize(cov) {
		return nil, inconclusive("the covariance of Sample's draws in unconstrained coordinates is singular (standard deviations %v): the draws have no density on R^%d to compare LogProb with", p.sd, p.dim)
	}
	l := mat.NewTriDense(p.dim, mat.Lower, nil)
	c.LTo(l)
	return l, nil
}

// propose draws the proposal points, maps them to θ and weighs them by p_u/q, and records
// where LogProb and InSupport disagree.
func (p *plan) propose(l *mat.TriDense) {
	rng := p.cfg.rng(streamProposal)
	n := proposalFactor * p.cfg.Samples
	p.prop = mat.NewDense(n, p.dim, nil)
	theta := mat.NewDense(n, p.dim, nil)
	logq := make([]float64, n)
	var logDet float64
	for j := range p.dim {
		logDet += math.Log(l.At(j, j))
	}
	d := float64(p.dim)
	lgHalf, _ := math.Lgamma((1 + d) / 2)
	logNorm := -d/2*math.Log(2*math.Pi) - logDet
	logCauchy := lgHalf - 0.5*math.Log(math.Pi) - d/2*math.Log(math.Pi) - logDet // Γ(1/2) = √π
	z := make([]float64, p.dim)
	for i := range n {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		if rng.Float64() < cauchyShare {
			g := 0.0
			for g == 0 {
				g = math.Abs(rng.NormFloat64())
			}
			for j := range z {
				z[j] /= g
			}
		}
		var r2 float64
		u := p.prop.RawRowView(i)
		for j := range u {
			r2 += z[j] * z[j]
			u[j] = p.mean[j]
			for k := 0; k <= j; k++ {
				u[j] += l.At(j, k) * z[k]
			}
		}
		logq[i] = logSumExp(math.Log(1-cauchyShare)+logNorm-r2/2, math.Log(cauchyShare)+logCauchy-(1+d)/2*math.Log1p(r2))
		p.sm.Forward(u, theta.RawRowView(i))
	}
	lp := p.d.LogProb(theta)
	p.logw = make([]float64, n)
	for i := range n {
		p.logw[i] = math.Inf(-1)
		u, th := p.prop.RawRowView(i), theta.RawRowView(i)
		inside := p.strictlyInside(th)
		switch v := lp[i]; {
		case math.IsNaN(v):
			p.problem("LogProb(%v) is NaN, expected a log density or −Inf", th)
		case inside && math.IsInf(v, 1):
			p.problem("LogProb(%v) is +Inf inside the Support box: the density cannot be integrated", th)
		case inside && !math.IsInf(v, -1):
			p.logw[i] = v + p.sm.LogAbsDetJacobian(u) - logq[i]
		}
		if i < consistencyPoints && !math.IsInf(lp[i], -1) && !math.IsNaN(lp[i]) && !p.d.InSupport(th) {
			p.problem("LogProb(%v) = %v, but InSupport is false: expected −Inf outside the support", th, lp[i])
		}
	}
}

// consistencyPoints is the number of proposal points at which InSupport is compared with
// LogProb.
const consistencyPoints = 2000

func (p *plan) problem(format string, args ...any) {
	p.count++
	if len(p.problems) < maxReports {
		p.problems = append(p.problems, fmt.Sprintf(format, args...))
	}
}

// strictlyInside reports whether θ lies in the open Support box: its image of a finite u,
// unless rounding put it on a bound.
func (p *plan) strictlyInside(theta []float64) bool {
	for j, v := range theta {
		if !(v > p.sm.Low[j] && v < p.sm.High[j]) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func logSumExp(a, b float64) float64 {
	m := math.Max(a, b)
	if math.IsInf(m, -1) {
		return m
	}
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func (p *plan) checkConsistent(tb reporter, err error) {
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range p.problems {
		tb.Error(s)
	}
	if p.count > len(p.problems) {
		tb.Errorf("… and %d more inconsistencies at the proposal points (%d in all)", p.count-len(p.problems), p.count)
	}
}

// weights returns the importance weights scaled by e^{−top}, top the largest log weight
// (−Inf when every weight is 0), and their effective sample size.
func (p *plan) weights() (w []float64, top, ess float64) {
	top = math.Inf(-1)
	for _, v := range p.logw {
		top = math.Max(top, v)
	}
	w = make([]float64, len(p.logw))
	if math.IsInf(top, -1) {
		return w, top, 0
	}
	var sum, sum2 float64
	for i, v := range p.logw {
		w[i] = math.Exp(v - top)
		sum += w[i]
		sum2 += w[i] * w[i]
	}
	return w, top, sum * sum / sum2
}

// decidable returns an error unless the weights are even enough for the normal approximation.
func (p *plan) decidable(top, ess float64) error {
	if math.IsInf(top, -1) {
		return fmt.Errorf("LogProb is −Inf (or the point is on a bound) at every one of the %d proposal points around Sample's draws: the density is 0 where Sample draws", len(p.logw))
	}
	if ess < minESS {
		return inconclusive("the importance weights of the %d proposal points have an effective sample size of %.0f, below %d: the proposal, fitted to Sample's draws, does not match exp(LogProb) well enough to decide (a density far from Sample's draws, or a very peaked or high-dimensional one: raise Config.Samples)", len(p.logw), ess, minESS)
	}
	return nil
}

// checkNormalized estimates ∫exp(LogProb) = E_q[p/q] by the mean of the weights and fails
// when it is further from 1 than the normal quantile of 1 − Level/2 times its standard error.
func (p *plan) checkNormalized(tb reporter, err error) {
	if err != nil {
		tb.Fatal(err)
	}
	w, top, ess := p.weights()
	if err := p.decidable(top, ess); err != nil {
		tb.Fatal(err)
	}
	n := float64(len(w))
	var mean, v float64
	for _, x := range w {
		mean += x / n
	}
	for _, x := range w {
		v += (x - mean) * (x - mean) / (n - 1)
	}
	z, se := math.Exp(top)*mean, math.Exp(top)*math.Sqrt(v/n)
	crit := distuv.UnitNormal.Quantile(1 - p.cfg.Level/2)
	tb.Logf("∫exp(LogProb) = %.4f ± %.4f (effective sample size %.0f of %d)", z, se, ess, len(w))
	if math.Abs(z-1) > crit*se {
		tb.Errorf("exp(LogProb) integrates to %.4g ± %.2g (log %.4g), expected 1 within %.1f Monte Carlo standard errors (level %g, effective sample size %.0f): is a normalizing constant or a log-Jacobian missing? (Config.Unnormalized says LogProb is known only up to a constant)",
			z, se, top+math.Log(mean), crit, p.cfg.Level, ess)
	}
}

// projection is a function of u whose distribution the agrees check compares: coordinate j
// (k < 0), or z_j + sign·z_k with z the pilot-standardized u.
type projection struct {
	j, k int
	sign float64
}

func (p *plan) value(pr projection, u []float64) float64 {
	if pr.k < 0 {
		return u[pr.j]
	}
	return (u[pr.j]-p.mean[pr.j])/p.sd[pr.j] + pr.sign*(u[pr.k]-p.mean[pr.k])/p.sd[pr.k]
}

// describe says what P(projection ≤ t) is, in θ for a coordinate.
func (p *plan) describe(pr projection, t float64) string {
	if pr.k < 0 {
		one := dist.SupportMap{Low: p.sm.Low[pr.j : pr.j+1], High: p.sm.High[pr.j : pr.j+1]}
		th := []float64{0}
		one.Forward([]float64{t}, th)
		return fmt.Sprintf("P(θ[%d] ≤ %.5g)", pr.j, th[0])
	}
	op := "+"
	if pr.sign < 0 {
		op = "−"
	}
	return fmt.Sprintf("P(z[%d] %s z[%d] ≤ %.4g) (z the standardized unconstrained coordinates)", pr.j, op, pr.k, t)
}

// projections are the coordinates and, for each of up to maxPairs pairs of coordinates (all
// when there are that few, a random choice otherwise), their standardized sum and difference.
func (p *plan) projections() []projection {
	var out []projection
	for j := range p.dim {
		out = append(out, projection{j: j, k: -1})
	}
	var pairs [][2]int
	for j := range p.dim {
		for k := j + 1; k < p.dim; k++ {
			pairs = append(pairs, [2]int{j, k})
		}
	}
	if len(pairs) > maxPairs {
		rng := p.cfg.rng(streamPairs)
		rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
		pairs = pairs[:maxPairs]
	}
	for _, pr := range pairs {
		out = append(out, projection{j: pr[0], k: pr[1], sign: 1}, projection{j: pr[0], k: pr[1], sign: -1})
	}
	return out
}

// comparison is one probability from Sample's draws and from the weighted proposal.
type comparison struct {
	what           string
	sample, weight float64
	se, z          float64
}

// checkAgrees compares, for every projection and at its pilot quantiles of probs, the share
// of Sample's draws below the threshold with the mass of exp(LogProb) below it (self-
// normalized importance sampling), each with its standard error: the binomial one of the
// draws, the delta method's of the weighted share. A comparison fails when the difference
// exceeds the normal quantile of 1 − Level/(2K) times the combined standard error, K the
// number of comparisons (Bonferroni), so that a correct distribution fails the check with
// probability at most Level.
func (p *plan) checkAgrees(tb reporter, err error) {
	if err != nil {
		tb.Fatal(err)
	}
	w, top, ess := p.weights()
	if err := p.decidable(top, ess); err != nil {
		tb.Fatal(err)
	}
	var all []comparison
	for _, pr := range p.projections() {
		all = append(all, p.compare(pr, w, ess)...)
	}
	crit := distuv.UnitNormal.Quantile(1 - p.cfg.Level/(2*float64(len(all))))
	var bad []comparison
	worst := 0.0
	for _, c := range all {
		worst = math.Max(worst, math.Abs(c.z))
		if math.Abs(c.z) > crit {
			bad = append(bad, c)
		}
	}
	tb.Logf("largest difference %.2f standard errors over %d comparisons, limit %.2f (effective sample size %.0f of %d)", worst, len(all), crit, ess, len(w))
	if len(bad) == 0 {
		return
	}
	sort.Slice(bad, func(a, b int) bool { return math.Abs(bad[a].z) > math.Abs(bad[b].z) })
	var b strings.Builder
	fmt.Fprintf(&b, "Sample's draws do not follow exp(LogProb): %d of %d comparisons differ by more than %.1f standard errors (level %g, effective sample size %.0f):", len(bad), len(all), crit, p.cfg.Level, ess)
	for _, c := range bad[:min(len(bad), maxReports)] {
		fmt.Fprintf(&b, "\n\t%s = %.4f from Sample, %.4f from LogProb (%.1f standard errors of %.2g)", c.what, c.sample, c.weight, c.z, c.se)
	}
	tb.Error(b.String())
}

// compare returns the comparisons of one projection at the pilot quantiles of probs.
func (p *plan) compare(pr projection, w []float64, ess float64) []comparison {
	ts := p.thresholds(pr)
	// Counts of the draws, and sums of the weights and squared weights of the proposal
	// points, by the first threshold a value is at or below (len(ts): above all, or NaN).
	cnt := make([]float64, len(ts)+1)
	w1, w2 := make([]float64, len(ts)+1), make([]float64, len(ts)+1)
	ns, _ := p.draws.Dims()
	for i := range ns {
		cnt[bin(ts, p.value(pr, p.draws.RawRowView(i)))]++
	}
	var sum, sum2 float64
	for i, wi := range w {
		if wi > 0 {
			b := bin(ts, p.value(pr, p.prop.RawRowView(i)))
			w1[b] += wi
			w2[b] += wi * wi
			sum += wi
			sum2 += wi * wi
		}
	}
	out := make([]comparison, len(ts))
	var below, wBelow, w2Below float64
	for k, t := range ts {
		below, wBelow, w2Below = below+cnt[k], wBelow+w1[k], w2Below+w2[k]
		fs, fq := below/float64(ns), wBelow/sum
		// The delta method's variance of the weighted share, Σw²(1{v ≤ t} − fq)²/(Σw)².
		vq := ((1-fq)*(1-fq)*w2Below + fq*fq*(sum2-w2Below)) / (sum * sum)
		// The draws' binomial variance at the pooled share, the best estimate of the
		// common probability under the hypothesis that both describe one distribution.
		pooled := (float64(ns)*fs + ess*fq) / (float64(ns) + ess)
		se := math.Sqrt(pooled*(1-pooled)/float64(ns) + vq)
		c := comparison{what: p.describe(pr, t), sample: fs, weight: fq, se: se}
		switch {
		case se > 0:
			c.z = (fs - fq) / se
		case fs != fq:
			c.z = math.Inf(1)
		}
		out[k] = c
	}
	return out
}

// thresholdPilot is the number of pilot draws whose quantiles are the thresholds.
const thresholdPilot = 1000

// thresholds returns the distinct quantiles of probs of the projection over the first
// thresholdPilot pilot draws, in increasing order.
func (p *plan) thresholds(pr projection) []float64 {
	n, _ := p.pilot.Dims()
	n = min(n, thresholdPilot)
	pv := make([]float64, n)
	for i := range n {
		pv[i] = p.value(pr, p.pilot.RawRowView(i))
	}
	sort.Float64s(pv)
	var ts []float64
	for _, q := range probs {
		if t := pv[int(q*float64(n-1))]; len(ts) == 0 || t > ts[len(ts)-1] {
			ts = append(ts, t)
		}
	}
	return ts
}

// bin returns the index of the first threshold at or above v, len(ts) if none (or v is NaN).
func bin(ts []float64, v float64) int {
	for k, t := range ts {
		if v <= t {
			return k
		}
	}
	return len(ts)
}
