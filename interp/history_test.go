package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadHistoryBounded loads the REPL history with its bound: a file within it gives its
// last 1000 lines, a missing one none, and one byte over the bound is an error that names the
// file and the limit, with an empty history that still appends to the file.
func TestLoadHistoryBounded(t *testing.T) {
	line := "fmt.Println(\"a line of the history\")\n"
	for _, c := range []struct {
		name  string
		size  int // bytes of the file; -1: no file
		lines int // loaded
		want  string
	}{
		{"missing", -1, 0, ""},
		{"a few lines", 3 * len(line), 3, ""},
		{"at the bound", maxHistorySize, 1000, ""},
		{"one byte over", maxHistorySize + 1, 0, "larger than the 16777216 bytes (16 MiB) the REPL history may hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history")
			if c.size >= 0 {
				// Whole lines, the last cut short where the size requires it.
				b := []byte(strings.Repeat(line, c.size/len(line)+1)[:c.size])
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("GOSBI_HISTORY", path)
			h, err := loadHistory()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path)):
				t.Fatalf("error %v, want one naming %s and saying %q", err, path, c.want)
			}
			if h == nil || h.Len() != c.lines {
				t.Fatalf("history %v, want %d lines", h, c.lines)
			}
			h.Add("added")
			b, err := os.ReadFile(path)
			if err != nil || !strings.HasSuffix(string(b), "added\n") {
				t.Errorf("history file ends %q (%v), want the added line appended", b[max(0, len(b)-20):], err)
			}
		})
	}
}
