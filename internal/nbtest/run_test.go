package nbtest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel/kerneltest"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// The test binary doubles as a kernel (`kernel -f FILE`) whose worker is the fake worker
// (`worker`), so that RunMain, which starts this executable, can be tested as it is.
// With the argument "run" it is `gosbi run` (RunMain), for tests that signal a run as a
// terminal does.
func TestMain(m *testing.M) {
	kerneltest.Dispatch()
	if len(os.Args) > 1 && os.Args[1] == "run" {
		if err := nbtest.RunMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func execute(t *testing.T, path string, o nbtest.Config) *nbtest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := nbtest.Execute(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func outputsOf(c *nbtest.Cell) string {
	var parts []string
	for _, o := range c.Outputs {
		switch o.OutputType {
		case "stream":
			parts = append(parts, o.Name+":"+o.Text)
		case "error":
			parts = append(parts, "error:"+o.Ename)
		default:
			parts = append(parts, fmt.Sprintf("%s:%v", o.OutputType, o.Data["text/plain"]))
		}
	}
	return strings.Join(parts, "|")
}

func TestExecuteOutputs(t *testing.T) {
	res := execute(t, "testdata/fake/outputs.ipynb", nbtest.Config{Params: map[string]string{"name": "cli"}})
	if err := res.Err(); err != nil {
		t.Fatalf("unexpected failure: %v", err)
	}
	var got []string
	for _, c := range res.Notebook.Cells {
		if c.CellType == "code" {
			got = append(got, outputsOf(c))
		}
	}
	want := []string{
		"stdout:set quick = true\nset name = \"fake\"\n",
		"stdout:set name = \"cli\"\n", // the injected parameters cell; a string value is quoted
		"stdout:a\nb\n|stderr:e\n",    // streams of the same name merge
		"display_data:updated",        // update_display_data replaces the display in place
		"stdout:kept\n",               // clear_output(wait) clears before the next output
		"execute_result:42",
		"error:FakeError", // raises-exception: expected, the run goes on
		"stdout:after the expected error\n",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("outputs:\n%q\nwant:\n%q", got, want)
	}
	injected := res.Notebook.Cells[2]
	if !injected.HasTag(nbtest.InjectedTag) {
		t.Errorf("cell after the parameters is not the injected one: %+v", injected)
	}
	for _, c := range res.Notebook.Cells {
		for _, o := range c.Outputs {
			if o.OutputType == "execute_result" && (o.ExecutionCount == nil || c.ExecutionCount == nil || *o.ExecutionCount != *c.ExecutionCount) {
				t.Errorf("execute_result count %v, cell count %v", o.ExecutionCount, c.ExecutionCount)
			}
		}
	}
}

func TestFullModeAndBadParams(t *testing.T) {
	res := execute(t, "testdata/fake/outputs.ipynb", nbtest.Config{Full: true})
	if got := outputsOf(res.Notebook.Cells[2]); got != "stdout:set quick = false\n" {
		t.Errorf("GOSBI_FULL: injected cell printed %q", got)
	}
	_, err := nbtest.Execute(context.Background(), "testdata/fake/outputs.ipynb", nbtest.Config{Params: map[string]string{"quick": "1 +"}})
	if err == nil || !strings.Contains(err.Error(), "not a Go expression") {
		t.Errorf("bad parameter value: error %v", err)
	}
	_, err = nbtest.Execute(context.Background(), "testdata/fake/outputs.ipynb", nbtest.Config{Params: map[string]string{"9x": "1"}})
	if err == nil || !strings.Contains(err.Error(), "identifier") {
		t.Errorf("bad parameter name: error %v", err)
	}
}

// TestUnknownParameter refuses, before anything runs, a --param the notebook does not declare
// in its cell tagged "parameters" (the error lists them and names the likely one), a --param
// for a notebook without that cell, and GOSBI_FULL=1 (which is --param quick=false) where it
// cannot apply or contradicts a --param.
func TestUnknownParameter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notebook string
		o        nbtest.Config
		want     []string
	}{
		{"typo", "outputs", nbtest.Config{Params: map[string]string{"quik": "false"}},
			[]string{`--param quik: the notebook has no parameter "quik" (did you mean quick?)`, "are: name, quick"}},
		{"unknown", "outputs", nbtest.Config{Params: map[string]string{"seed": "3"}}, []string{`no parameter "seed"`, "are: name, quick"}},
		{"no parameters cell", "sleeps", nbtest.Config{Params: map[string]string{"quick": "false"}}, []string{`--param quick has nothing to set: no cell is tagged "parameters"`}},
		{"full without parameters cell", "sleeps", nbtest.Config{Full: true}, []string{`GOSBI_FULL=1 (which is --param quick=false) has nothing to set`}},
		{"full against --param", "outputs", nbtest.Config{Full: true, Params: map[string]string{"quick": "true"}}, []string{"GOSBI_FULL=1 sets quick to false, but --param quick=true is given"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.CellTimeout = 2 * time.Second // sleeps.ipynb would sleep forever
			_, err := nbtest.Execute(context.Background(), "testdata/fake/"+tc.notebook+".ipynb", tc.o)
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one saying %q", err, want)
				}
			}
		})
	}
	// gosbi run checks every notebook before the first cell of any runs.
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "code", "id": "a", "metadata": {"tags": ["parameters"]}, "source": "quick = true", "outputs": []},
		{"cell_type": "code", "id": "b", "metadata": {}, "source": "print ran", "outputs": []}]}`
	first := filepath.Join(dir, "first.ipynb")
	if err := os.WriteFile(first, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	err := nbtest.RunMain([]string{"--quiet", "--timeout", "2s", "--out", marker, first, "testdata/fake/sleeps.ipynb", "--param", "quick=false"})
	if err == nil || !strings.Contains(err.Error(), "sleeps.ipynb: --param quick has nothing to set") {
		t.Errorf("RunMain with a --param one notebook lacks: %v", err)
	}
	if entries, _ := os.ReadDir(marker); len(entries) != 0 {
		t.Errorf("the first notebook ran although the second one's parameters were wrong: %d files written", len(entries))
	}
	t.Setenv("GOSBI_FULL", "yes please")
	if err := nbtest.RunMain([]string{"--quiet", first}); err == nil || !strings.Contains(err.Error(), `GOSBI_FULL="yes please"`) {
		t.Errorf("GOSBI_FULL=\"yes please\": error %v, want one naming the value", err)
	}
}

// TestParameterRefusedBeforeRun checks that gosbi run refuses, before any cell runs, a --param
// naming a variable declared inside a block of the cell tagged "parameters" and a --param whose
// value is not of the parameter's type.
func TestParameterRefusedBeforeRun(t *testing.T) {
	dir := t.TempDir()
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "code", "id": "a", "metadata": {"tags": ["parameters"]}, "source": "quick := true\nif quick {\n\tinner := 1\n\t_ = inner\n}", "outputs": []},
		{"cell_type": "code", "id": "b", "metadata": {}, "source": "print ran", "outputs": []}]}`
	path := filepath.Join(dir, "params.ipynb")
	if err := os.WriteFile(path, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ param, want string }{
		{"inner=2", `declares inner inside a block or as a constant, and only the variables of its top level are parameters); its parameters (the cell tagged "parameters") are: quick`},
		{"quick=maybe", `--param quick=maybe: quick is a bool`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := nbtest.RunMain([]string{"--quiet", "--timeout", "5s", "--out", out, path, "--param", tc.param})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--param %s: error %v, want one saying %q", tc.param, err, tc.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("--param %s: the notebook ran (%d files written)", tc.param, len(entries))
		}
	}
}

