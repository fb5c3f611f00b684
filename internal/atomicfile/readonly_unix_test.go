//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nobodytest"
)

// TestWriteRefusesReadOnlyFile writes over a file its writer may not write (mode 0440): a write
// updates a file, so it fails with a permission error, as os.WriteFile would, and leaves the
// file whole, instead of renaming a new file over it.
func TestWriteRefusesReadOnlyFile(t *testing.T) {
	if nobodytest.Rerun(t, "TestWriteRefusesReadOnlyFile", "") {
		return
	}
	path, old := writeOld(t)
	if err := os.Chmod(path, 0o440); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("new"), 0o644)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("writing over a read-only file: error %v, want a permission error saying it is read-only", err)
	}
	checkIntact(t, path, old, false)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o440 {
		t.Errorf("the file's mode became %v, want its 0440", st.Mode().Perm())
	}
}
