package study_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

// workerEnv makes the test binary act as `gosbi study worker DIR INDEX` (for Slurm tasks).
const workerEnv = "GOSBI_STUDY_TEST_WORKER"

// taskLogDelayEnv sets, in the test binary's worker, how long it waits for a process left
// behind to close the output of the job's process (study.TaskLogDelay).
const taskLogDelayEnv = "GOSBI_STUDY_TEST_TASK_LOG_DELAY"

func TestMain(m *testing.M) {
	register()
	if os.Getenv(workerEnv) == "1" {
		if d, err := time.ParseDuration(os.Getenv(taskLogDelayEnv)); err == nil {
			*study.TaskLogDelay = d
		}
		if err := study.WorkerMain(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// calls counts the jobs run in this process, by stage.
var calls = map[string]*atomic.Int64{"simulate": {}, "train": {}, "aggregate": {}, "work": {}, "sum": {}}

// register registers the functions of the test studies.
func register() {
	study.Register("simulate", simulateJob)
	study.Register("train", trainJob)
	study.Register("aggregate", aggregateJob)
	study.Register("work", workJob)
	study.Register("sum", sumJob)
	study.Register("chatty", chattyJob)
	study.Register("leaver", leaverJob)
	study.Register("crasher", crasherJob)
}

// simulateJob draws the largest budget of two_moons pairs and saves them.
func simulateJob(j *study.Job) error {
	calls["simulate"].Add(1)
	t := task.TwoMoons()
	rng := rand.New(rand.NewPCG(j.Seed, 0))
	n := j.Int("pool")
	theta := t.Prior().Sample(rng, n)
	x := t.Simulate(rng, theta)
	data, err := json.Marshal([][]float64{theta.RawMatrix().Data, x.RawMatrix().Data})
	if err != nil {
		return err
	}
	j.Logf("simulated %d pairs", n)
	j.Set("pairs", float64(n))
	return os.WriteFile(j.Path("sims.json"), data, 0o644)
}

// trainJob trains a small NRE on the first budget pairs of its seed's simulations and records
// its validation loss and mean log ratio on fixed pairs.
func trainJob(j *study.Job) error {
	calls["train"].Add(1)
	if fail := j.Params["fail"]; fail != "" && fail == j.Key {
		if _, err := os.Stat(j.Params["failflag"]); err == nil {
			j.Logf("about to fail on purpose: %s", j.Key)
			return errors.New("training diverged (on purpose)")
		}
	}
	in, err := j.Input("simulate")
	if err != nil {
		return err
	}
	data, err := os.ReadFile(in.Path("sims.json"))
	if err != nil {
		return err
	}
	var raw [][]float64
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	n := j.Int("budget")
	t := task.TwoMoons()
	theta := mat.NewDense(n, 2, raw[0][:2*n])
	x := mat.NewDense(n, 2, raw[1][:2*n])
	e := sbi.NewNRE(t.Prior(), sbi.NREConfig{Hidden: []int{16, 16}})
	res, err := e.Train(theta, x, sbi.TrainConfig{Epochs: j.Int("epochs"), BatchSize: 50, Seed: j.Seed})
	if err != nil {
		return err
	}
	j.Set("val_loss", res.ValLoss[len(res.ValLoss)-1])
	lr := e.LogRatio(mat.NewDense(2, 2, []float64{0.1, -0.2, 0.3, 0.4}), mat.NewDense(2, 2, []float64{0.05, 0.1, -0.3, 0.2}))
	j.SetSeries("logr", lr)
	j.Set("logr_mean", (lr[0]+lr[1])/2)
	return e.SaveFile(j.Path("model.nre"))
}

// aggregateJob averages the training metrics.
func aggregateJob(j *study.Job) error {
	calls["aggregate"].Add(1)
	rs, err := j.Inputs("train")
	if err != nil {
		return err
	}
	s := 0.0
	for _, r := range rs {
		v, err := r.Metric("logr_mean")
		if err != nil {
			return err
		}
		s += v
	}
	j.Set("jobs", float64(len(rs)))
	j.Set("logr_mean", s/float64(len(rs)))
	return nil
}

// trainingSpec is a small simulate → train → aggregate study.
func trainingSpec() *study.Spec {
	return &study.Spec{
		Name: "tiny",
		Axes: []study.Axis{{Name: "seed", Values: study.Ints(1, 2)}, {Name: "budget", Values: study.Ints(200, 400)}},
		Stages: []study.Stage{
			{Name: "simulate", Over: []string{"seed"}, Func: "simulate"},
			{Name: "train", Func: "train"},
			{Name: "aggregate", All: true, Func: "aggregate"},
		},
		Params: map[string]string{"pool": "400", "epochs": "3"},
	}
}

func resetCalls() {
	for _, c := range calls {
		c.Store(0)
	}
}

func counts() map[string]int64 {
	out := map[string]int64{}
	for k, c := range calls {
		if n := c.Load(); n > 0 {
			out[k] = n
		}
	}
	return out
}

// metrics reads every record's metrics and series, by job index.
func metrics(t *testing.T, s *study.Study) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, j := range s.Jobs {
		r, err := s.Record(j.Index)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal([]any{r.Seed, r.Metrics, r.Series, r.Files})
		out[j.Index] = string(b)
	}
	return out
}

func TestSpecErrors(t *testing.T) {
	good := `{"name":"s","axes":[{"name":"seed","values":["1",2]},{"name":"lambda","values":[1e-3,0.5]}],"stages":[{"name":"train","func":"train"}]}`
	spec, err := study.ParseSpec([]byte(good))
	if err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	if want := []study.Axis{{Name: "seed", Values: []string{"1", "2"}}, {Name: "lambda", Values: []string{"1e-3", "0.5"}}}; !reflect.DeepEqual(spec.Axes, want) {
		t.Errorf("axes %+v, want %+v", spec.Axes, want)
	}
	for _, tc := range []struct{ spec, want string }{
		{`{"name":"a b","axes":[],"stages":[{"name":"x","func":"f"}]}`, `name = "a b"`},
		{`{"name":"s","axes":[{"name":"seed","values":[]}],"stages":[{"name":"x","func":"f"}]}`, `axes[0].values of axis "seed" is empty`},
		{`{"name":"s","axes":[{"name":"seed","values":["1","1"]}],"stages":[{"name":"x","func":"f"}]}`, `axes[0].values[1] = "1"`},
		{`{"name":"s","axes":[{"name":"seed","values":["1,2"]}],"stages":[{"name":"x","func":"f"}]}`, `axes[0].values[0] = "1,2"`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[]}`, `stages is empty`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","over":["budget"],"func":"f"}]}`, `stages[0].over[0] = "budget"`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","func":"f","script":"a.go"}]}`, `stages[0] ("x") has func = "f", script = "a.go"`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x"}]}`, `stages[0] ("x") has func = ""`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","func":"f"},{"name":"x","func":"g"}]}`, `stages[1].name = "x" is used by two stages`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","func":"f","all":true,"over":["seed"]}]}`, `all = true and over = [seed]`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","func":"f"}],"epochs":3}`, `unknown field "epochs"`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"]}],"stages":[{"name":"x","func":"f"}],"params":{"seed":"3"}}`, `params.seed is also an axis`},
		{`{"name":"s","axes":[{"name":"seed","values":[true]}],"stages":[{"name":"x","func":"f"}]}`, `axis "seed": values[0] = true, expected a string or a number`},
		{`{"name":"s","axes":[{"name":"seed","values":["1"],"vals":[2]}],"stages":[{"name":"x","func":"f"}]}`, `unknown field "vals"`},
	} {
		_, err := study.ParseSpec([]byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSpec(%s) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}

func TestCreateRefusesOtherStudy(t *testing.T) {
	dir := t.TempDir()
	if _, err := study.Create(dir, trainingSpec(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := study.Create(dir, trainingSpec(), ""); err != nil {
		t.Fatalf("opening the same study again: %v", err)
	}
	other := trainingSpec()
	other.Params["epochs"] = "4"
	if _, err := study.Create(dir, other, ""); err == nil || !strings.Contains(err.Error(), "holds a different study") {
		t.Errorf("Create with another spec = %v, want a refusal", err)
	}
}

// TestLocalRunAndResume runs the study, then again (nothing runs), then with one record
// removed (only that job runs, with the same result).
func TestLocalRunAndResume(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	s, err := study.Create(dir, trainingSpec(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Jobs) != 2+4+1 {
		t.Fatalf("%d jobs, want 7", len(s.Jobs))
	}
	resetCalls()
	var lines []string
	if err := s.Run(context.Background(), &study.Local{Workers: 2, Progress: func(st *study.Status) { lines = append(lines, st.Line()) }}); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), map[string]int64{"simulate": 2, "train": 4, "aggregate": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("jobs run %v, want %v", got, want)
	}
	if last := lines[len(lines)-1]; last != "simulate 2/2 done · train 4/4 done · aggregate 1/1 done" {
		t.Errorf("last progress line %q", last)
	}
	first := metrics(t, s)
	seeds := map[uint64]bool{}
	for _, j := range s.Jobs {
		r, _ := s.Record(j.Index)
		if r.Seed != study.JobSeed("tiny", j.Stage, j.Key) {
			t.Errorf("job %d seed %d, want JobSeed", j.Index, r.Seed)
		}
		seeds[r.Seed] = true
	}
	if len(seeds) != len(s.Jobs) {
		t.Errorf("%d distinct seeds for %d jobs", len(seeds), len(s.Jobs))
	}
	agg, err := s.Results("aggregate")
	if err != nil || agg.Len() != 1 || agg.Records[0].Metrics["jobs"] != 4 {
		t.Fatalf("aggregate results %+v, %v", agg, err)
	}

	resetCalls()
	if err := s.Run(context.Background(), &study.Local{}); err != nil {
		t.Fatal(err)
	}
	if got := counts(); len(got) != 0 {
		t.Errorf("a finished study ran %v again", got)
	}

	// lose one training record: only it runs again, and gives the same numbers
	victim := s.StageJobs("train")[2]
	r, _ := s.Record(victim)
	if err := os.RemoveAll(r.Dir); err != nil {
		t.Fatal(err)
	}
	resetCalls()
	if err := s.Run(context.Background(), &study.Local{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), map[string]int64{"train": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("resumed study ran %v, want %v", got, want)
	}
	if again := metrics(t, s); again[victim] != first[victim] {
		t.Errorf("job %d gave %s, then %s", victim, first[victim], again[victim])
	}
	tab, err := s.Results("train")
	if err != nil {
		t.Fatal(err)
	}
	budgets, values, err := tab.Points("budget", "val_loss")
	if err != nil || !reflect.DeepEqual(budgets, []float64{200, 400}) || len(values[0]) != 2 {
		t.Errorf("Points = %v %v, %v", budgets, values, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "model.nre")); err != nil {
		t.Errorf("model not saved: %v", err)
	}
}

// TestLocalFailure: a failing job is reported with its log, the stages after it do not run,
// and the next run completes the study.
func TestLocalFailure(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	spec := trainingSpec()
	flag := filepath.Join(t.TempDir(), "fail")
	os.WriteFile(flag, nil, 0o644)
	spec.Params["fail"], spec.Params["failflag"] = "seed=2,budget=200", flag
	s, err := study.Create(dir, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	resetCalls()
	err = s.Run(context.Background(), &study.Local{Workers: 2, Retries: 1})
	if err == nil || !strings.Contains(err.Error(), `1 job of stage "train" failed`) || !strings.Contains(err.Error(), "diverged (on purpose)") {
		t.Fatalf("Run = %v, want the failure of one training", err)
	}
	if got, want := counts(), map[string]int64{"simulate": 2, "train": 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("jobs run %v, want %v (the failed job once more, no aggregate)", got, want)
	}
	st := s.Status()
	text := st.String()
	for _, want := range []string{"FAILED job 4 (train seed=2,budget=200), attempt 2", "about to fail on purpose: seed=2,budget=200", "training diverged (on purpose)"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	if st.Count(study.Failed) != 1 || st.Count(study.Missing) != 1 || st.Count(study.Done) != 5 {
		t.Errorf("status %s", st.Line())
	}
	os.Remove(flag)
	resetCalls()
	if err := s.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), map[string]int64{"train": 1, "aggregate": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("second run ran %v, want %v", got, want)
	}
	if st := s.Status(); !st.Complete() || len(st.Failed) != 0 {
		t.Errorf("after the second run: %s", st)
	}
}

// TestPanicLeavesNoRecord: a panicking job becomes a failure and leaves no record and no
// temporary directory.
func TestPanicLeavesNoRecord(t *testing.T) {
	study.RequireStudyRuns(t)
	study.Register("panics", func(j *study.Job) error {
		os.WriteFile(j.Path("half.bin"), []byte("partial"), 0o644)
		_ = j.Int("budget") // "x" is not an integer
		return nil
	})
	spec := &study.Spec{Name: "p", Axes: []study.Axis{{Name: "budget", Values: []string{"x"}}},
		Stages: []study.Stage{{Name: "s", Func: "panics"}}}
	dir := t.TempDir()
	s, err := study.Create(dir, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `parameter budget = "x", expected an integer`) {
		t.Fatalf("Run = %v", err)
	}
	left, _ := os.ReadDir(filepath.Join(dir, "jobs", "s"))
	if len(left) != 0 || s.Done(0) {
		t.Errorf("a failed job left %v", left)
	}
}
