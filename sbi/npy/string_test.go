package npy

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/npytest"
	"gonum.org/v1/gonum/mat"
)

// TestNPZString checks that an open archive, shown as a notebook cell's value, reads as its
// path and its arrays with NumPy's shapes and dtypes, bounded in length, instead of a dump of
// its fields.
func TestNPZString(t *testing.T) {
	var f32 bytes.Buffer
	if err := WriteFloat32(&f32, mat.NewDense(2, 2, nil)); err != nil {
		t.Fatal(err)
	}
	member := func(name string, data []byte) npytest.Member {
		return npytest.Member{Name: name, Method: zip.Deflate, Data: data}
	}
	var many []npytest.Member
	for i := range maxShownArrays + 2 {
		many = append(many, member(fmt.Sprintf("a%02d.npy", i), npyBytes("(1,)", 0)))
	}
	long := strings.Repeat("n", maxShownName+10)
	cases := []struct {
		name    string
		members []npytest.Member
		want    string // PATH stands for the archive's path
	}{
		{"no arrays", []npytest.Member{member("readme.txt", []byte("hi"))}, `npz archive "PATH": no arrays`},
		{"shapes and dtypes", []npytest.Member{
			member("theta.npy", npyBytes("(3, 2)", 1, 2, 3, 4, 5, 6)),
			member("x.npy", npyBytes("(3,)", 1, 2, 3)),
			member("w.npy", f32.Bytes()),
		}, `npz archive "PATH": 3 arrays: theta (3, 2) float64, w (2, 2) float32, x (3,) float64`},
		{"0-D", []npytest.Member{member("t.npy", npyBytes("()", 1))}, `npz archive "PATH": 1 array: t () float64`},
		{"damaged header", []npytest.Member{member("bad.npy", []byte("nonsense"))},
			`npz archive "PATH": 1 array: bad (unreadable: Dense says why)`},
		{"more arrays than shown", many, `npz archive "PATH": 10 arrays: a00 (1,) float64, a01 (1,) float64, ` +
			`a02 (1,) float64, a03 (1,) float64, a04 (1,) float64, a05 (1,) float64, a06 (1,) float64, ` +
			`a07 (1,) float64, and 2 more (Names lists them)`},
		{"a name that does not print", []npytest.Member{member("a\nb.npy", npyBytes("(1,)", 0))},
			`npz archive "PATH": 1 array: "a\nb" (1,) float64`},
		{"long name", []npytest.Member{member(long+".npy", npyBytes("(1,)", 0))},
			`npz archive "PATH": 1 array: ` + long[:maxShownName] + `… (1,) float64`},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "a.npz")
		npytest.WriteZip(t, path, c.members...)
		z, err := OpenNPZ(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := strings.ReplaceAll(c.want, `"PATH"`, strconv.Quote(path)) // quoted as String does
		if got := fmt.Sprint(z); got != want {
			t.Errorf("%s: shown as\n%s\nwant\n%s", c.name, got, want)
		}
		z.Close()
		if got, want := fmt.Sprint(z), fmt.Sprintf("npz archive %q (closed)", path); got != want {
			t.Errorf("%s: closed archive shown as %s, want %s", c.name, got, want)
		}
	}
}

// TestNPZWriterString checks that a writer shows as the arrays added so far, bounded in
// length, instead of a dump of its fields.
func TestNPZWriterString(t *testing.T) {
	add := func(z *NPZWriter, names ...string) *NPZWriter {
		for _, n := range names {
			if err := z.AddVector(n, []float64{1}); err != nil {
				t.Fatal(err)
			}
		}
		return z
	}
	var many []string
	for i := range maxShownArrays + 1 {
		many = append(many, fmt.Sprintf("a%d", i))
	}
	cases := []struct {
		name string
		z    *NPZWriter
		want string
	}{
		{"empty", NewNPZWriter(&bytes.Buffer{}, false), "npz writer: no arrays added"},
		{"two, deflating", add(NewNPZWriter(&bytes.Buffer{}, true), "x", "theta"), "npz writer (deflating): 2 arrays added: theta, x"},
		{"more than shown", add(NewNPZWriter(&bytes.Buffer{}, false), many...),
			"npz writer: 9 arrays added: a0, a1, a2, a3, a4, a5, a6, a7, and 1 more"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(c.z); got != c.want {
			t.Errorf("%s: shown as %q, want %q", c.name, got, c.want)
		}
	}
}
