package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/study"
)

// certifyStudySpec is a small two-moons certification with the conformal remedy, for two seeds.
const certifyStudySpec = `{"task": "two_moons", "simulations": 1500, "test": 500, "check": 300,
	"epochs": 10, "remedies": ["conformal regions"], "samples": 100, "sbc_samples": -1,
	"observations": [[-0.3, 0.1]], %s}`

// TestCertifyStudyResumes runs `gosbi certify --study` on two seeds, one job at a time, kills
// it (SIGKILL) once the first seed's certificate is recorded, and runs the same command again:
// the second run certifies only the second seed, leaves the first seed's record as it was, and
// ends with the certificates that `gosbi certify` gives for each seed in one process, equal
// in every field but the wall times.
func TestCertifyStudyResumes(t *testing.T) {
	requireStudyRuns(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(certifyStudySpec, `"seeds": [1, 2]`)), 0o644); err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, "study")
	args := []string{"certify", spec, "--study", sdir, "--workers", "1"}

	// the first run, killed once a seed is recorded
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GOSBI_MAIN_TEST=1")
	var firstErr bytes.Buffer
	cmd.Stderr = &firstErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(sdir, "jobs", "certify", "00000", "record.json")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if _, err := os.Stat(first); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no record of the first seed after 5 minutes; stderr:\n%s", firstErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	st, err := study.Open(sdir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status().Complete() {
		t.Fatalf("the study was complete before the kill; the test did not interrupt it:\n%s", st.Status())
	}
	before, err := st.Record(0)
	if err != nil {
		t.Fatalf("the first seed's record: %v", err)
	}

	// the second run resumes
	code, stdout, stderr := gosbi(t, args...)
	if code != 0 {
		t.Fatalf("resumed run: exit status %d; stderr:\n%s", code, stderr)
	}
	if !st.Status().Complete() {
		t.Fatalf("the study is not complete after the resumed run:\n%s", st.Status())
	}
	after, err := st.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	if !after.Finished.Equal(before.Finished) || after.Attempt != 1 {
		t.Errorf("the first seed was certified again: finished %v then %v, attempt %d", before.Finished, after.Finished, after.Attempt)
	}
	if !strings.Contains(stdout, "seed 1 of 2 — Certificate: ") || !strings.Contains(stdout, "seed 2 of 2 — Certificate: ") {
		t.Errorf("the output does not hold both certificates:\n%s", stdout)
	}
	sum, err := st.Results("summary")
	if err != nil || sum.Len() != 1 {
		t.Fatalf("summary: %v", err)
	}

	// each seed's certificate is that of the run in one process
	for k, seed := range []int{1, 2} {
		one := filepath.Join(dir, fmt.Sprintf("seed%d.json", seed))
		if err := os.WriteFile(one, []byte(fmt.Sprintf(certifyStudySpec, fmt.Sprintf(`"seed": %d`, seed))), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("cert%d.json", seed))
		code, oneOut, stderr := gosbi(t, "certify", one, "--out", out)
		if code != 0 {
			t.Fatalf("seed %d in one process: exit status %d; stderr:\n%s", seed, code, stderr)
		}
		r, err := st.Record(st.StageJobs("certify")[k])
		if err != nil {
			t.Fatal(err)
		}
		a, b := certificateFields(t, out), certificateFields(t, r.Path(certificateFile))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("seed %d: the study's certificate differs from the one-process run's:\none process: %.600v\nstudy:       %.600v", seed, a, b)
		}
		c, err := certify.LoadFile(r.Path(certificateFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(oneOut, c.Sentence()) {
			t.Errorf("seed %d: the study's verdict %q is not the one-process run's:\n%s", seed, c.Sentence(), oneOut)
		}
		v, _ := r.Metric("verdict")
		if v != verdictCode(c.Verdict()) {
			t.Errorf("seed %d: metric verdict %v, certificate %s", seed, v, c.Verdict())
		}
		n, _ := sum.Values("seeds")
		if len(n) != 1 || n[0] != 2 {
			t.Errorf("summary counts %v seeds, want 2", n)
		}
	}
}

// certificateFields reads a certificate file as JSON without its wall times (elapsed_ns and
// each step's Elapsed), which differ from run to run.
func certificateFields(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	delete(m, "elapsed_ns")
	steps, _ := m["steps"].([]any)
	for _, s := range steps {
		delete(s.(map[string]any), "Elapsed")
	}
	return m
}

