package disttest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// Config sets the suite's seed, sample sizes and level. Zero fields take the defaults.
type Config struct {
	// Seed seeds every draw of the suite, so that a run can be repeated exactly; 0 means 1.
	Seed uint64
	// Samples is the number of draws from Sample that the statistical checks compare with
	// LogProb (the proposal of the importance sampler gets 4·Samples points); 0 means
	// DefaultSamples. It must be at least 500, for the normal approximations, and
	// 4·Samples·Dim at most MaxValues.
	Samples int
	// Level is the false-alarm rate of each statistical check (normalized, agrees): a correct
	// distribution fails it with at most about this probability (the package documentation
	// says how it is measured); 0 means DefaultLevel.
	Level float64
	// Unnormalized says that LogProb is a log density only up to an additive constant (a
	// truncated prior that is not renormalized, say); the normalized check is left out.
	Unnormalized bool
}

// Defaults and limits of Config.
const (
	// DefaultSamples is the default number of draws the statistical checks compare.
	DefaultSamples = 5000
	// DefaultLevel is the default false-alarm rate of each statistical check.
	DefaultLevel = 1e-4
	// MaxValues bounds the proposal's size, 4·Samples·Dim values (32 MiB per copy).
	MaxValues = 1 << 22
)

func (c Config) withDefaults(dim int) (Config, error) {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Samples == 0 {
		c.Samples = DefaultSamples
	}
	if c.Level == 0 {
		c.Level = DefaultLevel
	}
	switch {
	case c.Samples < minSamples:
		return c, fmt.Errorf("disttest: Config.Samples = %d, expected at least %d (or 0 for %d)", c.Samples, minSamples, DefaultSamples)
	case dim > 0 && c.Samples > MaxValues/4/dim:
		return c, fmt.Errorf("disttest: Config.Samples = %d with Dim %d makes a proposal of more than MaxValues = %d values: use at most %d samples", c.Samples, dim, MaxValues, MaxValues/4/dim)
	case !(c.Level > 0 && c.Level < 1):
		return c, fmt.Errorf("disttest: Config.Level = %v, expected a false-alarm rate in (0, 1) (or 0 for %g)", c.Level, DefaultLevel)
	}
	return c, nil
}

// minSamples is the fewest draws the normal approximations of the statistical checks allow.
const minSamples = 500

// TestDistribution runs the conformance suite on d. Each check is a subtest:
//
//   - shape: Dim is at least 1; Support returns Dim bounds on each side, none NaN, each low
//     below its high; Sample(rng, n) is n×Dim and LogProb of it has n values;
//   - reproducible: Sample gives the same draws for the same seed and different draws for
//     another (it draws from the rng it is given, and from nothing else);
//   - draws: every draw lies in the Support box and InSupport, with a finite LogProb;
//   - outside: a point beyond a finite bound of the Support box, or holding NaN or ±Inf, is not
//     InSupport and has LogProb −Inf;
//   - width: LogProb panics on rows of another width than Dim, as the interface says, and
//     InSupport reports false for a point of another length;
//   - batch: LogProb of a batch is that of each row alone, also on a view into a wider matrix,
//     and leaves its argument unchanged;
//   - consistent: at the first 2000 of the importance sampler's proposal points, which cover
//     the Support box,
//     LogProb is never NaN nor +Inf and is −Inf wherever InSupport is false;
//   - normalized: exp(LogProb) integrates to 1 (left out when cfg.Unnormalized);
//   - agrees: Sample's draws follow the density exp(LogProb), marginally and in pairs of
//     coordinates.
//
// The package documentation says how the last two decide, at what level and with what power.
func TestDistribution(t *testing.T, d dist.Distribution, cfg Config) {
	t.Helper()
	cfg, err := cfg.withDefaults(d.Dim())
	if err != nil {
		t.Fatal(err)
	}
	if !t.Run("shape", func(t *testing.T) { guarded(t, func(tb reporter) { checkShape(tb, d, cfg) }) }) {
		t.Fatal("the shapes are wrong; the other checks need Dim, Sample, LogProb and Support to agree")
	}
	for _, c := range checks(d, cfg) {
		t.Run(c.name, func(t *testing.T) { guarded(t, c.run) })
	}
}

