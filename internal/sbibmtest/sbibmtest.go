// Package sbibmtest points a test binary at the sbibm benchmark files and marks the tests that
// read them, so that a test run can say how many data tests ran and how many were skipped.
//
// The data directory of a test binary is, in order: $GOSBI_DATA when set; ../shared/sbibm
// beside the repository (what CI and the developers have); the library's default directory
// when `gosbi data fetch` filled it; else the subset of the files shipped in testdata/sbibm at
// the root of the repository. A test that needs a file missing from the directory in use skips
// with a message naming `gosbi data fetch`; it never fails for want of data.
package sbibmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Marker starts the log line of every data test, ran or skipped; scripts/testsum counts the
// tests whose output holds it.
const Marker = "sbibm data test"

// probe is a file that every complete or partial copy of the sbibm files holds.
var probe = filepath.Join("two_moons", "num_observation_1", "observation.csv")

// Setup sets GOSBI_DATA for the test binary when it is unset, following the order of the
// package documentation, and returns the directory in use. defaultDir is the library's rule
// (task.DataDir); it is a parameter because package task's own tests call Setup.
func Setup(defaultDir func() (string, error)) (string, error) {
	if d := os.Getenv("GOSBI_DATA"); d != "" {
		return d, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var candidates []string
	candidates = append(candidates, filepath.Join(filepath.Dir(root), "shared", "sbibm"))
	if d, err := defaultDir(); err == nil {
		candidates = append(candidates, d)
	}
	candidates = append(candidates, filepath.Join(root, "testdata", "sbibm"))
	d, err := first(candidates)
	if err != nil {
		return "", err
	}
	return d, os.Setenv("GOSBI_DATA", d)
}

// first returns the first of dirs that holds sbibm files.
func first(dirs []string) (string, error) {
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, probe)); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("sbibmtest: no sbibm files in %q", dirs)
}

// repoRoot is the nearest directory above the working directory holding go.mod.
func repoRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("sbibmtest: no go.mod above the working directory")
		}
		d = up
	}
}

// Main is a TestMain for packages with data tests: it calls Setup and runs the tests. A
// failure of Setup is reported and left to the data tests, which then skip.
func Main(m *testing.M, defaultDir func() (string, error)) {
	if _, err := Setup(defaultDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(m.Run())
}

// Use marks t as a data test that runs.
func Use(t testing.TB) {
	t.Helper()
	t.Logf("%s: files from %s", Marker, os.Getenv("GOSBI_DATA"))
}

// Skip marks t as a data test and skips it because of err, the error of a file that is not
// available; the library's errors name `gosbi data fetch`, and Skip adds it when they do not.
func Skip(t testing.TB, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.Contains(msg, "gosbi data fetch") {
		msg += " (the full files: run `gosbi data fetch`, or set GOSBI_DATA)"
	}
	t.Skipf("%s skipped: %s", Marker, msg)
}
