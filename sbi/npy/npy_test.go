package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fixture is v[i] = i/7 − 1.3 at C-order index i, as testdata/make_fixtures.py writes it
// (rounded to float32 where the file is float32).
func fixture(i int, f32 bool) float64 {
	v := float64(i)/7 - 1.3
	if f32 {
		return float64(float32(v))
	}
	return v
}

// checkFixture fails unless m is rows×cols and holds the fixture's values in C order.
func checkFixture(t *testing.T, name string, m *mat.Dense, rows, cols int, f32 bool) {
	t.Helper()
	if r, c := m.Dims(); r != rows || c != cols {
		t.Fatalf("%s: %d×%d, want %d×%d", name, r, c, rows, cols)
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if got, want := m.At(i, j), fixture(i*cols+j, f32); got != want {
				t.Fatalf("%s: (%d, %d) = %v, want %v", name, i, j, got, want)
			}
		}
	}
}

// TestReadNumPyFixtures reads the files NumPy wrote: float64 and float32, C and Fortran
// order, 0-D, 1-D and 2-D, big-endian and format version 2.0.
func TestReadNumPyFixtures(t *testing.T) {
	for _, c := range []struct {
		file       string
		rows, cols int
		f32        bool
	}{
		{"f8_c_2x3.npy", 2, 3, false},
		{"f8_f_3x4.npy", 3, 4, false},
		{"f4_c_2x3.npy", 2, 3, true},
		{"f4_f_3x2.npy", 3, 2, true},
		{"f8_1d_5.npy", 5, 1, false},
		{"f8_0d.npy", 1, 1, false},
		{"f8_be_2x2.npy", 2, 2, false},
		{"f8_v2_2x3.npy", 2, 3, false},
	} {
		path := filepath.Join("testdata", c.file)
		m, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		checkFixture(t, c.file, m, c.rows, c.cols, c.f32)
		b, _ := os.ReadFile(path) // the stream reader gives the same
		m2, err := Read(bytes.NewReader(b))
		if err != nil || !mat.Equal(m, m2) {
			t.Fatalf("%s: Read of the stream gives %v, %v", c.file, m2, err)
		}
	}
	f, _ := os.Open(filepath.Join("testdata", "f8_1d_5.npy"))
	defer f.Close()
	v, err := ReadVector(f)
	if err != nil || len(v) != 5 || v[4] != fixture(4, false) {
		t.Fatalf("ReadVector: %v, %v", v, err)
	}
}

// TestReadNPZFixtures reads np.savez (stored) and np.savez_compressed (deflated) archives.
func TestReadNPZFixtures(t *testing.T) {
	for _, file := range []string{"stored.npz", "deflated.npz"} {
		z, err := OpenNPZ(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(z.Names()); got != "[theta w x]" {
			t.Errorf("%s: names %s, want [theta w x]", file, got)
		}
		theta, err := z.Dense("theta")
		if err != nil {
			t.Fatal(err)
		}
		checkFixture(t, file+"/theta", theta, 4, 2, false)
		x, err := z.Dense("x")
		if err != nil {
			t.Fatal(err)
		}
		checkFixture(t, file+"/x", x, 4, 3, file == "deflated.npz")
		w, err := z.Vector("w")
		if err != nil || len(w) != 4 || w[3] != fixture(3, false) {
			t.Fatalf("%s/w: %v, %v", file, w, err)
		}
		if _, err := z.Dense("nope"); err == nil || !strings.Contains(err.Error(), "theta, w, x") {
			t.Errorf("a missing array gives %v, want an error listing the arrays", err)
		}
		z.Close()
	}
}

// TestReadRefusesBadFiles checks that dtypes, shapes and damaged files this package does not
// read give errors that say why, wrapping ErrFormat, and never a panic or a silent result.
func TestReadRefusesBadFiles(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "f8_c_2x3.npy"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lying := bytes.Replace(good, []byte("(2, 3)"), []byte("(9, 3)"), 1)
	huge := bytes.Replace(good, []byte("(2, 3)"), []byte("(99999999999, 3)"), 1)
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"int64", `dtype "<i8"`, read("i8_2x2.npy")},
		{"3-D", "3-D array", read("f8_3d.npy")},
		{"truncated data", "end after 5 of 6 values", good[:len(good)-3]},
		{"no data", "end after 0 of 6", good[:128]},
		{"truncated header", "header", good[:40]},
		{"not npy", "magic", []byte("GIF89a this is an image")},
		{"a zip archive", "OpenNPZ", []byte("PK\x03\x04 this is a zip")},
		{"empty", "magic", nil},
		{"header lies", "end after 6 of 27", lying},
		{"huge shape", "more than", huge},
		{"bad version", "version 9.0", append([]byte("\x93NUMPY\x09\x00"), good[8:]...)},
		{"bad header", "dict", append(append([]byte(nil), good[:10]...), bytes.Repeat([]byte(" "), 118)...)},
	} {
		_, err := Read(bytes.NewReader(c.data))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrFormat that says %q", c.name, err, c.want)
		}
	}
	// from a file, a header promising more than the file holds is refused before reading
	path := filepath.Join(t.TempDir(), "lying.npy")
	os.WriteFile(path, lying, 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "the file has") {
		t.Errorf("ReadFile of a lying header: %v", err)
	}
}

