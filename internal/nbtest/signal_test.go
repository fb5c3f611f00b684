//go:build unix

package nbtest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// flaggedNotebook writes long.ipynb, whose cells (made by cells from the path of an empty flag
// file) touch the flag once the cell to be stopped runs; it returns the notebook's path, an
// output directory and the flag's path.
func flaggedNotebook(t *testing.T, cells func(flag string) []*nbtest.Cell) (path, out, flag string) {
	t.Helper()
	dir := t.TempDir()
	out, flag = t.TempDir(), filepath.Join(dir, "running")
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "long.ipynb")
	nb := &nbtest.Notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{}, Cells: cells(flag)}
	if err := nbtest.WriteNotebook(path, nb); err != nil {
		t.Fatal(err)
	}
	return path, out, flag
}

// threeCells are a cell that runs, one that prints, touches the flag and sleeps until it is
// interrupted, and one that must not run.
func threeCells(flag string) []*nbtest.Cell {
	return []*nbtest.Cell{
		{CellType: "code", ID: "a", Source: "print kept", Metadata: map[string]any{}},
		{CellType: "code", ID: "b", Source: "print started\ntouch " + flag + "\nsleep", Metadata: map[string]any{}},
		{CellType: "code", ID: "c", Source: "print never", Metadata: map[string]any{}},
	}
}

// TestRunInterruptedSavesWhatRan sends SIGINT (a Ctrl-C) to `gosbi run` while its second cell
// runs: the cell is interrupted, the run stops there and fails, and the notebook is saved
// with the outputs of the cells that ran, the later ones untouched, rather than the process
// ending with nothing saved.
func TestRunInterruptedSavesWhatRan(t *testing.T) {
	path, out, flag := flaggedNotebook(t, threeCells)
	done := make(chan error, 1)
	go func() { done <- nbtest.RunMain([]string{"--quiet", path, "--out", out}) }()
	go func() {
		// the second cell has touched the flag: it runs, in its sleep
		for {
			if st, err := os.Stat(flag); err == nil && st.Size() > 0 {
				break
			}
			select {
			case <-done:
				return
			default:
			}
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "1 of 1 notebooks failed") {
		t.Fatalf("RunMain after SIGINT: %v; want the notebook counted as failed", err)
	}
	got, rerr := nbtest.ReadNotebook(filepath.Join(out, "long.ipynb"))
	if rerr != nil {
		t.Fatalf("the notebook was not saved: %v", rerr)
	}
	if o := outputsOf(got.Cells[0]); o != "stdout:kept\n" {
		t.Errorf("cell 1 outputs %q", o)
	}
	if o := outputsOf(got.Cells[1]); !strings.HasPrefix(o, "stdout:started\n") || !strings.Contains(o, "error:") {
		t.Errorf("cell 2 outputs %q, want its output and then its error", o)
	}
	if c := got.Cells[2]; len(c.Outputs) != 0 || c.ExecutionCount != nil {
		t.Errorf("cell 3, which did not run, has outputs %q and count %v", outputsOf(c), c.ExecutionCount)
	}
}

// TestRunProcessGroupSIGINT runs `gosbi run` as a process in a process group of its own and
// sends SIGINT to the whole group while the second cell runs, as Ctrl-C in a terminal does to
// the foreground group. Only gosbi run's handler decides what the signal does: the cell is
// reported as interrupted by it, not as a crash of a worker that the signal killed too (the
// kernel and its worker run in process groups of their own), and the notebook is saved as far
// as it ran.
func TestRunProcessGroupSIGINT(t *testing.T) {
	path, out, flag := flaggedNotebook(t, threeCells)
	cmd := exec.Command(os.Args[0], "run", "--quiet", path, "--out", out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-time.After(10 * time.Millisecond):
		}
		if st, serr := os.Stat(flag); serr == nil && st.Size() > 0 {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) // the whole group, as a terminal
			err = <-done
			break
		}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "1 of 1 notebooks failed") {
		t.Fatalf("gosbi run after SIGINT to its process group: %v; want exit status 1 with the notebook counted as failed; stderr:\n%s", err, stderr.String())
	}
	got, rerr := nbtest.ReadNotebook(filepath.Join(out, "long.ipynb"))
	if rerr != nil {
		t.Fatalf("the notebook was not saved: %v", rerr)
	}
	if o := outputsOf(got.Cells[0]); o != "stdout:kept\n" {
		t.Errorf("cell 1 outputs %q", o)
	}
	o := outputsOf(got.Cells[1])
	if !strings.HasPrefix(o, "stdout:started\n") || !strings.Contains(o, "error:Stopped") || strings.Contains(o, "WorkerCrash") {
		t.Errorf("cell 2 outputs %q, want its output and the stop of gosbi run, not a crash of its worker", o)
	}
	if c := got.Cells[2]; len(c.Outputs) != 0 || c.ExecutionCount != nil {
		t.Errorf("cell 3, which did not run, has outputs %q and count %v", outputsOf(c), c.ExecutionCount)
	}
}

// TestStopTextFollowsTheReply stops a run (Config.Stop) while its cell runs: the error output
// saved in the notebook says that the cell was interrupted (sleep fails on its interrupt, whose
// error is the cell's) or that it ended (catch handles its interrupt and ends ok), as the
// cell's error then does.
func TestStopTextFollowsTheReply(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"sleep", "the cell was interrupted: "},
		{"catch", "the cell ended, and "},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			dir := t.TempDir()
			flag := filepath.Join(dir, "running")
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "stop.ipynb")
			nb := &nbtest.Notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{}, Cells: []*nbtest.Cell{
				{CellType: "code", ID: "a", Source: "touch " + flag + "\n" + c.cmd, Metadata: map[string]any{}},
			}}
			if err := nbtest.WriteNotebook(path, nb); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			go func() {
				for { // the cell has touched the flag: it runs, in its sleep or catch
					if st, err := os.Stat(flag); err == nil && st.Size() > 0 {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				close(stop)
			}()
			res := execute(t, path, nbtest.Config{Stop: stop})
			if len(res.Errors) != 1 {
				t.Fatalf("errors %+v, want one", res.Errors)
			}
			var saved []string
			for _, o := range res.Notebook.Cells[0].Outputs {
				if o.OutputType == "error" && o.Ename == "Stopped" {
					saved = append(saved, o.Evalue)
				}
			}
			if len(saved) != 1 || !strings.HasPrefix(saved[0], c.want) {
				t.Errorf("saved error outputs %q, want one that starts with %q", saved, c.want)
			}
			if e := res.Errors[0]; e.Ename == "Stopped" && (len(saved) != 1 || e.Evalue != saved[0]) {
				t.Errorf("the cell's error %q differs from its saved output %q", e.Evalue, saved)
			}
		})
	}
}
