package simstore

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpenManifestSizeBound refuses a manifest larger than maxManifestSize before reading it:
// a sparse file over the bound, and a link to /dev/zero in its place (Windows has no such
// device, and that case runs elsewhere).
func TestOpenManifestSizeBound(t *testing.T) {
	sparse := func(path string) error {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(path, maxManifestSize+1)
	}
	device := func(path string) error { return os.Symlink("/dev/zero", path) }
	for _, c := range []struct {
		name string
		make func(path string) error
		unix bool // a Unix device: the case does not run on Windows
	}{{"sparse file over the bound", sparse, false}, {"device without end", device, true}} {
		t.Run(c.name, func(t *testing.T) {
			if c.unix && runtime.GOOS == "windows" {
				t.Skip("Windows has no device like /dev/zero, which has no size and never ends")
			}
			dir := t.TempDir()
			if err := c.make(filepath.Join(dir, manifestName)); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir)
			if want := "larger than the 1048576 bytes (1 MiB) a simstore manifest may hold"; err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want one containing %q", err, want)
			}
		})
	}
}
