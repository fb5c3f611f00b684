package zipmember

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/npytest"
)

// TestStoredSize checks that StoredSize trusts the size of a stored member that lies within
// its archive, and no other: not a stored member whose headers claim more than the archive
// holds, nor a deflated one, whose uncompressed size is only a claim.
func TestStoredSize(t *testing.T) {
	data := make([]byte, 1000)
	for _, c := range []struct {
		name   string
		member npytest.Member
		want   int64
	}{
		{"stored", npytest.Member{Name: "a", Method: zip.Store, Data: data}, 1000},
		{"stored, claim past the end", npytest.Member{Name: "a", Method: zip.Store, Data: data, Claim: 1 << 30}, -1},
		{"deflated", npytest.Member{Name: "a", Method: zip.Deflate, Data: data}, -1},
		{"deflated, claim", npytest.Member{Name: "a", Method: zip.Deflate, Data: data, Claim: 1 << 30}, -1},
	} {
		path := filepath.Join(t.TempDir(), "a.zip")
		npytest.WriteZip(t, path, c.member)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		if got := StoredSize(zr.File[0], st.Size()); got != c.want {
			t.Errorf("%s: StoredSize %d, want %d", c.name, got, c.want)
		}
		f.Close()
	}
}