// guarded runs a check and reports a panic of the distribution's methods as its failure.
func guarded(tb reporter, run func(tb reporter)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				tb.Errorf("a method of the distribution panicked: %v", r)
			}
		}
	}()
	run(tb)
}

// reporter is what the checks need of a testing.TB; Check's recorder implements it too.
type reporter interface {
	Helper()
	Logf(format string, args ...any)
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Failure is what one check of the suite found.
type Failure struct {
	// Check is the name of the check, as TestDistribution names its subtest.
	Check string
	// Reports are the check's messages, one per problem.
	Reports []string
}

func (f Failure) String() string { return f.Check + ": " + strings.Join(f.Reports, "; ") }

// Check runs the checks of TestDistribution on d outside a test (in a notebook, say) and
// returns the failures, in the order of the checks; none when d passes. A failed shape check
// ends the run, as in TestDistribution.
func Check(d dist.Distribution, cfg Config) []Failure {
	cfg, err := cfg.withDefaults(d.Dim())
	if err != nil {
		return []Failure{{Check: "config", Reports: []string{err.Error()}}}
	}
	var out []Failure
	record := func(name string, run func(tb reporter)) bool {
		r := &recorder{}
		guarded(r, run)
		if len(r.reports) > 0 {
			out = append(out, Failure{Check: name, Reports: r.reports})
		}
		return len(r.reports) == 0
	}
	if !record("shape", func(tb reporter) { checkShape(tb, d, cfg) }) {
		return out
	}
	for _, c := range checks(d, cfg) {
		record(c.name, c.run)
	}
	return out
}

// recorder keeps the reports of a check; Fatal stops the check with a stop panic, which
// guarded recovers.
type recorder struct{ reports []string }

type stop struct{}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Error(a ...any)            { r.reports = append(r.reports, fmt.Sprint(a...)) }
func (r *recorder) Errorf(f string, a ...any) { r.reports = append(r.reports, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.Error(a...); panic(stop{}) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); panic(stop{}) }

// check is one subtest of the suite.
type check struct {
	name string
	run  func(tb reporter)
}

// checks returns the suite's checks after shape, in order. The statistical checks share one
// plan, built when the first of them runs: the others need none.
func checks(d dist.Distribution, cfg Config) []check {
	plan := sync.OnceValues(func() (*plan, error) { return newPlan(d, cfg) })
	cs := []check{
		{"reproducible", func(tb reporter) { checkReproducible(tb, d, cfg) }},
		{"draws", func(tb reporter) { checkDraws(tb, d, cfg) }},
		{"outside", func(tb reporter) { checkOutside(tb, d, cfg) }},
		{"width", func(tb reporter) { checkWidth(tb, d, cfg) }},
		{"batch", func(tb reporter) { checkBatch(tb, d, cfg) }},
		{"consistent", func(tb reporter) { p, err := plan(); p.checkConsistent(tb, err) }},
	}
	if !cfg.Unnormalized {
		cs = append(cs, check{"normalized", func(tb reporter) { p, err := plan(); p.checkNormalized(tb, err) }})
	}
	return append(cs, check{"agrees", func(tb reporter) { p, err := plan(); p.checkAgrees(tb, err) }})
}

// rng returns the suite's generator for one of its streams.
func (c Config) rng(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(c.Seed, stream)) }

// Streams of the suite's draws, one per use.
const (
	streamShape = iota + 1
	streamRepeat
	streamOther
	streamDraws
	streamPilot
	streamCompare
	streamProposal
	streamPairs
)

// maxReports is how many offending points a check lists before it only counts them.
const maxReports = 5

// lister lists the first maxReports failures of one kind and counts the rest.
type lister struct {
	tb    reporter
	count int
}

func (r *lister) errorf(format string, args ...any) {
	r.count++
	if r.count <= maxReports {
		r.tb.Errorf(format, args...)
	}
}

func (r *lister) done(what string) {
	if r.count > maxReports {
		r.tb.Errorf("… and %d more %s (%d in all)", r.count-maxReports, what, r.count)
	}
}

// try runs f and reports a panic as an error that says what was called; it returns false
// after a panic.
func try(tb reporter, what string, f func()) (ok bool) {
	tb.Helper()
	defer func() {
		if r := recover(); r != nil {
			tb.Errorf("%s panicked: %v", what, r)
			ok = false
		}
	}()
	f()
	return true
}

