package task

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/sbibmtest"
	"github.com/gosbi/gosbi/runenv"
)

var sbibmTasks = []string{"two_moons", "gaussian_linear", "gaussian_linear_uniform", "gaussian_mixture",
	"slcp", "bernoulli_glm", "bernoulli_glm_raw", "sir", "lotka_volterra"}

func TestNamesAndShapes(t *testing.T) {
	if got := len(Names()); got != 23 {
		t.Fatalf("%d tasks, want 23: %v", got, Names())
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, name := range sortedNames() {
		tk, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if tk.Name() != name || tk.Prior().Dim() != tk.ParamDim() || len(tk.ParamLabels()) != tk.ParamDim() {
			t.Errorf("%s: name %q, prior dim %d, %d labels, ParamDim %d", name, tk.Name(), tk.Prior().Dim(), len(tk.ParamLabels()), tk.ParamDim())
		}
		n := 20
		theta := tk.Prior().Sample(rng, n)
		x := tk.Simulate(rng, theta)
		if r, c := x.Dims(); r != n || c != tk.DataDim() {
			t.Errorf("%s: x is %d×%d, want %d×%d", name, r, c, n, tk.DataDim())
		}
		for i := 0; i < n; i++ {
			for _, v := range x.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: row %d θ=%v gave %v", name, i, theta.RawRowView(i), v)
					break
				}
			}
		}
	}
	if _, err := Get("three_moons"); err == nil || !strings.Contains(err.Error(), "two_moons") {
		t.Errorf("unknown task: %v", err)
	}
}

func TestStoredData(t *testing.T) {
	sbibmtest.Use(t)
	for _, name := range sbibmTasks {
		tk, _ := Get(name)
		for k := 1; k <= NumObservations; k++ {
			x, err := tk.Observation(k)
			needData(t, err)
			if len(x) != tk.DataDim() {
				t.Fatalf("%s obs %d: %d values, want %d", name, k, len(x), tk.DataDim())
			}
			th, err := tk.TrueParameters(k)
			needData(t, err)
			if len(th) != tk.ParamDim() {
				t.Fatalf("%s true parameters %d: %d values, want %d", name, k, len(th), tk.ParamDim())
			}
			if !tk.Prior().InSupport(th) {
				t.Errorf("%s: true parameters %d = %v outside the prior", name, k, th)
			}
		}
		t.Run(name+"/reference", func(t *testing.T) {
			// The subset in testdata/sbibm lacks most reference files and `gosbi data fetch`
			// brings them all: a missing file must say how to get it, a present one must load.
			ref, err := tk.ReferencePosterior(3)
			if err != nil && !strings.Contains(err.Error(), "gosbi data fetch") {
				t.Errorf("%s: reference posterior error %v, want one saying how to fetch the files", name, err)
			}
			needData(t, err)
			if r, c := ref.Dims(); r != 10000 || c != tk.ParamDim() {
				t.Errorf("%s: reference is %d×%d", name, r, c)
			}
		})
		for _, k := range []int{0, 11, -1} {
			if _, err := tk.Observation(k); err == nil || !strings.Contains(err.Error(), "expected 1 to 10") {
				t.Errorf("%s: observation %d: %v", name, k, err)
			}
			if _, err := tk.ReferencePosterior(k); err == nil {
				t.Errorf("%s: reference posterior %d: no error", name, k)
			}
		}
	}
	for _, name := range []string{"tc_slcp", "weinberg", "mg1", "tc_lotka_volterra", "spatial_sir",
		"conjugate_gaussian", "ornstein_uhlenbeck", "bivariate_ornstein_uhlenbeck", "arch", "arfima", "lotka_volterra_sde", "mixed"} {
		tk, _ := Get(name)
		if _, err := tk.Observation(1); !errors.Is(err, ErrNotAvailable) {
			t.Errorf("%s: Observation error %v, want ErrNotAvailable", name, err)
		}
		if _, err := tk.ReferencePosterior(1); !errors.Is(err, ErrNotAvailable) {
			t.Errorf("%s: ReferencePosterior error %v", name, err)
		}
	}
}

