package interp

import (
	"os"
	"strings"
	"testing"
)

// TestWriteFileNeedsAName: %%writefile with no path, or with only -a, fails naming the usage
// and writes nothing (before, "-a" alone was taken for the file's name).
func TestWriteFileNeedsAName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, first := range []string{"%%writefile", "%%writefile -a", "%%writefile   -a  "} {
		ts := newTestSession(t)
		res := ts.run(first + "\nbody")
		if res.Err == nil || !strings.Contains(res.Err.Value, "needs a file name") {
			t.Errorf("%q: error %+v, want one that asks for a file name", first, res.Err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("files written: %v", entries)
	}
}
