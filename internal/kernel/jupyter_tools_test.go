//go:build !windows

// The tests here drive the kernel from Debian's Jupyter tools in Python (/usr/bin/python3,
// jupyter-nbconvert), which scripts/setup.sh installs; Windows has none of them there.

package kernel_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// installSpec installs the kernelspec for bin into a fresh JUPYTER_DATA_DIR and returns the
// environment that makes Jupyter find it.
func installSpec(t *testing.T, bin string) []string {
	t.Helper()
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	if _, err := kernel.Install(kernel.InstallConfig{User: true, Binary: bin}); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "JUPYTER_DATA_DIR="+data, "JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1")
}

func requireTool(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: install the Debian packages with scripts/setup.sh (python3-jupyter-kernel-test python3-nbclient jupyter-nbconvert jupyter-client)", path)
	}
}

// conformance is the jupyter_kernel_test suite with samples for every test it offers.
const conformance = `
import unittest
import jupyter_kernel_test


class GosbiKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "gosbi"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'import "fmt"\nfmt.Println("hello, world")'
    code_stderr = 'import (\n\t"fmt"\n\t"os"\n)\nfmt.Fprintln(os.Stderr, "to stderr")'
    code_generate_error = 'panic("boom")'
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "1 << 10", "result": "1024"},
        {"code": 'len("gopher")', "result": "6"},
    ]
    code_display_data = [
        {"code": 'import "github.com/gosbi/gosbi/display"\ndisplay.HTML("<b>bold</b>")', "mime": "text/html"},
        {"code": 'import "github.com/gosbi/gosbi/display"\ndisplay.Markdown("*emphasis*")', "mime": "text/markdown"},
        {"code": 'import "github.com/gosbi/gosbi/display"\ndisplay.SVG("<svg xmlns=\'http://www.w3.org/2000/svg\'/>")', "mime": "image/svg+xml"},
        {"code": 'import (\n\t"image"\n\t"github.com/gosbi/gosbi/display"\n)\ndisplay.Image(image.NewRGBA(image.Rect(0, 0, 4, 4)))', "mime": "image/png"},
    ]
    code_clear_output = 'import "github.com/gosbi/gosbi/display"\ndisplay.ClearOutput(false)'
    completion_samples = [
        {"text": "fmt.Printl", "matches": {"Println"}},
        {"text": "strings.HasPre", "matches": {"HasPrefix"}},
    ]
    complete_code_samples = ["x := 1", 'fmt.Println("done")', "func f() int { return 1 }"]
    incomplete_code_samples = ["func f() {", "xs := []int{1,", 'for i := 0; i < 3; i++ {\n\tfmt.Println(i)']
    invalid_code_samples = ["x := 1)", "}"]
    code_inspect_sample = "fmt.Println"
    code_page_something = "%help"
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "6*"


if __name__ == "__main__":
    unittest.main(verbosity=2)
`

// TestConformance runs Debian's jupyter_kernel_test 0.4.5 against the installed kernelspec.
// Every test it offers must run and pass, test_pager included (%help answers with a pager payload).
func TestConformance(t *testing.T) {
	requireTool(t, "/usr/bin/python3")
	if err := exec.Command("/usr/bin/python3", "-c", "import jupyter_kernel_test").Run(); err != nil {
		t.Fatal("jupyter_kernel_test is missing: install python3-jupyter-kernel-test with scripts/setup.sh")
	}
	bin := gosbiBinary(t)
	env := installSpec(t, bin)
	out, err := exec.Command("/usr/bin/jupyter-kernelspec", "list", "--json").Output()
	if err != nil {
		t.Fatalf("jupyter-kernelspec list: %v", err)
	}
	var specs struct {
		Kernelspecs map[string]struct {
			Spec struct {
				Argv          []string `json:"argv"`
				DisplayName   string   `json:"display_name"`
				Language      string   `json:"language"`
				InterruptMode string   `json:"interrupt_mode"`
			} `json:"spec"`
		} `json:"kernelspecs"`
	}
	json.Unmarshal(out, &specs)
	spec, ok := specs.Kernelspecs["gosbi"]
	if !ok || spec.Spec.DisplayName != "Go (gosbi)" || spec.Spec.Language != "go" || spec.Spec.InterruptMode != "message" || spec.Spec.Argv[0] != bin {
		t.Fatalf("jupyter-kernelspec list does not show the gosbi kernelspec as installed: %s", out)
	}
	requireWorker(t, bin)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test_gosbi.py"), []byte(conformance), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "test_gosbi.py")
	cmd.Dir, cmd.Env = dir, env
	res, err := cmd.CombinedOutput()
	report := string(res)
	if err != nil {
		t.Fatalf("jupyter_kernel_test failed: %v\n%s", err, report)
	}
	// Every test ran and passed; none was skipped.
	results := regexp.MustCompile(`(?m)^(test_\w+) \([^)]*\)[^\n]*\.\.\. (\w+)`).FindAllStringSubmatch(report, -1)
	var ran, skipped []string
	for _, r := range results {
		if r[2] == "skipped" {
			skipped = append(skipped, r[1])
		} else {
			ran = append(ran, r[1])
		}
	}
	if len(skipped) > 0 || len(ran) < 12 || !slices.Contains(ran, "test_pager") {
		t.Errorf("jupyter_kernel_test ran %v and skipped %v; want every test run, test_pager included\n%s", ran, skipped, report)
	}
}

// TestNbconvert executes a notebook with Debian's `jupyter-nbconvert --execute`, which drives
// the kernel through nbclient, and checks the saved outputs.
func TestNbconvert(t *testing.T) {
	requireTool(t, "/usr/bin/jupyter-nbconvert")
	bin := gosbiBinary(t)
	env := installSpec(t, bin)
	requireWorker(t, bin)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/jupyter-nbconvert", "--to", "notebook", "--execute",
		"--ExecutePreprocessor.kernel_name=gosbi", "--ExecutePreprocessor.timeout=120",
		"--output-dir", dir, "--output", "executed.ipynb", "testdata/e2e.ipynb")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jupyter-nbconvert --execute failed: %v\n%s", err, out)
	}
	nb, err := nbtest.ReadNotebook(filepath.Join(dir, "executed.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var code []*nbtest.Cell
	for _, c := range nb.Cells {
		if c.CellType == "code" {
			code = append(code, c)
		}
	}
	if len(code) != 5 {
		t.Fatalf("%d code cells, want 5", len(code))
	}
	outs := func(i int) []*nbtest.Output { return code[i].Outputs }
	check := func(i int, cond bool, what string) {
		t.Helper()
		if !cond {
			b, _ := json.MarshalIndent(outs(i), "", " ")
			t.Errorf("cell %d: want %s; outputs:\n%s", i+1, what, b)
		}
	}
	check(1, len(outs(1)) == 1 && outs(1)[0].OutputType == "stream" && outs(1)[0].Text == "hello from gosbi 3\n", "the stream \"hello from gosbi 3\"")
	check(2, len(outs(2)) == 1 && outs(2)[0].OutputType == "execute_result" && outs(2)[0].Data["text/plain"] == "9", "execute_result 9")
	check(3, len(outs(3)) == 1 && outs(3)[0].OutputType == "display_data" && outs(3)[0].Data["text/html"] != nil, "one HTML display")
	check(4, len(outs(4)) == 1 && outs(4)[0].OutputType == "error", "one error (the cell is tagged raises-exception)")
	for i, c := range code {
		if c.ExecutionCount == nil || *c.ExecutionCount != i+1 {
			t.Errorf("cell %d: execution_count %v, want %d", i+1, c.ExecutionCount, i+1)
		}
	}
}
