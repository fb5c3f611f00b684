package nbtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// Process is a kernel process started by this package, with a connected Client.
type Process struct {
	*Client
	cmd    *exec.Cmd
	dir    string
	stderr *syncbuf.Buffer
	exited chan struct{}
	err    error
}

// StartKernel writes a connection file with free loopback ports, starts argv with every
// "{connection_file}" replaced by its path, connects and waits until the kernel answers
// kernel_info and its iopub messages arrive. Extra environment variables come from env.
// The kernel's stderr is copied to log (if not nil) and kept for Stderr.
func StartKernel(ctx context.Context, argv, env []string, log io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("nbtest: no kernel command")
	}
	ci, err := NewConnectionInfo()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gosbi-kernel-")
	if err != nil {
		return nil, fmt.Errorf("nbtest: %w", err)
	}
	connFile := filepath.Join(dir, "kernel-"+kernel.NewID()+".json")
	b, _ := json.Marshal(ci)
	if err := os.WriteFile(connFile, b, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("nbtest: write connection file: %w", err)
	}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "{connection_file}", connFile)
	}
	p := &Process{dir: dir, stderr: &syncbuf.Buffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(args[0], args[1:]...)
	p.cmd.Env = append(os.Environ(), env...)
	kernelProcAttr(p.cmd)
	var errOut io.Writer = p.stderr
	if log != nil {
		errOut = io.MultiWriter(p.stderr, log)
	}
	p.cmd.Stderr = errOut
	p.cmd.Stdout = errOut
	// A process the kernel started may outlive it and keep its output pipe open: the kernel
	// counts as exited as soon as its own process has.
	p.cmd.WaitDelay = time.Second
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("nbtest: start kernel %q: %w", args[0], err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	if p.Client, err = Dial(ci); err != nil {
		select {
		case <-p.exited: // the kernel ended before it listened: its output says why
			err = fmt.Errorf("nbtest: the kernel exited (%v) before it was ready; its output:\n%s", p.err, p.Stderr())
		default:
		}
		p.Kill()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-rctx.Done():
		}
	}()
	_, err = p.WaitReady(rctx)
	cancel()
	if err != nil {
		select {
		case <-p.exited:
			err = fmt.Errorf("nbtest: the kernel exited (%v) before it was ready; its output:\n%s", p.err, p.Stderr())
		default:
		}
		p.Kill()
		return nil, err
	}
	return p, nil
}

// Stderr returns what the kernel process wrote to stderr and stdout so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Exited is closed when the kernel process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr is how the kernel process ended (nil for exit status 0); it is meaningful once
// Exited is closed.
func (p *Process) ExitErr() error {
	select {
	case <-p.exited:
		return p.err
	default:
		return nil
	}
}

// Pid is the process id of the kernel.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Close shuts the kernel down politely (shutdown_request), kills it if it does not exit within
// a few seconds, and removes its connection file.
func (p *Process) Close() error {
	select {
	case <-p.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		p.Shutdown(ctx, false)
		cancel()
	}
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	p.Client.Close()
	os.RemoveAll(p.dir)
	return nil
}

// Kill ends the kernel process at once.
func (p *Process) Kill() {
	p.cmd.Process.Kill()
	<-p.exited
	if p.Client != nil {
		p.Client.Close()
	}
	os.RemoveAll(p.dir)
}
