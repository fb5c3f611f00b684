package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/kernel"
)

func TestInstall(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	bin := filepath.Join(t.TempDir(), "gosbi")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	for _, tc := range []struct {
		opts kernel.InstallConfig
		dir  string
	}{
		{kernel.InstallConfig{Binary: bin}, filepath.Join(data, "kernels", "gosbi")},
		{kernel.InstallConfig{User: true, Binary: bin}, filepath.Join(data, "kernels", "gosbi")},
		{kernel.InstallConfig{Prefix: prefix, Binary: bin}, filepath.Join(prefix, "share", "jupyter", "kernels", "gosbi")},
	} {
		dir, err := kernel.Install(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if dir != tc.dir {
			t.Errorf("%+v: installed in %s, want %s", tc.opts, dir, tc.dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
		if err != nil {
			t.Fatal(err)
		}
		var spec struct {
			Argv []string `json:"argv"`
		}
		json.Unmarshal(b, &spec)
		if len(spec.Argv) == 0 || spec.Argv[0] != bin {
			t.Errorf("argv %q, want the absolute binary %s first", spec.Argv, bin)
		}
		for _, logo := range []string{"logo-32x32.png", "logo-64x64.png"} {
			if st, err := os.Stat(filepath.Join(dir, logo)); err != nil || st.Size() == 0 {
				t.Errorf("%s missing: %v", logo, err)
			}
		}
	}
	if _, err := kernel.Install(kernel.InstallConfig{User: true, Prefix: prefix}); err == nil || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("--user with --prefix: %v", err)
	}
	if err := kernel.InstallMain([]string{"--bogus"}); err == nil {
		t.Error("unknown flag accepted")
	}
}

// TestInstallCopiesTemporaryBinary checks that a binary built by `go run` (in a go-build
// temporary directory, deleted after the run) is copied into the kernelspec.
func TestInstallCopiesTemporaryBinary(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", t.TempDir())
	tmp := filepath.Join(os.TempDir(), "go-build-gosbi-test")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "gosbi")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := kernel.Install(kernel.InstallConfig{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "kernel.json"))
	var spec struct {
		Argv []string `json:"argv"`
	}
	json.Unmarshal(b, &spec)
	if spec.Argv[0] != filepath.Join(dir, "gosbi") {
		t.Errorf("argv[0] %s, want the copy in the kernelspec", spec.Argv[0])
	}
	if got, _ := os.ReadFile(spec.Argv[0]); string(got) != "binary" {
		t.Errorf("copied binary holds %q", got)
	}
}

// TestInstallMainEmptyPrefix: --prefix with an empty DIR is an error, not an install into the
// user's directory that the command did not ask for.
func TestInstallMainEmptyPrefix(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	for _, args := range [][]string{{"--prefix", ""}, {"--prefix="}} {
		err := kernel.InstallMain(args)
		if err == nil || !strings.Contains(err.Error(), "--prefix") {
			t.Errorf("gosbi install %q: error %v, want one about --prefix", args, err)
		}
		if _, err := os.Stat(filepath.Join(data, "kernels")); err == nil {
			t.Fatalf("gosbi install %q installed into the user's directory %s", args, data)
		}
	}
}

// TestInstallCopyFailureLeavesNothing: when the copy of a temporary binary cannot replace what
// is in its place (a directory), the install fails and leaves no temporary file behind.
func TestInstallCopyFailureLeavesNothing(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	tmp, err := os.MkdirTemp("", "go-build-gosbi-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "gosbi")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(data, "kernels", "gosbi")
	if err := os.MkdirAll(filepath.Join(spec, "gosbi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kernel.Install(kernel.InstallConfig{Binary: bin}); err == nil {
		t.Fatal("install over a directory named gosbi succeeded")
	}
	entries, err := os.ReadDir(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "gosbi" {
			t.Errorf("the failed install left %s in %s", e.Name(), spec)
		}
	}
}
