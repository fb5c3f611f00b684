package extend_test

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/ptytest"
	"github.com/gosbi/gosbi/interp/extend"
)

type terminal struct {
	mu   sync.Mutex
	buf  strings.Builder
	seen int
}

func (s *terminal) expect(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		out := s.buf.String()
		s.mu.Unlock()
		if i := strings.Index(out[s.seen:], want); i >= 0 {
			s.seen += i + len(want)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%s", want, s.buf.String()[s.seen:])
}

// TestReplTerminalSwitch imports a local module in the terminal REPL: it asks whether to run
// the earlier cell again, moves to a program that links the module, and goes on there.
func TestReplTerminalSwitch(t *testing.T) {
	cache, _ := extend.SimWorker(t)
	bin := gosbi(t)
	master, tty := ptytest.Open(t)
	defer master.Close()
	cmd := exec.Command(bin, "repl")
	cmd.Dir = testdata(t, "")
	cmd.Env = append(os.Environ(), "GOSBI_CACHE="+cache, "GOSBI_HISTORY="+t.TempDir()+"/h", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	tty.Close()
	sc := &terminal{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			sc.mu.Lock()
			sc.buf.Write(b[:n])
			sc.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	send := func(keys string) {
		if _, err := master.WriteString(keys); err != nil {
			t.Fatal(err)
		}
	}
	sc.expect(t, "go> ")
	send("x := 4\r")
	sc.expect(t, "go> ")
	send("import \"example.com/sim\"\r")
	sc.expect(t, "Run the 1 earlier cells there again, to keep the session's state? [Y/n] ")
	send("y\r")
	sc.expect(t, "the 1 cell run so far were run again there")
	sc.expect(t, "go> ")
	send("fmt.Println(sim.Scale(float64(x)))\r")
	sc.expect(t, "12")
	send("\x04")
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
}
