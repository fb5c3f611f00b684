// Package npy reads and writes NumPy's .npy and .npz files, so that parameters, simulations
// and posterior samples made in Python come into gosbi and results go back.
//
// A .npy file is a magic string, a version, a header that is a Python dict literal
// ({'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }) padded so that the data start
// at a multiple of 64 bytes, and the raw values (format description: NumPy's NEP 1). This
// package reads versions 1.0, 2.0 and 3.0, float64 ('<f8') and float32 ('<f4') values in
// little- or big-endian byte order, in C or Fortran order, of 0, 1 or 2 dimensions, into a
// *mat.Dense: a 1-D array of n values becomes an n×1 column (one value per row, as a batch
// of one-dimensional θ is stored), a 0-D array a 1×1 matrix; ReadVector returns a 1-D array
// as a slice. It writes version 1.0 files in C order, float64 or (with WriteFloat32,
// rounding, and refusing a finite value beyond float32's range) float32, which NumPy reads
// with np.load.
//
// A .npz file is a zip archive of .npy files, one per array, named NAME.npy (np.savez stores
// them, np.savez_compressed deflates them); both kinds are read, each member checked against
// its zip checksum (a member damaged on disk is an error), and NPZWriter writes either.
//
// Limits: a header is at most 1 MiB, an array at most 2³¹ values and at least one. The
// writers hold to the same limits, so that what they write reads back: they return an error
// for a nil matrix, one with no rows or no columns (NumPy has empty arrays, but a *mat.Dense
// cannot be 0×n, so Read could not return one), and one of more than 2³¹ values. A file
// whose header promises more values than its data hold is refused before the values are
// allocated (files, and stored .npz members that lie within their archive) or while they are
// read, in bounded steps (streams, and deflated .npz members, whose uncompressed size is only
// a claim of the zip header): a damaged header cannot make the reader allocate more than
// twice the data that are there. Files are written
// atomically (a temporary file renamed over the target).
package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"gonum.org/v1/gonum/mat"
)

// Limits of what Read accepts. MaxValues is 2³¹ values where an int has 64 bits; on a 32-bit
// system, whose address space cannot hold that many float64 values, it is math.MaxInt/8.
const (
	MaxHeader = 1 << 20                   // bytes of a header
	MaxValues = min(1<<31, math.MaxInt/8) // values of an array
)

// ErrFormat is wrapped by every error about the content of a file (not a .npy file, a
// dtype or shape this package does not read, data shorter than the header says).
var ErrFormat = errors.New("npy: unsupported or damaged file")

var magic = []byte("\x93NUMPY")

// zipMagic starts every zip archive, and so every .npz file.
const zipMagic = "PK\x03\x04"

// Header describes the array of a .npy file.
type Header struct {
	Descr   string // NumPy's dtype string, e.g. "<f8"
	Fortran bool   // column-major values
	Shape   []int  // dimensions; empty for a 0-D array
}

