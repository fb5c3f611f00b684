package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// SimFunc simulates one data vector for one parameter vector. It must draw all its randomness
// from rng and must not keep theta or the returned slice. It may return nil (or a vector holding
// NaN or ±Inf) to mark a failed simulation, which Simulate drops and counts. SimulateAligned
// drops nothing: for its callers, such as diag's predictive checks, NaN in some values is
// padding (a data set of fewer trials) and a failure is nil, ±Inf or no finite value. A SimFunc
// may be defined in a notebook cell: the runner calls it from several goroutines at once, each
// with its own rng.
type SimFunc func(rng *rand.Rand, theta []float64) []float64

// Simulator is a compiled simulator that fills a batch (the benchmark tasks implement it).
type Simulator interface {
	// DataDim is the length of one simulated data vector.
	DataDim() int
	// SimulateBatch writes into row i of x the simulation for row i of theta, drawing all its
	// randomness from rng. It writes NaN into a row whose simulation failed.
	SimulateBatch(rng *rand.Rand, theta, x *mat.Dense)
}

// Simulation is the result of a simulation run with the failed rows removed.
type Simulation struct {
	Theta   *mat.Dense // the parameter rows whose simulation succeeded, in input order
	X       *mat.Dense // the simulated data, row i for Theta row i
	Kept    []int      // Kept[i] is the input row of Theta row i
	Dropped int        // rows whose output held NaN or ±Inf (or was nil) and were removed
}

// ChunkRows is the number of rows a batch Simulator receives per call, each chunk with its own
// random stream. It is fixed so that results do not depend on the number of cores.
const ChunkRows = 64

// Simulate runs f on every row of theta in parallel on all cores (GOMAXPROCS goroutines).
// Row i draws from its own random stream, derived from two numbers drawn from rng and from i,
// so the result is the same whatever the number of cores. It reports progress through
// NewProgress("simulate", n) and drops rows whose output is nil or holds NaN/±Inf (counted in
// Dropped). A row on which f panics, or whose output has another length than that of the first
// row that gave data (the rule of FuncSimulator, which panics there), is not dropped: the other
// rows are simulated, and Simulate returns a nil *Simulation and a *PartialSimulationError that
// names the row, its θ and the panic or the lengths, lists the rows that failed so in Panicked
// and keeps the others (see its Done and Resume). When the host's context is cancelled it
// returns such an error too, keeping the simulations that finished.
func Simulate(rng *rand.Rand, f SimFunc, theta *mat.Dense) (*Simulation, error) {
	return SimulateContext(runenv.Context(), rng, f, theta)
}

// MustSimulate is Simulate for notebook cells: it panics with Simulate's error. An interrupt
// then loses the finished simulations: for a long run use Simulate, whose
// *PartialSimulationError keeps them.
func MustSimulate(rng *rand.Rand, f SimFunc, theta *mat.Dense) *Simulation {
	return safe.Must(Simulate(rng, f, theta))
}

// SimulateContext is Simulate stopped by ctx instead of the host's context. When ctx is done
// before every row was simulated it returns a nil *Simulation and a *PartialSimulationError
// that keeps the rows that finished (see its Done and Resume).
func SimulateContext(ctx context.Context, rng *rand.Rand, f SimFunc, theta *mat.Dense) (*Simulation, error) {
	x, err := simulateRows(ctx, rng, f, theta, false)
	if err != nil {
		return nil, err
	}
	return dropInvalid(theta, x, true)
}

// SimulateAligned is Simulate without dropping: row i of the result is the simulation of row i
// of theta as f returned it, NaN and ±Inf included, or NaN throughout where f returned nil. It
// is for data whose NaN marks padding rather than failure, as diag.PredictiveFromSimulations
// reads it (Simulate drops every row holding a NaN). It returns an error when every row
// returned nil, and Simulate's errors otherwise; when the host's context is cancelled, a
// *PartialSimulationError whose Done and Resume keep the rows holding NaN in place, as this
// function does (and as SimulateBatchAligned's do).
func SimulateAligned(rng *rand.Rand, f SimFunc, theta *mat.Dense) (*mat.Dense, error) {
	return simulateRows(runenv.Context(), rng, f, theta, true)
}

// simulateRows runs f on every row of theta (see Simulate) and returns the n×dim output, row i
// for row i of theta, NaN where f returned nil. An interrupt's *PartialSimulationError keeps
// rows holding NaN in place when aligned, and drops them as Simulate does otherwise.
func simulateRows(ctx context.Context, rng *rand.Rand, f SimFunc, theta *mat.Dense, aligned bool) (*mat.Dense, error) {
	if f == nil {
		return nil, fmt.Errorf("simulate: the simulator function is nil")
	}
	n, _ := theta.Dims()
	seeds := newStreams(rng)
	if n == 0 {
		return nil, fmt.Errorf("simulate: theta has no rows, expected at least one parameter vector")
	}
	e := &PartialSimulationError{Total: n, f: f, theta: theta, ownX: true, seeds: seeds,
		chunkDone: make([]bool, (n+ChunkRows-1)/ChunkRows), aligned: aligned}
	if err := e.run(ctx, nil); err != nil {
		return nil, err
	}
	return e.x, nil
}

