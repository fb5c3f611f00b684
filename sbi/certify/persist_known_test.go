package certify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesUnknownVerdicts: a certificate file whose verdict, level status, observation
// verdict, claim or remedy is not one this build knows is refused with an error naming the field, the
// value and the known values. Before the fix Load accepted them and the certificate showed an
// unknown verdict as "Inconclusive" without a word.
func TestLoadRefusesUnknownVerdicts(t *testing.T) {
	checkEdits(t, []fileEdit{
		{"final verdict", func(f map[string]any) { f["final"].(map[string]any)["Verdict"] = "certifed" },
			[]string{"final.Verdict", `"certifed"`, `"certified"`, `"not certified"`, `"inconclusive"`}},
		{"final level status", func(f map[string]any) { check(f["final"], 2)["Status"] = "inside" },
			[]string{"final.Checks[2].Status", `"inside"`, `"within"`, `"outside"`, `"undecided"`}},
		{"step verdict", func(f map[string]any) {
			f["steps"].([]any)[0].(map[string]any)["Decision"].(map[string]any)["Verdict"] = "Certified"
		}, []string{"steps[0].Decision.Verdict", `"Certified"`, `"certified"`}},
		{"step level status", func(f map[string]any) {
			check(f["steps"].([]any)[2].(map[string]any)["Decision"], 0)["Status"] = ""
		}, []string{"steps[2].Decision.Checks[0].Status", `""`, `"within"`}},
		{"observation verdict", func(f map[string]any) {
			f["observations"].([]any)[1].(map[string]any)["Verdict"] = "refused"
		}, []string{"observations[1].Verdict", `"refused"`, `"not certified"`}},
		{"observation claim", func(f map[string]any) {
			f["observations"].([]any)[0].(map[string]any)["Claim"] = "global"
		}, []string{"observations[0].Claim", `"global"`, `"marginal"`, `"local (score-calibrated)"`}},
		{"remedy", func(f map[string]any) { f["remedies"] = []any{"conformal regions", "more coffee"} },
			[]string{"remedies[1]", `"more coffee"`, `"more simulations"`, `"coverage regularizer"`, `"conformal regions"`, `"score calibration"`}},
		{"score calibration without its test", func(f map[string]any) {
			f["observations"].([]any)[0].(map[string]any)["ScoreCal"] = map[string]any{"Datasets": 10,
				"Map": map[string]any{"Dim": 2, "L": []float64{1, 0, 0, 1}, "B": []float64{0, 0}}}
		}, []string{"observations[0].ScoreCal holds no Decision"}},
	}, nil)
}

// fileEdit is an edit of a decoded certificate file and the words Load's error must hold; with
// no words the edited file must load.
type fileEdit struct {
	name  string
	edit  func(f map[string]any)
	wants []string
}

// checkEdits loads testdata/certificate-v1.json as each edit leaves it: Load must refuse it with
// an error holding each of the edit's words, or, for an edit without words, load it, and loaded
// (nil: none) checks the certificate.
func checkEdits(t *testing.T, edits []fileEdit, loaded func(t *testing.T, name string, c *Certificate)) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "certificate-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		var f map[string]any
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		e.edit(f)
		edited, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(bytes.NewReader(edited))
		switch {
		case e.wants == nil && err != nil:
			t.Errorf("%s: %v", e.name, err)
		case e.wants == nil:
			if loaded != nil {
				loaded(t, e.name, c)
			}
		case err == nil:
			t.Errorf("%s: loaded, showing %q", e.name, c.Sentence())
		}
		for _, w := range e.wants {
			if err != nil && !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %s", e.name, err, w)
			}
		}
	}
}

// check is level check k of a decision in a decoded certificate file.
func check(decision any, k int) map[string]any {
	return decision.(map[string]any)["Checks"].([]any)[k].(map[string]any)
}
