//go:build windows

package study

// syncDir does nothing on Windows, which cannot sync a directory: FlushFileBuffers on the
// directory handle that os.Open gives fails with "Access is denied", although the rename it
// was to make durable has been done. A rename there (os.Rename, MoveFileEx without
// write-through) is journalled by NTFS, so that after a power loss it is whole or absent, but
// it may be lost. Studies do not run on Windows (errNoRuns), where this is the only use.
func syncDir(dir string) error { return nil }