// Len returns the number of values, the product of the dimensions.
func (h Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// dims returns the matrix shape of the array: rows × cols.
func (h Header) dims() (rows, cols int) {
	switch len(h.Shape) {
	case 0:
		return 1, 1
	case 1:
		return h.Shape[0], 1
	}
	return h.Shape[0], h.Shape[1]
}

// dtype returns the size of a value and its byte order.
func (h Header) dtype() (size int, order binary.ByteOrder, err error) {
	switch h.Descr {
	case "<f8":
		return 8, binary.LittleEndian, nil
	case "<f4":
		return 4, binary.LittleEndian, nil
	case ">f8":
		return 8, binary.BigEndian, nil
	case ">f4":
		return 4, binary.BigEndian, nil
	}
	return 0, nil, fmt.Errorf("%w: dtype %q, expected float64 ('<f8') or float32 ('<f4'): convert in NumPy with a.astype(np.float64)", ErrFormat, h.Descr)
}

// ReadHeader reads the magic string, the version and the header of a .npy stream, leaving r
// at the first value.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return Header{}, fmt.Errorf("%w: shorter than the magic string and version (%v)", ErrFormat, err)
	}
	if string(pre[:6]) != string(magic) {
		if string(pre[:4]) == zipMagic {
			return Header{}, fmt.Errorf("%w: a zip archive (a .npz file, as np.savez writes), not a .npy file: open it with OpenNPZ and read its arrays with NPZ.Dense", ErrFormat)
		}
		return Header{}, fmt.Errorf("%w: no NumPy magic string at the start (not a .npy file)", ErrFormat)
	}
	var hlen uint32 // compared with MaxHeader before it is an int, which may have 32 bits
	switch major := pre[6]; major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return Header{}, fmt.Errorf("%w: header length: %v", ErrFormat, err)
		}
		hlen = uint32(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, fmt.Errorf("%w: header length: %v", ErrFormat, err)
		}
		hlen = binary.LittleEndian.Uint32(b[:])
	default:
		return Header{}, fmt.Errorf("%w: format version %d.%d, expected 1.0, 2.0 or 3.0", ErrFormat, major, pre[7])
	}
	if hlen > MaxHeader {
		return Header{}, fmt.Errorf("%w: header of %d bytes, more than the limit of %d", ErrFormat, hlen, MaxHeader)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Header{}, fmt.Errorf("%w: header of %d bytes: %v", ErrFormat, hlen, err)
	}
	h, err := parseHeader(string(buf))
	if err != nil {
		return Header{}, fmt.Errorf("%w: header %q: %v", ErrFormat, strings.TrimSpace(string(buf)), err)
	}
	if _, _, err := h.dtype(); err != nil {
		return Header{}, err
	}
	n := 1
	for _, d := range h.Shape {
		if d < 0 || (d > 0 && n > MaxValues/d) {
			return Header{}, fmt.Errorf("%w: shape %v holds more than the limit of %d values (MaxValues): save the array in parts", ErrFormat, h.Shape, MaxValues)
		}
		n *= d
	}
	switch {
	case len(h.Shape) > 2:
		return Header{}, fmt.Errorf("%w: %d-D array of shape %v, expected 1-D or 2-D: reshape in NumPy, e.g. a.reshape(len(a), -1)", ErrFormat, len(h.Shape), h.Shape)
	case n == 0:
		return Header{}, fmt.Errorf("%w: empty array of shape %v, expected at least one value", ErrFormat, h.Shape)
	}
	return h, nil
}

// parseHeader reads the Python dict literal of a header: the keys descr, fortran_order and
// shape, with a string, a boolean and a tuple of integers.
func parseHeader(s string) (Header, error) {
	p := &lit{s: strings.TrimRight(s, " \n\x00")}
	var h Header
	seen := map[string]bool{}
	if !p.eat('{') {
		return h, errors.New("expected a dict literal starting with {")
	}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if !p.eat(':') {
			return h, fmt.Errorf("expected : after key %q", key)
		}
		switch key {
		case "descr":
			if h.Descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %v (structured dtypes are not read)", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.Fortran = true
			case p.word("False"):
			default:
				return h, errors.New("fortran_order: expected True or False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return h, fmt.Errorf("shape: %v", err)
			}
		default:
			return h, fmt.Errorf("unknown key %q", key)
		}
		seen[key] = true
		if !p.eat(',') {
			if !p.eat('}') {
				return h, errors.New("expected , or } after a value")
			}
			break
		}
	}
	if p.skip(); p.i != len(p.s) {
		return h, errors.New("text after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("key %q missing", k)
		}
	}
	return h, nil
}

// lit scans a Python literal.
type lit struct {
	s string
	i int
}

func (p *lit) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *lit) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lit) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *lit) str() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("expected a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *lit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected a tuple")
	}
	var dims []int
	for {
		if p.eat(')') {
			return dims, nil
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected non-negative integers")
		}
		d, err := strconv.Atoi(p.s[p.i:j])
		if err != nil { // digits only: too large for an int
			return nil, fmt.Errorf("dimension %s holds more than the limit of %d values", p.s[p.i:j], MaxValues)
		}
		p.i = j
		p.word("L") // a long of Python 2
		dims = append(dims, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("expected , or ) in the tuple")
			}
			return dims, nil
		}
	}
}

// Read reads a .npy stream into a matrix (see the package doc for the shapes).
func Read(r io.Reader) (*mat.Dense, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	return readData(r, h, -1)
}

