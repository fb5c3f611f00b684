package task

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	if got := len(Names()); got != 25 {
		t.Fatalf("%d tasks, want 25: %v", got, Names())
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
		"conjugate_gaussian", "ornstein_uhlenbeck", "bivariate_ornstein_uhlenbeck", "arch", "arfima", "lotka_volterra_sde", "mixed", "sir_jump", "sir_jump_onset"} {
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
	far[3] = 1e160 // log Φ of its standardized bound overflows
	if _, err := GaussianLinearUniform().ExactPosterior(far); err == nil || !strings.Contains(err.Error(), "too far") {
		t.Errorf("ExactPosterior far outside the prior: %v", err)
	}
	if _, err := GaussianLinear().ExactPosterior([]float64{1, 2}); err == nil || !strings.Contains(err.Error(), "expected 10") {
		t.Errorf("ExactPosterior with a short x: %v", err)
	}
}

// TestTaskSimulateDeterministic: the same seed gives the same data with 1 and 2 cores.
func TestTaskSimulateDeterministic(t *testing.T) {
	for _, tk := range []Task{SIR(), TwoMoons(), MG1(), SIRJump(), SIRJumpOnset()} {
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

// TestDamagedDataFile: a data file that is there but cannot be used (a wrong number of values,
// text that is not a number, a truncated archive, no data rows) is an error naming the file
// and saying how to replace it, and not ErrNotAvailable (the data tests must fail on it, not
// skip).
func TestDamagedDataFile(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		read             func() error
		cause            string
	}{
		{"observation too long", "observation.csv", "data_1,data_2,data_3\n0.1,0.2,0.3\n",
			func() error { _, err := TwoMoons().Observation(1); return err }, "3 values, expected 2"},
		{"observation of two rows", "observation.csv", "data_1,data_2\n0.1,0.2\n0.3,0.4\n",
			func() error { _, err := TwoMoons().Observation(1); return err }, "2 rows, expected one row"},
		{"true parameters not numbers", "true_parameters.csv", "parameter_1,parameter_2\n<html>,login\n",
			func() error { _, err := TwoMoons().TrueParameters(1); return err }, "line 2, column 1"},
		{"true parameters empty", "true_parameters.csv", "parameter_1,parameter_2\n",
			func() error { _, err := TwoMoons().TrueParameters(1); return err }, "no data rows"},
		{"reference not an archive", "reference_posterior_samples.csv.bz2", "parameter_1,parameter_2\n0.1,0.2\n",
			func() error { _, err := TwoMoons().ReferencePosterior(1); return err }, "bzip2"},
		{"reference row too short", "reference_posterior_samples.csv.bz2", string(shortRowBz2),
			func() error { _, err := TwoMoons().ReferencePosterior(1); return err }, "sample 2 has 1 values, expected 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("GOSBI_DATA", dir)
			path := filepath.Join(dir, "two_moons", "num_observation_1", c.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			err := c.read()
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "gosbi data fetch") || !strings.Contains(err.Error(), c.cause) {
				t.Errorf("error %q, want one naming %s, %q and `gosbi data fetch`, not ErrNotAvailable", err, path, c.cause)
			}
		})
	}
}

// shortRowBz2 is "parameter_1,parameter_2\n0.1,0.2\n0.3\n" compressed with bzip2 -9: its second
// sample has one value instead of two.
var shortRowBz2 = []byte{
	0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x38, 0x82, 0xe1, 0xac, 0x00, 0x00,
	0x0e, 0x5b, 0x80, 0x00, 0x10, 0x00, 0x05, 0x78, 0x00, 0x00, 0x00, 0xa2, 0x02, 0x54, 0x00, 0x20,
	0x00, 0x21, 0x2a, 0x68, 0x6d, 0x21, 0x88, 0x40, 0x00, 0x07, 0x12, 0x16, 0x36, 0xec, 0xa0, 0x62,
	0x82, 0x8b, 0x2c, 0xa2, 0x39, 0x66, 0x86, 0x3e, 0x2e, 0xe4, 0x8a, 0x70, 0xa1, 0x20, 0x71, 0x05,
	0xc3, 0x58,
}

// TestDamagedDataFileReplaced: once a damaged file is replaced (by `gosbi data fetch`), the
// next read in the same process returns the new contents; the damaged table is not kept.
func TestDamagedDataFileReplaced(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOSBI_DATA", dir)
	path := filepath.Join(dir, "two_moons", "num_observation_1", "observation.csv")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		text string
		ok   bool
	}{{"data_1,data_2,data_3\n0.1,0.2,0.3\n", false}, {"data_1,data_2\n0.1,0.2\n", true}} {
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := TwoMoons().Observation(1)
		if (err == nil) != c.ok {
			t.Fatalf("read %d: x = %v, err = %v; want ok = %v", i+1, x, err, c.ok)
		}
	}
}