// probe runs Simulate's rows in order from e.probed on until one returns a non-nil vector,
// whose length sets the width of the output it then allocates. It returns e when ctx stops
// it, an error when every row failed.
func (e *PartialSimulationError) probe(ctx context.Context) error {
	src := &rand.PCG{}
	r := rand.New(src)
	for ; e.probed < e.Total; e.probed++ {
		i := e.probed
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return e.interrupted(err)
		}
		out, err := callRow(e.f, e.seeds, i, e.theta.RawRowView(i), src, r)
		if err != nil {
			if err := e.failed(ctx, i, err); err != nil {
				return e.interrupted(err)
			}
			if err := e.sampleAfter(ctx, i, func(k int) error {
				_, err := callRow(e.f, e.seeds, k, e.theta.RawRowView(k), src, r)
				return err
			}); err != nil {
				return e.stopped(ctx, err)
			}
			continue
		}
		if err := e.rowsReturned(ctx, i, i+1); err != nil { // the row ran into the interrupt: see chunkFinished
			return e.interrupted(err)
		}
		if out == nil {
			continue
		}
		if len(out) == 0 {
			return fmt.Errorf("simulate: row %d returned an empty vector, expected data (or nil for a failed simulation)", i)
		}
		e.x, e.first = mat.NewDense(e.Total, len(out), nil), i
		for k := 0; k < i; k++ {
			fillNaN(e.x.RawRowView(k))
		}
		copy(e.x.RawRowView(i), out)
		e.probed++
		for c := 0; (c+1)*ChunkRows <= e.probed; c++ {
			e.chunkDone[c] = true
		}
		return nil
	}
	if len(e.panics) > 0 {
		return e.panicked()
	}
	return fmt.Errorf("simulate: all %d simulations failed (nil output)", e.Total)
}

// simRows runs Simulate's rows lo … hi−1 into e.x, each with its own random stream. A row
// whose output has another length than the first row's that gave data fails as a panic does.
// It returns the interrupt's error when ctx is done before a row or stops one.
func (e *PartialSimulationError) simRows(ctx context.Context, lo, hi int, src *rand.PCG, r *rand.Rand) error {
	_, dim := e.x.Dims()
	for i := lo; i < hi; i++ {
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return err
		}
		out, err := callRow(e.f, e.seeds, i, e.theta.RawRowView(i), src, r)
		if err == nil && out != nil && len(out) != dim {
			err = fmt.Errorf("simulate: row %d (θ = %v) returned %s, expected %d like row %d", i, e.theta.RawRowView(i), plural(len(out), "value"), dim, e.first)
		}
		if err != nil {
			fillNaN(e.x.RawRowView(i))
			if err := e.failed(ctx, i, err); err != nil {
				return err
			}
			continue
		}
		if err := e.rowsReturned(ctx, i, i+1); err != nil {
			return err
		}
		if out == nil {
			fillNaN(e.x.RawRowView(i))
		} else {
			copy(e.x.RawRowView(i), out)
		}
	}
	return nil
}

// callRow runs f on one row with that row's random stream, turning a panic into its row's
// error (rowPanic).
func callRow(f SimFunc, seeds streams, i int, theta []float64, src *rand.PCG, r *rand.Rand) (out []float64, err error) {
	seeds.seed(src, uint64(i))
	defer func() {
		if p := recover(); p != nil {
			err = rowPanic(fmt.Sprintf("row %d (θ = %v)", i, theta), p)
		}
	}()
	in := append([]float64(nil), theta...) // the simulator may not alter the caller's θ
	return f(r, in), nil
}

// rowPanic is the error of the simulator's panic with p on rows (e.g. "row 3 (θ = [3 0.5])"),
// called in the deferred function that recovered p: a *safe.PanicError, whose Unwrap reaches a
// panic value that is an error (errors.Is, errors.As) and whose Stack is the panic's.
func rowPanic(rows string, p any) error {
	return &safe.PanicError{What: "simulate: " + rows, Value: p, Stack: debug.Stack()}
}

// plural is n followed by noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// failed records that row i failed with err (a panic, or Simulate's output of the wrong
// length), leaving it unfinished, unless ctx is done: the failure is then the interrupt's (a
// simulator stopped midway, or one that panics with the context's error on purpose, as a
// nested MustSimulate does), and failed returns the interrupt's error, leaving the row's record
// of an earlier run as it was.
func (e *PartialSimulationError) failed(ctx context.Context, i int, err error) error {
	if err := cancel.Check(ctx, "simulate"); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.panics == nil {
		e.panics = make(map[int]error)
	}
	e.panics[i] = err
	return nil
}