func checkShape(tb reporter, d dist.Distribution, cfg Config) {
	dim := d.Dim()
	if dim < 1 {
		tb.Fatalf("Dim() = %d, expected at least 1 coordinate", dim)
	}
	low, high := d.Support()
	if len(low) != dim || len(high) != dim {
		tb.Fatalf("Support() returned %d low and %d high bounds, expected Dim = %d of each", len(low), len(high), dim)
	}
	for j := range low {
		if !(low[j] < high[j]) {
			tb.Errorf("Support(): low[%d] = %v, high[%d] = %v, expected low < high (±Inf where unbounded, never NaN)", j, low[j], j, high[j])
		}
	}
	for _, n := range []int{1, 7} {
		var x *mat.Dense
		if !try(tb, fmt.Sprintf("Sample(rng, %d)", n), func() { x = d.Sample(cfg.rng(streamShape), n) }) {
			continue
		}
		if r, c := x.Dims(); r != n || c != dim {
			tb.Errorf("Sample(rng, %d) is %d×%d, expected %d×%d (n×Dim)", n, r, c, n, dim)
			continue
		}
		var lp []float64
		if try(tb, fmt.Sprintf("LogProb of %d draws", n), func() { lp = d.LogProb(x) }) && len(lp) != n {
			tb.Errorf("LogProb of %d rows returned %d values, expected one per row", n, len(lp))
		}
	}
}

func checkReproducible(tb reporter, d dist.Distribution, cfg Config) {
	const n = 50
	a := d.Sample(cfg.rng(streamRepeat), n)
	b := d.Sample(cfg.rng(streamRepeat), n)
	if !mat.Equal(a, b) {
		tb.Errorf("two calls of Sample with the same seed gave different draws: Sample must draw from its rng only")
	}
	if c := d.Sample(cfg.rng(streamOther), n); mat.Equal(a, c) {
		tb.Errorf("Sample gave the same %d draws for two different seeds: it does not draw from its rng", n)
	}
}

// drawCount is the number of draws the draws, outside and batch checks look at.
const drawCount = 1000

func checkDraws(tb reporter, d dist.Distribution, cfg Config) {
	low, high := d.Support()
	x := d.Sample(cfg.rng(streamDraws), drawCount)
	lp := d.LogProb(x)
	box, in, fin := &lister{tb: tb}, &lister{tb: tb}, &lister{tb: tb}
	for i := range drawCount {
		row := x.RawRowView(i)
		for j, v := range row {
			if !(v >= low[j] && v <= high[j]) {
				box.errorf("draw %d = %v: coordinate %d = %v lies outside the Support box [%v, %v]", i, row, j, v, low[j], high[j])
				break
			}
		}
		if !d.InSupport(row) {
			in.errorf("draw %d = %v: InSupport is false", i, row)
		}
		if math.IsNaN(lp[i]) || math.IsInf(lp[i], 0) {
			fin.errorf("draw %d = %v: LogProb = %v, expected a finite log density where Sample draws", i, row, lp[i])
		}
	}
	box.done("draws outside the Support box")
	in.done("draws not InSupport")
	fin.done("draws with a LogProb that is not finite")
}

// outsidePoints returns points outside the support, built from a draw: for every coordinate,
// the draw moved beyond each finite bound of the Support box (by 10⁻⁶ and by 1 relative to
// the bound), and the draw with NaN, +Inf or −Inf in that coordinate.
func outsidePoints(d dist.Distribution, cfg Config) [][]float64 {
	low, high := d.Support()
	base := d.Sample(cfg.rng(streamDraws), 1).RawRowView(0)
	var pts [][]float64
	with := func(j int, v float64) {
		p := append([]float64(nil), base...)
		p[j] = v
		pts = append(pts, p)
	}
	for j := range base {
		for _, rel := range []float64{1e-6, 1} {
			if lo := low[j]; !math.IsInf(lo, 0) {
				with(j, lo-rel*math.Max(1, math.Abs(lo)))
			}
			if hi := high[j]; !math.IsInf(hi, 0) {
				with(j, hi+rel*math.Max(1, math.Abs(hi)))
			}
		}
		with(j, math.NaN())
		with(j, math.Inf(1))
		with(j, math.Inf(-1))
	}
	return pts
}

