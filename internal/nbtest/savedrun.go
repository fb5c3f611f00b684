package nbtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// SavedRun pairs a saved run with the notebook it is a run of. A saved run is an executed copy
// of a notebook kept in the results folder of the notebook's directory and named after it:
// notebooks/results/NAME-full.ipynb (or -slurm, or any -SUFFIX) is a run of
// notebooks/NAME.ipynb. Its outputs are the numbers the notebook's prose may quote, so its code
// must be the notebook's; only the parameters may differ (the cell tagged ParametersTag and the
// cell the runner injected, InjectedTag). A run whose other code cells differ is stale (see
// DiffCode). The comparison sees the notebook's code, not the library's: a change of the
// library under an unchanged notebook is not found this way.
type SavedRun struct {
	Run, Notebook string // paths
}

// SavedRuns finds the saved runs of the notebooks in dirs: every .ipynb file in dir/results,
// paired with the notebook of dir whose name followed by "-" begins the run's name (the longest
// such, so that a-b-full.ipynb is a run of a-b.ipynb rather than a.ipynb). A saved run without
// its notebook is an error.
func SavedRuns(dirs ...string) ([]SavedRun, error) {
	var out []SavedRun
	for _, d := range dirs {
		notebooks, err := Notebooks(d)
		if err != nil {
			return nil, err
		}
		runs, err := Notebooks(filepath.Join(d, "results"))
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			base := strings.TrimSuffix(filepath.Base(r), ".ipynb")
			best := ""
			for _, nb := range notebooks {
				name := strings.TrimSuffix(filepath.Base(nb), ".ipynb")
				if strings.HasPrefix(base, name+"-") && len(nb) > len(best) {
					best = nb
				}
			}
			if best == "" {
				return nil, fmt.Errorf("nbtest: saved run %s is a run of no notebook in %s (want NAME-SUFFIX.ipynb for a notebook NAME.ipynb)", r, d)
			}
			out = append(out, SavedRun{Run: r, Notebook: best})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	return out, nil
}

// CodeCells returns the sources of nb's code cells, leaving out its parameters: the cell tagged
// ParametersTag and a cell tagged InjectedTag.
func CodeCells(nb *Notebook) []string {
	var out []string
	for _, c := range nb.Cells {
		if c.CellType == "code" && !c.HasTag(ParametersTag) && !c.HasTag(InjectedTag) {
			out = append(out, c.Source)
		}
	}
	return out
}

// CellDiff is one code cell in which a saved run differs from its notebook.
type CellDiff struct {
	Cell          int    // 1-based position among the code cells compared (parameters left out)
	Line          int    // 1-based line of the first difference within the cell
	Notebook, Run string // that line in each; "(no cell)" or "(no line)" where one has none
}

func (d CellDiff) String() string {
	return fmt.Sprintf("code cell %d (parameters left out), line %d: notebook %q, run %q", d.Cell, d.Line, d.Notebook, d.Run)
}

// DiffCode compares the code cells of a notebook and of a saved run of it, parameters left out,
// and returns the cells that differ with their first differing line; nil when the run's code is
// the notebook's.
func DiffCode(notebook, run *Notebook) []CellDiff {
	a, b := CodeCells(notebook), CodeCells(run)
	var out []CellDiff
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			out = append(out, CellDiff{Cell: i + 1, Line: 1, Notebook: "(no cell)", Run: firstLine(b[i])})
		case i >= len(b):
			out = append(out, CellDiff{Cell: i + 1, Line: 1, Notebook: firstLine(a[i]), Run: "(no cell)"})
		case a[i] != b[i]:
			out = append(out, firstDifference(i+1, a[i], b[i]))
		}
	}
	return out
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func firstDifference(cell int, a, b string) CellDiff {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for k := 0; ; k++ {
		switch {
		case k >= len(la):
			return CellDiff{Cell: cell, Line: k + 1, Notebook: "(no line)", Run: lb[k]}
		case k >= len(lb):
			return CellDiff{Cell: cell, Line: k + 1, Notebook: la[k], Run: "(no line)"}
		case la[k] != lb[k]:
			return CellDiff{Cell: cell, Line: k + 1, Notebook: la[k], Run: lb[k]}
		}
	}
}

// CodeFingerprint identifies the code of a notebook and of a saved run of it (parameters left
// out): a list of known stale runs records it, so that an entry reviewed for one pair of codes
// does not cover a later change of either.
func CodeFingerprint(notebook, run *Notebook) string {
	h := sha256.New()
	for _, side := range [][]string{CodeCells(notebook), CodeCells(run)} {
		for _, src := range side {
			fmt.Fprintf(h, "%d:%s", len(src), src)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ReadSavedRun reads both notebooks of r.
func ReadSavedRun(r SavedRun) (notebook, run *Notebook, err error) {
	if notebook, err = ReadNotebook(r.Notebook); err != nil {
		return nil, nil, err
	}
	if run, err = ReadNotebook(r.Run); err != nil {
		return nil, nil, err
	}
	return notebook, run, nil
}
