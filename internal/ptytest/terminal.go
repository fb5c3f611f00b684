//go:build linux

package ptytest

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/syncbuf"
)

// A Terminal is a command running on a pseudo-terminal, with its output kept for Expect.
type Terminal struct {
	// Timeout is how long Expect waits; Start sets it to 20 s.
	Timeout time.Duration

	t      testing.TB
	master *os.File
	cmd    *exec.Cmd
	out    syncbuf.Buffer
	seen   int // how much of out earlier expectations consumed
}

// Start starts cmd on a new pseudo-terminal, as a session leader whose controlling terminal
// it is (TERM=xterm is the caller's to set). The command is killed when the test ends.
func Start(t testing.TB, cmd *exec.Cmd) *Terminal {
	t.Helper()
	master, tty := Open(t)
	t.Cleanup(func() { master.Close() })
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	tty.Close()
	tm := &Terminal{Timeout: 20 * time.Second, t: t, master: master, cmd: cmd}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			tm.out.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	return tm
}

// Expect waits until want appears in the output after what earlier calls consumed, and fails
// the test when it has not within Timeout.
func (tm *Terminal) Expect(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(tm.Timeout)
	for time.Now().Before(deadline) {
		out := tm.out.String()
		if i := strings.Index(out[tm.seen:], want); i >= 0 {
			tm.seen += i + len(want)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tm.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, tm.out.String()[tm.seen:])
}

// Output returns all the terminal has shown so far.
func (tm *Terminal) Output() string { return tm.out.String() }

// Send types keys ("\r" is Enter).
func (tm *Terminal) Send(keys string) {
	tm.t.Helper()
	if _, err := tm.master.WriteString(keys); err != nil {
		tm.t.Fatal(err)
	}
}

// Wait waits up to d for the command to exit and returns how it exited (nil for status 0);
// the test fails when it is still running by then, showing the end of what the terminal
// shows after a SIGQUIT (a Go program then prints its goroutines' stacks).
func (tm *Terminal) Wait(d time.Duration) error {
	tm.t.Helper()
	done := make(chan error, 1)
	go func() { done <- tm.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		tm.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
		out := tm.out.String()
		if len(out) > 16<<10 {
			out = out[len(out)-16<<10:]
		}
		tm.t.Fatalf("%s did not exit within %v; after SIGQUIT the terminal shows:\n%s", tm.cmd.Path, d, out)
		return nil
	}
}
