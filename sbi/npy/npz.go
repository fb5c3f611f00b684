package npy

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/internal/zipmember"
	"gonum.org/v1/gonum/mat"
)

// NPZ is an open .npz archive: np.savez or np.savez_compressed output, one .npy member per
// array. Close it when done.
type NPZ struct {
	path   string
	f      *os.File
	size   int64 // of the archive
	zr     *zip.Reader
	names  []string
	files  map[string]*zip.File
	closed bool
}

// OpenNPZ opens the .npz archive at path and lists its arrays. An archive holding two members
// of one name (which zip allows and np.savez never writes) is refused: which of them is the
// array cannot be told.
func OpenNPZ(path string) (*NPZ, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("npy: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		var pre [6]byte
		_, rerr := f.ReadAt(pre[:], 0)
		f.Close()
		if rerr == nil && string(pre[:]) == string(magic) {
			return nil, fmt.Errorf("%w: %s is a .npy file (one array, as np.save writes), not a .npz archive: read it with ReadFile", ErrFormat, path)
		}
		return nil, fmt.Errorf("npy: opening %s as a .npz (zip) archive: %w", path, err)
	}
	z := &NPZ{path: path, f: f, size: st.Size(), zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue // np.load ignores other members too
		}
		if z.files[name] != nil {
			z.f.Close()
			return nil, fmt.Errorf("%w: %s holds array %q (member %s) more than once, expected one member per array: write the archive again with np.savez", ErrFormat, path, name, f.Name)
		}
		z.names = append(z.names, name)
		z.files[name] = f
	}
	sort.Strings(z.names)
	return z, nil
}

// Names returns the names of the arrays, sorted.
func (z *NPZ) Names() []string { return append([]string(nil), z.names...) }

// Dense reads the array name into a matrix (see Read).
func (z *NPZ) Dense(name string) (*mat.Dense, error) {
	f, rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	h, err := ReadHeader(br)
	if err != nil {
		return nil, fmt.Errorf("npy: array %q: %w", name, err)
	}
	m, err := readData(br, h, zipmember.StoredSize(f, z.size))
	if err == nil {
		err = checkEnd(br)
	}
	if err != nil {
		return nil, fmt.Errorf("npy: array %q: %w", name, err)
	}
	return m, nil
}

// checkEnd reads the rest of a member, so that the zip reader compares the member with its
// checksum, which it does only at the member's end: a member damaged on disk is then an
// error instead of values returned as if read.
func checkEnd(r io.Reader) error {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("%w: the member does not match its zip checksum or size (%w): the archive is damaged, write it again", ErrFormat, err)
	}
	return nil
}

// open opens the member of array name for reading.
func (z *NPZ) open(name string) (*zip.File, io.ReadCloser, error) {
	f, ok := z.files[name]
	if !ok {
		return nil, nil, fmt.Errorf("npy: no array %q in the archive (it has %s)", name, strings.Join(z.names, ", "))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("npy: array %q: %w", name, err)
	}
	return f, rc, nil
}

// Vector reads the 1-D array name into a slice (see ReadVector).
func (z *NPZ) Vector(name string) ([]float64, error) {
	_, rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	v, err := ReadVector(br)
	if err == nil {
		err = checkEnd(br)
	}
	if err != nil {
		return nil, fmt.Errorf("npy: array %q: %w", name, err)
	}
	return v, nil
}

// Close closes the archive.
func (z *NPZ) Close() error {
	z.closed = true
	return z.f.Close()
}

// String describes the archive, as a notebook shows it: its path and its arrays, sorted,
// each with its shape and dtype as NumPy writes them (read from the array's header), at most
// maxShownArrays (8) of them, each name cut at maxShownName (40) bytes.
func (z *NPZ) String() string {
	if z.closed {
		return fmt.Sprintf("npz archive %q (closed)", z.path)
	}
	shown := z.names[:min(len(z.names), maxShownArrays)]
	items := make([]string, len(shown))
	for i, name := range shown {
		items[i] = shownName(name) + " " + z.describeArray(name)
	}
	return fmt.Sprintf("npz archive %q: %s", z.path, arrayList(len(z.names), "", items, " (Names lists them)"))
}

// describeArray returns the shape and dtype of array name, "(3, 2) float64", from its header.
func (z *NPZ) describeArray(name string) string {
	_, rc, err := z.open(name)
	if err != nil {
		return "(unreadable: Dense says why)"
	}
	defer rc.Close()
	h, err := ReadHeader(rc)
	if err != nil {
		return "(unreadable: Dense says why)"
	}
	dtype := "float64"
	if size, _, _ := h.dtype(); size == 4 { // ReadHeader refuses other dtypes
		dtype = "float32"
	}
	dims := make([]string, len(h.Shape))
	for i, d := range h.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := "(" + strings.Join(dims, ", ") + ")"
	if len(dims) == 1 {
		shape = "(" + dims[0] + ",)"
	}
	return shape + " " + dtype
}

