package npy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWrongKindOfFile checks that a .npz archive read as a .npy file, a .npy file opened as a
// .npz archive, and a writer asked for the extension of the other kind each give an error that
// names the function for that kind, rather than a bare "not a .npy file" or the zip reader's
// "not a valid zip file", or a .npy file written under a .npz name.
func TestWrongKindOfFile(t *testing.T) {
	dir := t.TempDir()
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	arch := filepath.Join(dir, "a.npz")
	if err := WriteNPZFile(arch, []string{"theta"}, []mat.Matrix{m}, false); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "a.npy")
	if err := WriteFile(one, m); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		do   func() error
		want string
		gone string // a file that must not have been written
	}{
		{"ReadFile of an archive", func() error { _, err := ReadFile(arch); return err }, "OpenNPZ", ""},
		{"OpenNPZ of a .npy file", func() error { _, err := OpenNPZ(one); return err }, "ReadFile", ""},
		{"WriteFile to .npz", func() error { return WriteFile(filepath.Join(dir, "b.npz"), m) }, "WriteNPZFile", "b.npz"},
		{"WriteFile to .NPZ", func() error { return WriteFile(filepath.Join(dir, "c.NPZ"), m) }, "WriteNPZFile", "c.NPZ"},
		{"WriteNPZFile to .npy", func() error {
			return WriteNPZFile(filepath.Join(dir, "d.npy"), []string{"x"}, []mat.Matrix{m}, false)
		}, "WriteFile", "d.npy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, expected one naming %s", err, c.want)
			}
			if c.gone != "" {
				if _, err := os.Stat(filepath.Join(dir, c.gone)); !os.IsNotExist(err) {
					t.Errorf("%s was written (stat: %v)", c.gone, err)
				}
			}
		})
	}
}
