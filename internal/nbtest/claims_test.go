package nbtest_test

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// uncheckedClaims are sentences that the repository's notebooks once stated (in their prose or
// in a sentence their code printed whatever the numbers) although no run checked them. A verdict
// is a claim: each one was rewritten to say what the run shows, or to be chosen by the numbers
// it describes, and must not come back in the notebook or in any of its saved runs.
var uncheckedClaims = []struct {
	files  []string // a notebook and its saved runs
	phrase string   // the unchecked sentence, or the code that printed it unconditionally
	why    string
}{
	{
		[]string{"tutorials/01-quickstart.ipynb", "tutorials/results/01-quickstart-full.ipynb"},
		"reads a little closer to 0.5",
		"no run compares the capped quick-mode C2ST with sbibm's setting on the same draws",
	},
	{
		[]string{"tutorials/01-quickstart.ipynb", "tutorials/results/01-quickstart-full.ipynb"},
		"reads closer to 0.5",
		"no run compares the capped quick-mode C2ST with sbibm's setting on the same draws",
	},
	{
		[]string{"tutorials/01-quickstart.ipynb", "tutorials/results/01-quickstart-full.ipynb"},
		"That is not always so.",
		"it follows the run's verdict, which may itself be 'do not trust them'",
	},
	{
		[]string{"tutorials/05-sequential.ipynb"},
		"reads a little closer to 0.5",
		"no run compares the capped quick-mode C2ST with sbibm's setting on the same draws",
	},
	{
		[]string{"tutorials/06-embeddings.ipynb", "tutorials/results/06-embeddings-full.ipynb"},
		`ran to the limit of %d epochs, the others stopped early; the longest ran %d\n", n, capped, runs`,
		"printed 'the others stopped early' when every run had reached the limit (quick mode: 10 of 10)",
	},
	{
		[]string{"tutorials/06-embeddings.ipynb", "tutorials/results/06-embeddings-full.ipynb"},
		`"With %d simulations per estimator and %s, learning the summary from the raw series pays on both tasks: "`,
		"printed that the learned summaries pay on both tasks without looking at the differences it reports",
	},
	{
		[]string{"notebooks/score-calibration.ipynb", "notebooks/results/score-calibration-full.ipynb"},
		"within 3.5 sd: agrees with the paper",
		"a difference within 3.5 sd at 40 datasets is undecided (the section's next cell says so), not agreement",
	},
	{
		[]string{"notebooks/kccsd.ipynb", "notebooks/results/kccsd-full.ipynb"},
		"On QGM the two tests have comparable power, as in the paper.",
		"quick mode's rates at n = 64 differ by 0.25 and are not compared; the full run's numbers are named",
	},
	{
		[]string{"notebooks/kccsd.ipynb", "notebooks/results/kccsd-full.ipynb"},
		"both tests keep its level in the table of this run",
		"what the run checks is the binomial bound of the level (quick mode: 3 of 20 at n = 256)",
	},
	{
		[]string{"notebooks/balanced-nre.ipynb", "notebooks/results/balanced-nre-full.ipynb", "notebooks/results/balanced-nre-slurm.ipynb"},
		"the gap\n  narrows with the budget, as in the paper",
		"the full run's gaps narrow from 1024 to 4096 but not from 4096 to 16384",
	},
	{
		[]string{"notebooks/balanced-nre.ipynb", "notebooks/results/balanced-nre-full.ipynb", "notebooks/results/balanced-nre-slurm.ipynb"},
		"if collapse >= 0 {\n\tfmt.Printf(\"BNRE returns the prior from λ = %g on",
		"printed 'from λ on' without looking at the larger λ's",
	},
}

// TestNotebookClaims fails when the cells (prose and code, not the recorded outputs) of a
// notebook or of one of its saved runs state a claim of uncheckedClaims again.
func TestNotebookClaims(t *testing.T) {
	for _, c := range uncheckedClaims {
		for _, f := range c.files {
			nb, err := nbtest.ReadNotebook("../../" + f)
			if err != nil {
				t.Fatal(err)
			}
			for i, cell := range nb.Cells {
				if strings.Contains(cell.Source, c.phrase) {
					t.Errorf("%s, cell %d states %q again: %s", f, i+1, c.phrase, c.why)
				}
			}
		}
	}
}