// TestCertifyStudyFlags checks the flags that do not go together, refused before anything runs.
func TestCertifyStudyFlags(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.json")
	if err := os.WriteFile(seeds, []byte(`{"task": "two_moons", "seeds": [1, 2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one.json")
	if err := os.WriteFile(one, []byte(`{"task": "two_moons", "seed": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, "study")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{seeds}, "certifying several seeds needs --study DIR"},
		{[]string{one, "--executor", "slurm"}, "[--executor] only go with --study DIR"},
		{[]string{seeds, "--study", sdir, "--out", filepath.Join(dir, "c.json")}, "--out and --html write one certificate"},
		{[]string{one, "--study", sdir, "--executor", "pbs"}, `--executor = "pbs", expected local or slurm`},
	} {
		code, _, stderr := gosbi(t, append([]string{"certify"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("gosbi certify %q: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
	for _, c := range []struct{ name, spec, want string }{
		{"seed and seeds", `{"task": "two_moons", "seed": 1, "seeds": [2]}`, "both seed (1) and seeds ([2])"},
		{"repeated seed", `{"task": "two_moons", "seeds": [2, 2]}`, "holds 2 twice"},
	} {
		if _, err := parseCertifySpec([]byte(c.spec)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(sdir); !os.IsNotExist(err) {
		t.Errorf("a refused command left %s (%v)", sdir, err)
	}
	// a directory that holds the study of another spec is refused
	s, err := parseCertifySpec([]byte(`{"task": "two_moons", "seed": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.studySpec()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := study.Create(sdir, sp, "."); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"task": "two_moons", "seed": 3, "epochs": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := gosbi(t, "certify", other, "--study", sdir); code != 1 || !strings.Contains(stderr, "holds a different study") {
		t.Errorf("another spec in the same directory: exit %d, stderr %q; want it refused", code, stderr)
	}
}

// TestCertifyStudySlurm runs `gosbi certify --study --executor slurm` on one seed: the array
// task (this test binary acting as `gosbi study worker`) records the certificate that the run
// in one process gives for that seed. It needs a Slurm cluster (CI starts one with
// scripts/slurm.sh); without one it is skipped, unless CI is set.
func TestCertifyStudySlurm(t *testing.T) {
	requireStudyRuns(t)
	out, err := exec.Command("sinfo", "-h", "-o", "%t %P").Output()
	state := strings.TrimSpace(string(out))
	if err != nil || !(strings.Contains(state, "idle") || strings.Contains(state, "mix") || strings.Contains(state, "alloc")) {
		msg := fmt.Sprintf("no Slurm cluster answers (sinfo: %q, %v); start one with `bash scripts/slurm.sh` (as root)", state, err)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI=true requires it", msg)
		}
		t.Skip(msg)
	}
	partition := ""
	for _, f := range strings.Fields(state) {
		if strings.HasSuffix(f, "*") {
			partition = strings.TrimSuffix(f, "*")
		}
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(certifyStudySpec, `"seed": 2`)), 0o644); err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, "study")
	args := []string{"certify", spec, "--study", sdir, "--executor", "slurm", "--time", "10:00"}
	if partition != "" {
		args = append(args, "--partition", partition)
	}
	code, stdout, stderr := gosbi(t, args...) // sbatch exports GOSBI_MAIN_TEST=1 to the worker
	if code != 0 {
		t.Fatalf("gosbi %q: exit status %d; stderr:\n%s", args, code, stderr)
	}
	local := filepath.Join(dir, "local.json")
	if code, _, stderr := gosbi(t, "certify", spec, "--out", local); code != 0 {
		t.Fatalf("one process: exit status %d; stderr:\n%s", code, stderr)
	}
	st, err := study.Open(sdir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Record(st.StageJobs("certify")[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Host == "" || !strings.Contains(stdout, "Certificate: ") {
		t.Errorf("record host %q, output:\n%s", r.Host, stdout)
	}
	if a, b := certificateFields(t, local), certificateFields(t, r.Path(certificateFile)); !reflect.DeepEqual(a, b) {
		t.Errorf("the certificate of the Slurm task differs from the one-process run's:\none process: %.600v\nslurm:       %.600v", a, b)
	}
}

// TestCertifyStudyRemedyCounts: the metric "tried" of a certify job's record counts the
// remedies taken up before the final test, those skipped for a stated reason included
// (certify.Certificate.Tried), while the certificate's sentence counts only those that ran. The
// record now holds beside it remedies_run and remedies_skipped, the certificate's RemediesRun
// and SkippedRemedies. A trained estimator cannot be retrained, so its "more simulations"
// remedy, taken up by a poorly calibrated estimator, is skipped.
func TestCertifyStudyRemedyCounts(t *testing.T) {
	requireStudyRuns(t)
	dir := t.TempDir()
	trained := filepath.Join(dir, "moons.estimator")
	if err := trainedFor(t, "two_moons").SaveFile(trained); err != nil {
		t.Fatal(err)
	}
	s, err := parseCertifySpec([]byte(fmt.Sprintf(`{"task": "two_moons", "trained": %q, "simulations": 1500,
		"test": 500, "check": 300, "remedies": ["more simulations", "conformal regions"], "samples": 100,
		"sbc_samples": -1, "seed": 1}`, trained)))
	if err != nil {
		t.Fatal(err)
	}
	certs, st, err := runCertifyStudy(context.Background(), s, studyOptions{dir: filepath.Join(dir, "study"), workers: 1, progress: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	c := certs[0]
	if len(c.SkippedRemedies()) == 0 {
		t.Fatalf("no remedy was skipped (the test's premise); steps: %+v", c.Steps)
	}
	r, err := st.Record(st.StageJobs("certify")[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name string
		want int
	}{
		{"tried", c.Tried},
		{"remedies_run", c.RemediesRun()},
		{"remedies_skipped", len(c.SkippedRemedies())},
	} {
		got, err := r.Metric(m.name)
		if err != nil || got != float64(m.want) {
			t.Errorf("metric %s = %v (%v), want %d", m.name, got, err, m.want)
		}
	}
}
