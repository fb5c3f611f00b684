package nbtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// TestNotebookSizeLimit lowers MaxNotebookSize below the size of a notebook: reading it is an
// error that states its size and the limit, and gosbi run refuses it before anything runs.
func TestNotebookSizeLimit(t *testing.T) {
	const path = "testdata/fake/outputs.ipynb"
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { nbtest.MaxNotebookSize = old }(nbtest.MaxNotebookSize)
	nbtest.MaxNotebookSize = 1000
	want := []string{path, fmt.Sprintf("(%d bytes)", st.Size()), "more than the 1000B"}
	_, err = nbtest.ReadNotebook(path)
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("ReadNotebook of a notebook over the limit: error %v, want one saying %q", err, w)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	err = nbtest.RunMain([]string{"--quiet", "--out", out, path})
	if err == nil || !strings.Contains(err.Error(), "more than the 1000B") {
		t.Errorf("gosbi run of a notebook over the limit: error %v, want one stating the limit", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("gosbi run ran a notebook over the limit (%d files written)", len(entries))
	}
	nbtest.MaxNotebookSize = st.Size()
	if _, err := nbtest.ReadNotebook(path); err != nil {
		t.Errorf("a notebook of exactly MaxNotebookSize bytes: %v", err)
	}
}

// TestRunOutputLimit lowers MaxRunOutput so that a cell's displays pass it: the display that
// does not fit is not kept, the cell (which would otherwise wait in "sleep" until its timeout)
// is interrupted and fails with OutputLimit even though it is tagged raises-exception, the
// next cell does not run, and the notebook is saved with the outputs kept so far, as for a
// failed cell.
func TestRunOutputLimit(t *testing.T) {
	dir := t.TempDir()
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "code", "id": "a", "metadata": {}, "source": "print hello", "outputs": []},
		{"cell_type": "code", "id": "b", "metadata": {"tags": ["raises-exception"]}, "source": "display one\ndisplay two\ndisplay three\ndisplay four\ndisplay five\nsleep", "outputs": []},
		{"cell_type": "code", "id": "c", "metadata": {}, "source": "print after", "outputs": []}]}`
	path := filepath.Join(dir, "displays.ipynb")
	if err := os.WriteFile(path, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(old int) { nbtest.MaxRunOutput = old }(nbtest.MaxRunOutput)
	nbtest.MaxRunOutput = 400 // hello and two or three displays of about 120 bytes
	out := filepath.Join(dir, "out")
	err := nbtest.RunMain([]string{"--quiet", "--timeout", "20s", "--out", out, path})
	if err == nil || !strings.Contains(err.Error(), "1 of 1 notebooks failed") {
		t.Fatalf("gosbi run whose outputs pass MaxRunOutput: error %v, want the notebook to fail", err)
	}
	saved, err := nbtest.ReadNotebook(filepath.Join(out, "displays.ipynb"))
	if err != nil {
		t.Fatalf("the notebook was not saved: %v", err)
	}
	if got := outputsOf(saved.Cells[0]); got != "stdout:hello\n" {
		t.Errorf("cell 1 outputs %q, want its line", got)
	}
	outs := saved.Cells[1].Outputs
	displays := 0
	for _, o := range outs {
		if o.OutputType == "display_data" {
			displays++
		}
	}
	if displays == 0 || displays == 5 {
		t.Errorf("cell 2 kept %d of its 5 displays, want those that fit in the limit", displays)
	}
	if len(outs) == 0 || outs[len(outs)-1].Ename != "OutputLimit" || !strings.Contains(outs[len(outs)-1].Evalue, "400B") {
		t.Errorf("cell 2 outputs %q, want an OutputLimit error stating the limit last", outputsOf(saved.Cells[1]))
	}
	if c := saved.Cells[2]; len(c.Outputs) != 0 || c.ExecutionCount != nil {
		t.Errorf("cell 3 ran after the limit was passed: outputs %q", outputsOf(c))
	}
}