// TestRoundTrip writes matrices and vectors and reads them back, bit for bit (float32 after
// rounding), through .npy and both kinds of .npz.
func TestRoundTrip(t *testing.T) {
	m := mat.NewDense(3, 4, nil)
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			m.Set(i, j, fixture(i*4+j, false)*math.Pi)
		}
	}
	m.Set(2, 3, math.Inf(-1))
	m.Set(1, 1, math.NaN())
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if (buf.Len()-96)%64 != 0 { // header padded to 64 bytes; 96 bytes of data
		t.Errorf("file of %d bytes, want the data to start at a multiple of 64", buf.Len())
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	WriteFloat32(&buf, m)
	back32, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if !same(back.At(i, j), m.At(i, j)) || !same(back32.At(i, j), float64(float32(m.At(i, j)))) {
				t.Fatalf("(%d, %d): %v and %v (float32) back, wrote %v", i, j, back.At(i, j), back32.At(i, j), m.At(i, j))
			}
		}
	}
	dir := t.TempDir()
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("a%v.npz", compress))
		if err := WriteNPZFile(path, []string{"m", "t"}, []mat.Matrix{m, m.T()}, compress); err != nil {
			t.Fatal(err)
		}
		z, err := OpenNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		mt, err := z.Dense("t")
		if err != nil {
			t.Fatal(err)
		}
		if r, c := mt.Dims(); r != 4 || c != 3 || !same(mt.At(3, 2), m.At(2, 3)) {
			t.Errorf("compress %v: transpose back %d×%d", compress, r, c)
		}
		z.Close()
	}
	if err := WriteNPZFile(filepath.Join(dir, "dup.npz"), []string{"a", "a"}, []mat.Matrix{m, m}, false); err == nil {
		t.Error("a name given twice was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "dup.npz")); err == nil {
		t.Error("a failed WriteNPZFile left a file behind")
	}
}

// TestNumPyReadsOurFiles has NumPy load what Write, WriteFloat32, WriteVector and NPZWriter
// produce and compare every value with the fixture formula (Debian's python3-numpy; the test
// says so and stops where it is missing).
func TestNumPyReadsOurFiles(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy not available (%v): install python3-numpy to run this check", python, err)
	}
	dir := t.TempDir()
	m := mat.NewDense(3, 5, nil)
	for i := 0; i < 15; i++ {
		m.Set(i/5, i%5, fixture(i, false))
	}
	v := []float64{fixture(0, false), fixture(1, false), fixture(2, false)}
	if err := WriteFile(filepath.Join(dir, "m.npy"), m); err != nil {
		t.Fatal(err)
	}
	var b32, bv bytes.Buffer
	WriteFloat32(&b32, m)
	WriteVector(&bv, v)
	os.WriteFile(filepath.Join(dir, "m32.npy"), b32.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "v.npy"), bv.Bytes(), 0o644)
	for _, compress := range []bool{false, true} {
		f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("z%v.npz", compress)))
		zw := NewNPZWriter(f, compress)
		zw.Add("theta", m)
		zw.AddVector("w", v)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	script := `
import sys, numpy as np
d = sys.argv[1]
want = (np.arange(15) / 7 - 1.3).reshape(3, 5)
def check(name, a, w):
    assert a.shape == w.shape and a.dtype == w.dtype, (name, a.shape, a.dtype)
    assert np.array_equal(a, w), (name, a, w)
check("m", np.load(d + "/m.npy"), want)
check("m32", np.load(d + "/m32.npy"), want.astype(np.float32))
check("v", np.load(d + "/v.npy"), want.ravel()[:3])
for c in ("false", "true"):
    z = np.load(d + "/z" + c + ".npz")
    assert sorted(z.files) == ["theta", "w"], z.files
    check("theta", z["theta"], want)
    check("w", z["w"], want.ravel()[:3])
print("ok")
`
	out, err := exec.Command(python, "-c", script, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("NumPy could not read our files: %v\n%s", err, out)
	}
}

