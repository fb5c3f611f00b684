package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSyncDir checks that SyncDir succeeds on a directory into which a file was just renamed,
// as a study's job record and running marker are: on Windows, where a directory cannot be
// synced (Access is denied), it has nothing to do and must not fail the write.
func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "record.json.tmp")
	if err := os.WriteFile(tmp, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "record.json")); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir(%s): %v", dir, err)
	}
}
