package study_test

import (
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestCreateResumesSameSpec: a study created from a spec opens again from the same spec,
// whatever form its empty fields take ("params": {} and "over": [] in a JSON spec are stored
// as absent), so that running a spec file again resumes its study.
func TestCreateResumesSameSpec(t *testing.T) {
	for _, tc := range []struct{ name, spec string }{
		{"empty params", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work"}], "params": {}}`},
		{"empty over", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work", "over": []}]}`},
		{"no params", `{"name": "s", "axes": [{"name": "x", "values": [1, 2]}], "stages": [{"name": "work", "func": "work"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for run := 1; run <= 2; run++ {
				spec, err := study.ParseSpec([]byte(tc.spec))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := study.Create(dir, spec, ""); err != nil {
					t.Fatalf("Create, run %d: %v", run, err)
				}
			}
		})
	}
}