// ReadFile reads the .npy file at path.
func ReadFile(path string) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	br := bufio.NewReaderSize(f, 1<<16)
	h, err := ReadHeader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := readData(br, h, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadVector reads a .npy stream holding a 1-D array (or a 2-D array with one row or one
// column) into a slice.
func ReadVector(r io.Reader) ([]float64, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	if rows, cols := h.dims(); len(h.Shape) == 2 && rows != 1 && cols != 1 {
		return nil, fmt.Errorf("%w: shape %v is a matrix, expected a vector (use Read)", ErrFormat, h.Shape)
	}
	m, err := readData(r, h, -1)
	if err != nil {
		return nil, err
	}
	return m.RawMatrix().Data, nil
}

// readData reads the values after the header. size is the size of the whole file when known
// (then a header promising more than the file holds is refused before allocating), −1 for a
// stream (then values are read in bounded steps, and a short stream fails before the
// promised size is allocated).
func readData(r io.Reader, h Header, size int64) (*mat.Dense, error) {
	esize, _, _ := h.dtype()
	n := h.Len()
	rows, cols := h.dims()
	if size >= 0 { // the file holds what the header promises: read it in place
		if int64(n)*int64(esize) > size {
			return nil, fmt.Errorf("%w: shape %v needs %d bytes of data, the file has %d bytes in all", ErrFormat, h.Shape, int64(n)*int64(esize), size)
		}
		vals := make([]float64, n)
		if err := ReadValues(r, h, vals); err != nil {
			return nil, err
		}
		return mat.NewDense(rows, cols, vals), nil
	}
	// a stream: grow with the values that arrive, so that a damaged header cannot make the
	// reader allocate more than twice the data that are there
	c := Header{Descr: h.Descr, Shape: []int{0}} // the values of one step, in file order
	vals := make([]float64, 0, min(n, streamStep))
	for len(vals) < n {
		k := min(n-len(vals), streamStep)
		if len(vals)+k > cap(vals) {
			grown := make([]float64, len(vals), min(n, 2*cap(vals)+k))
			copy(grown, vals)
			vals = grown
		}
		c.Shape[0] = k
		if got, err := readValues(r, c, vals[len(vals):len(vals)+k]); err != nil {
			return nil, fmt.Errorf("%w: the data end after %d of %d values (%v)", ErrFormat, len(vals)+got, n, err)
		}
		vals = vals[:len(vals)+k]
	}
	if !h.Fortran || rows == 1 || cols == 1 {
		return mat.NewDense(rows, cols, vals), nil
	}
	m := mat.NewDense(rows, cols, nil)
	raw := m.RawMatrix()
	for j := 0; j < cols; j++ { // column j is contiguous in a Fortran-order file
		for i, v := range vals[j*rows : (j+1)*rows] {
			raw.Data[i*raw.Stride+j] = v
		}
	}
	return m, nil
}

// streamStep is the number of values a stream is read in at a time.
const streamStep = 1 << 17

// Write writes m as a 2-D float64 .npy array in C order. A matrix Read would not take back
// (nil, with no values, or with more than MaxValues) is an error, and nothing is written.
func Write(w io.Writer, m mat.Matrix) error { return write(w, m, false, false) }

// WriteFloat32 writes m as a 2-D float32 .npy array in C order, each value rounded to the
// nearest float32. A finite value beyond float32's range (about ±3.4e38), which would round to
// ±Inf, is an error naming it, and nothing is written: write float64 with Write instead.
func WriteFloat32(w io.Writer, m mat.Matrix) error { return write(w, m, true, false) }

// fitsFloat32 returns an error naming the first finite value of m, a rows×cols matrix, that
// rounds to ±Inf as a float32.
func fitsFloat32(m mat.Matrix, rows, cols int) error {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if v := m.At(i, j); math.IsInf(float64(float32(v)), 0) && !math.IsInf(v, 0) {
				return fmt.Errorf("value %g at row %d, column %d is beyond float32's range (±%g) and would be written as ±Inf: write float64 with Write", v, i, j, math.MaxFloat32)
			}
		}
	}
	return nil
}

// WriteVector writes v as a 1-D float64 .npy array.
func WriteVector(w io.Writer, v []float64) error {
	if len(v) == 0 {
		return errors.New("npy: WriteVector of an empty slice, expected at least one value")
	}
	return write(w, mat.NewDense(len(v), 1, v), false, true)
}

// WriteFile writes m to path as Write does, atomically: on an error, or a panic of m, the
// file at path is left as it was and no temporary file stays behind. It writes one array, a
// .npy file, and refuses a path ending in .npz, which would name an archive: WriteNPZFile
// writes those.
func WriteFile(path string, m mat.Matrix) error {
	if hasExt(path, ".npz") {
		return fmt.Errorf("npy: writing %s: WriteFile writes one array as a .npy file, and the name ends in .npz, a NumPy archive: write an archive with WriteNPZFile, or name the file .npy", path)
	}
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return Write(w, m) }); err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	return nil
}

// hasExt reports whether path ends in ext, in any case.
func hasExt(path, ext string) bool { return strings.EqualFold(filepath.Ext(path), ext) }

