// Package npytest holds the test helpers of the readers of .npz archives (package npy and the
// packages that read .npz files, such as simstore): WriteZip forges an archive whose zip
// headers say what the test chooses, so that the readers' checks of those claims can be
// tested. It does not import package npy, so that npy's own tests can use it.
package npytest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
	"testing"
)

// Member is a member of a forged archive: its content and how it is stored.
type Member struct {
	Name   string
	Method uint16 // zip.Store, or zip.Deflate to deflate Data
	Data   []byte // uncompressed content
	// Claim, when not 0, is the uncompressed size the zip headers declare instead of the true
	// one; of a stored member it is also the compressed size.
	Claim uint64
	// WrongCRC makes the headers hold a checksum that is not the data's, as for a member
	// damaged after it was written.
	WrongCRC bool
}

// WriteZip writes an archive of the members, in their order, to path. Each member's headers
// hold, unless it has WrongCRC, the checksum of its data and, unless it has a Claim, its true
// sizes.
func WriteZip(t testing.TB, path string, members ...Member) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		body := m.Data
		if m.Method == zip.Deflate {
			body = deflate(t, m.Data)
		}
		fh := &zip.FileHeader{Name: m.Name, Method: m.Method, CRC32: crc32.ChecksumIEEE(m.Data),
			CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(m.Data))}
		if m.WrongCRC {
			fh.CRC32 ^= 1
		}
		if m.Claim != 0 {
			fh.UncompressedSize64 = m.Claim
			if m.Method == zip.Store {
				fh.CompressedSize64 = m.Claim
			}
		}
		w, err := zw.CreateRaw(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deflate returns data compressed as a zip member's deflated body.
func deflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var c bytes.Buffer
	fw, err := flate.NewWriter(&c, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}
