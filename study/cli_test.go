package study_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/study"
)

var (
	gosbiOnce sync.Once
	gosbiBin  string
	gosbiErr  error
)

// gosbi builds the gosbi command once per test binary.
func gosbi(t *testing.T) string {
	t.Helper()
	bin, err := buildGosbi()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func gosbiForBench(b *testing.B) string {
	bin, err := buildGosbi()
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

func buildGosbi() (string, error) {
	gosbiOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gosbi-study-test-")
		if err != nil {
			gosbiErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		gosbiBin, gosbiErr = nbtest.BuildBinary(ctx, dir)
	})
	return gosbiBin, gosbiErr
}

// scriptJob is a script stage: twice x, and a failure for x = 3 while the file "fail" names
// exists.
const scriptJob = `j, err := study.Current()
if err != nil {
	panic(err)
}
if j.Params["x"] == "3" {
	if _, err := os.Stat(j.Params["fail"]); err == nil {
		fmt.Println("x = 3 is not welcome")
		os.Exit(3)
	}
}
os.WriteFile(j.Path("out.txt"), []byte(j.Key), 0o644)
j.Set("y", 2*j.Float("x"))
`

const scriptSum = `j, err := study.Current()
if err != nil {
	panic(err)
}
rs, err := j.Inputs("double")
if err != nil {
	panic(err)
}
s := 0.0
for _, r := range rs {
	s += r.Metrics["y"]
}
j.Set("sum", s)
`

// TestCLI runs a study of script stages with `gosbi study run` and reads it with
// `gosbi study status`: a failing script is reported with its output, and the next run
// completes the study.
func TestCLI(t *testing.T) {
	study.RequireStudyRuns(t)
	bin := gosbi(t)
	dir := t.TempDir()
	fail := filepath.Join(dir, "fail")
	os.WriteFile(fail, nil, 0o644)
	writeScriptStudy(t, dir, fail)
	out := filepath.Join(dir, "out")
	run := func(args ...string) (string, error) { // in dir, with relative paths
		cmd := exec.Command(bin, append([]string{"study"}, args...)...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	text, err := run("run", "spec.json", "--dir", "out")
	if err == nil || !strings.Contains(text, `1 job of stage "double" failed`) {
		t.Fatalf("first run: %v\n%s", err, text)
	}
	text, err = run("status", "out")
	if err == nil || !strings.Contains(text, "1 failed job in out") {
		t.Errorf("status of a study with a failed job: exit %v, want a non-zero exit naming it:\n%s", err, text)
	}
	for _, want := range []string{"FAILED job 2 (double x=3), attempt 1", "x = 3 is not welcome", "exit status 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	os.Remove(fail)
	if text, err := run("run", "out", "--executor", "local"); err != nil {
		t.Fatalf("second run: %v\n%s", err, text)
	}
	s := checkSum(t, out)
	r, _ := s.Record(0)
	if got, _ := os.ReadFile(r.Path("out.txt")); string(got) != "x=1" || len(r.Files) != 1 {
		t.Errorf("job 0 files %v, out.txt %q", r.Files, got)
	}

	// a malformed spec names the field and the value
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"name": "cli", "axes": [{"name": "x", "values": ["1"]}], "stages": [{"name": "double", "over": ["y"], "script": "double.go"}]}`), 0o644)
	text, err = run("run", filepath.Join(dir, "bad.json"), "--dir", filepath.Join(dir, "bad"))
	if err == nil || !strings.Contains(text, `stages[0].over[0] = "y", expected the name of an axis`) {
		t.Errorf("malformed spec: %v\n%s", err, text)
	}
	text, err = run("run", filepath.Join(dir, "spec.json"), "--executor", "cluster", "--dir", out)
	if err == nil || !strings.Contains(text, `--executor = "cluster", expected local or slurm`) {
		t.Errorf("unknown executor: %v\n%s", err, text)
	}
}

// writeScriptStudy writes the study of scriptJob and scriptSum over x = 1, 2, 3 to dir
// (spec.json, double.go); job x = 3 fails while the file fail exists.
func writeScriptStudy(t *testing.T, dir, fail string) {
	t.Helper()
	spec := `{"name": "cli", "axes": [{"name": "x", "values": ["1", "2", "3"]}],
	  "stages": [{"name": "double", "script": "double.go"}, {"name": "sum", "all": true, "source": ` + quote(scriptSum) + `}],
	  "params": {"fail": ` + quote(fail) + `}}`
	for name, text := range map[string]string{"double.go": scriptJob, "spec.json": spec} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkSum opens the script study in out and checks its sum, 2·(1 + 2 + 3) = 12.
func checkSum(t *testing.T, out string) *study.Study {
	t.Helper()
	s, err := study.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := s.Results("sum")
	if err != nil || tab.Len() != 1 || tab.Records[0].Metrics["sum"] != 12 {
		t.Fatalf("sum results %+v, %v", tab, err)
	}
	return s
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// TestCLISlurm runs the script study with `gosbi study run --executor slurm`: the array tasks
// run `gosbi study worker DIR INDEX`, and the results are the local run's.
func TestCLISlurm(t *testing.T) {
	study.RequireStudyRuns(t)
	requireSlurm(t)
	bin := gosbi(t)
	dir := t.TempDir()
	writeScriptStudy(t, dir, "/nonexistent")
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "study", "run", filepath.Join(dir, "spec.json"), "--executor", "slurm", "--dir", out,
		"--throttle", "2", "--time", "5:00", "--mem", "200M", "--cpus", "1", "--partition", slurmPartition(t))
	text, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !strings.Contains(string(text), "double 3/3 done · sum 1/1 done") {
		t.Errorf("no final progress line:\n%s", text)
	}
	checkSum(t, out)
	scripts, _ := filepath.Glob(filepath.Join(out, "slurm", "*.sh"))
	if len(scripts) != 2 {
		t.Errorf("batch scripts %v, want one per stage", scripts)
	}
	b, _ := os.ReadFile(scripts[0])
	if !strings.Contains(string(b), "'study' 'worker'") {
		t.Errorf("batch script does not run gosbi study worker:\n%s", b)
	}
	// the options reached sbatch: read them back from the first array's first task
	logs, _ := filepath.Glob(filepath.Join(out, "slurm", "logs", "double-*_0.log"))
	if len(logs) != 1 {
		t.Fatalf("per-task logs %v", logs)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(logs[0]), "double-"), ".log")
	info, err := exec.Command("scontrol", "show", "job", id).Output()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v", id, err)
	}
	for _, want := range []string{"TimeLimit=00:05:00", "ArrayTaskThrottle=2", "MinMemoryNode=200M", "NumCPUs=1", "Partition=" + slurmPartition(t)} {
		if !strings.Contains(string(info), want) {
			t.Errorf("job %s lacks %s:\n%s", id, want, info)
		}
	}
}

// slurmPartition is the cluster's default partition.
func slurmPartition(t *testing.T) string {
	out, err := exec.Command("sinfo", "-h", "-o", "%P").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "*") {
			return strings.TrimSuffix(p, "*")
		}
	}
	t.Fatalf("no default partition in %q", out)
	return ""
}

// TestCLIHelp: every sub-command answers --help with its usage and exit status 0, without
// reading a study directory (status once took "--help" for one).
func TestCLIHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"status", "--help"}, {"status", "-h"}, {"worker", "--help"}, {"worker", "-h"}} {
		stdout := captureStdout(t, func() {
			if err := study.Main(args); err != nil {
				t.Errorf("study %v: %v", args, err)
			}
		})
		if !strings.Contains(stdout, "usage:") || !strings.Contains(stdout, "gosbi study") {
			t.Errorf("study %v printed %q, want its usage", args, stdout)
		}
	}
}

// captureStdout returns what f writes to standard output.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	os.Stdout = old
	return <-done
}
