package kernel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/kernel"
)

// TestMainRefusesBadArguments: arguments after the flags and an -interrupt-grace that is not
// positive are refused, naming what was given and what is expected, before the connection
// file is read.
func TestMainRefusesBadArguments(t *testing.T) {
	conn := filepath.Join(t.TempDir(), "missing.json")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-f", conn, "extra"}, []string{`unexpected arguments ["extra"]`, "gosbi kernel -f CONNECTION.json"}},
		{[]string{"-f", conn, "-interrupt-grace", "0"}, []string{"-interrupt-grace 0s", "a positive duration"}},
		{[]string{"-f", conn, "-interrupt-grace", "-2s"}, []string{"-interrupt-grace -2s", "a positive duration"}},
	} {
		err := kernel.Main(c.args, "test")
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Main(%q) = %v, want an error saying %q", c.args, err, w)
			}
		}
	}
}