func TestExecuteStopsAtError(t *testing.T) {
	res := execute(t, "testdata/fake/fails.ipynb", nbtest.Config{})
	if len(res.Errors) != 1 || res.Errors[0].Index != 2 || res.Errors[0].Ename != "FakeError" {
		t.Fatalf("errors %+v", res.Errors)
	}
	if res.Err() == nil || !strings.Contains(res.Errors[0].Report(), "FakeError: it failed") {
		t.Errorf("report %q", res.Errors[0].Report())
	}
	if n := len(res.Notebook.Cells[3].Outputs); n != 0 || res.Notebook.Cells[3].ExecutionCount != nil {
		t.Errorf("the cell after the failure ran: %d outputs", n)
	}
	// The notebook was upgraded to nbformat 4.5: every cell has an id.
	if res.Notebook.NBFormatMinor != 5 {
		t.Errorf("nbformat_minor %d", res.Notebook.NBFormatMinor)
	}
	for _, c := range res.Notebook.Cells {
		if c.ID == "" {
			t.Errorf("cell without id")
		}
	}
}

func TestCellTimeout(t *testing.T) {
	res := execute(t, "testdata/fake/sleeps.ipynb", nbtest.Config{CellTimeout: 300 * time.Millisecond})
	if len(res.Errors) != 1 || res.Errors[0].Ename != "Timeout" {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// validate checks a notebook file against the nbformat schema with Debian's nbformat.
func validate(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import sys, nbformat; nb = nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT); nbformat.validate(nb); print(nb.nbformat, nb.nbformat_minor)", path).CombinedOutput()
	if err != nil {
		t.Fatalf("nbformat validation of %s failed (python3-nbformat is installed by scripts/setup.sh): %v\n%s", path, err, out)
	}
	if strings.TrimSpace(string(out)) != "4 5" {
		t.Errorf("%s: nbformat %s, want 4 5", path, out)
	}
}

// TestRunMain runs the `gosbi run` command on three notebooks: the executed copies are valid
// nbformat 4.5, the HTML pages are standalone with the image inline, and the failure is reported.
func TestRunMain(t *testing.T) {
	out := t.TempDir()
	err := nbtest.RunMain([]string{"--quiet", "testdata/fake/outputs.ipynb", "testdata/fake/fails.ipynb", "--out", out, "--html", "--param", "quick=false"})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 notebooks failed") {
		t.Fatalf("RunMain: %v", err)
	}
	for _, name := range []string{"outputs", "fails"} {
		validate(t, filepath.Join(out, name+".ipynb"))
		page, err := os.ReadFile(filepath.Join(out, name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(page), "<script") || strings.Contains(string(page), "src=\"http") {
			t.Errorf("%s.html is not standalone", name)
		}
		if name == "outputs" {
			for _, want := range []string{`<img src="data:image/png;base64,iVBORw0KGgo=`, "<em>fake</em>", `<a href="https://example.org">link</a>`, "Out[", `<pre class="input chroma">`} {
				if !strings.Contains(string(page), want) {
					t.Errorf("outputs.html lacks %q", want)
				}
			}
			// The code cells are highlighted: their text is there, split into spans.
			if text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(page), ""); !strings.Contains(text, "quick = false") {
				t.Errorf("outputs.html lacks the parameter cell's code")
			}
		}
	}
	if err := nbtest.RunMain([]string{"--quiet", "--param", "novalue", "x.ipynb"}); err == nil {
		t.Error("a --param without = was accepted")
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# Title", "<h1>Title</h1>\n"},
		{"a **b** *c* `d*e*`", "<p>a <strong>b</strong> <em>c</em> <code>d*e*</code></p>\n"},
		{"- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"},
		{"1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"```go\nx := 1 < 2\n```", "<pre><code class=\"language-go\">x := 1 &lt; 2\n</code></pre>\n"},
		{"![fig](a.png)", `<p><img src="a.png" alt="fig"></p>` + "\n"},
		// Stars between words are not emphasis (CommonMark's flanking rules).
		{"For fresh pairs (θ*, x) from the prior, we ask whether θ* falls inside",
			"<p>For fresh pairs (θ*, x) from the prior, we ask whether θ* falls inside</p>\n"},
		// A list item's continuation lines belong to the item.
		{"- first item,\n  continued\n- second", "<ul>\n<li>first item,\ncontinued</li>\n<li>second</li>\n</ul>\n"},
		// TeX math is kept as written; a lone dollar is text.
		{"density $p(θ^*_1 | x) * q_2$ costs $5 and $6", `<p>density <span class="math">$p(θ^*_1 | x) * q_2$</span> costs $5 and $6</p>` + "\n"},
		// An escaped dollar is a dollar, not the start of math.
		{`costs \$5 and \$6, or $x_1$`, `<p>costs $5 and $6, or <span class="math">$x_1$</span></p>` + "\n"},
		// Display math over several lines, and inline math over a line break in a list item.
		{"$$\n\\hat{θ} = \\arg\\max_θ \\sum_i \\log q_*(θ_i \\mid x_i)\n$$",
			`<p><span class="math">$$` + "\n" + `\hat{θ} = \arg\max_θ \sum_i \log q_*(θ_i \mid x_i)` + "\n" + `$$</span></p>` + "\n"},
		{"- with $a_1 * b_2 *\n  c_3$ done", `<ul>` + "\n" + `<li>with <span class="math">$a_1 * b_2 *` + "\n" + `c_3$</span> done</li>` + "\n" + `</ul>` + "\n"},
		// Math in code is code.
		{"`$x_1$`", "<p><code>$x_1$</code></p>\n"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
	} {
		if got := nbtest.Markdown(tc.in); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := nbtest.Markdown("<script>alert(1)</script>\n\ntext"); strings.Contains(got, "<script") {
		t.Errorf("raw HTML kept: %q", got)
	}
}

func TestParseNotebookErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"nbformat": 3, "cells": []}`, "nbformat 3"},
		{`{"cells": [`, "JSON"},
		{`null`, "no nbformat"},
		{`{"cells": []}`, "no nbformat"},
		{`{"nbformat": 4, "cells": [{"source": "x"}]}`, `cell 1 has cell_type ""`},
		{`{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "a"}, {"cell_type": "heading", "source": "x"}]}`, `cell 2 has cell_type "heading"`},
	} {
		_, err := nbtest.ParseNotebook([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.doc, err, tc.want)
		}
	}
	for _, kind := range []string{"code", "markdown", "raw"} {
		doc := `{"nbformat": 4, "cells": [{"cell_type": "` + kind + `", "source": "x"}]}`
		if _, err := nbtest.ParseNotebook([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// TestRunKernelDies runs a notebook whose kernel is killed in its second cell, without a
// timeout: `gosbi run` stops at once, fails, and saves the notebook with the outputs that were
// made, an error in the cell that was running and no outputs in the cell that did not run.
func TestRunKernelDies(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- nbtest.RunMain([]string{"--quiet", "testdata/fake/dies.ipynb", "--out", out}) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("gosbi run still waits 20 s after its kernel died")
	}
	if err == nil {
		t.Fatal("gosbi run succeeded although its kernel died")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gosbi run took %v to notice that its kernel died", d)
	}
	nb, rerr := nbtest.ReadNotebook(filepath.Join(out, "dies.ipynb"))
	if rerr != nil {
		t.Fatalf("the partial notebook was not saved: %v", rerr)
	}
	if got := outputsOf(nb.Cells[0]); got != "stdout:before\n" {
		t.Errorf("cell 1 outputs %q", got)
	}
	if got := outputsOf(nb.Cells[1]); !strings.HasSuffix(got, "error:KernelDied") {
		t.Errorf("cell 2 outputs %q, want the kernel's death last", got)
	}
	if c := nb.Cells[2]; len(c.Outputs) != 0 || c.ExecutionCount != nil {
		t.Errorf("cell 3, which did not run, kept outputs %q and count %v", outputsOf(c), c.ExecutionCount)
	}
}

func TestNullCells(t *testing.T) {
	for _, doc := range []string{`{"nbformat": 4, "cells": [null]}`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x", "outputs": [null]}]}`} {
		if _, err := nbtest.ParseNotebook([]byte(doc)); err == nil || !strings.Contains(err.Error(), "null") {
			t.Errorf("%s: error %v, want one naming the null", doc, err)
		}
	}
}

