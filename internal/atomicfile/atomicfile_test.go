package atomicfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/diskfull"
)

// bigContent is more than the 64 KiB buffer of Write, so that part of it reaches the disk.
func bigContent(b byte) []byte { return bytes.Repeat([]byte{b}, 1<<20) }

func writeOld(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.gosbi")
	old := []byte("the old model, complete")
	if err := os.WriteFile(path, old, 0o640); err != nil {
		t.Fatal(err)
	}
	return path, old
}

// permOf returns the permission bits of the file at path.
func permOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// newFilePerm returns the permission bits that os.WriteFile gives a new file asked for with
// perm: perm less the umask on Unix, read-write or read-only on Windows, which keeps no other
// bits.
func newFilePerm(t *testing.T, perm fs.FileMode) fs.FileMode {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reference")
	if err := os.WriteFile(path, nil, perm); err != nil {
		t.Fatal(err)
	}
	return permOf(t, path)
}

// checkIntact checks that path still holds old and that no temporary file is left beside it.
func checkIntact(t *testing.T, path string, old []byte, tempAllowed bool) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("after the failed write the file holds %d bytes (err %v), want the old %d bytes", len(got), err, len(old))
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if !tempAllowed && len(entries) != 1 {
		t.Errorf("the directory holds %d entries after the failed write, want only the old file", len(entries))
	}
}

func TestWriteFailsMidway(t *testing.T) {
	for _, n := range []int{0, 100, 300 << 10} {
		path, old := writeOld(t)
		err := Write(path, 0o644, func(w io.Writer) error {
			_, err := (&diskfull.Writer{W: w, Room: n}).Write(bigContent('n'))
			return err
		})
		if !errors.Is(err, diskfull.ErrFull) {
			t.Fatalf("failing after %d bytes: error %v, want the writer's", n, err)
		}
		checkIntact(t, path, old, false)
	}
}

// TestWritePanicsMidway checks that a write function that panics, after part of the content
// reached the disk, leaves the target as it was and no temporary file behind, and that the
// panic reaches the caller unchanged.
func TestWritePanicsMidway(t *testing.T) {
	for _, n := range []int{0, 300 << 10} {
		path, old := writeOld(t)
		got := func() (p any) {
			defer func() { p = recover() }()
			Write(path, 0o644, func(w io.Writer) error {
				w.Write(bigContent('p')[:n])
				panic("write panicked")
			})
			return nil
		}()
		if got != "write panicked" {
			t.Fatalf("after %d bytes: recovered %v, want the write function's panic", n, got)
		}
		checkIntact(t, path, old, false)
	}
}

func TestWriteReplaces(t *testing.T) {
	path, _ := writeOld(t)
	oldPerm := permOf(t, path)
	data := bigContent('x')
	if err := WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after WriteFile the file holds %d bytes (err %v), want %d", len(got), err, len(data))
	}
	if perm := permOf(t, path); perm != oldPerm {
		t.Errorf("the replaced file has mode %v, want the old %v", perm, oldPerm)
	}
	fresh := filepath.Join(filepath.Dir(path), "new.gosbi")
	if err := WriteFile(fresh, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if perm, want := permOf(t, fresh), newFilePerm(t, 0o644); perm != want {
		t.Errorf("a new file has mode %v, want %v, as os.WriteFile gives it", perm, want)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Errorf("the directory holds %d entries, want the two files only", len(entries))
	}
}

// TestWriteKilledMidway kills a process in the middle of a write: the old file must survive
// (a temporary file may be left, under a hidden name).
func TestWriteKilledMidway(t *testing.T) {
	if path := os.Getenv("ATOMICFILE_HELPER_PATH"); path != "" {
		// The helper: write 1 MiB, say so, then hang as a slow disk would, until killed.
		err := Write(path, 0o644, func(w io.Writer) error {
			if _, err := w.Write(bigContent('k')); err != nil {
				return err
			}
			os.Stdout.WriteString("written\n")
			time.Sleep(time.Minute)
			return nil
		})
		if err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	path, old := writeOld(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteKilledMidway$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "written\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q (%v), want \"written\"", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	checkIntact(t, path, old, true)
}

// TestWriteThroughLinks writes through symbolic links (absolute, relative, chained, and one to
// a file that does not exist yet): the file they point to gets the content, every link stays a
// link, and the target keeps its mode.
func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "notebook.ipynb")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	targetPerm := permOf(t, target)
	abs := filepath.Join(dir, "abs.ipynb")
	rel := filepath.Join(dir, "rel.ipynb")
	chain := filepath.Join(dir, "chain.ipynb")
	dangling := filepath.Join(dir, "new.ipynb")
	for _, l := range []struct{ link, to string }{{abs, target}, {rel, "data/notebook.ipynb"}, {chain, "rel.ipynb"}, {dangling, "data/later.ipynb"}} {
		if err := os.Symlink(l.to, l.link); err != nil {
			t.Fatal(err)
		}
	}
	for i, link := range []string{abs, rel, chain} {
		data := []byte(fmt.Sprintf("new content %d", i))
		if err := WriteFile(link, data, 0o644); err != nil {
			t.Fatalf("write through %s: %v", filepath.Base(link), err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("after a write through it, %s is no longer a symbolic link (%v)", filepath.Base(link), err)
		}
		if got, _ := os.ReadFile(target); !bytes.Equal(got, data) {
			t.Errorf("after a write through %s the target holds %q, want %q", filepath.Base(link), got, data)
		}
		if perm := permOf(t, target); perm != targetPerm {
			t.Errorf("after a write through %s the target has mode %v, want its %v", filepath.Base(link), perm, targetPerm)
		}
	}
	if err := WriteFile(dangling, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(sub, "later.ipynb")); err != nil || string(got) != "first" {
		t.Errorf("a write through a link to a missing file created %q (%v), want the link's target with the content", got, err)
	}
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to a missing file was replaced (%v)", err)
	}
	for _, d := range []string{dir, sub} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temporary file %s left in %s", e.Name(), d)
			}
		}
	}
}