// shapeOf returns the dimensions of m after checking that Read takes back the file of m: m is
// a matrix (not nil) of at least one value and at most MaxValues.
func shapeOf(m mat.Matrix) (rows, cols int, err error) {
	if m == nil {
		return 0, 0, errors.New("nil matrix, expected a matrix of at least one value")
	}
	if v := reflect.ValueOf(m); v.Kind() == reflect.Pointer && v.IsNil() {
		return 0, 0, fmt.Errorf("nil matrix (%T), expected a matrix of at least one value", m)
	}
	rows, cols = m.Dims()
	if rows < 1 || cols < 1 {
		return 0, 0, fmt.Errorf("%d×%d matrix, expected at least one row and one column: a file of no values does not read back (Read refuses it), leave the array out", rows, cols)
	}
	if rows > MaxValues/cols {
		return 0, 0, fmt.Errorf("%d×%d matrix holds more than the limit of %d values (MaxValues) that Read takes back: write it in parts", rows, cols, MaxValues)
	}
	return rows, cols, nil
}

func write(w io.Writer, m mat.Matrix, f32, vector bool) error {
	rows, cols, err := shapeOf(m)
	if err == nil && f32 {
		err = fitsFloat32(m, rows, cols)
	}
	if err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	shape := fmt.Sprintf("(%d, %d)", rows, cols)
	if vector {
		shape = fmt.Sprintf("(%d,)", rows)
	}
	descr := "<f8"
	if f32 {
		descr = "<f4"
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	// pad with spaces and a newline so that the data start at a multiple of 64 bytes
	total := len(magic) + 4 + len(hdr) + 1
	hdr += strings.Repeat(" ", (64-total%64)%64) + "\n"
	if len(hdr) > math.MaxUint16 {
		return fmt.Errorf("npy: header of %d bytes does not fit version 1.0", len(hdr))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(magic)
	bw.Write([]byte{1, 0})
	binary.Write(bw, binary.LittleEndian, uint16(len(hdr)))
	bw.WriteString(hdr)
	esize := 8
	if f32 {
		esize = 4
	}
	line := make([]byte, cols*esize) // one row encoded, written at once
	d, dense := m.(*mat.Dense)
	for i := 0; i < rows; i++ {
		var row []float64
		if dense {
			row = d.RawRowView(i)
		}
		for j := 0; j < cols; j++ {
			var v float64
			if row != nil {
				v = row[j]
			} else {
				v = m.At(i, j)
			}
			if f32 {
				binary.LittleEndian.PutUint32(line[4*j:], math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(line[8*j:], math.Float64bits(v))
			}
		}
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("npy: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// ReadValues reads the h.Len() values that follow the header h into dst (which must have
// that length), in C order whatever the file's order, without allocating: for readers that
// reuse their buffers.
func ReadValues(r io.Reader, h Header, dst []float64) error {
	if _, _, err := h.dtype(); err != nil {
		return err
	}
	if len(dst) != h.Len() {
		return fmt.Errorf("npy: ReadValues into %d values, the array has %d", len(dst), h.Len())
	}
	if got, err := readValues(r, h, dst); err != nil {
		return fmt.Errorf("%w: the data end after %d of %d values (%v)", ErrFormat, got, len(dst), err)
	}
	return nil
}

// readValues decodes len(dst) values of h's dtype into dst (C order; Fortran-order 2-D arrays
// are transposed as they are read) and returns how many it read before an error.
func readValues(r io.Reader, h Header, dst []float64) (int, error) {
	esize, order, _ := h.dtype()
	n := len(dst)
	rows, cols := h.dims()
	fortran := h.Fortran && rows > 1 && cols > 1
	var buf [1 << 15]byte
	per := len(buf) / esize
	for k := 0; k < n; k += per {
		m := min(per, n-k)
		b := buf[:m*esize]
		if got, err := io.ReadFull(r, b); err != nil {
			return k + got/esize, err
		}
		out := dst[k : k+m]
		switch {
		case fortran:
			for i := range out {
				at := k + i // value at of a column-major file is (at % rows, at / rows)
				var v float64
				if esize == 8 {
					v = math.Float64frombits(order.Uint64(b[8*i:]))
				} else {
					v = float64(math.Float32frombits(order.Uint32(b[4*i:])))
				}
				dst[(at%rows)*cols+at/rows] = v
			}
		case esize == 8:
			for i := range out {
				out[i] = math.Float64frombits(order.Uint64(b[8*i:]))
			}
		default:
			for i := range out {
				out[i] = float64(math.Float32frombits(order.Uint32(b[4*i:])))
			}
		}
	}
	return n, nil
}

// Dims returns the matrix shape Read gives the array: rows × cols.
func (h Header) Dims() (rows, cols int) { return h.dims() }

// ValueSize returns the size in bytes of one value of the array (8 for float64, 4 for
// float32), or an error for a dtype the package does not read.
func (h Header) ValueSize() (int, error) {
	size, _, err := h.dtype()
	return size, err
}
