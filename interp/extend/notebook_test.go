package extend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/interp/extend"
)

var gosbiBin struct {
	once sync.Once
	path string
	err  error
	dir  string
}

// gosbi builds the gosbi command once for the tests of this package.
func gosbi(t *testing.T) string { return gosbiT(t) }

func gosbiT(t testing.TB) string {
	t.Helper()
	gosbiBin.once.Do(func() {
		gosbiBin.dir, gosbiBin.err = os.MkdirTemp("", "gosbi-extend-bin-")
		if gosbiBin.err == nil {
			gosbiBin.path, gosbiBin.err = nbtest.BuildBinary(context.Background(), gosbiBin.dir)
		}
	})
	if gosbiBin.err != nil {
		t.Fatal(gosbiBin.err)
	}
	return gosbiBin.path
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "nb", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// streams is what a cell printed on the stream name ("stdout" or "stderr"), without the
// notes the session adds (lines "note: …" on stdout).
func streams(c *nbtest.Cell, name string) string {
	text, _ := splitNotes(c, name)
	return text
}

// notes is what the session noted in a cell: a build, a switch, identifiers that cells cannot
// use. A notebook shows them on stdout, since its front end paints stderr as a warning.
func notes(c *nbtest.Cell) string {
	_, n := splitNotes(c, "stdout")
	return n
}

func splitNotes(c *nbtest.Cell, name string) (text, notes string) {
	var b, n strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType != "stream" || o.Name != name {
			continue
		}
		for _, line := range strings.SplitAfter(o.Text, "\n") {
			if name == "stdout" && strings.HasPrefix(line, "note: ") {
				n.WriteString(line)
			} else {
				b.WriteString(line)
			}
		}
	}
	return b.String(), n.String()
}

func codeCells(nb *nbtest.Notebook) []*nbtest.Cell {
	var res []*nbtest.Cell
	for _, c := range nb.Cells {
		if c.CellType == "code" {
			res = append(res, c)
		}
	}
	return res
}

func dump(c *nbtest.Cell) string {
	b, _ := json.MarshalIndent(c.Outputs, "", " ")
	return string(b)
}

// checkSimNotebook checks the executed testdata/nb/sim.ipynb: the import switched the session
// to a worker that links example.com/sim, replaying the first cell.
func checkSimNotebook(t *testing.T, nb *nbtest.Notebook) {
	t.Helper()
	cells := codeCells(nb)
	if len(cells) != 3 {
		t.Fatalf("%d code cells, want 3", len(cells))
	}
	if got := streams(cells[1], "stdout"); got != "6 21\n" {
		t.Errorf("cell 2 printed %q, want %q (sim.Scale(2) and x of cell 1); outputs:\n%s", got, "6 21\n", dump(cells[1]))
	}
	errText := notes(cells[1])
	if e := streams(cells[1], "stderr"); e != "" {
		t.Errorf("cell 2 wrote on stderr (a warning box in Jupyter): %q", e)
	}
	for _, want := range []string{"moved to a new worker process that links example.com/sim", "the 1 cell run so far", "all of them succeeded",
		"example.com/sim.Sum: generic function"} {
		if !strings.Contains(errText, want) {
			t.Errorf("cell 2's notes %q do not say %q", errText, want)
		}
	}
	res := cells[2].Outputs
	if len(res) == 0 || res[len(res)-1].OutputType != "execute_result" || res[len(res)-1].Data["text/plain"] != "2" {
		t.Errorf("cell 3: want the result 2; outputs:\n%s", dump(cells[2]))
	}
}

