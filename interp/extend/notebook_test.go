package extend_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosbi/gosbi/interp/extend"
	"github.com/gosbi/gosbi/kernel"
	"github.com/gosbi/gosbi/nbtest"
)

var gosbiBin struct {
	once sync.Once
	path string
	err  error
	dir  string
}

// gosbi builds the gosbi command once for the tests of this package.
func gosbi(t *testing.T) string {
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

func streams(c *nbtest.Cell, name string) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == name {
			b.WriteString(o.Text)
		}
	}
	return b.String()
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
	errText := streams(cells[1], "stderr")
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
	res, err := nbtest.Execute(ctx, testdata(t, "sim.ipynb"), nbtest.Options{Kernel: nbtest.KernelCommand(bin), Env: []string{"GOSBI_CACHE=" + cache}})
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
	res, err := nbtest.Execute(ctx, testdata(t, "failures.ipynb"), nbtest.Options{Kernel: nbtest.KernelCommand(bin),
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
	last := cells[3].Outputs
	if len(last) == 0 || last[len(last)-1].Data["text/plain"] != "7" {
		t.Errorf("cell 4: want x = 7 kept; outputs:\n%s", dump(cells[3]))
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
	if _, err := kernel.Install(kernel.InstallOptions{User: true, Binary: bin}); err != nil {
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
