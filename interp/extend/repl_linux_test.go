package extend_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ptytest"
	"github.com/gosbi/gosbi/interp/extend"
)

// TestReplTerminalSwitch imports a local module in the terminal REPL: it asks whether to run
// the earlier cell again, moves to a program that links the module, and goes on there.
func TestReplTerminalSwitch(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	cmd := exec.Command(bin, "repl")
	cmd.Dir = testdata(t, "")
	cmd.Env = append(os.Environ(), "GOSBI_CACHE="+cache, "GOSBI_HISTORY="+t.TempDir()+"/h", "TERM=xterm")
	sc := ptytest.Start(t, cmd)
	sc.Timeout = 60 * time.Second // the switch builds a worker
	sc.Expect("go> ")
	sc.Send("x := 4\r")
	sc.Expect("go> ")
	sc.Send("import \"example.com/sim\"\r")
	sc.Expect("Run the 1 earlier cells there again, to keep the session's state? [Y/n] ")
	sc.Send("y\r")
	sc.Expect("the 1 cell run so far were run again there")
	sc.Expect("go> ")
	sc.Send("fmt.Println(sim.Scale(float64(x)))\r")
	sc.Expect("12")
	// Ctrl-D once the prompt is up: the REPL reads keys in raw mode only while it waits at a
	// prompt, and a Ctrl-D typed before is taken by the terminal's line discipline, not read
	sc.Expect("go> ")
	sc.Send("\x04")
	if err := sc.Wait(10 * time.Second); err != nil {
		t.Fatalf("repl exited with %v", err)
	}
}
