package npy

import (
	"archive/zip"
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/npytest"
)

// npyBytes returns a version 1.0 .npy file of float64 values whose header declares shape
// but whose data are vals only.
func npyBytes(shape string, vals ...float64) []byte {
	hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }"
	hdr += strings.Repeat(" ", (64-(10+len(hdr)+1)%64)%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	b = append(b, hdr...)
	for _, v := range vals {
		var w bytes.Buffer
		WriteVector(&w, []float64{v})
		b = append(b, w.Bytes()[w.Len()-8:]...)
	}
	return b
}

// TestNPZLyingMemberSize checks that a member whose zip headers declare far more bytes than
// the archive holds is refused without allocating what its .npy header promises: the sizes
// in a zip directory are claims, like the shape of a header.
func TestNPZLyingMemberSize(t *testing.T) {
	const n = 1 << 27 // 1 GiB of float64
	// 128 KiB of values that are there, so that the reader gets past the header (the zip
	// reader reports a short member only once its data end)
	data := npyBytes("(134217728,)", make([]float64, 1<<14)...)
	for _, c := range []struct {
		name   string
		method uint16
	}{
		{"stored", zip.Store},
		{"deflated", zip.Deflate},
	} {
		path := filepath.Join(t.TempDir(), "a.npz")
		npytest.WriteZip(t, path, npytest.Member{Name: "a.npy", Method: c.method, Data: data, Claim: uint64(len(data)) + 8*n})
		z, err := OpenNPZ(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := z.Dense("a")
		runtime.ReadMemStats(&after)
		z.Close()
		if err == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Dense gives %v, %v; want an error wrapping ErrFormat", c.name, m, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("%s: Dense allocated %d MiB for a member of %d bytes", c.name, got>>20, len(data))
		}
	}
}

// TestOpenNPZRefusesDuplicates checks that an archive holding two members of one name (which
// zip allows and np.savez never writes) is refused rather than read as one of them.
func TestOpenNPZRefusesDuplicates(t *testing.T) {
	for _, c := range []struct {
		name    string
		members []string
		want    string
	}{
		{"twice", []string{"a.npy", "b.npy", "a.npy"}, `array "a"`},
		{"three times", []string{"x.npy", "x.npy", "x.npy"}, `array "x"`},
	} {
		var ms []npytest.Member
		for k, name := range c.members {
			ms = append(ms, npytest.Member{Name: name, Method: zip.Store, Data: npyBytes("(1,)", float64(k))})
		}
		path := filepath.Join(t.TempDir(), "a.npz")
		npytest.WriteZip(t, path, ms...)
		z, err := OpenNPZ(path)
		if err == nil {
			t.Errorf("%s: OpenNPZ accepted an archive with names %v (Names %v)", c.name, c.members, z.Names())
			z.Close()
			continue
		}
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrFormat that names %s", c.name, err, c.want)
		}
	}
}

// TestNPZMissingArray checks that Dense and Vector of a name the archive lacks are errors
// naming it and the arrays there are.
func TestNPZMissingArray(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npz")
	npytest.WriteZip(t, path, npytest.Member{Name: "a.npy", Method: zip.Store, Data: npyBytes("(1,)", 1)})
	z, err := OpenNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, c := range []struct {
		name string
		read func(string) error
	}{
		{"Dense", func(n string) error { _, err := z.Dense(n); return err }},
		{"Vector", func(n string) error { _, err := z.Vector(n); return err }},
	} {
		if err := c.read("b"); err == nil || !strings.Contains(err.Error(), `no array "b"`) || !strings.Contains(err.Error(), "it has a") {
			t.Errorf("%s of a missing array: %v, want an error naming it and the arrays there are", c.name, err)
		}
	}
}

// TestNPZChecksum checks that a member whose data do not match its zip checksum (a bit
// flipped on disk) is an error wrapping ErrFormat, for Dense and Vector, stored or deflated,
// instead of values read silently.
func TestNPZChecksum(t *testing.T) {
	data := npyBytes("(3,)", 1, 2, 3)
	for _, c := range []struct {
		name   string
		method uint16
		read   func(z *NPZ) error
	}{
		{"stored, Dense", zip.Store, func(z *NPZ) error { _, err := z.Dense("a"); return err }},
		{"stored, Vector", zip.Store, func(z *NPZ) error { _, err := z.Vector("a"); return err }},
		{"deflated, Dense", zip.Deflate, func(z *NPZ) error { _, err := z.Dense("a"); return err }},
		{"deflated, Vector", zip.Deflate, func(z *NPZ) error { _, err := z.Vector("a"); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.npz")
			npytest.WriteZip(t, path, npytest.Member{Name: "a.npy", Method: c.method, Data: data, WrongCRC: true})
			z, err := OpenNPZ(path)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			if err := c.read(z); !errors.Is(err, ErrFormat) || !errors.Is(err, zip.ErrChecksum) || !strings.Contains(err.Error(), `array "a"`) {
				t.Errorf("read gives %v, want an error naming array \"a\" and wrapping ErrFormat and zip.ErrChecksum", err)
			}
		})
	}
}
