//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNewFileUmask creates a file under a umask of 027: like os.WriteFile, perm 0666 gives 0640.
func TestNewFileUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "new")
	if err := WriteFile(path, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("a new file with perm 0666 under umask 027 has mode %v, want 0640", st.Mode().Perm())
	}
}