// rowsReturned records that the simulator's calls for rows lo … hi−1 returned, dropping their
// records of an earlier failure, unless ctx is done by then: the calls may have been stopped
// midway (see chunkFinished), and it returns the interrupt's error, the records as they were.
// A row's record of a failure is so dropped only once its run again has finished.
func (e *PartialSimulationError) rowsReturned(ctx context.Context, lo, hi int) error {
	if err := cancel.Check(ctx, "simulate"); err != nil {
		return err
	}
	e.returned.Add(int64(hi - lo))
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := lo; i < hi; i++ {
		delete(e.panics, i)
	}
	return nil
}

// earlySamples is the number of rows, spread over the batch, that a run whose first ChunkRows
// rows all failed tries before it gives up (sampleAfter).
const earlySamples = 8

// sampleAfter decides whether a run gives up early, when row i was the last of the first
// ChunkRows rows, all of which failed, and rows are left (otherwise it returns nil): it runs
// up to earlySamples rows spread evenly over the others, each alone, with try (which returns
// the row's failure, and leaves nothing of the row as finished), and returns nil as soon as one
// does not fail, and an error saying what was tried when all do. It returns the interrupt's
// error when ctx stops it. The decision depends on those rows alone, not on the cores or on
// timing.
func (e *PartialSimulationError) sampleAfter(ctx context.Context, i int, try func(k int) error) error {
	if i != ChunkRows-1 || e.Total <= ChunkRows || e.returned.Load() > 0 {
		return nil
	}
	rows := sampleRows(ChunkRows, e.Total)
	for _, k := range rows {
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return err
		}
		err := try(k)
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return err
		}
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w (rows 0 … %d and %s spread over the others (%s) all panicked, so the other %d rows were not run: nothing was simulated)",
		e.panics[e.firstPanic()], ChunkRows-1, plural(len(rows), "row"), joinInts(rows), e.Total-ChunkRows-len(rows))
}

// sampleRows returns up to earlySamples rows spread evenly over rows lo … n−1, in order.
func sampleRows(lo, n int) []int {
	k := min(earlySamples, n-lo)
	rows := make([]int, k)
	for j := range rows {
		rows[j] = lo + (2*j+1)*(n-lo)/(2*k)
	}
	return rows
}

// joinInts lists v separated by commas.
func joinInts(v []int) string {
	var b strings.Builder
	for j, x := range v {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

// stopped returns the error of a run that err ended: e, its rows counted, when ctx stopped it,
// err itself otherwise.
func (e *PartialSimulationError) stopped(ctx context.Context, err error) error {
	if cancel.Stopped(ctx, err) {
		return e.interrupted(err)
	}
	return err
}

// endedByPanic reports whether the run went to its end with rows that panicked (Err is the
// first one's panic), rather than being stopped by its context.
func (e *PartialSimulationError) endedByPanic() bool {
	return len(e.Panicked) > 0 && e.panics[e.Panicked[0]] == e.Err
}

// firstPanic returns the lowest row that panicked; e.mu is held or no run is under way.
func (e *PartialSimulationError) firstPanic() int {
	first := -1
	for i := range e.panics {
		if first < 0 || i < first {
			first = i
		}
	}
	return first
}

// panicked ends a run in which rows panicked: like an interrupt it keeps the rows that
// finished, and it returns e with Err the panic of the lowest row and Panicked the rows.
func (e *PartialSimulationError) panicked() error {
	e.interrupted(e.panics[e.firstPanic()])
	return e
}

// SimulateInto fills x (n×s.DataDim()) with the simulations of the n rows of theta, on all
// cores, in chunks of ChunkRows rows that each draw from their own random stream (so x does not
// depend on the number of cores). Failed rows stay in x as NaN, aligned with theta. It reports
// progress. When the simulator panics on a chunk, the chunk's rows are run again one at a
// time, each with its own random stream, to keep the rows that do not panic, and SimulateInto
// returns a *PartialSimulationError naming the rows that panicked (see Simulate). When the
// host's context is cancelled it stops starting chunks and returns a *PartialSimulationError:
// the rows that finished are in x, the others set to NaN, and its Resume simulates them into x.
func SimulateInto(rng *rand.Rand, s Simulator, theta, x *mat.Dense) error {
	return SimulateIntoContext(runenv.Context(), rng, s, theta, x)
}

// SimulateIntoContext is SimulateInto stopped by ctx instead of the host's context.
func SimulateIntoContext(ctx context.Context, rng *rand.Rand, s Simulator, theta, x *mat.Dense) error {
	n, _ := theta.Dims()
	xr, xc := x.Dims()
	if xr != n || xc != s.DataDim() {
		panic(fmt.Sprintf("sbi: SimulateInto: x is %d×%d, expected %d×%d (rows of theta × DataDim)", xr, xc, n, s.DataDim()))
	}
	return newPartial(rng, s, theta, x, false).run(ctx, s)
}

// callBatch runs s on rows lo … hi−1 of theta into x, turning a panic into its rows' error
// (rowPanic).
func callBatch(s Simulator, r *rand.Rand, theta, x *mat.Dense, lo, hi int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			rows := fmt.Sprintf("rows %d … %d", lo, hi-1)
			if hi == lo+1 {
				rows = fmt.Sprintf("row %d (θ = %v)", lo, theta.RawRowView(lo))
			}
			err = rowPanic(rows, p)
		}
	}()
	_, tc := theta.Dims()
	s.SimulateBatch(r, theta.Slice(lo, hi, 0, tc).(*mat.Dense), x.Slice(lo, hi, 0, s.DataDim()).(*mat.Dense))
	return nil
}

