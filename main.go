// Command gosbi is the gosbi notebook environment: a Jupyter kernel for Go with a compiled library
// for calibrated simulation-based inference.
//
//	gosbi kernel -f CONNECTION.json   run as a Jupyter kernel (started by Jupyter)
//	gosbi install [--user|--sys-prefix|--prefix DIR]
//	gosbi run NOTEBOOK.ipynb...       execute notebooks through the kernel
//	gosbi script FILE.go [args]       run a Go file with the notebook's packages
//	gosbi repl                        an interactive terminal session
//	gosbi data fetch                  download benchmark observations and reference posteriors
//	gosbi study run|status|worker     run a sweep as a resumable job grid, locally or on Slurm
//	gosbi version
//
// The command is thin: each sub-command parses its flags and calls one package.
package main

import (
	"fmt"
	"os"

	"github.com/gosbi/gosbi/interp"
	"github.com/gosbi/gosbi/kernel"
	"github.com/gosbi/gosbi/nbtest"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

// Version is the gosbi release, overridable at link time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

type command struct {
	name, usage string
	run         func(args []string) error
}

func commands() []command {
	return []command{
		{"kernel", "kernel -f CONNECTION.json      run as a Jupyter kernel", func(a []string) error { return kernel.Main(a, Version) }},
		{"worker", "worker                         (internal) the interpreter process of a kernel", interp.WorkerMain},
		{"install", "install [--user|--sys-prefix|--prefix DIR]  install the Jupyter kernelspec", kernel.InstallMain},
		{"run", "run NOTEBOOK.ipynb... [--out DIR] [--html] [--param k=v] [--timeout D]", nbtest.RunMain},
		{"script", "script FILE.go [args]          run a Go file (or - for stdin) with the notebook's packages", interp.ScriptMain},
		{"repl", "repl                           interactive Go session in the terminal", interp.REPLMain},
		{"data", "data fetch [--dir DIR] [--url URL]  download sbibm observations and reference samples", task.DataMain},
		{"study", "study run SPEC [--executor local|slurm] [--dir DIR] | status DIR | worker DIR INDEX", study.Main},
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "gosbi — Go notebooks for calibrated simulation-based inference\n\nusage: gosbi COMMAND [args]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %s\n", c.usage)
	}
	fmt.Fprintln(os.Stderr, "  version                        print the version\n  help                           this text")
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	switch name {
	case "version", "--version", "-v":
		fmt.Println("gosbi", Version)
		return
	case "help", "--help", "-h":
		usage()
		return
	}
	for _, c := range commands() {
		if c.name == name {
			if err := c.run(args); err != nil {
				fmt.Fprintf(os.Stderr, "gosbi %s: %v\n", name, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "gosbi: unknown command %q\n\n", name)
	usage()
	os.Exit(2)
}