func TestMissingDataDirectory(t *testing.T) {
	t.Setenv("GOSBI_DATA", t.TempDir())
	_, err := TwoMoons().Observation(1)
	if !errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), "gosbi data fetch") || !strings.Contains(err.Error(), "GOSBI_DATA") {
		t.Errorf("error %v, want one saying to run gosbi data fetch or set GOSBI_DATA", err)
	}
}

func TestBadParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tm := TwoMoons()
	for _, tc := range []struct {
		name  string
		theta *mat.Dense
		msg   string
	}{
		{"wrong dimension", mat.NewDense(2, 3, nil), "3 columns, expected 2"},
		{"outside prior", mat.NewDense(2, 2, []float64{0, 0, 1.5, 0}), "row 1"},
		{"NaN", mat.NewDense(1, 2, []float64{math.NaN(), 0}), "outside the prior"},
	} {
		if _, err := Simulate(rng, tm, tc.theta); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
		func() {
			defer func() {
				if r, ok := recover().(error); !ok || !strings.Contains(r.Error(), tc.msg) {
					t.Errorf("%s: short form panic %v", tc.name, r)
				}
			}()
			tm.Simulate(rng, tc.theta)
		}()
	}
	if _, err := Simulate(rng, SIR(), mat.NewDense(1, 2, []float64{-0.1, 0.1})); err == nil {
		t.Error("negative SIR rate accepted")
	}
	far := make([]float64, 10)
	far[3] = 40
	if _, err := GaussianLinearUniform().ExactPosterior(far); err == nil || !strings.Contains(err.Error(), "too far") {
		t.Errorf("ExactPosterior far outside the prior: %v", err)
	}
	if _, err := GaussianLinear().ExactPosterior([]float64{1, 2}); err == nil || !strings.Contains(err.Error(), "expected 10") {
		t.Errorf("ExactPosterior with a short x: %v", err)
	}
}

// TestTaskSimulateDeterministic: the same seed gives the same data with 1 and 2 cores.
func TestTaskSimulateDeterministic(t *testing.T) {
	for _, tk := range []Task{SIR(), TwoMoons(), MG1()} {
		theta := tk.Prior().Sample(rand.New(rand.NewPCG(2, 2)), 300)
		run := func(p int) *mat.Dense {
			old := runtime.GOMAXPROCS(p)
			defer runtime.GOMAXPROCS(old)
			return tk.Simulate(rand.New(rand.NewPCG(5, 5)), theta)
		}
		if !mat.Equal(run(1), run(2)) {
			t.Errorf("%s: GOMAXPROCS=1 and 2 differ", tk.Name())
		}
	}
}

// TestSimulateCheckedDropsFailures: a SIR solve that cannot finish gives a NaN row that
// task.Simulate drops and counts.
func TestSimulateCheckedDropsFailures(t *testing.T) {
	theta := mat.NewDense(3, 2, []float64{0.4, 0.1, 1e300, 0.1, 0.5, 0.2})
	sim, err := Simulate(rand.New(rand.NewPCG(1, 1)), SIR(), theta)
	if err != nil {
		t.Fatal(err)
	}
	if sim.Dropped != 1 || len(sim.Kept) != 2 || sim.Kept[1] != 2 {
		t.Errorf("dropped %d, kept %v", sim.Dropped, sim.Kept)
	}
	x := SIR().Simulate(rand.New(rand.NewPCG(1, 1)), theta)
	if !math.IsNaN(x.At(1, 0)) || math.IsNaN(x.At(0, 0)) {
		t.Errorf("short form rows: %v / %v", x.RawRowView(0), x.RawRowView(1))
	}
}

// TestSimulateInterrupted: under a cancelled context the checked form returns an error and the
// short form panics with an error value, both wrapping context.Canceled.
func TestSimulateInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	tk := SIR()
	theta := tk.Prior().Sample(rand.New(rand.NewPCG(1, 1)), 500)
	if _, err := Simulate(rand.New(rand.NewPCG(1, 1)), tk, theta); !errors.Is(err, context.Canceled) {
		t.Errorf("checked form: %v", err)
	}
	defer func() {
		if err, ok := recover().(error); !ok || !errors.Is(err, context.Canceled) {
			t.Errorf("short form panic: %v", err)
		}
	}()
	tk.Simulate(rand.New(rand.NewPCG(1, 1)), theta)
}