// batchRows runs rows lo … hi−1 of a batch Simulator one at a time, each with its own random
// stream: those of a chunk that panicked, to name the rows that panic and keep the others, or
// rows that panicked before, run again by Resume. It records the rows that panic (failed) and
// returns the interrupt's error when ctx is done before a row or stops one.
func (e *PartialSimulationError) batchRows(ctx context.Context, s Simulator, lo, hi int, src *rand.PCG, r *rand.Rand) error {
	for i := lo; i < hi; i++ {
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return err
		}
		if err := e.batchRow(s, i, src, r); err != nil {
			fillNaN(e.x.RawRowView(i))
			if err := e.failed(ctx, i, err); err != nil {
				return err
			}
			continue
		}
		if err := e.rowsReturned(ctx, i, i+1); err != nil {
			return err
		}
	}
	return nil
}

// batchRow runs row i of a batch Simulator alone, with the row's own random stream, and
// returns its panic's error.
func (e *PartialSimulationError) batchRow(s Simulator, i int, src *rand.PCG, r *rand.Rand) error {
	e.seeds.seed(src, uint64(i)+1<<40)
	return callBatch(s, r, e.theta, e.x, i, i+1)
}

// SimulateBatch runs a compiled Simulator on all rows of theta (see SimulateInto) and drops the
// failed rows. When the host's context is cancelled it returns a nil *Simulation and a
// *PartialSimulationError that keeps the simulations that finished (see its Done and Resume):
// the result is never a part of the batch that could pass for all of it.
func SimulateBatch(rng *rand.Rand, s Simulator, theta *mat.Dense) (*Simulation, error) {
	return SimulateBatchContext(runenv.Context(), rng, s, theta)
}

// MustSimulateBatch is SimulateBatch for notebook cells: it panics with SimulateBatch's error.
// An interrupt then loses the finished simulations: for a long run use SimulateBatch, whose
// *PartialSimulationError keeps them.
func MustSimulateBatch(rng *rand.Rand, s Simulator, theta *mat.Dense) *Simulation {
	return safe.Must(SimulateBatch(rng, s, theta))
}

// SimulateBatchContext is SimulateBatch stopped by ctx instead of the host's context.
func SimulateBatchContext(ctx context.Context, rng *rand.Rand, s Simulator, theta *mat.Dense) (*Simulation, error) {
	x, err := simulateBatch(ctx, rng, s, theta, false)
	if err != nil {
		return nil, err
	}
	return dropInvalid(theta, x, true)
}

// SimulateBatchAligned is SimulateBatch without dropping: row i of the result is the
// simulation of row i of theta as the simulator wrote it, NaN and ±Inf included, drawn from the
// random streams SimulateBatch would give it. It is for data whose NaN marks padding rather than
// failure (observations of fewer trials, as AmortizedTrials reads them), which SimulateBatch
// would drop. It returns an error for a theta without rows and for a simulator that panics
// (naming the row); since it drops nothing, a batch whose every row holds NaN is returned as
// it is, without ErrNonFinite. When the host's context is cancelled it returns a
// *PartialSimulationError whose Done and Resume keep the rows holding NaN in place, as this
// function does.
func SimulateBatchAligned(rng *rand.Rand, s Simulator, theta *mat.Dense) (*mat.Dense, error) {
	return SimulateBatchAlignedContext(runenv.Context(), rng, s, theta)
}

// SimulateBatchAlignedContext is SimulateBatchAligned stopped by ctx instead of the host's
// context.
func SimulateBatchAlignedContext(ctx context.Context, rng *rand.Rand, s Simulator, theta *mat.Dense) (*mat.Dense, error) {
	return simulateBatch(ctx, rng, s, theta, true)
}

// simulateBatch simulates every row of theta into a new matrix, rows aligned with theta; an
// interrupt's *PartialSimulationError keeps rows holding NaN in place when aligned, and drops
// them as SimulateBatch does otherwise.
func simulateBatch(ctx context.Context, rng *rand.Rand, s Simulator, theta *mat.Dense, aligned bool) (*mat.Dense, error) {
	n, _ := theta.Dims()
	if n == 0 {
		return nil, fmt.Errorf("simulate: theta has no rows, expected at least one parameter vector")
	}
	x := mat.NewDense(n, s.DataDim(), nil)
	e := newPartial(rng, s, theta, x, true)
	e.aligned = aligned
	if err := e.run(ctx, s); err != nil {
		return nil, err
	}
	return x, nil
}

