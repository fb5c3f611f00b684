package nbtest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// buildGosbi builds the real gosbi command (kernel and interpreter worker).
func buildGosbi(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := nbtest.BuildBinary(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestGoNotebook runs a small Go notebook through the real kernel and interpreter, in quick and
// in full mode with a parameter set.
func TestGoNotebook(t *testing.T) {
	bin := buildGosbi(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name   string
		o      nbtest.Config
		stdout []string // stdout of the code cells after the parameters
		result string
	}{
		{"quick", nbtest.Config{}, []string{"", "hello, world 9\n", ""}, "10"},
		{"full", nbtest.Config{Full: true, Params: map[string]string{"n": "4"}}, []string{"", "hello, world 16\n", "full mode\n"}, "17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Kernel = nbtest.KernelCommand(bin)
			res, err := nbtest.Execute(ctx, "testdata/go/hello.ipynb", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Err(); err != nil {
				t.Fatalf("%v\n%s", err, res.Errors[0].Report())
			}
			var code []*nbtest.Cell
			for _, c := range res.Notebook.Cells {
				if c.CellType == "code" && !c.HasTag(nbtest.ParametersTag) && !c.HasTag(nbtest.InjectedTag) {
					code = append(code, c)
				}
			}
			for i, want := range tc.stdout {
				got := ""
				for _, o := range code[i].Outputs {
					if o.OutputType == "stream" && o.Name == "stdout" {
						got += o.Text
					}
				}
				if got != want {
					t.Errorf("cell %d printed %q, want %q", i+1, got, want)
				}
			}
			last := code[len(code)-1].Outputs
			if len(last) == 0 || last[len(last)-1].OutputType != "execute_result" || last[len(last)-1].Data["text/plain"] != tc.result {
				t.Errorf("last cell outputs %+v, want the execute_result %s", last, tc.result)
			}
		})
	}
}

// TestRepositoryNotebooks runs every notebook in notebooks/ and tutorials/ in quick mode, with
// the test notebooks of this package, through the real kernel; any error output fails it. The
// executed copies go to $GOSBI_NOTEBOOK_OUT when that is set (to look at them).
func TestRepositoryNotebooks(t *testing.T) {
	paths, err := nbtest.Notebooks("testdata/go", "../../notebooks", "../../tutorials")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks found")
	}
	bin := buildGosbi(t)
	out := os.Getenv("GOSBI_NOTEBOOK_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".ipynb"), func(t *testing.T) {
			errs := nbtest.CheckNotebooks(ctx, bin, out, []string{p})
			for _, err := range errs {
				t.Error(err)
			}
			if len(errs) == 0 {
				noStderr(t, filepath.Join(out, filepath.Base(p)))
			}
		})
	}
}

// noStderr fails t for each output of the executed notebook at path written on stderr: Jupyter
// paints it as a warning box, which a notebook that runs normally must not show (a note for
// each package imported automatically was one).
func noStderr(t *testing.T, path string) {
	t.Helper()
	nb, err := nbtest.ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range nb.Cells {
		for _, o := range c.Outputs {
			if o.OutputType == "stream" && o.Name == "stderr" {
				t.Errorf("%s: cell %d writes on stderr: %q", filepath.Base(path), i+1, o.Text)
			}
		}
	}
}
