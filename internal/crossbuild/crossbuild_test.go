package crossbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// targets are the systems TestCrossBuild builds for, one of each kind of system file split:
// windows (LockFileEx, GetProcessTimes, no dup2 or exec), darwin (flock(2), no /proc), aix
// (no file locks at all: the fallback that judges a study's runs by process on this host),
// solaris (no syscall.Dup2: golang.org/x/sys/unix's), js/wasm (neither Unix nor Windows: no
// getrusage, no exec, no study runs) and plan9 (no syscall.WaitStatus or signals: notes), and
// windows/386 for a 32-bit int (sizes and limits that a 64-bit constant would overflow, handles
// that fit in 32 bits). Each costs about a minute of CPU time on a cold build
// cache (it compiles the standard library and the dependencies for its system), seconds on a
// warm one.
//
// Checked by hand, as they compile no split file that a target here does not: illumos (the
// solaris files with darwin's flock) and wasip1/wasm (js's files):
//
//	GOOS=illumos GOARCH=amd64 go build ./...
//	GOOS=wasip1 GOARCH=wasm go build ./...
var targets = []struct{ goos, goarch string }{
	{"windows", "amd64"},
	{"darwin", "arm64"},
	{"aix", "ppc64"},
	{"solaris", "amd64"},
	{"js", "wasm"},
	{"plan9", "amd64"},
	{"windows", "386"},
}

// TestCrossBuild compiles every package of the module (not its tests) for each target with
// go build, so that a file that calls what a system lacks (syscall.Flock on windows) fails
// here and not on a scientist's machine. The lock semantics on those systems are not run
// here, only their compilation. It compiles the standard library for each target once per
// build cache, which takes minutes on a cold cache: -short skips it.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the module for seven other systems; run without -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		t.Run(tg.goos+"/"+tg.goarch, func(t *testing.T) {
			cmd := exec.Command("go", "build", "./...")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOOS="+tg.goos, "GOARCH="+tg.goarch, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go build ./... for %s/%s: %v\n%s", tg.goos, tg.goarch, err, strings.TrimSpace(string(out)))
			}
		})
	}
}
