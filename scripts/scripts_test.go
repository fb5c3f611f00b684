// The tests of the shell scripts that set up a machine for the test suite: what setup.sh
// installs and which services it stops again, and which daemons `slurm.sh stop` stops. They
// run the scripts with stand-ins for the system commands (apt-get, dpkg, service, systemctl)
// and for the daemons, so they change nothing on the machine and need no root.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stub writes an executable shell script NAME into dir.
func stub(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runSetup runs setup.sh args with stand-ins for dpkg (the packages in missing are not installed),
// apt-get, sudo, service and systemctl, and returns the commands they were called with, one a
// line.
func runSetup(t *testing.T, missing []string, args ...string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	record := `echo "$(basename "$0") $*" >>"$CALLS"`
	stub(t, bin, "dpkg", `case " $MISSING " in *" $2 "*) exit 1 ;; esac`)
	stub(t, bin, "apt-get", record)
	stub(t, bin, "service", record)
	stub(t, bin, "systemctl", record)
	stub(t, bin, "sudo", `exec "$@"`)
	cmd := exec.Command(bash, append([]string{"setup.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+calls, "MISSING="+strings.Join(missing, " "))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("setup.sh: %v\n%s", err, out)
	}
	b, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestSetupInstallsOnlyWhatIsMissing: setup.sh installs exactly the missing packages, without
// the packages they merely recommend, and stops (under systemd also disables) the service of
// each package it installed that has one — and touches no service of a package that was there.
func TestSetupInstallsOnlyWhatIsMissing(t *testing.T) {
	systemd := false
	if fi, err := os.Stat("/run/systemd/system"); err == nil && fi.IsDir() {
		systemd = true
	}
	stopped := func(service string) string {
		if systemd {
			return "systemctl disable --now " + service
		}
		return "service " + service + " stop"
	}
	for _, c := range []struct {
		args    []string
		missing []string // missing from the machine
		install []string // installed; nil: the missing ones
		stops   []string // services stopped after the installation
	}{
		{missing: nil},
		{missing: []string{"tmux"}},
		{args: []string{"slurm"}, missing: []string{"tmux", "slurmd"}, install: []string{"slurmd"}, stops: []string{"slurmd"}},
		{args: []string{"slurm"}, missing: []string{"tmux"}, install: []string{}},
		{missing: []string{"tmux", "munge", "slurmd"}, stops: []string{"munge", "slurmd"}},
		{missing: []string{"slurmctld", "slurmdbd", "mariadb-server-core"}, stops: []string{"slurmctld", "slurmdbd"}},
	} {
		if c.install == nil {
			c.install = c.missing
		}
		calls := runSetup(t, c.missing, c.args...)
		var installs, stops []string
		for _, line := range calls {
			f := strings.Fields(line)
			switch {
			case len(f) > 1 && f[0] == "apt-get" && (f[1] == "update" || slices.Contains(f, "-s")):
				// the index, and the simulation that lists what apt adds
			case slices.Contains(f, "install"):
				installs = append(installs, line)
			default:
				stops = append(stops, line)
			}
		}
		if len(c.install) == 0 {
			if len(calls) != 0 {
				t.Errorf("setup.sh %q, %q missing: ran %q, want nothing", c.args, c.missing, calls)
			}
			continue
		}
		if len(installs) != 1 {
			t.Fatalf("missing %q: apt-get install ran %d times (%q), want once", c.missing, len(installs), calls)
		}
		args := strings.Fields(installs[0])
		if !slices.Contains(args, "--no-install-recommends") {
			t.Errorf("missing %q: %q installs recommended packages too", c.missing, installs[0])
		}
		var pkgs []string
		for _, a := range args[1:] {
			if a != "install" && !strings.HasPrefix(a, "-") {
				pkgs = append(pkgs, a)
			}
		}
		slices.Sort(pkgs)
		if !slices.Equal(pkgs, slices.Sorted(slices.Values(c.install))) {
			t.Errorf("setup.sh %q, %q missing: installed %q, want %q", c.args, c.missing, pkgs, c.install)
		}
		var want []string
		for _, s := range c.stops {
			want = append(want, stopped(s))
		}
		slices.Sort(stops)
		if !slices.Equal(stops, want) {
			t.Errorf("missing %q: service calls %q, want %q", c.missing, stops, want)
		}
	}
}

// daemon starts a process whose name (/proc/PID/comm) is name — a copy of sleep — and returns
// a channel closed when it has exited. It is killed when the test ends.
func daemon(t *testing.T, bin, name string) (pid int, exited <-chan struct{}) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	path := filepath.Join(bin, name)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		b, err := os.ReadFile(sleep)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(path, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() // reaps it, so that kill -0 fails once it is gone
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, done
}

// TestSlurmStopStopsWhatItStarted: `slurm.sh stop` stops the daemons whose pid files it wrote
// (munged among them) and nothing else: not a munged that ran before it (no pid file of its
// own), nor a process whose number a stale pid file names.
func TestSlurmStopStopsWhatItStarted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc")
	}
	bin, dir := t.TempDir(), t.TempDir()
	writePid := func(file string, pid int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type proc struct {
		name, pidFile string // pidFile "" : not started by slurm.sh
		stop          bool
	}
	procs := []proc{
		{"munged", "munged.pid", true},
		{"slurmd", "d.pid", true},
		{"slurmctld", "ctld.pid", true},
		{"mariadbd", "db.pid", true},
		{"munged", "", false},           // the system's munged, started before slurm.sh
		{"unrelated", "dbd.pid", false}, // a stale pid file: its number is another process's now
	}
	exited := make([]<-chan struct{}, len(procs))
	for i, p := range procs {
		pid, done := daemon(t, bin, p.name)
		exited[i] = done
		if p.pidFile != "" {
			writePid(p.pidFile, pid)
		}
	}
	cmd := exec.Command(bash, "slurm.sh", "stop")
	cmd.Env = append(os.Environ(), "GOSBI_SLURM_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("slurm.sh stop: %v\n%s", err, out)
	}
	// slurm.sh waits until what it stops is gone; what it leaves must still run a moment later.
	for i, p := range procs {
		wait := 200 * time.Millisecond
		if p.stop {
			wait = 5 * time.Second
		}
		select {
		case <-exited[i]:
			if !p.stop {
				t.Errorf("slurm.sh stop stopped %s (pid file %q), which it had not started", p.name, p.pidFile)
			}
		case <-time.After(wait):
			if p.stop {
				t.Errorf("slurm.sh stop left %s (pid file %s) running", p.name, p.pidFile)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "munged.pid")); !os.IsNotExist(err) {
		t.Errorf("munged.pid is still there after stop (%v): a later stop would kill a process that has its number", err)
	}
}