// FuzzRead checks that no input makes Read panic or return a matrix with an error.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"f8_c_2x3.npy", "f4_f_3x2.npy", "f8_1d_5.npy", "f8_v2_2x3.npy"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(bytes.NewReader(b))
		if (m == nil) == (err == nil) {
			t.Fatalf("Read returned %v and %v", m, err)
		}
	})
}

// TestReadValues checks the buffer-reusing reader on C- and Fortran-order files.
func TestReadValues(t *testing.T) {
	for _, c := range []struct {
		file string
		f32  bool
	}{{"f8_f_3x4.npy", false}, {"f4_c_2x3.npy", true}, {"f8_c_2x3.npy", false}} {
		f, err := os.Open(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadHeader(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, h.Len())
		if err := ReadValues(f, h, dst); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for i, v := range dst {
			if v != fixture(i, c.f32) {
				t.Fatalf("%s: value %d is %v, want %v", c.file, i, v, fixture(i, c.f32))
			}
		}
	}
}

// TestReadHeaderShapeLimit checks that a shape beyond MaxValues is refused as such, whether the
// product of its dimensions or a single dimension (one too large for an int) exceeds it.
func TestReadHeaderShapeLimit(t *testing.T) {
	limit := fmt.Sprintf("more than the limit of %d values", MaxValues) // lower where an int has 32 bits
	for _, c := range []struct {
		shape, want string
	}{
		{"(99999999999999999999999,)", limit},
		{"(2, 99999999999999999999999)", limit},
		{"(46341, 46341)", limit},
		{"(1000000, 1000000)", limit},
		{"(-1,)", "expected non-negative integers"},
		{"(3, x)", "expected non-negative integers"},
	} {
		_, err := ReadHeader(bytes.NewReader(npyBytes(c.shape)))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("shape %s: error %v, want one wrapping ErrFormat that says %q", c.shape, err, c.want)
		}
	}
}

// TestReadHeaderLengthLimit gives version 2.0 and 3.0 files whose 4-byte header length is
// above MaxHeader, including lengths above MaxInt32 (negative in a 32-bit int): ReadHeader
// refuses each with an error naming the limit, never a panic or an allocation of that length.
func TestReadHeaderLengthLimit(t *testing.T) {
	for _, major := range []byte{2, 3} {
		for _, n := range []uint32{MaxHeader + 1, 1 << 31, math.MaxUint32} {
			b := append([]byte("\x93NUMPY"), major, 0)
			b = binary.LittleEndian.AppendUint32(b, n)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = ReadHeader(bytes.NewReader(b))
			}()
			want := fmt.Sprintf("header of %d bytes, more than the limit of %d", n, MaxHeader)
			if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
				t.Errorf("version %d.0, header length %d: error %v, want one wrapping ErrFormat that says %q", major, n, err, want)
			}
		}
	}
}

// shapeOnly is a matrix of any shape, zero everywhere, that holds no values: for shapes too
// large to allocate and for the 0×n and n×0 shapes gonum's Dense cannot have.
type shapeOnly struct{ r, c int }

func (m shapeOnly) Dims() (int, int)    { return m.r, m.c }
func (m shapeOnly) At(i, j int) float64 { return 0 }
func (m shapeOnly) T() mat.Matrix       { return mat.Transpose{Matrix: m} }

// panicking is a 2×2 matrix whose At panics on its last value.
type panicking struct{}

