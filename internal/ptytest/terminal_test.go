//go:build linux

package ptytest_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ptytest"
)

// TestTerminal runs sh on a pseudo-terminal: it sees a terminal and reads what is typed; cat
// ends on Ctrl-D.
func TestTerminal(t *testing.T) {
	tm := ptytest.Start(t, exec.Command("sh", "-c", `[ -t 0 ] && echo "on a tty"; read line; echo "got $line"`))
	tm.Expect("on a tty")
	tm.Send("hello\r")
	tm.Expect("got hello")

	cat := ptytest.Start(t, exec.Command("cat"))
	cat.Send("line\r")
	cat.Expect("line")
	cat.Send("\x04") // Ctrl-D: end of input
	if err := cat.Wait(10 * time.Second); err != nil {
		t.Errorf("cat exited with %v after Ctrl-D", err)
	}
}
