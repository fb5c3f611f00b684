// Package zipmember tells the readers of .npz archives (package npy and simstore's chunks)
// how many bytes a member holds when that can be known without reading the member, so that
// they can refuse a .npy header that promises more values than are there before allocating
// them.
package zipmember

import "archive/zip"

// StoredSize returns the size of member f of an archive of archiveSize bytes when the archive
// holds it: a stored member whose data lie within the archive (the zip reader then fails
// unless exactly that many bytes come). Otherwise it returns −1, and the member's size is
// known only by reading it through: the uncompressed size of a deflated member is a claim of
// its header, which its compressed data need not back.
func StoredSize(f *zip.File, archiveSize int64) int64 {
	if f.Method != zip.Store || f.CompressedSize64 != f.UncompressedSize64 || f.UncompressedSize64 > uint64(archiveSize) {
		return -1
	}
	off, err := f.DataOffset()
	if err != nil || off < 0 || off > archiveSize-int64(f.UncompressedSize64) {
		return -1
	}
	return int64(f.UncompressedSize64)
}
