package nbtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// TestNotebookSizeLimit lowers MaxNotebookSize below the size of a notebook: reading it is an
// error that states its size and the limit, and gosbi run refuses it before anything runs.
func TestNotebookSizeLimit(t *testing.T) {
	const path = "testdata/fake/outputs.ipynb"
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { nbtest.MaxNotebookSize = old }(nbtest.MaxNotebookSize)
	nbtest.MaxNotebookSize = 1000
	want := []string{path, fmt.Sprintf("(%d bytes)", st.Size()), "more than the 1000B"}
	_, err = nbtest.ReadNotebook(path)
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("ReadNotebook of a notebook over the limit: error %v, want one saying %q", err, w)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	err = nbtest.RunMain([]string{"--quiet", "--out", out, path})
	if err == nil || !strings.Contains(err.Error(), "more than the 1000B") {
		t.Errorf("gosbi run of a notebook over the limit: error %v, want one stating the limit", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("gosbi run ran a notebook over the limit (%d files written)", len(entries))
	}
	nbtest.MaxNotebookSize = st.Size()
	if _, err := nbtest.ReadNotebook(path); err != nil {
		t.Errorf("a notebook of exactly MaxNotebookSize bytes: %v", err)
	}
}