// TestRunInPlace runs a notebook in place through a symbolic link: the link stays a link, its
// target gets the outputs and keeps its mode 0600. --out naming a file is refused before
// anything runs, and a write that fails leaves no temporary file.
func TestRunInPlace(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/fake/outputs.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real.ipynb")
	if err := os.WriteFile(real, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.ipynb")
	if err := os.Symlink("real.ipynb", link); err != nil {
		t.Fatal(err)
	}
	if err := nbtest.RunMain([]string{"--quiet", link}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the run replaced the symbolic link with a file (%v)", err)
	}
	nb, err := nbtest.ReadNotebook(real)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(nb.Cells[1]); got != "stdout:set quick = true\nset name = \"fake\"\n" {
		t.Errorf("the link's target was not updated: its parameters cell has outputs %q", got)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("the notebook's mode became %v, want its 0600", st.Mode().Perm())
	}

	// --out naming a file (here the notebook itself) fails at once, before the cell that
	// sleeps until its timeout.
	sleeps := filepath.Join(dir, "sleeps.ipynb")
	b, _ := os.ReadFile("testdata/fake/sleeps.ipynb")
	os.WriteFile(sleeps, b, 0o644)
	start := time.Now()
	err = nbtest.RunMain([]string{"--quiet", "--timeout", "5s", "--out", sleeps, sleeps})
	if err == nil || !strings.Contains(err.Error(), "--out "+sleeps+" is a file") {
		t.Errorf("--out naming the notebook: error %v, want one saying it is a file", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("--out naming a file was refused only after %v: the cells ran first", d)
	}

	// A write that fails (the target is a directory) leaves no temporary file.
	target := filepath.Join(dir, "adir.ipynb")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := nbtest.WriteNotebook(target, nb); err == nil {
		t.Error("writing a notebook over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a failed write left %s", e.Name())
		}
	}
}

// TestRunWithoutParamsDropsInjectedCell runs a notebook in place with --param, then again
// without: the second run has the defaults of the cell tagged "parameters", not the values the
// first run injected (a notebook once run with GOSBI_FULL=1 is not run in full mode again
// without it).
func TestRunWithoutParamsDropsInjectedCell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outputs.ipynb")
	src, err := os.ReadFile("testdata/fake/outputs.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := nbtest.RunMain([]string{"--quiet", "--param", "quick=false", path}); err != nil {
		t.Fatal(err)
	}
	if err := nbtest.RunMain([]string{"--quiet", path}); err != nil {
		t.Fatal(err)
	}
	nb, err := nbtest.ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range nb.Cells {
		if c.HasTag(nbtest.InjectedTag) {
			t.Errorf("cell %d, injected by the first run, ran again in the second: outputs %q", i+1, outputsOf(c))
		}
	}
}

