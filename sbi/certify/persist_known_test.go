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
	raw, err := os.ReadFile(filepath.Join("testdata", "certificate-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(f map[string]any)
		wants []string
	}{
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
	} {
		var f map[string]any
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		tc.edit(f)
		edited, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(bytes.NewReader(edited))
		if err == nil {
			t.Errorf("%s: loaded, showing %q", tc.name, c.Sentence())
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %s", tc.name, err, w)
			}
		}
	}
}

// check is level check k of a decision in a decoded certificate file.
func check(decision any, k int) map[string]any {
	return decision.(map[string]any)["Checks"].([]any)[k].(map[string]any)
}
