package study_test

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// TestCreateScriptDiffPerSide: a manifest keeps the sources of its script stages in order, so
// when a stage gains a script the later stages' scripts sit at other places on the two sides.
// The refusal names the stage that changed and no script that did not.
func TestCreateScriptDiffPerSide(t *testing.T) {
	train := study.Stage{Name: "train", Source: "package main\n// train\n"}
	base := trainingSpec()
	base.Stages[1] = train
	dir := t.TempDir()
	if _, err := study.Create(dir, base, ""); err != nil {
		t.Fatal(err)
	}
	other := trainingSpec()
	other.Stages[0] = study.Stage{Name: "simulate", Over: []string{"seed"}, Source: "package main\n// simulate\n"}
	other.Stages[1] = train
	_, err := study.Create(dir, other, "")
	if err == nil {
		t.Fatal("Create with a changed spec succeeded, want a refusal")
	}
	msg := err.Error()
	if !strings.Contains(msg, `stage "simulate" differs`) {
		t.Errorf("refusal:\n%v\nwant it to name the stage simulate, which became a script", msg)
	}
	if strings.Contains(msg, `script of stage "train"`) {
		t.Errorf("refusal:\n%v\nnames the script of stage train, which did not change", msg)
	}
}
