//go:build unix

package nbtest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/nobodytest"
)

// TestRunInPlaceReadOnly runs in place a notebook its user may not write (mode 0444): the run
// is refused before any cell runs, with an error that says so and what to do, and the
// notebook is left as it was, not replaced by a new file.
func TestRunInPlaceReadOnly(t *testing.T) {
	if nobodytest.Rerun(t, "TestRunInPlaceReadOnly", ".") { // in this directory: the test reads its testdata
		return
	}
	path := filepath.Join(t.TempDir(), "outputs.ipynb")
	src, err := os.ReadFile("testdata/fake/outputs.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o444); err != nil {
		t.Fatal(err)
	}
	err = nbtest.RunMain([]string{"--quiet", path})
	for _, want := range []string{"cannot save the result", "read-only", "--out"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("running a read-only notebook in place: error %v, want one saying %q", err, want)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Errorf("the read-only notebook was replaced")
	}
}
