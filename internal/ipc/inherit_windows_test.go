//go:build windows

package ipc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// inheritChildEnv tells the test binary that TestInheritedPipe started it as a worker.
const inheritChildEnv = "GOSBI_TEST_INHERIT_CHILD"

// TestInheritedPipe starts this test binary as a worker with two pipes passed and a third
// handle that is not valid: the worker gets the pipes, non-inheritable and with HandlesEnv gone
// from its environment, and is refused the third with an error saying so.
func TestInheritedPipe(t *testing.T) {
	if os.Getenv(inheritChildEnv) != "" {
		inheritChild()
		return
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer reqW.Close()
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer evR.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInheritedPipe$")
	cmd.Env = append(os.Environ(), inheritChildEnv+"=1")
	done, err := PassPipes(cmd, []*os.File{reqR, evW})
	if err != nil {
		t.Fatal(err)
	}
	last := len(cmd.Env) - 1
	cmd.Env[last] += ",4000000" // not a handle the worker has
	err = cmd.Start()
	done()
	reqR.Close()
	evW.Close()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(reqW, "ping")
	var lines []string
	for sc := bufio.NewScanner(evR); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("worker: %v", err)
	}
	want := []string{
		"ping",
		"env: ", // HandlesEnv is unset
		"inherit: 0 0",
		"third: " + HandlesEnv + ": handle 4000000 (third) is not valid",
	}
	if len(lines) != len(want) {
		t.Fatalf("worker said %q; want %q", lines, want)
	}
	for i, w := range want {
		if lines[i] != w && (i < len(want)-1 || !strings.HasPrefix(lines[i], w)) {
			t.Errorf("worker's line %d: %q; want %q", i+1, lines[i], w)
		}
	}
}

// inheritChild is the worker of TestInheritedPipe: it echoes the line of the request pipe to the
// event pipe, then reports its environment, the inherit flags of the pipes and the error for
// the third handle.
func inheritChild() {
	req, err := InheritedPipe(RequestPipe, "requests")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ev, err := InheritedPipe(EventPipe, "events")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	line, _ := bufio.NewReader(req).ReadString('\n')
	fmt.Fprint(ev, line)
	fmt.Fprintf(ev, "env: %s\n", os.Getenv(HandlesEnv))
	fmt.Fprintf(ev, "inherit: %s %s\n", inheritFlag(req), inheritFlag(ev))
	_, err = InheritedPipe(2, "third")
	fmt.Fprintf(ev, "third: %v\n", err)
	ev.Close()
}

// inheritFlag returns f's HANDLE_FLAG_INHERIT as a number, or why it cannot be read.
func inheritFlag(f *os.File) string {
	get := windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")
	var flags uint32
	if ok, _, err := get.Call(f.Fd(), uintptr(unsafe.Pointer(&flags))); ok == 0 {
		return err.Error()
	}
	return fmt.Sprint(flags & windows.HANDLE_FLAG_INHERIT)
}