// PartialSimulationError is the error of Simulate, SimulateBatch and SimulateInto (and of their
// Context and Aligned forms, and of task.Simulate) when their context is done before every row
// was simulated, or when the simulator panicked on some rows. A panic stops only its row: the
// other rows are simulated, and the rows that panicked are listed in Panicked. The run stops
// early only when the first ChunkRows rows all panicked and so did each of a few rows spread
// over the others, tried next, each alone (then nothing was simulated and the error is the
// first panic's alone, saying which rows were tried); which rows run before that decision does
// not depend on the cores. A simulator that panics with the context's error once the context
// is done (a nested MustSimulate does) is read as the interrupt, not as a row that panicked. It
// keeps the rows that finished, so that an interrupt or a panic loses no simulation: Done returns them,
// and Resume simulates the others with the random streams the uninterrupted run would have
// given them, so that the resumed result equals that run's, row for row, except for the rows
// of a batch Simulator's chunk that panicked: those are run one at a time, each with its own
// stream, not the chunk's (see SimulateInto). Simulate and
// SimulateBatch return it with a nil *Simulation, so that a caller who drops the error cannot mistake the finished
// rows for the whole batch; take them with errors.As:
//
//	s, err := sbi.SimulateBatch(rng, sim, theta)
//	var part *sbi.PartialSimulationError
//	if errors.As(err, &part) {
//		s, err = part.Resume(ctx) // all rows; part.Done() gives the finished ones alone
//	}
//
// It holds the simulator, a copy of theta and the n×DataDim output until it is resumed to the
// end (SimulateInto's output is the caller's x). Rows finish in chunks of ChunkRows, not in
// order: which chunks finished depends on the cores and on when the interrupt came (Simulate
// runs its first rows one by one, in order, until one gives data that sets the output's
// width). A chunk, or a first row, that the interrupt reached before it finished is not kept
// (a simulator written in a notebook cell is stopped midway there and leaves rows unwritten):
// Resume simulates it again. Resume also runs again the rows that panicked, which panic again
// unless the simulator changed (a notebook's SimFunc reading a variable a later cell set): a row of a
// batch Simulator that panicked is run alone, with its own random stream, not its chunk's. It
// is not safe for concurrent use.
type PartialSimulationError struct {
	// Finished is the number of rows simulated (successfully or not) of the Total asked for.
	Finished, Total int
	// Err is why the run stopped: an error wrapping the context's (context.Canceled or
	// context.DeadlineExceeded), or, when the run went to its end but rows panicked, the
	// error of the lowest of them, naming the row and its θ; for a panic, its Unwrap returns
	// the panic value when that is an error, so that errors.Is and errors.As reach a sentinel
	// or a runtime.Error the simulator panicked with.
	Err error
	// Panicked lists, in increasing order, the rows whose simulation panicked, or, for
	// Simulate, returned a vector of another length than the first row that gave data (where
	// FuncSimulator panics): they are not finished, not in Done's result and not counted as
	// dropped. A row stays listed until a run of it again has finished, even when an interrupt
	// stopped that run before it reached the row.
	Panicked []int

	sim       Simulator
	f         SimFunc    // Simulate's per-row simulator (sim is nil then)
	probed    int        // Simulate: rows 0 … probed−1 ran in order to find the data's width
	first     int        // Simulate: the first row that gave data, whose width the others must have
	theta, x  *mat.Dense // x is nil while Simulate's finished rows all failed
	ownTheta  bool       // theta is a copy, made at the first interrupt
	ownX      bool       // x was allocated by SimulateBatch (not the caller's)
	seeds     streams
	chunkDone []bool
	resumed   bool // a Resume of a SimulateBatch finished and handed x to its result
	aligned   bool // SimulateAligned's, SimulateBatchAligned's: Done and Resume keep rows holding NaN, in place
	byCaller  bool // the last run's context was marked by cancel.CallerKeeps: its caller keeps nothing of e

	mu       sync.Mutex    // guards panics while a run is under way
	panics   map[int]error // the rows that panicked (not finished), each with its error
	returned atomic.Int64  // rows whose simulator call returned, over all runs
}

func newPartial(rng *rand.Rand, s Simulator, theta, x *mat.Dense, ownX bool) *PartialSimulationError {
	n, _ := theta.Dims()
	return &PartialSimulationError{Total: n, sim: s, theta: theta, x: x, ownX: ownX, seeds: newStreams(rng),
		chunkDone: make([]bool, (n+ChunkRows-1)/ChunkRows)}
}

// Error says how many rows finished and how to keep them; when the call that ran the
// simulation (certify, a calibration's refits) says itself what an interrupt keeps, it says only
// how many rows finished, since that call does not keep them.
func (e *PartialSimulationError) Error() string {
	why := e.Err.Error()
	if n := len(e.Panicked); n > 0 {
		first := e.panics[e.Panicked[0]]
		switch {
		case first != e.Err:
			why += fmt.Sprintf("; %s before it, the first: %v", plural(n, "row")+" panicked", first)
		case n > 1:
			why += fmt.Sprintf(" (%d rows panicked in all, listed in part.Panicked)", n)
		}
	}
	if e.byCaller {
		return fmt.Sprintf("%s: %d of %d simulations finished", why, e.Finished, e.Total)
	}
	again := ""
	if len(e.Panicked) > 0 {
		again = ", running again the rows that panicked, which panic again unless the simulator changed"
	}
	return fmt.Sprintf("%s: %d of %d simulations finished (kept: errors.As(err, &part) with part a *sbi.PartialSimulationError, then part.Done() returns them and part.Resume(ctx) simulates the other %d%s)",
		why, e.Finished, e.Total, e.Total-e.Finished, again)
}

