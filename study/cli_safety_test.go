package study_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/study"
)

// slowScript is a script stage that appends its x to the file "ran" (one line per run), writes
// its pid to pids/INDEX, and waits while the file "slow" exists when x is 1.
const slowScript = `j, err := study.Current()
if err != nil {
	panic(err)
}
f, err := os.OpenFile(j.Params["ran"], os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
if err != nil {
	panic(err)
}
fmt.Fprintln(f, j.Params["x"])
f.Close()
os.WriteFile(filepath.Join(j.Params["pids"], strconv.Itoa(j.Index)), []byte(strconv.Itoa(os.Getpid())), 0o644)
for j.Params["x"] == "1" {
	if _, err := os.Stat(j.Params["slow"]); err != nil {
		break
	}
	time.Sleep(50 * time.Millisecond)
}
j.Set("y", 2*j.Float("x"))
`

// slowStudy writes a study of slowScript over x = 1, 2, 3 to dir and returns the paths of its
// spec, its "slow" file (created) and its "ran" file.
func slowStudy(t *testing.T, dir string) (spec, slow, ran string) {
	t.Helper()
	slow, ran = filepath.Join(dir, "slow"), filepath.Join(dir, "ran")
	pids := filepath.Join(dir, "pids")
	os.MkdirAll(pids, 0o755)
	os.WriteFile(slow, nil, 0o644)
	spec = filepath.Join(dir, "spec.json")
	text := `{"name": "slow", "axes": [{"name": "x", "values": [1, 2, 3]}],
	  "stages": [{"name": "work", "source": ` + quote(slowScript) + `}],
	  "params": {"slow": ` + quote(slow) + `, "ran": ` + quote(ran) + `, "pids": ` + quote(pids) + `}}`
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec, slow, ran
}

// startRun starts `gosbi study run ARGS…` and returns it with its combined output.
func startRun(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(gosbi(t), append([]string{"study", "run"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out
}

// scriptPID waits for the pid that job i's script wrote.
func scriptPID(t *testing.T, dir string, i int) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "pids", strconv.Itoa(i)))
		if pid, perr := strconv.Atoi(string(b)); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d's script did not start within a minute", i)
		}
	}
}

// runs counts the lines of the "ran" file: how many times each x ran.
func runs(t *testing.T, ran string) map[string]int {
	b, _ := os.ReadFile(ran)
	out := map[string]int{}
	for _, x := range strings.Fields(string(b)) {
		out[x]++
	}
	return out
}

// TestCLILock: while `gosbi study run` runs a study, a second run of the same directory
// refuses with the holder's pid, host and start time; with --wait it waits, then finds nothing
// left to run: no job runs twice.
func TestCLILock(t *testing.T) {
	study.RequireStudyRuns(t)
	dir := t.TempDir()
	spec, slow, ran := slowStudy(t, dir)
	out := filepath.Join(dir, "out")
	first, firstOut := startRun(t, spec, "--dir", out, "--workers", "1")
	scriptPID(t, dir, 0)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a run that is not refused waits for slow
	defer cancel()
	text, err := exec.CommandContext(ctx, gosbi(t), "study", "run", out).CombinedOutput()
	host, _ := os.Hostname()
	want := fmt.Sprintf("pid %d on host %s, running since", first.Process.Pid, host)
	if err == nil || !strings.Contains(string(text), want) || !strings.Contains(string(text), "--wait") {
		t.Errorf("second run: %v\n%s\nwant a refusal naming %q", err, text, want)
	}
	status, _ := exec.Command(gosbi(t), "study", "status", out).CombinedOutput()
	if !strings.Contains(string(status), "run now by "+want) {
		t.Errorf("status does not name the runner:\n%s", status)
	}

	waiting, waitOut := startRun(t, out, "--wait")
	for deadline := time.Now().Add(time.Minute); !strings.Contains(waitOut.String(), "waiting for the run of "+want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run with --wait did not say whom it waits for:\n%s", waitOut)
		}
	}
	os.Remove(slow)
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, firstOut)
	}
	if err := waiting.Wait(); err != nil {
		t.Fatalf("run with --wait: %v\n%s", err, waitOut)
	}
	if got := runs(t, ran); got["1"] != 1 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("runs per job %v, want each once", got)
	}
	if !strings.Contains(waitOut.String(), "work 3/3 done") {
		t.Errorf("the waiting run's output:\n%s", waitOut)
	}
}
