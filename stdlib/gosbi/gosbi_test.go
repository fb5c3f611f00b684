package gosbi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/stdlib"
	_ "github.com/gosbi/gosbi/stdlib/gosbi"
)

func TestTablesAreAddedToStdlib(t *testing.T) {
	for _, key := range []string{
		"github.com/gosbi/gosbi/display/display", "github.com/gosbi/gosbi/sbi/sbi", "github.com/gosbi/gosbi/sbi/task/task",
		"github.com/gosbi/gosbi/sbi/calib/calib", "github.com/gosbi/gosbi/sbi/certify/certify", "github.com/gosbi/gosbi/viz/viz", "fmt/fmt",
	} {
		if _, ok := stdlib.Symbols[key]; !ok {
			t.Errorf("no symbols for %s", key)
		}
	}
	if _, ok := stdlib.Symbols["github.com/gosbi/gosbi/display/display"]["Check"]; !ok {
		t.Error("display.Check missing")
	}
	if d := stdlib.Docs["github.com/gosbi/gosbi/display"]["Check"]; !strings.Contains(d, "Check is a notebook's own assertion") {
		t.Errorf("Docs of display.Check = %q", d)
	}
}

// TestModuleDeps checks the recorded dependencies within the module of two packages: viz
// imports display, sbi/dist does not.
func TestModuleDeps(t *testing.T) {
	for _, c := range []struct {
		path, dep string
		want      bool
	}{
		{"github.com/gosbi/gosbi/viz", "github.com/gosbi/gosbi/display", true},
		{"github.com/gosbi/gosbi/viz", "github.com/gosbi/gosbi/sbi", true},
		{"github.com/gosbi/gosbi/sbi/dist", "github.com/gosbi/gosbi/display", false},
		{"github.com/gosbi/gosbi/sbi", "github.com/gosbi/gosbi/display", false},
	} {
		deps, ok := stdlib.ModuleDeps[c.path]
		if !ok {
			t.Errorf("no ModuleDeps for %s", c.path)
			continue
		}
		if got := slices.Contains(deps, c.dep); got != c.want {
			t.Errorf("ModuleDeps[%s] holds %s: %v, want %v", c.path, c.dep, got, c.want)
		}
	}
}
