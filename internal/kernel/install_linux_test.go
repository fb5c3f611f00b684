package kernel_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/gosbi/gosbi/internal/kernel"
)

// TestInstallFailsWhole: an install that cannot write its files (here the file size limit,
// RLIMIT_FSIZE, as a full disk would) fails and leaves the kernelspec installed before whole,
// instead of a truncated kernel.json that Jupyter cannot read.
func TestInstallFailsWhole(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", t.TempDir())
	bin := filepath.Join(t.TempDir(), "gosbi")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := kernel.Install(kernel.InstallConfig{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	var old [][]byte
	files := []string{"kernel.json", "logo-32x32.png", "logo-64x64.png"}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, b)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	small := lim
	small.Cur = 16
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Fatal(err)
	}
	_, err = kernel.Install(kernel.InstallConfig{Binary: bin + "-other"})
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("install under a file size limit of 16 bytes succeeded")
	}
	for i, f := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != string(old[i]) {
			t.Errorf("%s after the failed install: %d bytes, want the %d installed before", f, len(b), len(old[i]))
		}
	}
}
