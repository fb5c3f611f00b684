//go:build unix

// The test here limits the size of files a process may write (setrlimit(2), RLIMIT_FSIZE).

package interp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func init() { testMains["writefile"] = writeFileMain }

// TestWriteFileKeepsOldOnFailure: a %%writefile that fails part-way (here: the file size limit
// is hit, as a full disk would be) fails the cell and leaves the old file as it was; one that
// succeeds replaces the content and keeps the file's mode, and -a appends.
func TestWriteFileKeepsOldOnFailure(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sim.go")
	old := "package sim // the old version, complete\n"
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	// A body larger than the limit of the helper process: the write fails with EFBIG.
	big := strings.Repeat("// a line of the new version that does not fit\n", 4096)
	cmd := exec.Command(os.Args[0], file)
	cmd.Env = append(os.Environ(), "GOSBI_TEST_MAIN=writefile")
	cmd.Stdin = strings.NewReader(big)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("cell failed: %%writefile")) {
		t.Errorf("the write beyond the size limit did not fail the cell:\n%s", out)
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != old {
		t.Errorf("after the failed write the file holds %d bytes (%v), want the old %d: %.60q", len(got), err, len(old), got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the failed write left files behind: %v", entries)
	}

	ts := newTestSession(t)
	ts.mustRun(t, "%%writefile "+file+"\npackage sim // new")
	if got, _ := os.ReadFile(file); string(got) != "package sim // new\n" {
		t.Errorf("after the write: %q", got)
	}
	ts.mustRun(t, "%%writefile -a "+file+"\n// appended")
	if got, _ := os.ReadFile(file); string(got) != "package sim // new\n// appended\n" {
		t.Errorf("after the append: %q", got)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode after the writes: %v, %v; want 0600 kept", st.Mode(), err)
	}
}

// writeFileMain plays a process with a file size limit of 4 KiB (GOSBI_TEST_MAIN=writefile):
// it runs a %%writefile of standard input to the file args[0] and prints the cell's error.
func writeFileMain(args []string) error {
	body, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	// Go ignores SIGXFSZ: a write past the limit returns EFBIG.
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
		return err
	}
	s, err := NewSession(Config{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader("")})
	if err != nil {
		return err
	}
	if res := s.Execute(context.Background(), "%%writefile "+args[0]+"\n"+string(body), 1); res.Err != nil {
		fmt.Println("cell failed: " + res.Err.Value)
	}
	return nil
}
