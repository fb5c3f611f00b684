package nbtest_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// notebook builds a notebook of code cells; a source starting with "#param " becomes the cell
// tagged tag=parameters, "#inject " the injected one.
func notebook(srcs ...string) *nbtest.Notebook {
	nb := &nbtest.Notebook{}
	for _, s := range srcs {
		c := &nbtest.Cell{CellType: "code", Source: s, Metadata: map[string]any{}}
		switch {
		case strings.HasPrefix(s, "#param "):
			c.Metadata["tags"] = []any{nbtest.ParametersTag}
		case strings.HasPrefix(s, "#inject "):
			c.Metadata["tags"] = []any{nbtest.InjectedTag}
		case strings.HasPrefix(s, "#md "):
			c.CellType = "markdown"
		}
		nb.Cells = append(nb.Cells, c)
	}
	return nb
}

func TestDiffCode(t *testing.T) {
	base := notebook("#param quick := true", "a := 1\nb := 2", "#md prose", "fmt.Println(a + b)")
	for _, tc := range []struct {
		name string
		run  *nbtest.Notebook
		want []nbtest.CellDiff
	}{
		{"parameters and prose may differ", notebook("#param quick := true // other", "#inject quick = false", "a := 1\nb := 2", "#md other prose", "fmt.Println(a + b)"), nil},
		{"a changed line", notebook("#param quick := true", "a := 1\nb := 3", "fmt.Println(a + b)"),
			[]nbtest.CellDiff{{Cell: 1, Line: 2, Notebook: "b := 2", Run: "b := 3"}}},
		{"a line more in the run", notebook("#param quick := true", "a := 1\nb := 2\nc := 3", "fmt.Println(a + b)"),
			[]nbtest.CellDiff{{Cell: 1, Line: 3, Notebook: "(no line)", Run: "c := 3"}}},
		{"a cell fewer in the run", notebook("#param quick := true", "a := 1\nb := 2"),
			[]nbtest.CellDiff{{Cell: 2, Line: 1, Notebook: "fmt.Println(a + b)", Run: "(no cell)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nbtest.DiffCode(base, tc.run); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DiffCode = %v, want %v", got, tc.want)
			}
		})
	}
	a, b := nbtest.CodeFingerprint(base, base), nbtest.CodeFingerprint(base, notebook("a := 1\nb := 2", "fmt.Println(a + b) "))
	if a == b || len(a) != 16 {
		t.Errorf("fingerprints %q and %q of different runs: want two different 16-digit values", a, b)
	}
}

func TestSavedRuns(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.ipynb", "a-b.ipynb", "results/a-full.ipynb", "results/a-b-full.ipynb", "results/a-b-slurm.ipynb", "results/notes.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := nbtest.SavedRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		rel := func(p string) string { s, _ := filepath.Rel(dir, p); return filepath.ToSlash(s) }
		got = append(got, rel(r.Run)+" → "+rel(r.Notebook))
	}
	want := []string{"results/a-b-full.ipynb → a-b.ipynb", "results/a-b-slurm.ipynb → a-b.ipynb", "results/a-full.ipynb → a.ipynb"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SavedRuns = %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "results", "orphan-full.ipynb"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := nbtest.SavedRuns(dir); err == nil || !strings.Contains(err.Error(), "orphan-full.ipynb") {
		t.Errorf("a run of no notebook: error %v, want one naming it", err)
	}
}

// staleRun is a saved run known to be stale: its code differs from its notebook's beyond the
// parameters, and it cannot be re-made in the change that found it.
type staleRun struct {
	fingerprint string // nbtest.CodeFingerprint of the notebook and the run when this was reviewed
	reason      string // what differs, what the difference means for the numbers, how to re-make it
}

// staleSavedRuns lists the saved runs (path from the repository root) whose code differs from
// their notebook's and that have not been re-made yet. Each entry holds for one reviewed pair of
// codes: when the notebook or the run changes, the test fails again until the run is re-made
// (then remove the entry) or the difference is reviewed again (then update the fingerprint and
// the reason). Re-make a run with `gosbi run NOTEBOOK --param quick=false --out DIR` (see README).
var staleSavedRuns = map[string]staleRun{}

// TestRepositorySavedRuns fails when a saved full run of a notebook or tutorial (results/NAME-*.ipynb)
// has code cells other than its notebook's, parameters left out, unless staleSavedRuns lists it
// for exactly that difference; it logs every listed run with its reason.
func TestRepositorySavedRuns(t *testing.T) {
	runs, err := nbtest.SavedRuns("../../notebooks", "../../tutorials")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		t.Fatal("no saved runs found under notebooks/results or tutorials/results")
	}
	seen := map[string]bool{}
	for _, r := range runs {
		key := filepath.ToSlash(strings.TrimPrefix(r.Run, "../../"))
		seen[key] = true
		nb, run, err := nbtest.ReadSavedRun(r)
		if err != nil {
			t.Error(err)
			continue
		}
		diffs := nbtest.DiffCode(nb, run)
		fp := nbtest.CodeFingerprint(nb, run)
		entry, listed := staleSavedRuns[key]
		var lines []string
		for _, d := range diffs {
			lines = append(lines, "  "+d.String())
		}
		switch {
		case len(diffs) == 0 && listed:
			t.Errorf("%s is listed in staleSavedRuns but its code is its notebook's: remove the entry", key)
		case len(diffs) == 0:
		case !listed:
			t.Errorf("%s is stale: %d code cells differ from %s beyond the parameters:\n%s\nre-make it, or list it in staleSavedRuns with the reason and fingerprint %q", key, len(diffs), filepath.Base(r.Notebook), strings.Join(lines, "\n"), fp)
		case entry.fingerprint != fp:
			t.Errorf("%s is listed in staleSavedRuns for fingerprint %q, but the code of the notebook or of the run has changed since (now %q): re-make the run, or review the difference again and update the entry:\n%s", key, entry.fingerprint, fp, strings.Join(lines, "\n"))
		default:
			t.Logf("STALE (listed in staleSavedRuns): %s — %d of its code cells differ from %s; %s", key, len(diffs), filepath.Base(r.Notebook), entry.reason)
		}
	}
	var keys []string
	for k := range staleSavedRuns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !seen[k] {
			t.Errorf("staleSavedRuns lists %s, which is no saved run: remove the entry", k)
		}
	}
}
