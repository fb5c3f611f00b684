package interp

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCellShowsArchivesAndStores checks that an open .npz archive and a simulation store, a
// cell's last value, show what they hold rather than a dump of their fields.
func TestCellShowsArchivesAndStores(t *testing.T) {
	dir := t.TempDir()
	npz, store := filepath.Join(dir, "a.npz"), filepath.Join(dir, "sims")
	ts := newTestSession(t)
	ts.mustRun(t, fmt.Sprintf(`err := npy.WriteNPZFile(%q, []string{"theta", "x"}, []mat.Matrix{mat.NewDense(4, 2, nil), mat.NewDense(4, 3, nil)}, false)
if err != nil { panic(err) }`, npz))
	for _, c := range []struct{ code, want string }{
		{fmt.Sprintf("z, _ := npy.OpenNPZ(%q)\nz", npz), fmt.Sprintf("npz archive %q: 2 arrays: theta (4, 2) float64, x (4, 3) float64", npz)},
		{fmt.Sprintf("s, _ := simstore.Create(%q, 2, 3)\ns", store), fmt.Sprintf("simstore %q: 0 pairs (θ of 2 values, x of 3) in 0 chunks", store)},
	} {
		if got := text(ts.mustRun(t, c.code)); got != c.want {
			t.Errorf("%s\nshown as %s\nwant     %s", c.code, got, c.want)
		}
	}
}
