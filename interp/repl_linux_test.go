package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ptytest"
)

// startTerminalREPL starts gosbi repl on a pseudo-terminal with its history in hist.
func startTerminalREPL(t *testing.T, hist string) *ptytest.Terminal {
	t.Helper()
	cmd := gosbiCommand("repl")
	cmd.Env = append(cmd.Env, "GOSBI_HISTORY="+hist, "TERM=xterm")
	return ptytest.Start(t, cmd)
}

func TestREPLInTerminal(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	sc := startTerminalREPL(t, hist)

	sc.Expect("go> ")
	sc.Send("answer := 21\r")
	sc.Expect("go> ")
	sc.Send("answer * 2\r")
	sc.Expect("42")
	// a block spans several lines: the REPL waits for the closing brace
	sc.Send("func triple(n int) int {\r")
	sc.Expect("... ")
	sc.Send("return 3 * n }\r")
	sc.Expect("go> ")
	sc.Send("triple(5)\r")
	sc.Expect("15")
	// Tab completes a session name
	sc.Send("tri\t(2)\r")
	sc.Expect("6")
	// the up arrow recalls the previous line
	sc.Send("\x1b[A\r")
	sc.Expect("6")
	// magics work
	sc.Send("%who\r")
	sc.Expect("answer int")
	// errors name the cell
	sc.Send("nosuch + 1\r")
	sc.Expect("undefined: nosuch")
	sc.Expect("go> ") // keys are read in raw mode only at a prompt (see TestReplTerminalSwitch)
	sc.Send("\x04")   // Ctrl-D ends the session
	if err := sc.Wait(10 * time.Second); err != nil {
		t.Fatalf("repl exited with %v", err)
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
// says it is interrupting, and a second Ctrl-C ends it. The cell's one compiled call, io.Copy,
// writes "sleeping now" and then blocks reading a pipe that nothing writes to, so once the
// terminal shows that line (which the echo of the typed line does not hold: "sleep" + "ing
// now") the first Ctrl-C reaches a cell inside compiled code. A cell that printed and then
// called time.Sleep could be interrupted between the two calls, where the interpreter itself
// stops it.
func TestREPLStuckCompiledCall(t *testing.T) {
	sc := startTerminalREPL(t, filepath.Join(t.TempDir(), "history"))
	sc.Expect("go> ")
	sc.Send("r, w, _ := os.Pipe(); io.Copy(os.Stdout, io.MultiReader(strings.NewReader(\"sleep\" + \"ing now\\n\"), r)); w.Close()\r")
	sc.Expect("sleeping now")
	sc.Send("\x03")
	sc.Expect("interrupting")
	sc.Send("\x03")
	sc.Expect("exiting")
	if err := sc.Wait(10 * time.Second); err == nil {
		t.Error("the REPL exited with status 0 after a stuck cell")
	}
}

// TestREPLProgressBar: a library call that runs for more than a second draws a one-line
// progress bar on the terminal, redrawn in place and ended in its final state; quick calls
// draw nothing.
func TestREPLProgressBar(t *testing.T) {
	sc := startTerminalREPL(t, filepath.Join(t.TempDir(), "history"))
	sc.Expect("go> ")
	sc.Send("for range 50 { q := sbi.NewProgress(\"quick\", 1); q.Finish() }; fmt.Println(\"quick ones ran\")\r")
	sc.Expect("quick ones ran")
	sc.Expect("go> ")
	sc.Send("p := sbi.NewProgress(\"train NPE\", 30); for i := range 30 { time.Sleep(60 * time.Millisecond); p.Set(i+1, fmt.Sprintf(\"epoch %d\", i+1)) }; p.Finish()\r")
	sc.Expect("\rtrain NPE [")
	sc.Expect("\rtrain NPE [") // redrawn in place
	sc.Expect("\rtrain NPE [##############################] 30/30 done; epoch 30\x1b[K\r\n")
	sc.Expect("go> ")
	sc.Send("\x04")
	if err := sc.Wait(10 * time.Second); err != nil {
		t.Fatalf("repl exited with %v", err)
	}
	if out := sc.Output(); strings.Contains(out, "quick [") {
		t.Errorf("quick calls drew a bar:\n%q", out)
	}
}