// Unwrap returns Err, so that errors.Is(err, context.Canceled) holds.
func (e *PartialSimulationError) Unwrap() error { return e.Err }

// Done returns the finished rows whose simulation succeeded, in input order: Kept names their
// rows of theta and Dropped counts the finished rows that failed. It returns an error when no
// row finished, one wrapping ErrNonFinite when every finished row failed. For an error of
// SimulateAligned or SimulateBatchAligned it returns every finished row, NaN included (Dropped
// is 0).
func (e *PartialSimulationError) Done() (*Simulation, error) {
	if e.resumed {
		return nil, errResumed
	}
	var kept []int
	finished := 0
	for i := 0; i < e.Total; i++ {
		if !e.rowDone(i) {
			continue
		}
		finished++
		if e.x != nil && (e.aligned || finite(e.x.RawRowView(i))) {
			kept = append(kept, i)
		}
	}
	switch {
	case finished == 0:
		return nil, fmt.Errorf("simulate: none of the %d simulations finished", e.Total)
	case len(kept) == 0:
		return nil, fmt.Errorf("simulate: %w: all %d finished simulations failed (nil, NaN or ±Inf)", ErrNonFinite, finished)
	}
	_, dt := e.theta.Dims()
	_, dx := e.x.Dims()
	sim := &Simulation{Theta: mat.NewDense(len(kept), dt, nil), X: mat.NewDense(len(kept), dx, nil), Kept: kept, Dropped: finished - len(kept)}
	for k, i := range kept {
		copy(sim.Theta.RawRowView(k), e.theta.RawRowView(i))
		copy(sim.X.RawRowView(k), e.x.RawRowView(i))
	}
	return sim, nil
}

var errResumed = errors.New("simulate: this partial simulation was resumed to the end already: its rows are in the result of that Resume")

// Resume simulates the rows that did not finish, stopped by ctx, and returns the whole batch
// as SimulateBatch does: the same rows and numbers as an uninterrupted run with the same
// generator, except for the rows of a batch Simulator's chunk that panicked, which are run one
// at a time with their own random streams (see SimulateInto). For SimulateInto's error it also fills the caller's x; for Simulate's it calls the
// SimFunc of that call again. Interrupted again, it
// returns this error again, its counts updated, to be resumed again. After a Resume of a
// SimulateBatch to the end, the output belongs to the returned Simulation and the error
// answers no more calls. For an error of SimulateAligned or SimulateBatchAligned it drops
// nothing: the result holds every row of theta, X its simulation as those functions return it
// (NaN and ±Inf in place), Kept every index.
func (e *PartialSimulationError) Resume(ctx context.Context) (*Simulation, error) {
	return e.resume(ctx, e.sim)
}

// resume is Resume with the simulator s (the one the run began with, or one that simulates the
// same).
func (e *PartialSimulationError) resume(ctx context.Context, s Simulator) (*Simulation, error) {
	if e.resumed {
		return nil, errResumed
	}
	if err := e.run(ctx, s); err != nil {
		return nil, err
	}
	var sim *Simulation
	var err error
	if e.aligned {
		sim = keepAll(e.theta, e.x)
	} else {
		sim, err = dropInvalid(e.theta, e.x, e.ownX)
	}
	if e.ownX {
		e.resumed, e.x, e.theta, e.sim = true, nil, nil, nil
	}
	return sim, err
}

// rowDone reports whether row i finished: in a chunk done, or (Simulate) among the rows run in
// order to find the data's width.
func (e *PartialSimulationError) rowDone(i int) bool {
	return (i < e.probed || e.chunkDone[i/ChunkRows]) && e.panics[i] == nil
}

// retryRows returns the rows that panicked in chunks that finished (or among Simulate's first
// rows), to be run again one by one; a row that panicked in a chunk not finished is run again
// with its chunk. When Simulate's first rows gave no data yet, they are run in order again
// from the first that panicked. A row's record of its panic stays until its run again has
// finished (rowsReturned, failed), so that a run stopped before it keeps the row unfinished.
func (e *PartialSimulationError) retryRows() []int {
	var rows []int
	for i := range e.panics {
		if i < e.probed || e.chunkDone[i/ChunkRows] {
			rows = append(rows, i)
		}
	}
	slices.Sort(rows)
	if e.f != nil && e.x == nil && len(rows) > 0 {
		e.probed = rows[0]
		return nil
	}
	return rows
}

// chunkFinished records chunk c as done, unless ctx was done by the time it finished: a
// simulator written in a notebook cell is stopped midway by the cell's interrupt (the
// interpreter's calls of it then return at once), leaving rows unwritten that would pass for
// simulations. Such a chunk is simulated again by Resume; it returns ctx's error then.
func (e *PartialSimulationError) chunkFinished(ctx context.Context, c int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.chunkDone[c] = true
	return nil
}

