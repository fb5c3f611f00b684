package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ptytest"
)

// screen accumulates what the REPL writes to its terminal.
type screen struct {
	buf   syncBuffer
	seen  int
	t     *testing.T
	input *os.File
}

// expect waits until want appears in the output after what earlier expectations consumed.
func (s *screen) expect(want string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out := s.buf.String()
		if i := strings.Index(out[s.seen:], want); i >= 0 {
			s.seen += i + len(want)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("terminal never showed %q; it shows:\n%s", want, s.buf.String()[s.seen:])
}

func (s *screen) send(keys string) {
	s.t.Helper()
	if _, err := s.input.WriteString(keys); err != nil {
		s.t.Fatal(err)
	}
}

// startTerminalREPL starts gosbi repl on a pseudo-terminal with its history in hist and
// returns the screen the test reads and types on; the caller kills the process.
func startTerminalREPL(t *testing.T, hist string) (*screen, *exec.Cmd) {
	t.Helper()
	master, tty := ptytest.Open(t)
	t.Cleanup(func() { master.Close() })
	cmd := gosbiCommand("repl")
	cmd.Env = append(cmd.Env, "GOSBI_HISTORY="+hist, "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	sc := &screen{t: t, input: master}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			sc.buf.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	return sc, cmd
}

func TestREPLInTerminal(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	sc, cmd := startTerminalREPL(t, hist)
	defer cmd.Process.Kill()

	sc.expect("go> ")
	sc.send("answer := 21\r")
	sc.expect("go> ")
	sc.send("answer * 2\r")
	sc.expect("42")
	// a block spans several lines: the REPL waits for the closing brace
	sc.send("func triple(n int) int {\r")
	sc.expect("... ")
	sc.send("return 3 * n }\r")
	sc.expect("go> ")
	sc.send("triple(5)\r")
	sc.expect("15")
	// Tab completes a session name
	sc.send("tri\t(2)\r")
	sc.expect("6")
	// the up arrow recalls the previous line
	sc.send("\x1b[A\r")
	sc.expect("6")
	// magics work
	sc.send("%who\r")
	sc.expect("answer int")
	// errors name the cell
	sc.send("nosuch + 1\r")
	sc.expect("undefined: nosuch")
	sc.send("\x04") // Ctrl-D ends the session
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("repl exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("repl did not exit on Ctrl-D")
	}
	b, err := os.ReadFile(hist)
	if err != nil || !strings.Contains(string(b), "answer := 21\n") {
		t.Errorf("history file %q, %v", b, err)
	}
}

func TestREPLFromPipe(t *testing.T) {
	cmd := gosbiCommand("repl")
	cmd.Stdin = strings.NewReader("x := 2\nfunc sq(n int) int {\n\treturn n * n\n}\nsq(x + 1)\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if string(out) != "9\n" {
		t.Errorf("output %q", out)
	}
}

// TestREPLStuckCompiledCall interrupts a cell stuck in compiled code with Ctrl-C: the REPL
// says it is interrupting, and a second Ctrl-C ends it.
func TestREPLStuckCompiledCall(t *testing.T) {
	sc, cmd := startTerminalREPL(t, filepath.Join(t.TempDir(), "history"))
	defer cmd.Process.Kill()
	sc.expect("go> ")
	sc.send("fmt.Println(\"sleeping\"); time.Sleep(time.Hour)\r")
	sc.expect("sleeping")
	sc.send("\x03")
	sc.expect("interrupting")
	sc.send("\x03")
	sc.expect("exiting")
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the REPL exited with status 0 after a stuck cell")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the REPL did not exit on the second Ctrl-C")
	}
}
