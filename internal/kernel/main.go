package kernel

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gosbi/gosbi/internal/cmdflag"
)

// Main is `gosbi kernel -f CONNECTION.json [--interrupt-grace D]`, the command Jupyter starts
// (see the kernelspec). It takes no arguments besides its flags, and D must be positive. The
// flag -worker replaces the worker command line (split on spaces), for tests and debugging.
func Main(args []string, version string) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	connFile := fs.String("f", "", "the connection `file` written by Jupyter")
	workerCmd := fs.String("worker", "", "worker command line (default: this executable with \"worker\")")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gosbi kernel -f CONNECTION.json [--interrupt-grace D]\n\n")
		fs.PrintDefaults()
	}
	grace := fs.Duration("interrupt-grace", 5*time.Second, "how long (positive) an interrupted cell may take to stop before its worker is restarted")
	if err := cmdflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: run as `gosbi kernel -f CONNECTION.json [--interrupt-grace D]`", fs.Args())
	}
	if *grace <= 0 {
		return fmt.Errorf("-interrupt-grace %v: want a positive duration (e.g. 5s), how long an interrupted cell may take to stop", *grace)
	}
	if *connFile == "" {
		return fmt.Errorf("no connection file: run as `gosbi kernel -f CONNECTION.json` (Jupyter does this after `gosbi install`)")
	}
	ci, err := ReadConnectionFile(*connFile)
	if err != nil {
		return err
	}
	cfg := Config{Conn: ci, Version: version, InterruptGrace: *grace}
	if *workerCmd != "" {
		cfg.Worker = strings.Fields(*workerCmd)
	}
	k, err := New(cfg)
	if err != nil {
		return err
	}
	// Jupyter interrupts with a message (interrupt_mode "message"), but a terminal or an older
	// client may send SIGINT: it must interrupt the cell, not end the kernel.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			if s == os.Interrupt {
				k.Interrupt()
				continue
			}
			k.Shutdown()
			return
		}
	}()
	go watchParent(k)
	return k.Run(context.Background())
}
