package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadHistoryBounded loads the REPL history with its bound: a file within it gives its
// last 1000 lines, a missing one none, and one byte over the bound is an error that names the
// file and the limit, advises to keep its last lines, with an empty history that still appends
// to the file. A history that cannot be read nor appended to (a directory) is an error that
// says lines are not saved, without that advice.
func TestLoadHistoryBounded(t *testing.T) {
	line := "fmt.Println(\"a line of the history\")\n"
	const tooLarge, appended = "larger than the 16777216 bytes (16 MiB) the REPL history may hold", "lines entered now are still appended to it"
	for _, c := range []struct {
		name    string
		size    int // bytes of the file; -1: no file; -2: a directory
		lines   int // loaded
		want    []string
		notWant string
	}{
		{"missing", -1, 0, nil, ""},
		{"a few lines", 3 * len(line), 3, nil, ""},
		{"at the bound", maxHistorySize, 1000, nil, ""},
		{"one byte over", maxHistorySize + 1, 0, []string{tooLarge, "tail -n 1000", appended}, ""},
		{"a directory", -2, 0, []string{"lines entered now are not saved"}, "tail -n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history")
			if c.size == -2 {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			}
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
			case c.want == nil && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want != nil && (err == nil || !strings.Contains(err.Error(), path)):
				t.Fatalf("error %v, want one naming %s", err, path)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if c.notWant != "" && strings.Contains(err.Error(), c.notWant) {
				t.Errorf("error %q says %q", err, c.notWant)
			}
			if h == nil || h.Len() != c.lines {
				t.Fatalf("history %v, want %d lines", h, c.lines)
			}
			h.Add("added")
			if c.size == -2 {
				if h.Len() != 1 {
					t.Errorf("history holds %d lines after one was added, want 1", h.Len())
				}
				return
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.HasSuffix(string(b), "added\n") {
				t.Errorf("history file ends %q (%v), want the added line appended", b[max(0, len(b)-20):], err)
			}
		})
	}
}
