package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSpecTooLarge names a 17 MiB file (sparse: no disk used) as a spec: it is refused
// with the limit before it is read, not read whole and then found not to be JSON.
func TestReadSpecTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, maxSpecSize+1); err != nil {
		t.Fatal(err)
	}
	_, err := ReadSpec(p)
	if err == nil || !strings.Contains(err.Error(), "larger than the 16777216 bytes (16 MiB) a study spec may hold") {
		t.Fatalf("error %v, want one saying the file is larger than a spec may be", err)
	}
}
