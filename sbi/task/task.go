package task

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// Task is a benchmark problem: a prior, a simulator and, for the sbibm tasks, ten observations
// with their true parameters and reference posterior samples.
type Task interface {
	// Name is the task's name as in sbibm ("two_moons", "slcp", …).
	Name() string
	// Prior is the prior over the parameters.
	Prior() dist.Distribution
	// ParamDim is the number of parameters.
	ParamDim() int
	// DataDim is the length of one simulated data vector.
	DataDim() int
	// ParamLabels names the parameters, e.g. "β", "γ".
	ParamLabels() []string
	// Simulate returns one data row per row of theta (n×DataDim), computed on all cores with
	// per-chunk random streams (the same result whatever the number of cores). A row whose
	// simulation failed (an ODE solver that gave up) is NaN and stays aligned with theta: the
	// estimators drop such rows with a count, and task.Simulate drops them for you. It panics
	// with an error value when theta has the wrong number of columns, when a row lies outside
	// the prior's support, when the run is interrupted (sbi.Canceled) or when the simulator
	// fails; task.Simulate returns those as errors instead.
	Simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense
	// SimulateBatch writes the simulation for row i of theta into row i of x, drawing from rng,
	// on the calling goroutine (it makes the task an sbi.Simulator).
	SimulateBatch(rng *rand.Rand, theta, x *mat.Dense)
	// Observation returns observation k (1…10) from the data directory.
	Observation(k int) ([]float64, error)
	// TrueParameters returns the parameters that generated observation k.
	TrueParameters(k int) ([]float64, error)
	// ReferencePosterior returns the reference posterior samples of observation k
	// (10,000×ParamDim).
	ReferencePosterior(k int) (*mat.Dense, error)

	// MustObservation, MustTrueParameters and MustReferencePosterior are the forms of the three
	// calls above for notebook cells: the value alone, and a panic with the call's error (a
	// missing data file wraps ErrNotAvailable).
	MustObservation(k int) []float64
	MustTrueParameters(k int) []float64
	MustReferencePosterior(k int) *mat.Dense
}

// ExactPosterior is implemented by tasks whose posterior for any observation can be evaluated
// and sampled exactly (gaussian_linear, gaussian_linear_uniform, gaussian_mixture, two_moons,
// conjugate_gaussian).
type ExactPosterior interface {
	ExactPosterior(x []float64) (dist.Distribution, error)
	// MustExactPosterior is ExactPosterior for notebook cells: it panics with its error.
	MustExactPosterior(x []float64) dist.Distribution
}

// NumObservations is the number of stored observations of an sbibm task.
const NumObservations = 10

var registry = map[string]func() Task{
	"two_moons":                    func() Task { return TwoMoons() },
	"gaussian_linear":              func() Task { return GaussianLinear() },
	"gaussian_linear_uniform":      func() Task { return GaussianLinearUniform() },
	"gaussian_mixture":             func() Task { return GaussianMixture() },
	"slcp":                         func() Task { return SLCP() },
	"bernoulli_glm":                func() Task { return BernoulliGLM() },
	"bernoulli_glm_raw":            func() Task { return BernoulliGLMRaw() },
	"sir":                          func() Task { return SIR() },
	"lotka_volterra":               func() Task { return LotkaVolterra() },
	"sir_raw":                      func() Task { return SIRRaw() },
	"sir_jump":                     func() Task { return SIRJump() },
	"sir_jump_onset":               func() Task { return SIRJumpOnset() },
	"lotka_volterra_raw":           func() Task { return LotkaVolterraRaw() },
	"tc_slcp":                      func() Task { return TCSLCP() },
	"weinberg":                     func() Task { return Weinberg() },
	"mg1":                          func() Task { return MG1() },
	"tc_lotka_volterra":            func() Task { return TCLotkaVolterra() },
	"spatial_sir":                  func() Task { return SpatialSIR() },
	"conjugate_gaussian":           func() Task { return ConjugateGaussian() },
	"ornstein_uhlenbeck":           func() Task { return OrnsteinUhlenbeck() },
	"bivariate_ornstein_uhlenbeck": func() Task { return BivariateOrnsteinUhlenbeck() },
	"arch":                         func() Task { return ARCH() },
	"arfima":                       func() Task { return ARFIMA() },
	"lotka_volterra_sde":           func() Task { return LotkaVolterraSDE() },
	"mixed":                        func() Task { return Mixed() },
}

