//go:build unix

package task

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nobodytest"
)

// TestFetchReadOnlyDir: a data directory that takes no new file is refused before anything is
// downloaded, with a permission error naming it; a read-only directory that holds every file
// intact is fine, since nothing is written to it.
func TestFetchReadOnlyDir(t *testing.T) {
	if nobodytest.Rerun(t, "TestFetchReadOnlyDir", "") {
		return
	}
	srv, requests := fakeServer(t, nil)
	sums := fakeSums(t)
	empty, full := t.TempDir(), t.TempDir()
	if _, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", full, io.Discard, sums); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{empty, full} {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	before := requests.Load()
	n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", empty, io.Discard, sums)
	if n != 0 || !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), empty) || requests.Load() != before {
		t.Errorf("fetch into a read-only directory: %d files, %d requests, error %v; want a permission error naming %s before any request",
			n, requests.Load()-before, err, empty)
	}
	if n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", full, io.Discard, sums); n != 0 || err != nil {
		t.Errorf("fetch into a read-only directory holding every file: %d files, %v; want 0 and no error", n, err)
	}
}
