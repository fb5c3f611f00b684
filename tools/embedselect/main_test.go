package main

import (
	"math"
	"strings"
	"testing"
)

// TestCheckTasks: the tasks and the arguments are checked before the first task runs (each
// takes minutes): an unknown task later in the list, and arguments after the flags, are
// refused with an error naming them.
func TestCheckTasks(t *testing.T) {
	for _, tc := range []struct {
		names   []string
		args    []string
		wantErr string
	}{
		{[]string{"sir_raw", "lotka_volterra_raw", "lotka_volterra_sde", "sir_jump", "sir_jump_onset"}, nil, ""},
		{[]string{"sir_raw", "lotka_volterra"}, nil, `unknown task "lotka_volterra"`},
		{[]string{"sir_raw"}, []string{"lotka_volterra_raw"}, `unexpected arguments ["lotka_volterra_raw"]`},
	} {
		_, err := seriesTasks(tc.names, tc.args)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("seriesTasks(%q, %q) = %v, want nil", tc.names, tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("seriesTasks(%q, %q) = %v, want an error naming %q", tc.names, tc.args, err, tc.wantErr)
		}
	}
}

// TestChooseRefusesNaN: a candidate whose score is not a number (a training that diverged) is
// an error naming it, not a candidate that no later one can beat (NaN compares false).
func TestChooseRefusesNaN(t *testing.T) {
	c := choice{}
	if err := c.add("MLP", "2×64", math.NaN()); err == nil || !strings.Contains(err.Error(), "2×64") {
		t.Errorf("a NaN score: error %v, want one naming the candidate", err)
	}
	for _, s := range []struct {
		name  string
		score float64
	}{{"a", -3}, {"b", -1}, {"c", -2}} {
		if err := c.add("CNN", s.name, s.score); err != nil {
			t.Fatal(err)
		}
	}
	if c.best["CNN"] != "b" {
		t.Errorf("chose %q, want b (the highest score)", c.best["CNN"])
	}
}