// TestRunInPlaceChangedMeanwhile runs in place a notebook that is saved by someone else while it
// runs (its cell appends to the file, as an editor saving it would): the run does not save
// over those changes; it fails, leaves the file as it was changed, and writes the executed
// notebook to a new file beside it.
func TestRunInPlaceChangedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "edited.ipynb")
	nb := &nbtest.Notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{}, Cells: []*nbtest.Cell{
		{CellType: "code", Source: "print ran\ntouch " + path, Metadata: map[string]any{}},
	}}
	if err := nbtest.WriteNotebook(path, nb); err != nil {
		t.Fatal(err)
	}
	err := nbtest.RunMain([]string{"--quiet", path})
	if err == nil {
		t.Fatal("the run saved over a notebook that changed while it ran")
	}
	got, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if after, _ := nbtest.ParseNotebook(got); after == nil || outputsOf(after.Cells[0]) != "" || !strings.HasSuffix(string(got), "\n\n") {
		t.Errorf("the notebook changed during the run was replaced:\n%s", got)
	}
	entries, _ := os.ReadDir(dir)
	var saved []string
	for _, e := range entries {
		if e.Name() != "edited.ipynb" {
			saved = append(saved, filepath.Join(dir, e.Name()))
		}
	}
	if len(saved) != 1 {
		t.Fatalf("files beside the notebook %q: want one, the executed notebook", saved)
	}
	res, rerr := nbtest.ReadNotebook(saved[0])
	if rerr != nil || outputsOf(res.Cells[0]) != "stdout:ran\n" {
		t.Errorf("the executed notebook %s: %v, outputs %q", saved[0], rerr, outputsOf(res.Cells[0]))
	}
}

