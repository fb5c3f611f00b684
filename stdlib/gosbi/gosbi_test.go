package gosbi_test

import (
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
