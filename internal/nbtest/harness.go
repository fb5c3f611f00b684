package nbtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Notebooks returns the .ipynb files directly in dirs, sorted; a directory that does not exist
// contributes none. Checkpoint copies (.ipynb_checkpoints) are not included.
func Notebooks(dirs ...string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("nbtest: list notebooks: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".ipynb") {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// BuildBinary builds the gosbi command (the main package of the module that holds the current
// directory) into dir and returns its path. Tests use it to run notebooks through the real
// kernel and interpreter.
func BuildBinary(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gosbi")
	if runtime.GOOS == "windows" {
		bin += ".exe" // Windows starts a program only by a name with its extension
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("nbtest: go build of the gosbi command failed: %v\n%s", err, out)
	}
	return bin, nil
}

func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("nbtest: find the module root (is go on PATH?): %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("nbtest: the current directory is not inside the gosbi module")
	}
	return filepath.Dir(mod), nil
}

// KernelCommand is the command line that starts the kernel of the gosbi binary bin.
func KernelCommand(bin string) []string {
	return []string{bin, "kernel", "-f", "{connection_file}"}
}

// CheckNotebooks executes each notebook in quick mode with the gosbi binary bin, writes the
// executed copies into outDir (when not empty) and returns one error per notebook that failed,
// each with the failing cell and its traceback. It is the test harness for notebooks/ and
// tutorials/: a notebook states its expectations in its cells, so any error output fails it.
func CheckNotebooks(ctx context.Context, bin, outDir string, paths []string) []error {
	var errs []error
	for _, p := range paths {
		res, err := Execute(ctx, p, Config{Kernel: KernelCommand(bin)})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if outDir != "" {
			if err := WriteNotebook(filepath.Join(outDir, filepath.Base(p)), res.Notebook); err != nil {
				errs = append(errs, err)
			}
		}
		if len(res.Errors) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w\n%s", p, res.Errors[0], res.Errors[0].Report()))
		}
	}
	return errs
}