// TestPagerPayloadSaved checks that what a cell sends to the pager (%help, ?name) is kept in the
// saved notebook after the cell's other outputs, as a display_data output, as JupyterLab shows
// and saves it: a run without a pager would otherwise drop it.
func TestPagerPayloadSaved(t *testing.T) {
	res := execute(t, "testdata/fake/page.ipynb", nbtest.Config{})
	if err := res.Err(); err != nil {
		t.Fatalf("unexpected failure: %v", err)
	}
	want := "stdout:before the page\n|display_data:the help text"
	if got := outputsOf(res.Notebook.Cells[0]); got != want {
		t.Errorf("outputs %q, want %q", got, want)
	}
}

// TestRefusedRunLeavesNoOut: a run refused before any cell runs leaves no --out directory
// behind when it created it (nor the missing parents it created), and keeps one that was there.
func TestRefusedRunLeavesNoOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing notebook", []string{"testdata/fake/nosuch.ipynb"}, "nosuch.ipynb"},
		{"parameter the notebook lacks", []string{"testdata/fake/sleeps.ipynb", "--param", "nosuch=1"}, "--param nosuch"},
		{"two notebooks to one file", []string{"testdata/fake/sleeps.ipynb", "testdata/fake/../fake/sleeps.ipynb"}, "would both be written"},
	} {
		root := t.TempDir()
		out := filepath.Join(root, "a", "b")
		err := nbtest.RunMain(append([]string{"--quiet", "--out", out}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("%s: the refused run left %s behind", tc.name, filepath.Join(root, entries[0].Name()))
		}
		// a directory that was there stays
		if err := nbtest.RunMain(append([]string{"--quiet", "--out", root}, tc.args...)); err == nil {
			t.Errorf("%s: with an existing --out: no error", tc.name)
		}
		if _, err := os.Stat(root); err != nil {
			t.Errorf("%s: the refused run removed the --out that was there: %v", tc.name, err)
		}
	}
}

// TestStartKernelThatExits starts a kernel command that exits at once, before it listens (this
// test binary, given a flag it does not know): the error says that the kernel exited and gives
// its output, which says why, rather than only that its socket refused the connection.
func TestStartKernelThatExits(t *testing.T) {
	_, err := nbtest.StartKernel(context.Background(), []string{os.Args[0], "-test.no-such-flag"}, nil, nil)
	for _, want := range []string{"the kernel exited", "no-such-flag"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}
}
