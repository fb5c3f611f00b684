// Package atomicfile writes files so that a reader, or the next run after a crash, sees either
// the old content or the complete new content, never a truncated file: the data go to a
// temporary file in the target's directory, which is synced, renamed over the target, and the
// directory is synced so that the rename itself survives a power loss (on Windows, which has no
// directory sync, the rename is written through to the disk before it returns).
//
// A write updates a file, it does not swap it for another: a symbolic link is followed, so the
// file it points to gets the new content and the link stays; an existing file keeps its
// permission bits (and, where the writer may set them, its owner and group); a new file gets the
// permissions asked for, less the umask, as os.WriteFile gives it. A file the process may not
// write (read-only for it) is not replaced, although its directory would take the rename: the
// write fails with an error that wraps fs.ErrPermission. On any failure the target is
// untouched and no temporary file is left (a process killed mid-write may leave one, under a
// hidden name beginning with the target's). A write holds an flock(2) lock on its temporary
// file, where the system has flock, so that RemoveStale can tell the temporary files of killed
// writes, which it removes, from those being written.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the chain of symbolic links Target follows, as the kernel does (ELOOP).
const maxLinks = 40

// Target returns the file a write to path replaces: path itself, or, when path is a symbolic
// link, the file at the end of its chain of links (which may not exist yet).
func Target(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			return resolved, nil
		}
		// A link to a file that does not exist yet: follow it one step.
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: more than %d symbolic links in a row", path, maxLinks)
}

// Write calls write with a buffered writer on a temporary file next to the target of path
// (see Target) and, when write and the file's sync succeed, renames it over the target. On any
// error, or a panic of write (which then goes on to the caller), the target is untouched and
// the temporary file is removed. A new file gets perm less the umask; a replaced file keeps
// its permission bits, owner and group.
func Write(path string, perm fs.FileMode, write func(w io.Writer) error) (err error) {
	target, err := Target(path)
	if err != nil {
		return err
	}
	old, err := os.Stat(target)
	switch {
	case err == nil && !old.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", target)
	case err == nil:
		if err := mayWrite(target); err != nil {
			return err
		}
		perm = old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	default:
		return err
	}
	dir := filepath.Dir(target)
	f, release, err := createTemp(dir, filepath.Base(target), perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	defer func() { // on an error or a panic before the rename
		if !renamed {
			f.Close()
			os.Remove(tmp)
			release()
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if old != nil {
		keepOwner(f, old)
		// The umask applies to a new file, not to the mode of one that is replaced.
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = replace(tmp, target); err != nil {
		return err
	}
	renamed = true
	release()
	return nil
}

// mayWrite returns an error that wraps fs.ErrPermission when the process may not write the
// existing file target: a write updates a file, and the rename that does it must not get round
// the file's own permissions (a notebook made read-only, a file of another user in a shared
// directory). It opens the file for writing, without truncating it, and so asks the system.
func mayWrite(target string) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err == nil {
		return f.Close()
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s is read-only for this user (%w): make it writable (chmod u+w %s) to update it", target, err, target)
	}
	return nil // any other reason (a running executable, say) does not keep the rename from working
}

// Writable checks, without writing anything, that Write(path, …) could replace or create the
// file: the target of path (see Target) is a regular file the process may write, or absent,
// and its directory takes a new file. A caller checks with it before long work whose result
// goes to path.
func Writable(path string) error {
	target, err := Target(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", target)
	case err == nil:
		if err := mayWrite(target); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".check-*")
	if err != nil {
		return fmt.Errorf("%s: its directory takes no new file: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// CreateTemp creates a new temporary file in dir for a file named base that its caller writes
// and renames into place itself, with perm less the umask, named and locked as Write's are, so
// that RemoveStale removes it once its process has ended and keeps it while the process holds
// it open. The function it returns releases the lock that CreateTemp took; the file keeps its
// lock for as long as it stays open, as a flock(2) lock belongs to the open file.
func CreateTemp(dir, base string, perm fs.FileMode) (*os.File, func(), error) {
	return createTemp(dir, base, perm)
}

// createTemp creates a new file in dir named after base (tempName), with perm less the umask,
// and locks it (lockTemp); the function it returns releases the lock. A file whose lock
// RemoveStale took first is removed here as well as there (it is new and empty: whichever
// removal comes second finds nothing and does no harm), and another name is tried.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, func(), error) {
	for range 100 {
		name := filepath.Join(dir, tempName(base))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm.Perm())
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		release, err := lockTemp(f)
		if errors.Is(err, errTempTaken) {
			f.Close()
			os.Remove(name)
			continue
		}
		if err != nil {
			f.Close()
			os.Remove(name)
			return nil, nil, err
		}
		if !linked(f, name) { // removed by RemoveStale between its creation and its lock
			f.Close()
			release()
			continue
		}
		return f, release, nil
	}
	return nil, nil, fmt.Errorf("atomicfile: no free temporary name in %s", dir)
}

// errTempTaken is lockTemp's error for a temporary file that RemoveStale has locked.
var errTempTaken = errors.New("atomicfile: the temporary file is locked by RemoveStale")

// tempSuffix begins the end of a temporary file's name, followed by tempHex hexadecimal digits.
const (
	tempSuffix = ".tmp-"
	tempHex    = 12
)

// tempName returns a name for a temporary file of a write to base: hidden, base, then
// tempSuffix and random digits.
func tempName(base string) string {
	var b [tempHex / 2]byte
	rand.Read(b[:])
	return "." + base + tempSuffix + hex.EncodeToString(b[:])
}

// isTempName reports whether name is one that tempName gives.
func isTempName(name string) bool {
	k := strings.LastIndex(name, tempSuffix)
	if !strings.HasPrefix(name, ".") || k < 2 || len(name)-k-len(tempSuffix) != tempHex {
		return false
	}
	for _, c := range name[k+len(tempSuffix):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// linked reports whether name still names f's file.
func linked(f *os.File, name string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(name)
	return err == nil && os.SameFile(a, b)
}

// RemoveStale removes the temporary files that Writes to files in dir (and callers of
// CreateTemp) left when their process was killed while writing, and returns their paths. A
// Write holds a lock on its temporary file from its creation until the file is renamed or
// removed, and the lock dies with its process: a temporary file (a hidden name that Write
// gives) whose lock RemoveStale can take is stale; one whose lock is held is being written and
// is kept. Where the lock cannot be probed (a system without flock(2), a file system that takes
// no lock, a file the process may not open), the file is kept. The locks must be shared by all
// the hosts that write to dir (NFS mounted without local_lock=flock or local_lock=all; Lustre
// with -o flock): a lock local to another host looks free here, and its write would fail at
// the rename. Removal is best effort: a file that cannot be removed stays; an error is
// returned only when dir cannot be read.
func RemoveStale(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !isTempName(e.Name()) {
			continue
		}
		if path := filepath.Join(dir, e.Name()); removeIfStale(path) {
			removed = append(removed, path)
		}
	}
	return removed, nil
}

// WriteFile is Write with the bytes of data, like os.WriteFile.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