// run simulates the rows not done yet, with s (SimulateBatch's and SimulateInto's) or e.f
// (Simulate's). It returns e when ctx stops it, with the rows not done set to NaN, and any
// other error as it is.
func (e *PartialSimulationError) run(ctx context.Context, s Simulator) error {
	e.byCaller = cancel.ByCaller(ctx)
	retry := e.retryRows()
	if e.f != nil && e.x == nil {
		if err := e.probe(ctx); err != nil {
			return err
		}
	}
	// gate: a batch Simulator's first run, whose chunk 0 runs first, alone, so that the early
	// stop (sampleAfter) is decided on its rows, whatever the cores.
	gate := e.f == nil && len(e.chunkDone) > 1 && !e.chunkDone[0] && e.returned.Load() == 0
	// todo holds the rows run again alone (lo = hi−1, in a finished chunk), then the chunks;
	// chunk 0 first when gated.
	var todo [][2]int
	rows := 0
	if gate {
		todo, rows = append(todo, [2]int{0, ChunkRows}), ChunkRows
	}
	for _, i := range retry {
		todo = append(todo, [2]int{i, i + 1})
	}
	rows += len(retry)
	for c, done := range e.chunkDone {
		if lo, hi := e.chunkRows(c); !done && lo < hi && !(gate && c == 0) {
			todo = append(todo, [2]int{lo, hi})
			rows += hi - lo
		}
	}
	var first func(src *rand.PCG, r *rand.Rand) error
	if gate {
		first = func(src *rand.PCG, r *rand.Rand) error {
			return e.sampleAfter(ctx, ChunkRows-1, func(k int) error { return e.batchRow(s, k, src, r) })
		}
	}
	err := runChunks(ctx, rows, len(todo), func(k int) (int, int) {
		return todo[k][0], todo[k][1]
	}, func(lo, hi int, src *rand.PCG, r *rand.Rand) error {
		c := lo / ChunkRows
		again := lo < e.probed || e.chunkDone[c]
		switch {
		case e.f != nil:
			if err := e.simRows(ctx, lo, hi, src, r); err != nil {
				return err
			}
		case again:
			if err := e.batchRows(ctx, s, lo, hi, src, r); err != nil {
				return err
			}
		default:
			e.seeds.seed(src, uint64(c))
			err := callBatch(s, r, e.theta, e.x, lo, hi)
			if err == nil {
				err = e.rowsReturned(ctx, lo, hi)
			} else {
				err = e.batchRows(ctx, s, lo, hi, src, r)
			}
			if err != nil {
				return err
			}
		}
		if !again {
			return e.chunkFinished(ctx, c)
		}
		return nil
	}, e.Total-rows, first)
	if err == nil {
		if len(e.panics) > 0 {
			return e.panicked()
		}
		e.Finished, e.Panicked = e.Total, nil
		return nil
	}
	return e.stopped(ctx, err)
}

// chunkRows returns the rows of chunk c still to simulate when it is not done: all its rows
// but those Simulate ran in order to find the data's width.
func (e *PartialSimulationError) chunkRows(c int) (lo, hi int) {
	return max(c*ChunkRows, e.probed), min((c+1)*ChunkRows, e.Total)
}

// interrupted records that err, wrapping the context's error, stopped the run: it counts the
// rows done, sets the others to NaN, keeps a copy of theta and returns e.
func (e *PartialSimulationError) interrupted(err error) error {
	e.Err, e.Finished = err, 0
	e.Panicked = nil
	for i := range e.panics {
		e.Panicked = append(e.Panicked, i)
	}
	slices.Sort(e.Panicked)
	for i := 0; i < e.Total; i++ {
		switch {
		case e.rowDone(i):
			e.Finished++
		case e.x != nil:
			fillNaN(e.x.RawRowView(i))
		}
	}
	if !e.ownTheta {
		e.theta, e.ownTheta = mat.DenseCopyOf(e.theta), true
	}
	return e
}

// DropInvalid returns the rows of theta and x whose x row is all finite. It returns an error
// wrapping ErrNonFinite when no row is left.
func DropInvalid(theta, x *mat.Dense) (*Simulation, error) {
	return dropInvalid(theta, x, false)
}

// dropInvalid is DropInvalid; with ownX set, x was allocated by the caller for this result and
// is returned itself when no row is dropped, instead of copied (a simulation of a large budget
// would otherwise need twice its memory at once).
// keepAll is the Simulation of every row of theta and x (whose x it takes), NaN included.
func keepAll(theta, x *mat.Dense) *Simulation {
	n, _ := theta.Dims()
	kept := make([]int, n)
	for i := range kept {
		kept[i] = i
	}
	return &Simulation{Theta: mat.DenseCopyOf(theta), X: x, Kept: kept}
}

