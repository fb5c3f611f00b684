package simstore

import (
	"os"
	"path/filepath"
	"testing"
)

// TestManifestReadableAsChunks checks that the manifest gets the permissions of the chunks
// (0644 less the umask, as a file the process creates with 0644 gets): a manifest only its
// owner could read made a store whose chunks others can read one they cannot open.
func TestManifestReadableAsChunks(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(filepath.Join(dir, "store"), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	theta, x := pairs(0, 2)
	if err := s.Append(theta, x); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := mode(t, ref)
	chunks, err := filepath.Glob(filepath.Join(dir, "store", "chunks", "*.npz"))
	if err != nil || len(chunks) != 1 {
		t.Fatalf("chunks %v, %v; want one", chunks, err)
	}
	for _, p := range []string{filepath.Join(dir, "store", manifestName), chunks[0]} {
		if got := mode(t, p); got != want {
			t.Errorf("%s has mode %v, want %v (0644 less the umask)", filepath.Base(p), got, want)
		}
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}
