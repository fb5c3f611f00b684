package sbibmtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSetupKeepsGOSBIDATA(t *testing.T) {
	t.Setenv("GOSBI_DATA", "/set/by/the/user")
	d, err := Setup(func() (string, error) { t.Fatal("the default directory was consulted"); return "", nil })
	if err != nil || d != "/set/by/the/user" {
		t.Errorf("Setup = %q, %v", d, err)
	}
}

// TestFirst: the first directory holding sbibm files wins; empty or missing ones are passed.
func TestFirst(t *testing.T) {
	empty, full, other := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{full, other} {
		if err := os.MkdirAll(filepath.Join(d, filepath.Dir(probe)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, probe), []byte("data_1,data_2\n0,0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := first([]string{filepath.Join(empty, "missing"), empty, full, other}); err != nil || d != full {
		t.Errorf("first = %q, %v, want %q", d, err, full)
	}
	if _, err := first([]string{empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("no files: error %v", err)
	}
}

// TestShippedSubset: the repository's subset holds every observation file the data tests read.
func TestShippedSubset(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "sbibm")
	for _, task := range []string{"two_moons", "gaussian_linear", "gaussian_linear_uniform", "gaussian_mixture",
		"slcp", "bernoulli_glm", "sir", "lotka_volterra"} {
		for k := 1; k <= 10; k++ {
			for _, f := range []string{"observation.csv", "true_parameters.csv"} {
				if _, err := os.Stat(filepath.Join(dir, task, "num_observation_"+strconv.Itoa(k), f)); err != nil {
					t.Error(err)
				}
			}
		}
	}
	for _, f := range []string{"bernoulli_glm/stimulus.csv", "bernoulli_glm/design_matrix.csv", "LICENSE",
		"two_moons/num_observation_1/reference_posterior_samples.csv.bz2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
