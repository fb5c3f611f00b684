package simstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenManifestSizeBound refuses a manifest larger than maxManifestSize before reading it:
// a sparse file over the bound, and /dev/zero in its place.
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
	}{{"sparse file over the bound", sparse}, {"device without end", device}} {
		t.Run(c.name, func(t *testing.T) {
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
