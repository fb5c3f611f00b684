//go:build unix

package nbtest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// unprivileged reruns the test named name as the user nobody when the tests run as root, who
// may write any file, and reports whether it did (the caller then returns).
func unprivileged(t *testing.T, name string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	dir, err := os.MkdirTemp("", "nbtest-nobody-")
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
	wd, err := os.Getwd() // the test reads its testdata
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.Dir = wd
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Errorf("as the user nobody (%v):\n%s", err, out)
	}
	return true
}

// TestRunInPlaceReadOnly runs in place a notebook its user may not write (mode 0444): the run
// is refused before any cell runs, with an error that says so and what to do, and the
// notebook is left as it was, not replaced by a new file.
func TestRunInPlaceReadOnly(t *testing.T) {
	if unprivileged(t, "TestRunInPlaceReadOnly") {
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
