//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unprivileged reruns the test named name as the user nobody when the tests run as root, who
// may write any file, and reports whether it did (the caller then returns). A file's write
// permission is what the tests of read-only files are about.
func unprivileged(t *testing.T, name string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	// nobody must reach the test binary and have a temporary directory of its own
	dir, err := os.MkdirTemp("", "atomicfile-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "test.bin")
	tmp := filepath.Join(dir, "tmp")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{os.WriteFile(bin, b, 0o755), os.Mkdir(tmp, 0o777), os.Chmod(tmp, 0o1777), os.Chmod(dir, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Errorf("as the user nobody (%v):\n%s", err, out)
	}
	return true
}

// TestWriteRefusesReadOnlyFile writes over a file its writer may not write (mode 0440): a write
// updates a file, so it fails with a permission error, as os.WriteFile would, and leaves the
// file whole, instead of renaming a new file over it.
func TestWriteRefusesReadOnlyFile(t *testing.T) {
	if unprivileged(t, "TestWriteRefusesReadOnlyFile") {
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
