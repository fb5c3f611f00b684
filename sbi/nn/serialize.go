package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// File layout of saved parameters (all integers little-endian uint32):
//
//	magic "GOSBINN\x00", version, count,
//	count × (name length, name, rows, cols, rows·cols float64 bit patterns),
//	CRC-32 (IEEE) of everything before it.
//
// Values are stored as their IEEE-754 bits, so a round trip is bit-exact (NaN payloads and
// signed zeros included).
const (
	paramMagic   = "GOSBINN\x00"
	ParamVersion = 1 // the format version written by WriteParams
)

// WriteParams writes the names, shapes and values of ps to w.
func WriteParams(w io.Writer, ps []*Param) error {
	var buf bytes.Buffer
	buf.WriteString(paramMagic)
	u32 := func(v int) { _ = binary.Write(&buf, binary.LittleEndian, uint32(v)) }
	u32(ParamVersion)
	u32(len(ps))
	for _, p := range ps {
		u32(len(p.Name))
		buf.WriteString(p.Name)
		u32(p.Rows)
		u32(p.Cols)
		b := make([]byte, 8*p.Len())
		for i, v := range p.Data {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		buf.Write(b)
	}
	u32(int(crc32.ChecksumIEEE(buf.Bytes())))
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("nn: write parameters: %w", err)
	}
	return nil
}

// ReadParams reads parameters written by WriteParams into ps, which must have the same names
// and shapes in the same order (build the same architecture first, then read). It reads r to
// its end, but no more than one byte beyond the size of ps's file: a longer stream is an
// error, found before it fills the memory.
func ReadParams(r io.Reader, ps []*Param) error {
	size := paramsSize(ps)
	data, err := io.ReadAll(io.LimitReader(r, int64(size)+1))
	if err != nil {
		return fmt.Errorf("nn: read parameters: %w", err)
	}
	if len(data) > size {
		return fmt.Errorf("nn: read parameters: the stream is longer than the %d bytes of the model's parameters: it holds another model or other data", size)
	}
	return UnmarshalParams(data, ps)
}

// paramsSize returns the length of WriteParams' output for ps.
func paramsSize(ps []*Param) int {
	n := len(paramMagic) + 8 + 4 // magic, version, count, checksum
	for _, p := range ps {
		n += 12 + len(p.Name) + 8*p.Len()
	}
	return n
}

// MarshalParams returns WriteParams' bytes.
func MarshalParams(ps []*Param) []byte {
	var buf bytes.Buffer
	_ = WriteParams(&buf, ps) // writing to a bytes.Buffer cannot fail
	return buf.Bytes()
}

var errTruncated = errors.New("nn: read parameters: file is truncated")

// UnmarshalParams reads MarshalParams' bytes into ps (see ReadParams).
func UnmarshalParams(data []byte, ps []*Param) error {
	if len(data) < len(paramMagic)+12 || string(data[:len(paramMagic)]) != paramMagic {
		return errors.New("nn: read parameters: not a gosbi parameter file (bad header)")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return errors.New("nn: read parameters: checksum mismatch: the file is corrupted or truncated")
	}
	pos := len(paramMagic)
	// next reads the next uint32. It stays a uint32 and is compared as a uint64: int is 32
	// bits on some platforms, where a field above MaxInt32 would turn negative.
	next := func() (uint32, error) {
		if pos+4 > len(body) {
			return 0, errTruncated
		}
		v := binary.LittleEndian.Uint32(body[pos:])
		pos += 4
		return v, nil
	}
	version, _ := next()
	if version != ParamVersion {
		return fmt.Errorf("nn: read parameters: format version %d, this build reads version %d: save the model again with this version of gosbi", version, ParamVersion)
	}
	count, err := next()
	if err != nil {
		return err
	}
	if uint64(count) != uint64(len(ps)) {
		return fmt.Errorf("nn: read parameters: file holds %d parameters, the model has %d: build the model with the architecture it was saved from", count, len(ps))
	}
	offsets := make([]int, len(ps)) // check everything before changing any parameter
	for k, p := range ps {
		n, err := next()
		if err != nil {
			return err
		}
		if uint64(n) > uint64(len(body)-pos) {
			return errTruncated
		}
		name := string(body[pos : pos+int(n)])
		pos += int(n)
		rows, err := next()
		if err != nil {
			return err
		}
		cols, err := next()
		if err != nil {
			return err
		}
		if name != p.Name || uint64(rows) != uint64(p.Rows) || uint64(cols) != uint64(p.Cols) {
			return fmt.Errorf("nn: read parameters: parameter %d is %q %d×%d in the file but %q %d×%d in the model: build the model with the architecture it was saved from",
				k, name, rows, cols, p.Name, p.Rows, p.Cols)
		}
		// rows and cols are p's, whose values are in memory: 8·rows·cols fits in an int.
		if 8*p.Len() > len(body)-pos {
			return errTruncated
		}
		offsets[k] = pos
		pos += 8 * p.Len()
	}
	if pos != len(body) {
		return fmt.Errorf("nn: read parameters: %d unexpected bytes after the last parameter", len(body)-pos)
	}
	for k, p := range ps {
		for i := range p.Data {
			p.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[offsets[k]+8*i:]))
		}
	}
	return nil
}
