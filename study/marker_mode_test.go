//go:build unix

// The test sets the umask (syscall.Umask) and checks Unix permission bits.

package study

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestMarkerMode: a running marker is readable by the group and others, as the study's records
// and notes are, so that a user sharing the study directory can probe it; one they cannot open
// is reported damaged and its job refused.
func TestMarkerMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	s := damagedStudy(t)
	a := new(attempt)
	if err := a.mark(s.runningPath(0), "elsewhere.invalid", time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	defer a.marker.Close()
	note := s.failedPath(1)
	if err := writeJSONAtomic(note, Failure{Index: 1, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	marker, err := os.Stat(s.runningPath(0))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Stat(note)
	if err != nil {
		t.Fatal(err)
	}
	if marker.Mode().Perm() != 0o644 || marker.Mode().Perm() != other.Mode().Perm() {
		t.Errorf("a running marker has mode %v, a failure note %v; want both 0644 under umask 022", marker.Mode().Perm(), other.Mode().Perm())
	}
}
