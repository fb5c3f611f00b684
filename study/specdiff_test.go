package study_test

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestCreateNamesWhatDiffers creates a study, then asks Create for the same directory with a
// spec changed in one place: the refusal names that place (with both values) and says that the
// directory's records are kept unless it is deleted, since "a different study" alone names
// the same study and sends the user to delete finished work.
func TestCreateNamesWhatDiffers(t *testing.T) {
	script := func(s *study.Spec, src string) {
		s.Stages[1] = study.Stage{Name: "train", Source: src}
	}
	for _, tc := range []struct {
		name   string
		change func(*study.Spec)
		want   string
	}{
		{"param", func(s *study.Spec) { s.Params["epochs"] = "4" }, `params "epochs": "3" there, "4" in this spec`},
		{"new param", func(s *study.Spec) { s.Params["lr"] = "0.1" }, `params "lr": absent there, "0.1" in this spec`},
		{"seed added", func(s *study.Spec) { s.Axes[0].Values = study.Ints(1, 2, 3) }, `axis "seed": values [1 2] there, [1 2 3] in this spec`},
		{"axis added", func(s *study.Spec) { s.Axes = append(s.Axes, study.Axis{Name: "method", Values: []string{"a"}}) }, `axes [seed budget] there, [seed budget method] in this spec`},
		{"name", func(s *study.Spec) { s.Name = "tiny2" }, `name "tiny" there, "tiny2" in this spec`},
		{"stage", func(s *study.Spec) { s.Stages[2].Over = []string{"seed"}; s.Stages[2].All = false }, `stage "aggregate" differs`},
		{"script", func(s *study.Spec) { script(s, "package main\n// v2\n") }, `the script of stage "train" differs`},
		{"long param", func(s *study.Spec) {
			s.Params["spec"] = strings.Repeat("x", 200) + `"epochs":40` + strings.Repeat("y", 200)
		}, `"…xxxxxxxxxxx\"epochs\":40yyyyyyyyyyyyyyyyyy…" in this spec`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			base := trainingSpec()
			if tc.name == "script" {
				script(base, "package main\n// v1\n")
			}
			if tc.name == "long param" {
				base.Params["spec"] = strings.Repeat("x", 200) + `"epochs":30` + strings.Repeat("y", 200)
			}
			if _, err := study.Create(dir, base, ""); err != nil {
				t.Fatal(err)
			}
			other := trainingSpec()
			if tc.name == "long param" {
				other.Params["spec"] = base.Params["spec"]
			}
			tc.change(other)
			_, err := study.Create(dir, other, "")
			if err == nil {
				t.Fatal("Create with a changed spec succeeded, want a refusal")
			}
			for _, want := range []string{"holds a different study", tc.want, "its records stay there", "in a new directory"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Create with a changed spec:\n%v\nwant it to contain %q", err, want)
				}
			}
		})
	}
}
