package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConnectionFileSizeBound refuses a connection file larger than maxConnectionFileSize,
// from its size or, for a device without end, while reading it.
func TestConnectionFileSizeBound(t *testing.T) {
	big := filepath.Join(t.TempDir(), "kernel.json")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxConnectionFileSize+1); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		_, err := ReadConnectionFile(path)
		if want := "larger than the 1048576 bytes (1 MiB) a connection file may hold"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", path, err, want)
		}
	}
}