// NPZWriter writes a .npz archive array by array; Close finishes it. Arrays are stored, or
// deflated when NewNPZWriter is given compress true (np.savez_compressed).
type NPZWriter struct {
	zw       *zip.Writer
	compress bool
	names    map[string]bool
}

// NewNPZWriter returns a writer of a .npz archive to w; compress deflates every array.
func NewNPZWriter(w io.Writer, compress bool) *NPZWriter {
	return &NPZWriter{zw: zip.NewWriter(w), compress: compress, names: map[string]bool{}}
}

// String describes the writer, as a notebook shows it: the arrays added so far, sorted, at
// most maxShownArrays (8) of them, each name cut at maxShownName (40) bytes.
func (z *NPZWriter) String() string {
	names := make([]string, 0, len(z.names))
	for n := range z.names {
		names = append(names, n)
	}
	sort.Strings(names)
	items := names[:min(len(names), maxShownArrays)]
	for i, n := range items {
		items[i] = shownName(n)
	}
	mode := ""
	if z.compress {
		mode = " (deflating)"
	}
	return fmt.Sprintf("npz writer%s: %s", mode, arrayList(len(names), " added", items, ""))
}

// Add writes m as the float64 array name (np.load's key; the member is name + ".npy"). A
// matrix Write refuses is an error that adds nothing: the archive stays complete and the name
// free.
func (z *NPZWriter) Add(name string, m mat.Matrix) error {
	_, _, err := shapeOf(m)
	return z.add(name, err, func(w io.Writer) error { return Write(w, m) })
}

// AddVector writes v as the 1-D float64 array name; an empty v is an error that adds nothing.
func (z *NPZWriter) AddVector(name string, v []float64) error {
	var err error
	if len(v) == 0 {
		err = errors.New("empty slice, expected at least one value")
	}
	return z.add(name, err, func(w io.Writer) error { return WriteVector(w, v) })
}

// add writes the member of array name with write, unless the name is refused or taken or the
// array is refused (invalid, not nil).
func (z *NPZWriter) add(name string, invalid error, write func(io.Writer) error) error {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return fmt.Errorf("npy: array name %q, expected a non-empty name without slashes", name)
	}
	if z.names[name] {
		return fmt.Errorf("npy: array %q added twice", name)
	}
	if invalid != nil {
		return fmt.Errorf("npy: array %q: %w", name, invalid)
	}
	z.names[name] = true
	method := zip.Store
	if z.compress {
		method = zip.Deflate
	}
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: method})
	if err != nil {
		return fmt.Errorf("npy: array %q: %w", name, err)
	}
	if err := write(w); err != nil {
		return fmt.Errorf("npy: array %q: %w", name, err)
	}
	return nil
}

// Close writes the archive's directory; the archive is incomplete until it returns nil.
func (z *NPZWriter) Close() error { return z.zw.Close() }

// WriteNPZFile writes the arrays to path as a .npz archive, atomically: the arrays in the
// order of names, arrays[i] under names[i]. It refuses a path ending in .npy, which would name
// one array: WriteFile writes those.
func WriteNPZFile(path string, names []string, arrays []mat.Matrix, compress bool) error {
	if hasExt(path, ".npy") {
		return fmt.Errorf("npy: writing %s: WriteNPZFile writes a .npz archive, and the name ends in .npy, one array: write one array with WriteFile, or name the file .npz", path)
	}
	if len(names) != len(arrays) {
		return fmt.Errorf("npy: %d names for %d arrays, expected one name per array", len(names), len(arrays))
	}
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		zw := NewNPZWriter(w, compress)
		for i, name := range names {
			if err := zw.Add(name, arrays[i]); err != nil {
				return err
			}
		}
		return zw.Close()
	})
	if err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	return nil
}

// Limits of how an archive or a writer shows itself (String): the arrays listed, and the
// bytes kept of a name.
const (
	maxShownArrays = 8
	maxShownName   = 40
)

// arrayList describes n arrays of which items are shown: "no arrays", "1 array: a" or
// "n arrays: a, b, and k more", with verb after "arrays" and more after "k more".
func arrayList(n int, verb string, items []string, more string) string {
	switch n {
	case 0:
		return "no arrays" + verb
	case 1:
		return "1 array" + verb + ": " + items[0]
	}
	s := fmt.Sprintf("%d arrays%s: %s", n, verb, strings.Join(items, ", "))
	if left := n - len(items); left > 0 {
		s += fmt.Sprintf(", and %d more%s", left, more)
	}
	return s
}

// shownName returns name cut at maxShownName bytes (at a character's start), quoted if it
// holds characters that do not print.
func shownName(name string) string {
	if len(name) > maxShownName {
		cut := maxShownName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	if strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(name)
	}
	return name
}