func (panicking) Dims() (int, int) { return 2, 2 }
func (panicking) At(i, j int) float64 {
	if i == 1 && j == 1 {
		panic("At panicked")
	}
	return 1
}
func (m panicking) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// TestWriteRefusesWhatReadRefuses checks that every writer refuses, with an error and without
// a panic, a matrix whose file Read would refuse (nil, no values, more than MaxValues), that
// WriteFile and WriteNPZFile then leave nothing in the directory, and that a refused array
// leaves an NPZWriter's archive complete and readable. A matrix that panics while it is
// written still leaves no temporary file behind.
func TestWriteRefusesWhatReadRefuses(t *testing.T) {
	var nilDense *mat.Dense
	good := mat.NewDense(1, 2, []float64{1, 2})
	for _, c := range []struct {
		name string
		m    mat.Matrix
		want string
	}{
		{"nil", nil, "nil matrix"},
		{"nil *Dense", nilDense, "nil matrix"},
		{"zero Dense", &mat.Dense{}, "0×0 matrix"},
		{"0 rows", shapeOnly{0, 3}, "0×3 matrix"},
		{"0 columns", shapeOnly{3, 0}, "3×0 matrix"},
		{"too large", shapeOnly{1 << 16, 1<<15 + 1}, "MaxValues"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writers := map[string]func() error{
				"Write":        func() error { return Write(io.Discard, c.m) },
				"WriteFloat32": func() error { return WriteFloat32(io.Discard, c.m) },
				"WriteFile":    func() error { return WriteFile(filepath.Join(dir, "a.npy"), c.m) },
				"WriteNPZFile": func() error {
					return WriteNPZFile(filepath.Join(dir, "a.npz"), []string{"ok", "bad"}, []mat.Matrix{good, c.m}, false)
				},
			}
			for wname, write := range writers {
				err := func() (err error) {
					defer func() {
						if p := recover(); p != nil {
							err = fmt.Errorf("panic: %v", p)
						}
					}()
					return write()
				}()
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.HasPrefix(err.Error(), "panic") {
					t.Errorf("%s: error %v, want one naming %q", wname, err, c.want)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the failed writes left %d files in the directory: %v", len(ents), ents)
			}
			// a refused array leaves the archive as it was: complete once closed
			path := filepath.Join(dir, "w.npz")
			var buf bytes.Buffer
			zw := NewNPZWriter(&buf, false)
			if err := zw.Add("bad", c.m); err == nil {
				t.Fatal("NPZWriter.Add accepted the matrix")
			}
			if err := zw.Add("ok", good); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			z, err := OpenNPZ(path)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			if names := fmt.Sprint(z.Names()); names != "[ok]" {
				t.Errorf("the archive holds %s, want [ok]", names)
			}
			if m, err := z.Dense("ok"); err != nil || !mat.Equal(m, good) {
				t.Errorf("array ok read back as %v (%v)", m, err)
			}
		})
	}
	t.Run("At panics", func(t *testing.T) {
		dir := t.TempDir()
		for _, write := range []func() error{
			func() error { return WriteFile(filepath.Join(dir, "a.npy"), panicking{}) },
			func() error {
				return WriteNPZFile(filepath.Join(dir, "a.npz"), []string{"p"}, []mat.Matrix{panicking{}}, false)
			},
		} {
			func() {
				defer func() {
					if p := recover(); p != "At panicked" {
						t.Errorf("recovered %v, want the matrix's own panic", p)
					}
				}()
				write()
			}()
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("the panicking writes left %d files in the directory: %v", len(ents), ents)
		}
	})
}

// TestHeaderValueSize checks the size of a value for every dtype the package reads, and an
// error naming the dtype for one it does not.
func TestHeaderValueSize(t *testing.T) {
	for _, c := range []struct {
		descr string
		want  int
	}{{"<f8", 8}, {">f8", 8}, {"<f4", 4}, {">f4", 4}, {"<i4", 0}, {"<c16", 0}} {
		got, err := Header{Descr: c.descr, Shape: []int{3}}.ValueSize()
		switch {
		case c.want == 0 && (err == nil || !strings.Contains(err.Error(), c.descr)):
			t.Errorf("%s: ValueSize = %d, %v; want an error naming the dtype", c.descr, got, err)
		case c.want != 0 && (err != nil || got != c.want):
			t.Errorf("%s: ValueSize = %d, %v; want %d", c.descr, got, err, c.want)
		}
	}
}

// TestWriteFloat32Range checks that WriteFloat32 refuses, with an error naming the value and
// writing nothing, a finite value beyond float32's range (which would round to ±Inf), and
// writes the values that round to a float32, ±Inf and NaN.
func TestWriteFloat32Range(t *testing.T) {
	for _, c := range []struct {
		name string
		v    float64
		want string // in the error; "" for none
	}{
		{"1e300", 1e300, "1e+300 at row 1, column 0"},
		{"-1e39", -1e39, "-1e+39 at row 1, column 0"},
		{"MaxFloat32", math.MaxFloat32, ""},
		{"+Inf", math.Inf(1), ""},
		{"NaN", math.NaN(), ""},
		{"1e-50", 1e-50, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mat.NewDense(3, 1, []float64{1, c.v, 2})
			var buf bytes.Buffer
			err := WriteFloat32(&buf, m)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				back, err := Read(&buf)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := back.At(1, 0), float64(float32(c.v)); got != want && !(got != got && want != want) {
					t.Errorf("read back %v, want %v", got, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "float32") {
				t.Errorf("WriteFloat32 gives %v, want an error naming %q and float32's range", err, c.want)
			}
			if buf.Len() != 0 {
				t.Errorf("the refused write wrote %d bytes", buf.Len())
			}
		})
	}
}
