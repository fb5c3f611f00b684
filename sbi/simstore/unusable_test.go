package simstore

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/npytest"
	"github.com/gosbi/gosbi/sbi/npy"
	"gonum.org/v1/gonum/mat"
)

// TestUnusableChunkSaysWhatToDo puts into a store's chunks/ a file that Open cannot list (a
// chunk cut short, one of another width, one without x, one whose arrays disagree in rows) and
// checks that Open returns no store, and an error naming the file and saying to move it out
// of the store: until then the store cannot be opened at all.
func TestUnusableChunkSaysWhatToDo(t *testing.T) {
	theta, x := pairs(0, 4)
	enc := func(m mat.Matrix) []byte {
		var b bytes.Buffer
		if err := npy.Write(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	whole := func(t *testing.T, path string) {
		npytest.WriteZip(t, path,
			npytest.Member{Name: "theta.npy", Method: zip.Store, Data: enc(theta)},
			npytest.Member{Name: "x.npy", Method: zip.Store, Data: enc(x)})
	}
	for _, c := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"cut short (a copy interrupted)", func(t *testing.T, path string) {
			whole(t, path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"x of another width", func(t *testing.T, path string) {
			npytest.WriteZip(t, path,
				npytest.Member{Name: "theta.npy", Method: zip.Store, Data: enc(theta)},
				npytest.Member{Name: "x.npy", Method: zip.Store, Data: enc(mat.NewDense(4, 5, nil))})
		}},
		{"no array x", func(t *testing.T, path string) {
			npytest.WriteZip(t, path, npytest.Member{Name: "theta.npy", Method: zip.Store, Data: enc(theta)})
		}},
		{"rows of θ and x differ", func(t *testing.T, path string) {
			npytest.WriteZip(t, path,
				npytest.Member{Name: "theta.npy", Method: zip.Store, Data: enc(theta)},
				npytest.Member{Name: "x.npy", Method: zip.Store, Data: enc(mat.NewDense(3, 3, nil))})
		}},
		{"a damaged header", func(t *testing.T, path string) {
			npytest.WriteZip(t, path,
				npytest.Member{Name: "theta.npy", Method: zip.Store, Data: []byte("\x93NUMPY garbage")},
				npytest.Member{Name: "x.npy", Method: zip.Store, Data: enc(x)})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Create(dir, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(theta, x); err != nil {
				t.Fatal(err)
			}
			c.write(t, filepath.Join(dir, "chunks", "odd.npz"))
			s, err = Open(dir)
			if err == nil || !strings.Contains(err.Error(), "odd.npz") || !strings.Contains(err.Error(), "move it out of the store") {
				t.Errorf("Open gives %v; want an error naming odd.npz and saying to move it out of the store", err)
			}
			if s != nil {
				t.Errorf("Open returned a store of %d pairs with its error; want none", s.Len())
			}
		})
	}
}

// TestSplitTooFewChunksSaysWhatToDo checks Split's error on a store of no chunk (append first)
// and of one (append in smaller chunks, so that whole chunks can be held out).
func TestSplitTooFewChunksSaysWhatToDo(t *testing.T) {
	for _, c := range []struct {
		chunks int
		want   string
	}{
		{0, "Append simulations first"},
		{1, "append in smaller chunks"},
	} {
		dir := t.TempDir()
		s, err := Create(dir, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		for k := range c.chunks {
			theta, x := pairs(4*k, 4)
			if err := s.Append(theta, x); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.Split(0.2, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Split of %d chunks: %v; want an error saying %q", c.chunks, err, c.want)
		}
	}
}