func TestGosbiRunImportsLocalModule(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := nbtest.Execute(ctx, testdata(t, "sim.ipynb"), nbtest.Config{Kernel: nbtest.KernelCommand(bin), Env: []string{"GOSBI_CACHE=" + cache}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	checkSimNotebook(t, res.Notebook)
}

func TestGosbiRunImportFailuresKeepState(t *testing.T) {
	bin := gosbi(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := nbtest.Execute(ctx, testdata(t, "failures.ipynb"), nbtest.Config{Kernel: nbtest.KernelCommand(bin),
		Env: []string{"GOSBI_CACHE=" + t.TempDir(), "GOPROXY=off"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	cells := codeCells(res.Notebook)
	wantErr := map[int][]string{
		1: {`import "example.com/broken"`, `package "example.com/broken" does not build`, "broken.go:5"},
		2: {`import "example.invalid/nothere"`, "%go get example.invalid/nothere@latest", "GOPROXY=off"},
		3: {"example.invalid/mod@v1.2.3", "%go get example.invalid/mod@latest"},
	}
	for i, wants := range wantErr {
		var ev string
		for _, o := range cells[i].Outputs {
			if o.OutputType == "error" {
				ev = o.Evalue
			}
		}
		if ev == "" {
			t.Errorf("cell %d: no error; outputs:\n%s", i+1, dump(cells[i]))
			continue
		}
		for _, w := range wants {
			if !strings.Contains(ev, w) {
				t.Errorf("cell %d: error %q does not say %q", i+1, ev, w)
			}
		}
	}
	last := cells[4].Outputs
	if len(last) == 0 || last[len(last)-1].Data["text/plain"] != "7" {
		t.Errorf("cell 5: want x = 7 kept; outputs:\n%s", dump(cells[4]))
	}
}

func TestScriptImportsLocalModule(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	cmd := exec.Command(bin, "script", testdata(t, "script.go"))
	cmd.Dir = t.TempDir() // the script's own directory resolves its imports
	cmd.Env = append(os.Environ(), "GOSBI_CACHE="+cache)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gosbi script: %v\n%s", err, out)
	}
	if got := string(out); got != "2 6\n" {
		t.Errorf("the script printed %q, want %q", got, "2 6\n")
	}
}

// TestNbconvertImportsLocalModule runs the notebook with jupyter-nbconvert and the installed
// kernelspec: the kernel starts in the notebook's directory, whose go.work is used.
func TestNbconvertImportsLocalModule(t *testing.T) {
	const nbconvert = "/usr/bin/jupyter-nbconvert"
	if _, err := os.Stat(nbconvert); err != nil {
		t.Fatalf("%s is missing: install the Debian packages with scripts/setup.sh", nbconvert)
	}
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	if _, err := kernel.Install(kernel.InstallConfig{User: true, Binary: bin}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nbconvert, "--to", "notebook", "--execute",
		"--ExecutePreprocessor.kernel_name=gosbi", "--ExecutePreprocessor.timeout=120",
		"--output-dir", out, "--output", "executed.ipynb", testdata(t, "sim.ipynb"))
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1", "GOSBI_CACHE="+cache)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jupyter-nbconvert --execute failed: %v\n%s", err, b)
	}
	nb, err := nbtest.ReadNotebook(filepath.Join(out, "executed.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	checkSimNotebook(t, nb)
}

// runNotebook executes a notebook of testdata/nb with gosbi run's machinery and the tests'
// worker cache, and fails the test on an unexpected cell error.
func runNotebook(t testing.TB, name string, env ...string) *nbtest.Notebook {
	t.Helper()
	bin := gosbiT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, err := filepath.Abs(filepath.Join("testdata", "nb", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := nbtest.Execute(ctx, p, nbtest.Config{Kernel: nbtest.KernelCommand(bin), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	return res.Notebook
}

func errorOf(c *nbtest.Cell) string {
	for _, o := range c.Outputs {
		if o.OutputType == "error" {
			return o.Evalue
		}
	}
	return ""
}

func TestCompileCells(t *testing.T) {
	cache, _ := extend.SimWorker(t) // the cache holds the worker with the local module
	cells := codeCells(runNotebook(t, "compile.ipynb", "GOSBI_CACHE="+cache))
	if len(cells) != 10 {
		t.Fatalf("%d code cells, want 10", len(cells))
	}
	stdout := map[int]string{
		2: "4 5 3 1.5 5\n", // compiled func, type with method, const, var; a of cell 1 replayed
		4: "6 5 5\n",       // twice redefined by a later cell, point kept
		9: "6 6 5\n",       // a compiled cell using the notebook's local module and an earlier compiled cell
	}
	for i, want := range stdout {
		if got := streams(cells[i], "stdout"); got != want {
			t.Errorf("cell %d printed %q, want %q; outputs:\n%s", i+1, got, want, dump(cells[i]))
		}
	}
	if got := notes(cells[1]); !strings.Contains(got, "func Map is generic") {
		t.Errorf("cell 2 does not say that the generic Map cannot be used: %q", got)
	}
	if got := notes(cells[3]); !strings.Contains(got, "the 3 cells run so far were run again there") || !strings.Contains(got, "all of them succeeded") {
		t.Errorf("cell 4 does not announce the replay: %q", got)
	}
	wantErr := map[int][]string{
		5: {"cell [6] line 3:1:", "holds only imports and declarations", "expected declaration"},
		6: {"the %%compile cells do not compile", "cell [7] line 3:9:", "cannot use \"s\""},
		7: {"cell [8] line 2:8: import cycle"},
	}
	for i, wants := range wantErr {
		ev := errorOf(cells[i])
		for _, w := range wants {
			if !strings.Contains(ev, w) {
				t.Errorf("cell %d: error %q does not say %q", i+1, ev, w)
			}
		}
	}
}

// compiledSpeed runs testdata/nb/bench.ipynb: the two moons simulator of a %%compile cell and
// task.TwoMoons on the same 200,000 parameters through sbi.SimulateInto. It returns the ns per
// simulation of each.
func compiledSpeed(t testing.TB) (cell, lib float64) {
	t.Helper()
	cells := codeCells(runNotebook(t, "bench.ipynb", "GOSBI_CACHE="+benchCache(t)))
	out := streams(cells[1], "stdout")
	var ratio float64
	if _, err := fmt.Sscanf(strings.TrimSpace(out), "ns/sim: %%%%compile cell %g, task.TwoMoons %g, ratio %g", &cell, &lib, &ratio); err != nil {
		t.Fatalf("benchmark output %q: %v", out, err)
	}
	return cell, lib
}

func benchCache(t testing.TB) string {
	if c, ok := t.(*testing.T); ok {
		cache, _ := extend.SimWorker(c)
		return cache
	}
	return filepath.Join(os.TempDir(), "gosbi-extend-bench-cache")
}

// TestCompiledSimulatorBenchmarkRuns runs the notebook behind BenchmarkCompiledCellTwoMoons
// and checks that it measures both simulators. The 1.5× bound of a %%compile simulator
// against the library's is a speed target, met in the benchmark (a timed assertion would fail
// whenever the machine is busy).
func TestCompiledSimulatorBenchmarkRuns(t *testing.T) {
	cell, lib := compiledSpeed(t)
	t.Logf("two moons, ns per simulation: %%%%compile cell %.1f, task.TwoMoons %.1f (ratio %.2f)", cell, lib, cell/lib)
	if !(cell > 0 && lib > 0) {
		t.Errorf("ns per simulation: %%%%compile cell %v, task.TwoMoons %v; want both measured", cell, lib)
	}
}

// BenchmarkCompiledCellTwoMoons reports the ns per simulation of the %%compile simulator and of
// task.TwoMoons (one notebook run per iteration: use -benchtime=1x).
func BenchmarkCompiledCellTwoMoons(b *testing.B) {
	for b.Loop() {
		cell, lib := compiledSpeed(b)
		b.ReportMetric(cell, "cell-ns/sim")
		b.ReportMetric(lib, "lib-ns/sim")
		b.ReportMetric(cell/lib, "ratio")
	}
}

// TestReplImportsLocalModule pipes cells into gosbi repl: the import moves the session to a
// program that links the module, the earlier cell is replayed, and the input goes on there.
func TestReplImportsLocalModule(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	cmd := exec.Command(bin, "repl")
	cmd.Dir = testdata(t, "") // the notebook directory, whose go.work resolves example.com/sim
	cmd.Env = append(os.Environ(), "GOSBI_CACHE="+cache)
	cmd.Stdin = strings.NewReader("x := 4\nimport \"example.com/sim\"\nfmt.Println(sim.Scale(float64(x)))\nfunc f() int {\n\treturn x + 1\n}\nf()\nsim.Sum(1.0, 2.0)\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gosbi repl: %v\n%s%s", err, out, stderr.String())
	}
	if got, want := string(out), "12\n5\n"; got != want {
		t.Errorf("the REPL printed %q, want %q; stderr:\n%s", got, want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the 1 cell run so far were run again there") {
		t.Errorf("the REPL did not announce the replay; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "example.com/sim.Sum cannot be used in cells: generic function") {
		t.Errorf("using the generic sim.Sum does not say why it is missing; stderr:\n%s", stderr.String())
	}
}

// TestScriptWithoutGo runs a script that imports a package gosbi does not link with no go
// command on PATH: it fails, naming the package and what to install.
func TestScriptWithoutGo(t *testing.T) {
	bin := gosbi(t)
	cmd := exec.Command(bin, "script", testdata(t, "script.go"))
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir(), "GOSBI_CACHE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the script ran without a go command:\n%s", out)
	}
	for _, want := range []string{`import "example.com/sim"`, "the go command is not on PATH", "https://go.dev/dl"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output %q does not say %q", out, want)
		}
	}
}

// outputText joins the stream texts, results and errors of an execution.
// outputText collects a request's output; the session's notes (stdout lines "note: …") are
// returned apart from what the cell printed.
func outputText(ex *nbtest.Execution) (stdout, stderr, result, evalue string) {
	stdout, _, stderr, result, evalue = outputTextNotes(ex)
	return
}

func outputTextNotes(ex *nbtest.Execution) (stdout, notes, stderr, result, evalue string) {
	for _, m := range ex.IOPub {
		var c struct {
			Name   string         `json:"name"`
			Text   string         `json:"text"`
			Data   map[string]any `json:"data"`
			Evalue string         `json:"evalue"`
		}
		json.Unmarshal(m.Content, &c)
		switch m.Header.MsgType {
		case "stream":
			if c.Name == "stdout" {
				for _, line := range strings.SplitAfter(c.Text, "\n") {
					if strings.HasPrefix(line, "note: ") {
						notes += line
					} else {
						stdout += line
					}
				}
			} else {
				stderr += c.Text
			}
		case "execute_result":
			result, _ = c.Data["text/plain"].(string)
		case "error":
			evalue = c.Evalue
		}
	}
	return
}

// kernelWithState starts the gosbi kernel bin with the worker cache and the notebook directory
// testdata, waits until it is ready and sets x := 21 in its session; it ends with the test.
func kernelWithState(t *testing.T, ctx context.Context, bin, cache string) *nbtest.Process {
	t.Helper()
	p, err := nbtest.StartKernel(ctx, nbtest.KernelCommand(bin), []string{"GOSBI_CACHE=" + cache, "GOSBI_NOTEBOOK_DIR=" + testdata(t, "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Execute(ctx, "x := 21", nbtest.ExecuteConfig{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSwitchOffersReplay answers the question a switch asks when the session has state: "n"
// moves without replaying (the earlier variable is gone, as said), "" replays (it is kept).
func TestSwitchOffersReplay(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	for _, tc := range []struct {
		answer string
		kept   bool
	}{{"n", false}, {"", true}} {
		t.Run(fmt.Sprintf("answer %q", tc.answer), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			p := kernelWithState(t, ctx, bin, cache)
			var asked string
			ex, err := p.Execute(ctx, "import \"example.com/sim\"\nfmt.Println(sim.Scale(2))", nbtest.ExecuteConfig{AllowStdin: true,
				Input: func(prompt string, _ bool) string { asked = prompt; return tc.answer }})
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, _, ev := outputText(ex)
			if !strings.Contains(asked, "Run the 1 earlier cells there again") {
				t.Errorf("the question was %q", asked)
			}
			if stdout != "6\n" || ev != "" {
				t.Errorf("the importing cell printed %q (error %q), want 6", stdout, ev)
			}
			if declined := strings.Contains(stderr, "as asked, the earlier cells were not run again"); declined == tc.kept {
				t.Errorf("answer %q: the notes say declined=%v:\n%s", tc.answer, declined, stderr)
			}
			ex, err = p.Execute(ctx, "x", nbtest.ExecuteConfig{})
			if err != nil {
				t.Fatal(err)
			}
			_, _, res, ev := outputText(ex)
			if kept := res == "21"; kept != tc.kept {
				t.Errorf("answer %q: x after the switch: result %q, error %q; want kept=%v", tc.answer, res, ev, tc.kept)
			}
		})
	}
}

// TestInterruptBuild interrupts a cell while the worker it needs is being built: the cell
// ends as interrupted and the session keeps its state.
func TestInterruptBuild(t *testing.T) {
	bin := gosbi(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// an empty cache: the import needs a build, which takes seconds
	p := kernelWithState(t, ctx, bin, t.TempDir())
	type result struct {
		ex  *nbtest.Execution
		err error
	}
	done := make(chan result, 1)
	go func() {
		ex, err := p.Execute(ctx, "import \"example.com/sim\"\nfmt.Println(sim.Scale(2))", nbtest.ExecuteConfig{})
		done <- result{ex, err}
	}()
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if _, err := p.Request(ctx, "control", "interrupt_request", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	stdout, _, _, ev := outputText(r.ex)
	if !strings.Contains(ev, "interrupted") || stdout != "" {
		t.Errorf("the interrupted cell: error %q, output %q; want it interrupted", ev, stdout)
	}
	t.Logf("the cell ended %v after the interrupt", time.Since(start).Round(time.Millisecond))
	ex, err := p.Execute(ctx, "x", nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, res, ev := outputText(ex); res != "21" {
		t.Errorf("x after the interrupted build: result %q, error %q; want 21", res, ev)
	}
}

// TestCompileSession: the earlier cells that a %%compile cell runs again in the new worker print
// nothing (the note says their output was discarded), and a %%compile cell that uses a
// session variable fails with an error that says compiled cells cannot see it and how to pass
// it in.
func TestCompileSession(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	cells := codeCells(runNotebook(t, "compile_session.ipynb", "GOSBI_CACHE="+cache))
	if len(cells) != 4 {
		t.Fatalf("%d code cells, want 4", len(cells))
	}
	if got := streams(cells[0], "stdout"); got != "cell 1 ran\n" {
		t.Errorf("cell 1 printed %q", got)
	}
	for i, c := range cells[1:] {
		if out := dump(c); strings.Contains(out, "cell 1 ran") {
			t.Errorf("cell %d shows the output of cell 1, which ran again with its output discarded:\n%s", i+2, out)
		}
	}
	if got := notes(cells[1]); !strings.Contains(got, "the 1 cell run so far were run again there, their output discarded") {
		t.Errorf("cell 2 does not say that cell 1 ran again with its output discarded: %q", got)
	}
	if got := streams(cells[2], "stdout"); got != "1\n" {
		t.Errorf("cell 3 printed %q, want 1", got)
	}
	ev := errorOf(cells[3])
	for _, w := range []string{"undefined: xs", "xs is a variable of the interpreted cell [1]",
		"a %%compile cell sees only its own declarations", "pass its value in as a function argument"} {
		if !strings.Contains(ev, w) {
			t.Errorf("cell 4: error %q does not say %q", ev, w)
		}
	}
}

// generatedPos is a position of the generated file of the %%compile cells ("cell [3]:4:2").
var generatedPos = regexp.MustCompile(`cell \[\d+\]:\d`)

// TestCompileErrorPositions: errors of %%compile cells that do not compile name the cells' own
// lines, whether the symbol table generator's type checker finds them (with the generated
// file's directory) or go build does, also for an import that cannot be resolved offline.
func TestCompileErrorPositions(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	cells := codeCells(runNotebook(t, "compile_errors.ipynb", "GOSBI_CACHE="+cache, "GOPROXY=off", "GOFLAGS=-mod=mod"))
	if len(cells) != 4 {
		t.Fatalf("%d code cells, want 4", len(cells))
	}
	wantErr := [][]string{
		{"cell [1] line 4:6: dup redeclared"},
		{"cell [2] line 4:9: undefined: y"},
		{"cell [3] line 2:8: \"strings\" imported and not used"},
		{"cell [4] line 2:8:", "example.com/nope"},
	}
	for i, wants := range wantErr {
		ev := errorOf(cells[i])
		for _, w := range wants {
			if !strings.Contains(ev, w) {
				t.Errorf("cell %d: error %q does not say %q", i+1, ev, w)
			}
		}
		if generatedPos.MatchString(ev) || strings.Contains(ev, "/cell [") {
			t.Errorf("cell %d: error %q has a position of the generated file", i+1, ev)
		}
	}
}