// Names lists the names of all tasks, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the task with the given name (see Names).
func Get(name string) (Task, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("task: unknown task %q; known tasks: %s", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// MustGet is Get for notebook cells: it returns the result alone and panics with Get's error.
func MustGet(name string) Task {
	return safe.Must(Get(name))
}

// Simulate runs t on every row of theta on all cores (see sbi.SimulateBatch), after checking
// that theta has t.ParamDim() columns and that every row lies in the support of the prior. Rows
// whose simulation failed are dropped and counted in the result.
func Simulate(rng *rand.Rand, t Task, theta *mat.Dense) (*sbi.Simulation, error) {
	return SimulateContext(runenv.Context(), rng, t, theta)
}

// MustSimulate is Simulate for notebook cells: it returns the result alone and panics with
// Simulate's error.
func MustSimulate(rng *rand.Rand, t Task, theta *mat.Dense) *sbi.Simulation {
	return safe.Must(Simulate(rng, t, theta))
}

// SimulateContext is Simulate stopped by ctx instead of the host's context (runenv.Context).
func SimulateContext(ctx context.Context, rng *rand.Rand, t Task, theta *mat.Dense) (*sbi.Simulation, error) {
	if err := CheckParameters(t, theta); err != nil {
		return nil, err
	}
	return sbi.SimulateBatchContext(ctx, rng, t, theta)
}

// CheckParameters returns an error unless theta has t.ParamDim() columns, at least one row, and
// every row in the support of t's prior.
func CheckParameters(t Task, theta *mat.Dense) error {
	n, c := theta.Dims()
	if c != t.ParamDim() {
		return fmt.Errorf("task %s: theta has %d columns, expected %d (one parameter vector per row: %s)",
			t.Name(), c, t.ParamDim(), strings.Join(t.ParamLabels(), ", "))
	}
	if n == 0 {
		return fmt.Errorf("task %s: theta has no rows, expected at least one parameter vector", t.Name())
	}
	prior := t.Prior()
	for i := 0; i < n; i++ {
		if row := theta.RawRowView(i); !prior.InSupport(row) {
			low, high := prior.Support()
			return fmt.Errorf("task %s: row %d, θ = %v, lies outside the prior's support [%v, %v]; draw θ from t.Prior() or clip it to the support",
				t.Name(), i, row, low, high)
		}
	}
	return nil
}

// base holds what every task shares; a task supplies its per-row simulator.
type base struct {
	name        string
	prior       dist.Distribution
	paramLabels []string
	dataDim     int
	files       string // directory of the task's files in the data directory; "" if none
	obsFile     string // name of the observation file
	// row simulates one data vector x for parameters theta (writes NaN into x on failure).
	row func(rng *rand.Rand, theta, x []float64)
}

func (b *base) Name() string             { return b.name }
func (b *base) Prior() dist.Distribution { return b.prior }
func (b *base) ParamDim() int            { return b.prior.Dim() }
func (b *base) DataDim() int             { return b.dataDim }
func (b *base) ParamLabels() []string    { return append([]string(nil), b.paramLabels...) }

func (b *base) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, c := theta.Dims()
	xr, xc := x.Dims()
	if c != b.ParamDim() || xr != n || xc != b.dataDim {
		panic(fmt.Sprintf("task %s: SimulateBatch: theta is %d×%d and x %d×%d, expected n×%d and n×%d",
			b.name, n, c, xr, xc, b.ParamDim(), b.dataDim))
	}
	for i := 0; i < n; i++ {
		b.row(rng, theta.RawRowView(i), x.RawRowView(i))
	}
}

// simulate is the short form shared by the tasks (Task.Simulate); t is the full task value.
func simulate(t Task, rng *rand.Rand, theta *mat.Dense) *mat.Dense {
	if err := CheckParameters(t, theta); err != nil {
		panic(err)
	}
	n, _ := theta.Dims()
	x := mat.NewDense(n, t.DataDim(), nil)
	if err := sbi.SimulateInto(rng, t, theta, x); err != nil {
		panic(err) // an error value, so that a recover can test errors.Is(err, context.Canceled)
	}
	return x
}

func nanFill(x []float64) {
	for i := range x {
		x[i] = math.NaN()
	}
}

// Simulate: see Task.
func (b *base) Simulate(rng *rand.Rand, theta *mat.Dense) *mat.Dense { return simulate(b, rng, theta) }
