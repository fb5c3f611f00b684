package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
)

// trainedFor returns an NPE trained briefly on simulations of the task name.
func trainedFor(t *testing.T, name string) *sbi.NPE {
	t.Helper()
	tk, err := task.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	theta := tk.Prior().Sample(rng, 400)
	npe := sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Hidden: 16, Transforms: 1})
	if _, err := npe.Train(theta, tk.Simulate(rng, theta), sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return npe
}

// requireStudyRuns skips a test that runs a study on Windows, where study runs are not
// supported (the study package's Run says why and what to use instead).
func requireStudyRuns(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("study runs are not supported on Windows: a worker's running marker is renamed while the worker holds it open")
	}
}

// TestKeepIncomplete checks that the estimator a certification kept when it stopped after
// training (certify.IncompleteError) is saved, beside --out or in a new file of the current
// directory, and that the error names the file and how to certify it; other errors pass as
// they are.
func TestKeepIncomplete(t *testing.T) {
	npe := trainedFor(t, "two_moons")
	cause := errors.New("the check set's simulations all failed")
	stopped := &certify.IncompleteError{Estimator: npe, Err: cause}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct{ name, out, file string }{
		{"beside --out", filepath.Join(dir, "cert.json"), filepath.Join(dir, "cert.json.estimator")},
		{"without --out", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := keepIncomplete(stopped, c.out, "two_moons")
			if !errors.Is(err, cause) {
				t.Fatalf("error %v does not wrap the cause", err)
			}
			file := c.file
			if file == "" {
				m, _ := filepath.Glob(filepath.Join(dir, "certify-two_moons-*.estimator"))
				if len(m) != 1 {
					t.Fatalf("files certify-two_moons-*.estimator in the current directory: %v, want one", m)
				}
				file = m[0]
			}
			if !strings.Contains(err.Error(), `"trained": `+strconv.Quote(file)) { // as a JSON string
				t.Errorf("error %q does not say to give %s as \"trained\"", err, file)
			}
			e, lerr := sbi.LoadFile(file)
			if lerr != nil {
				t.Fatalf("the saved estimator: %v", lerr)
			}
			if !e.Trained() {
				t.Errorf("the saved estimator is not trained")
			}
		})
	}
	t.Run("other errors", func(t *testing.T) {
		if err := keepIncomplete(cause, filepath.Join(dir, "x.json"), "two_moons"); err != cause {
			t.Errorf("got %v, want the error itself", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.json.estimator")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a file was written for an error that kept no estimator: %v", err)
		}
	})
}

