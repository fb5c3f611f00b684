//go:build unix

// Package nobodytest lets a test of file permissions run as an unprivileged user when the
// tests run as root, who may write any file: the test reruns itself, as the user nobody, in a
// copy of the test binary that user can reach.
package nobodytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Rerun reruns the test named name as the user nobody (uid and gid 65534) when the process
// runs as root, fails t unless that run passes, and reports whether it reran (the caller then
// returns). The rerun's working directory is dir, or a temporary directory of its own when dir
// is empty; its TMPDIR and HOME are a directory nobody may write.
func Rerun(t *testing.T, name, dir string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	// nobody must reach the test binary and have a temporary directory of its own
	top, err := os.MkdirTemp("", "nobodytest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	bin := filepath.Join(top, "test.bin")
	tmp := filepath.Join(top, "tmp")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{os.WriteFile(bin, b, 0o755), os.Mkdir(tmp, 0o777), os.Chmod(tmp, 0o1777), os.Chmod(top, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if dir == "" {
		dir = tmp
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Errorf("as the user nobody (%v):\n%s", err, out)
	}
	return true
}
