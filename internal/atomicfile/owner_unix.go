//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of old where they differ and the process may set them
// (root may; anyone may set a group they belong to). It is best effort: a file one may write
// but not chown is written with the writer's ownership, as any editor would.
func keepOwner(f *os.File, old fs.FileInfo) {
	o, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	st, err := f.Stat()
	if err != nil {
		return
	}
	n, ok := st.Sys().(*syscall.Stat_t)
	if !ok || n.Uid == o.Uid && n.Gid == o.Gid {
		return
	}
	f.Chown(int(o.Uid), int(o.Gid))
}