// TestCertifyTrainedSpec runs `gosbi certify` on a spec whose "trained" names an estimator
// file (relative to the spec): it certifies that estimator without training; a spec that also
// names an estimator, or whose file holds an estimator of another task's prior, is refused.
func TestCertifyTrainedSpec(t *testing.T) {
	dir := t.TempDir()
	if err := trainedFor(t, "two_moons").SaveFile(filepath.Join(dir, "moons.estimator")); err != nil {
		t.Fatal(err)
	}
	if err := trainedFor(t, "gaussian_linear").SaveFile(filepath.Join(dir, "linear.estimator")); err != nil {
		t.Fatal(err)
	}
	const budget = `"simulations": 1500, "test": 500, "check": 300, "remedies": [], "samples": 100, "sbc_samples": -1, "seed": 1`
	for _, c := range []struct {
		name, spec string
		code       int
		want       string
	}{
		{"trained", `{"task": "two_moons", "trained": "moons.estimator", ` + budget + `}`, 0, "estimator given"},
		{"both", `{"task": "two_moons", "estimator": "npe", "trained": "moons.estimator", ` + budget + `}`, 1, "both estimator"},
		{"other prior", `{"task": "two_moons", "trained": "linear.estimator", ` + budget + `}`, 1, "the estimator's prior is"},
		{"no file", `{"task": "two_moons", "trained": "none.estimator", ` + budget + `}`, 1, "none.estimator"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := filepath.Join(dir, c.name+".json")
			if err := os.WriteFile(spec, []byte(c.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := gosbi(t, "certify", spec)
			if code != c.code || !strings.Contains(stdout+stderr, c.want) {
				t.Errorf("exit status %d, want %d with %q in the output; stdout:\n%s\nstderr:\n%s", code, c.code, c.want, stdout, stderr)
			}
		})
	}
}

// TestCertifyStudyKeepsEstimator: a seed's job of `gosbi certify --study` that stopped after
// training (certify.IncompleteError) lost the trained estimator with the job's directory, which
// a failed job does not keep; only a run without --study saved it. Each such job now saves it
// beside its record, as jobs/certify/NNNNN.estimator, and the study's error, which the command
// prints, names the file and how to certify it; the study reads the files as its failed jobs.
func TestCertifyStudyKeepsEstimator(t *testing.T) {
	requireStudyRuns(t)
	npe := trainedFor(t, "two_moons")
	cause := errors.New("the check set's simulations all failed")
	defer func(f func(dist.Distribution, sbi.Simulator, *mat.Dense, certify.Config) (*certify.Certificate, error)) {
		certifyRun = f
	}(certifyRun)
	certifyRun = func(dist.Distribution, sbi.Simulator, *mat.Dense, certify.Config) (*certify.Certificate, error) {
		return nil, &certify.IncompleteError{Estimator: npe, Err: cause}
	}
	s, err := parseCertifySpec([]byte(fmt.Sprintf(certifyStudySpec, `"seeds": [1, 2]`)))
	if err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(t.TempDir(), "study")
	_, st, err := runCertifyStudy(context.Background(), s, studyOptions{dir: sdir, workers: 1, progress: io.Discard})
	if err == nil || st == nil {
		t.Fatalf("error %v, study %v; want the jobs' error and the study (the test's premise)", err, st)
	}
	for _, i := range st.StageJobs("certify") {
		file := filepath.Join(sdir, "jobs", "certify", fmt.Sprintf("%05d.estimator", i))
		if !strings.Contains(err.Error(), `"trained": "`+file+`"`) {
			t.Errorf("the study's error does not name %s as \"trained\":\n%v", file, err)
		}
		e, lerr := sbi.LoadFile(file)
		if lerr != nil {
			t.Errorf("job %d's estimator: %v", i, lerr)
			continue
		}
		if !e.Trained() {
			t.Errorf("job %d's saved estimator is not trained", i)
		}
	}
	if status := st.Status(); len(status.Failed) != 2 || len(status.Invalid) != 0 || len(status.Damaged) != 0 {
		t.Errorf("the study's status beside the saved estimators: %s, want 2 failed jobs, no invalid record, no damaged file", status.Line())
	}
}

// TestCertifyStudyRemovesSupersededEstimator: the estimator a seed's job saved beside its record
// when it stopped after training stayed there after a later run of the study certified the
// seed, whose record holds the certificate with its estimator. The run now removes it once the
// seed's record is written (the file is still there while the job runs), says so, and keeps
// the estimator of a seed that stopped again.
func TestCertifyStudyRemovesSupersededEstimator(t *testing.T) {
	requireStudyRuns(t)
	npe := trainedFor(t, "two_moons")
	cause := errors.New("the check set's simulations all failed")
	defer func(f func(dist.Distribution, sbi.Simulator, *mat.Dense, certify.Config) (*certify.Certificate, error)) {
		certifyRun = f
	}(certifyRun)
	real := certifyRun
	stopped := func(dist.Distribution, sbi.Simulator, *mat.Dense, certify.Config) (*certify.Certificate, error) {
		return nil, &certify.IncompleteError{Estimator: npe, Err: cause}
	}
	s, err := parseCertifySpec([]byte(fmt.Sprintf(certifyStudySpec, `"seeds": [1, 2]`)))
	if err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(t.TempDir(), "study")
	kept := func(i int) string { return filepath.Join(sdir, "jobs", "certify", fmt.Sprintf("%05d.estimator", i)) }

	// the first run: both seeds stop after training and keep their estimators
	certifyRun = stopped
	if _, _, err := runCertifyStudy(context.Background(), s, studyOptions{dir: sdir, workers: 1, progress: io.Discard}); err == nil {
		t.Fatal("the first run did not fail (the test's premise)")
	}
	for i := range 2 {
		if _, err := os.Stat(kept(i)); err != nil {
			t.Fatalf("the first run kept no estimator of job %d (the test's premise): %v", i, err)
		}
	}

	// the second run: seed 1 is certified, seed 2 stops again
	var whileRunning error
	certifyRun = func(p dist.Distribution, sim sbi.Simulator, obs *mat.Dense, cfg certify.Config) (*certify.Certificate, error) {
		if cfg.Seed != 1 {
			return stopped(p, sim, obs, cfg)
		}
		_, whileRunning = os.Stat(kept(0))
		return real(p, sim, obs, cfg)
	}
	var progress strings.Builder
	_, st, err := runCertifyStudy(context.Background(), s, studyOptions{dir: sdir, workers: 1, progress: &progress})
	if err == nil || st == nil {
		t.Fatalf("error %v, study %v; want seed 2's error and the study (the test's premise)", err, st)
	}
	if whileRunning != nil {
		t.Errorf("job 0's estimator was gone while the job ran, before its record was written: %v", whileRunning)
	}
	if _, err := st.Record(0); err != nil {
		t.Fatalf("seed 1's record: %v", err)
	}
	if _, err := os.Stat(kept(0)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the estimator of the certified seed is left beside its record: %v", err)
	}
	if !strings.Contains(progress.String(), "removed "+kept(0)) {
		t.Errorf("the run does not say that it removed %s:\n%s", kept(0), progress.String())
	}
	if _, err := sbi.LoadFile(kept(1)); err != nil {
		t.Errorf("the estimator of the seed that stopped again: %v", err)
	}
}

// TestCertifyTrainedRefusesProposalEstimator: an estimator that Sequential trained on a
// proposal, given as "trained", was refused by the library with advice for notebook code
// (certify.Certify with the result's Region) that the command cannot follow; the command now
// refuses it when it loads the file, naming it and what to do from the command line.
func TestCertifyTrainedRefusesProposalEstimator(t *testing.T) {
	dir := t.TempDir()
	tk, err := task.Get("two_moons")
	if err != nil {
		t.Fatal(err)
	}
	npe := sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Hidden: 16, Transforms: 1})
	rng := rand.New(rand.NewPCG(5, 6))
	xo := tk.Simulate(rng, tk.Prior().Sample(rng, 1)).RawRowView(0)
	_, err = sbi.Sequential(npe, tk, xo, sbi.SequentialConfig{
		Method: sbi.TruncatedProposals, Rounds: 2, Simulations: 300, Seed: 2,
		Train: sbi.TrainConfig{Epochs: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := npe.SaveFile(filepath.Join(dir, "seq.estimator")); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(`{"task": "two_moons", "trained": "seq.estimator", "simulations": 1500, "test": 500, "check": 300, "remedies": [], "samples": 100, "sbc_samples": -1, "seed": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gosbi(t, "certify", spec)
	out := stdout + stderr
	for _, want := range []string{"seq.estimator", "proposal", "in a notebook", "trained on the prior"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Fatalf("exit status %d, want 1 with %q in the output; stdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(out, "Config.Trained") {
		t.Errorf("the command's error speaks of the library's Config.Trained:\n%s", out)
	}
}