func checkOutside(tb reporter, d dist.Distribution, cfg Config) {
	in, lp := &lister{tb: tb}, &lister{tb: tb}
	for _, p := range outsidePoints(d, cfg) {
		var inside bool
		if try(tb, fmt.Sprintf("InSupport(%v)", p), func() { inside = d.InSupport(p) }) && inside {
			in.errorf("InSupport(%v) is true, expected false: the point lies outside the Support box or is not finite", p)
		}
		var v []float64
		if try(tb, fmt.Sprintf("LogProb of %v", p), func() { v = d.LogProb(mat.NewDense(1, len(p), p)) }) && !math.IsInf(v[0], -1) {
			lp.errorf("LogProb(%v) = %v, expected −Inf outside the support", p, v[0])
		}
	}
	in.done("points outside the support InSupport")
	lp.done("points outside the support with a LogProb above −Inf")
}

func checkWidth(tb reporter, d dist.Distribution, cfg Config) {
	dim := d.Dim()
	base := d.Sample(cfg.rng(streamDraws), 1).RawRowView(0)
	widths := []int{dim + 1}
	if dim > 1 {
		widths = append(widths, dim-1)
	}
	for _, w := range widths {
		row := make([]float64, w)
		copy(row, base)
		if !panics(func() { d.LogProb(mat.NewDense(2, w, append(append([]float64(nil), row...), row...))) }) {
			tb.Errorf("LogProb of rows of %d values did not panic, expected a panic for any width but Dim = %d", w, dim)
		}
		var inside bool
		if try(tb, fmt.Sprintf("InSupport of a point of %d values", w), func() { inside = d.InSupport(row) }) && inside {
			tb.Errorf("InSupport(%v) is true for a point of %d values, expected false (Dim = %d)", row, w, dim)
		}
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

// batchTolerance is how far LogProb of a row in a batch may differ from LogProb of the row
// alone: rounding of a computation that depends on the batching.
func batchTolerance(v float64) float64 { return 1e-9 * math.Max(1, math.Abs(v)) }

func checkBatch(tb reporter, d dist.Distribution, cfg Config) {
	dim := d.Dim()
	x := d.Sample(cfg.rng(streamDraws), 20)
	for _, p := range outsidePoints(d, cfg)[:3] {
		x = stack(x, p)
	}
	n, _ := x.Dims()
	orig := mat.DenseCopyOf(x)
	batch := d.LogProb(x)
	if !sameValues(x, orig) {
		tb.Errorf("LogProb changed its argument")
	}
	wide := mat.NewDense(n, dim+2, nil)
	view := wide.Slice(0, n, 1, dim+1).(*mat.Dense)
	view.Copy(orig)
	onView := d.LogProb(view)
	rep := &lister{tb: tb}
	for i := range n {
		alone := d.LogProb(mat.NewDense(1, dim, append([]float64(nil), orig.RawRowView(i)...)))[0]
		if !sameLogProb(batch[i], alone) {
			rep.errorf("row %d = %v: LogProb %v in a batch of %d, %v alone", i, orig.RawRowView(i), batch[i], n, alone)
		}
		if !sameLogProb(onView[i], alone) {
			rep.errorf("row %d = %v: LogProb %v on a view into a wider matrix (stride %d), %v alone", i, orig.RawRowView(i), onView[i], dim+2, alone)
		}
	}
	rep.done("rows whose LogProb depends on the batch")
}

// sameLogProb reports whether a and b agree within batchTolerance (equal infinities agree).
func sameLogProb(a, b float64) bool {
	return a == b || math.Abs(a-b) <= batchTolerance(b)
}

// sameValues reports whether a and b hold the same values, NaN where the other has NaN.
func sameValues(a, b *mat.Dense) bool {
	return mat.EqualApprox(a, b, 0) || equalNaN(a, b)
}

func equalNaN(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			x, y := a.At(i, j), b.At(i, j)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				return false
			}
		}
	}
	return true
}

// stack returns x with the row p appended.
func stack(x *mat.Dense, p []float64) *mat.Dense {
	n, c := x.Dims()
	out := mat.NewDense(n+1, c, nil)
	out.Slice(0, n, 0, c).(*mat.Dense).Copy(x)
	out.SetRow(n, p)
	return out
}
