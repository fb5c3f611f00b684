package extend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oversized writes name with prefix followed by zero bytes up to size.
func oversized(t *testing.T, name, prefix string, size int64) {
	t.Helper()
	writeFile(t, name, prefix)
	if err := os.Truncate(name, size); err != nil {
		t.Fatal(err)
	}
}

// TestBoundedReads reads the go.mod files and the cached worker's description of a build
// with their bounds: one byte over is an error that names the file and the limit (gosbi's own
// go.mod at a checkout's root: not gosbi's), and a file within the bound is read as before.
func TestBoundedReads(t *testing.T) {
	const version = "v1.2.3"
	modPrefix := "module gosbi.local/worker\n\nrequire " + GosbiModule + " " + version + "\n"
	for _, c := range []struct {
		name string
		size int64 // of the file; 0: just its prefix
		run  func(t *testing.T, dir string, size int64) error
		want string // "" for no error
	}{
		{"checkout go.mod within the bound", 0, checkoutRoot, ""},
		{"checkout go.mod over the bound", maxGoModSize + 1, checkoutRoot, "not gosbi's checkout"},
		{"build module go.mod within the bound", maxGoModSize, func(t *testing.T, dir string, size int64) error {
			oversized(t, filepath.Join(dir, "go.mod"), modPrefix, size)
			return (&buildModule{b: &Builder{GosbiVersion: version}, dir: dir}).requireGosbi(context.Background())
		}, ""},
		{"build module go.mod over the bound", maxGoModSize + 1, func(t *testing.T, dir string, size int64) error {
			oversized(t, filepath.Join(dir, "go.mod"), modPrefix, size)
			return (&buildModule{b: &Builder{GosbiVersion: version}, dir: dir}).requireGosbi(context.Background())
		}, "go.mod is larger than the 1048576 bytes (1 MiB)"},
		{"worker description within the bound", 0, workerInfo, ""},
		{"worker description over the bound", maxInfoSize + 1, workerInfo, "KEY.json is larger than the 16777216 bytes (16 MiB)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run(t, t.TempDir(), c.size)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// checkoutRoot writes gosbi's go.mod, of size bytes, into dir and asks gosbiRoot about it.
func checkoutRoot(t *testing.T, dir string, size int64) error {
	writeFile(t, filepath.Join(dir, "go.mod"), "module "+GosbiModule+"\n\ngo 1.26\n")
	if size > 0 {
		oversized(t, filepath.Join(dir, "go.mod"), "module "+GosbiModule+"\n", size)
	}
	if gosbiRoot(dir) != dir {
		return errors.New("not gosbi's checkout")
	}
	return nil
}

// workerInfo writes a worker binary and its description, of size bytes, into dir and reads
// the description.
func workerInfo(t *testing.T, dir string, size int64) error {
	bin := filepath.Join(dir, "KEY")
	writeFile(t, bin, "binary")
	writeFile(t, bin+".json", `{"Packages":["example.com/sim"]}`)
	if size > 0 {
		oversized(t, bin+".json", `{"Packages":["example.com/sim"]}`, size)
	}
	in, err := readInfo(bin)
	if err == nil && (len(in.Packages) != 1 || in.Packages[0] != "example.com/sim") {
		t.Errorf("description %+v, want the package example.com/sim", in)
	}
	return err
}
