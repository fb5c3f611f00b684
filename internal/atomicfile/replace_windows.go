//go:build windows

package atomicfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// replace renames tmp over target with MoveFileEx and MOVEFILE_WRITE_THROUGH, which returns
// only once the rename is on the disk. Windows has no directory sync to do it afterwards:
// FlushFileBuffers on a directory handle that os.Open gives fails with ERROR_ACCESS_DENIED,
// although the rename has been done.
func replace(tmp, target string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	to, err := windows.UTF16PtrFromString(target)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	return nil
}