func dropInvalid(theta, x *mat.Dense, ownX bool) (*Simulation, error) {
	n, dt := theta.Dims()
	if xr, _ := x.Dims(); xr != n {
		panic(fmt.Sprintf("sbi: DropInvalid: theta has %d rows and x %d, expected equal", n, xr))
	}
	var kept []int
	for i := 0; i < n; i++ {
		if finite(x.RawRowView(i)) {
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("simulate: %w: all %d simulations gave NaN or ±Inf", ErrNonFinite, n)
	}
	_, dx := x.Dims()
	sim := &Simulation{Kept: kept, Dropped: n - len(kept)}
	if len(kept) == n {
		sim.Theta, sim.X = mat.DenseCopyOf(theta), x
		if !ownX {
			sim.X = mat.DenseCopyOf(x)
		}
		return sim, nil
	}
	sim.Theta, sim.X = mat.NewDense(len(kept), dt, nil), mat.NewDense(len(kept), dx, nil)
	for k, i := range kept {
		copy(sim.Theta.RawRowView(k), theta.RawRowView(i))
		copy(sim.X.RawRowView(k), x.RawRowView(i))
	}
	return sim, nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func fillNaN(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

// streams derives independent PCG streams, one per row or chunk, from two seeds drawn from the
// caller's generator.
type streams struct{ a, b uint64 }

func newStreams(rng *rand.Rand) streams { return streams{rng.Uint64(), rng.Uint64()} }

// seed sets src to stream k: both PCG words are passed through the SplitMix64 finalizer so that
// neighbouring k give unrelated states.
func (s streams) seed(src *rand.PCG, k uint64) {
	src.Seed(splitmix(s.a^splitmix(k)), splitmix(s.b+k*0x9e3779b97f4a7c15))
}

func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// interruptNote is the last progress message of a simulation that ctx stopped after done of
// total rows: where the finished rows are kept (the returned error's, unless a caller such
// as Sequential keeps them: keptIn), or that nothing is; no claim under cancel.CallerKeeps.
func interruptNote(ctx context.Context, done, total int) string {
	kept := cancel.NothingKept
	if done > 0 {
		kept = "they are kept in the returned error (*PartialSimulationError: Done, Resume), which MustSimulate and MustSimulateBatch lose"
		if in, ok := ctx.Value(keptInKey{}).(string); ok {
			kept = "they are kept in " + in
		}
	}
	return cancel.Note(done, total, "simulations", cancel.Kept(ctx, kept))
}

// keptInKey is the key of keptIn's value.
type keptInKey struct{}

// keptIn returns ctx for a simulation whose caller keeps the finished rows of an interrupted
// run in where (not in the *PartialSimulationError it returns), for interruptNote.
func keptIn(ctx context.Context, where string) context.Context {
	return context.WithValue(ctx, keptInKey{}, where)
}

// runChunks runs work on chunks 0 … chunks−1, n rows in all, with GOMAXPROCS goroutines.
// bounds maps a chunk index to its rows; offset is added to progress totals (rows already
// done, which the bar does not time). When first is not nil, chunk 0 runs alone before the
// others, then first, whose error ends the run. The first error by row order is returned; after an error or a cancellation no new
// chunk starts. When ctx stops it, the progress bar's last message says how many rows finished
// and where they are kept (interruptNote).
func runChunks(ctx context.Context, n, chunks int, bounds func(c int) (lo, hi int), work func(lo, hi int, src *rand.PCG, r *rand.Rand) error, offset int, first func(src *rand.PCG, r *rand.Rand) error) (err error) {
	progress := NewProgress("simulate", n+offset)
	defer progress.Finish()
	if offset > 0 {
		progress.resume(offset)
	}
	if n <= 0 {
		return nil
	}
	defer func() {
		if cancel.Stopped(ctx, err) {
			progress.note(interruptNote(ctx, progress.done(), n+offset))
		}
	}()
	step := func(c int, src *rand.PCG, r *rand.Rand) (lo int, err error) {
		lo, hi := bounds(c)
		if err := cancel.Check(ctx, "simulate"); err != nil {
			return lo, err
		}
		if err := work(lo, hi, src, r); err != nil {
			return lo, err
		}
		progress.Add(hi - lo)
		return lo, nil
	}
	var next atomic.Int64
	if first != nil {
		src := &rand.PCG{}
		r := rand.New(src)
		if err := safe.Call("simulate", func() error {
			if _, err := step(0, src, r); err != nil {
				return err
			}
			return first(src, r)
		}); err != nil {
			return err
		}
		next.Store(1)
	}
	workers := min(runtime.GOMAXPROCS(0), chunks-int(next.Load()))
	var (
		stop    atomic.Bool
		mu      sync.Mutex
		errRow  = -1
		firstEr error
		wg      sync.WaitGroup
	)
	record := func(row int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if errRow < 0 || row < errRow {
			errRow, firstEr = row, err
		}
		stop.Store(true)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := &rand.PCG{}
			r := rand.New(src)
			lo := 0
			var err error
			defer func() {
				if err != nil {
					record(lo, err)
				}
			}()
			defer safe.Recover(&err, "simulate") // work recovers the simulator; this catches the rest
			for !stop.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if lo, err = step(c, src, r); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstEr
}
