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
//	gosbi certify SPEC.json           a posterior with its certificate (package sbi/certify)
//	gosbi version
//	gosbi completion bash             a bash completion script
//	gosbi help [COMMAND]              (or gosbi COMMAND --help)
//
// The command is thin: each sub-command parses its flags and calls one package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/cmdflag"
	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/interp"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

// Version is the gosbi release, overridable at link time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

type command struct {
	name, usage string
	help        string // what the command does, for `gosbi help NAME`
	flags       bool   // parses its flags with package flag, whose -h prints them
	run         func(args []string) error
}

func commands() []command {
	return []command{
		{"kernel", "kernel -f CONNECTION.json      run as a Jupyter kernel", "Runs as a Jupyter kernel; Jupyter starts it with the connection file.", true,
			func(a []string) error { return kernel.Main(a, Version) }},
		{"worker", "worker                         (internal) the interpreter process of a kernel", "The interpreter process of a kernel, started by the kernel itself.", false, interp.WorkerMain},
		{"install", "install [--user|--sys-prefix|--prefix DIR]  install the Jupyter kernelspec",
			"Installs gosbi's kernelspec, so that Jupyter lists the kernel: for the current user (default),\ninto the active Python environment, or under DIR.", true, kernel.InstallMain},
		{"run", "run NOTEBOOK.ipynb... [--out DIR] [--html] [--param k=v] [--timeout D] [--max-output SIZE]", "", true, nbtest.RunMain},
		{"script", "script FILE.go [args]          run a Go file (or - for stdin) with the notebook's packages",
			"Runs a Go file, or standard input for -, with the notebook's packages; the arguments after\nFILE.go are the script's os.Args. It works as a #! line. A script may hold at most 16 MiB.", false, interp.ScriptMain},
		{"repl", "repl                           interactive Go session in the terminal",
			"An interactive Go session with history, Tab completion and the magics (%help lists them).\nCtrl-C stops the running cell, Ctrl-D quits. Without a terminal it reads cells from standard input.", false, interp.REPLMain},
		{"data", "data fetch [--dir DIR] [--url URL]  download sbibm observations and reference samples",
			"Downloads sbibm's observations, true parameters and reference posterior samples (about 18 MB)\ninto DIR (default $GOSBI_DATA, else the user cache directory), checking each file's size and\nSHA-256 against those recorded in gosbi. The tutorials work without them.", true, dataMain},
		{"study", "study run SPEC [--executor local|slurm] [--dir DIR] | status DIR | worker DIR INDEX",
			"Runs a sweep as a resumable grid of jobs, on this machine or as Slurm job arrays;\nstatus counts the jobs per stage and state, worker runs one job (what an array task calls).", false, study.Main},
		{"certify", "certify SPEC.json [--out FILE] [--html FILE] [--study DIR]  a posterior with its certificate for a task",
			certifyHelp, true, certifyMain},
		{"version", "version                        print the version", "Prints the version of gosbi.", false, func(a []string) error {
			if len(a) > 0 {
				return fmt.Errorf("version takes no arguments, got %q", a)
			}
			fmt.Println("gosbi", Version)
			return nil
		}},
		{"completion", "completion bash                the bash completion script",
			"Prints a bash completion script for gosbi's commands, their flags and notebook files:\n  source <(gosbi completion bash)     # in ~/.bashrc", false, completion},
	}
}

// dataUsage is the synopsis of `gosbi data`.
const dataUsage = "usage: gosbi data fetch [--dir DIR] [--url BASE]"

// dataMain is the `gosbi data` command: `gosbi data fetch [--dir DIR] [--url BASE]` downloads
// the sbibm observations, true parameters and reference posterior samples into DIR (default:
// task.DataDir()) with task.Fetch. Files already present and intact are kept.
func dataMain(args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		args = []string{"fetch", "-h"}
	}
	if len(args) == 0 || args[0] != "fetch" {
		return errors.New(dataUsage)
	}
	fs := flag.NewFlagSet("data fetch", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\n", dataUsage)
		fs.PrintDefaults()
	}
	dir := fs.String("dir", "", "directory to fill (default $GOSBI_DATA, else the user cache directory)")
	base := fs.String("url", task.DefaultDataURL, "base URL of the sbibm task files")
	if err := cmdflag.Parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("fetch: unexpected arguments %q; %s", fs.Args(), dataUsage)
	}
	if *dir == "" {
		d, err := task.DataDir()
		if err != nil {
			return err
		}
		*dir = d
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	n, err := task.Fetch(context.Background(), client, *base, *dir, os.Stdout)
	if err != nil {
		return fmt.Errorf("fetch: downloading the sbibm files from %s into %s: %w\n"+
			"Rerun to resume (files already downloaded and intact are kept), give a mirror of sbibm's task folder with --url BASE, "+
			"or another folder with --dir DIR (then set GOSBI_DATA to it). "+
			"The tutorials work without these files: they simulate their observations instead", *base, *dir, err)
	}
	fmt.Printf("%d files downloaded into %s (the others were there, with their recorded SHA-256); set GOSBI_DATA=%s if it is not the default directory\n", n, *dir, *dir)
	return nil
}

// completion prints the completion script of a shell (bash only).
func completion(args []string) error {
	if len(args) != 1 || args[0] != "bash" {
		return fmt.Errorf("usage: gosbi completion bash (the only shell supported)")
	}
	var names []string
	for _, c := range commands() {
		if c.name != "worker" {
			names = append(names, c.name)
		}
	}
	fmt.Printf(bashCompletion, strings.Join(append(names, "help"), " "))
	return nil
}

// bashCompletion completes the command, then the flags and files of run, script, install,
// data fetch, study and certify.
const bashCompletion = `# bash completion for gosbi: source <(gosbi completion bash)
_gosbi() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%[1]s" -- "$cur")); return
  fi
  case "$cmd" in
    run)
      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--out --html --param --timeout --max-output --quiet --help" -- "$cur"))
      else COMPREPLY=($(compgen -f -X '!*.ipynb' -- "$cur") $(compgen -d -- "$cur")); fi ;;
    script) COMPREPLY=($(compgen -f -X '!*.go' -- "$cur") $(compgen -d -- "$cur")) ;;
    install) COMPREPLY=($(compgen -W "--user --sys-prefix --prefix --help" -- "$cur")) ;;
    data) if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "fetch" -- "$cur"))
          else COMPREPLY=($(compgen -W "--dir --url --help" -- "$cur")); fi ;;
    study) if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "run status worker" -- "$cur"))
           elif [[ ${COMP_WORDS[2]} == run && $cur == -* ]]; then
             COMPREPLY=($(compgen -W "--executor --dir --wait --workers --retries --partition --time --mem --cpus --throttle --help" -- "$cur"))
           else COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")); fi ;;
    certify)
      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--out --html --study --executor --workers --partition --time --mem --cpus --help" -- "$cur"))
      else COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")); fi ;;
    completion) COMPREPLY=($(compgen -W "bash" -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W "%[1]s" -- "$cur")) ;;
  esac
}
complete -o filenames -F _gosbi gosbi
`

// usage writes the overview of the commands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "gosbi — Go notebooks for calibrated simulation-based inference\n\nusage: gosbi COMMAND [args]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
	fmt.Fprintln(w, "  help [COMMAND]                 this text, or the help of COMMAND (also: gosbi COMMAND --help)")
}

// isHelp reports whether a is a request for help.
func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// wantsHelp reports whether the arguments of c ask for its help: a help flag before "--" (for
// script, only in first place: later arguments are the script's).
func wantsHelp(c command, args []string) bool {
	for i, a := range args {
		if a == "--" || c.name == "script" && i > 0 {
			return false
		}
		if isHelp(a) {
			return true
		}
	}
	return false
}

// commandHelp writes the help of c on standard output, as cobra does: its usage line, a blank
// line, what it does, and for a command with flags a blank line and its flags.
func commandHelp(c command) {
	synopsis, summary, _ := strings.Cut(c.usage, "  ")
	about := c.help
	if about == "" {
		about = strings.TrimSpace(summary)
	}
	if !c.flags {
		fmt.Printf("usage: gosbi %s\n\n%s\n", synopsis, about)
		return
	}
	// the flag set's usage is its usage line, a blank line, then (for run, what it does and)
	// its flags: what c does goes after the usage line
	text, err := flagUsage(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gosbi %s: writing its help: %v\n", c.name, err)
		os.Exit(1)
	}
	head, flags, _ := strings.Cut(text, "\n\n")
	if about == "" {
		fmt.Printf("%s\n\n%s", head, flags)
		return
	}
	fmt.Printf("%s\n\n%s\n\n%s", head, about, flags)
}

// flagUsage returns what the flag set of c writes for -h (on os.Stderr, read when it writes).
func flagUsage(c command) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	text := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		text <- b
	}()
	stderr := os.Stderr
	os.Stderr = w
	c.run([]string{"-h"})
	os.Stderr = stderr
	w.Close()
	return string(<-text), nil
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// The conventions are those of cobra (kubectl, hugo, gh): help goes to standard output and
// exits 0; an unknown command or a usage error goes to standard error and exits 1. A flag error
// has been written by the command's flag set, with its usage (a *cmdflag.ParseError): it is not
// written again.
func main() {
	args := os.Args[1:]
	if len(args) == 0 || isHelp(args[0]) || args[0] == "help" && (len(args) == 1 || args[1] == "help") {
		usage(os.Stdout)
		return
	}
	name, args := args[0], args[1:]
	if name == "--version" || name == "-v" {
		name = "version"
	}
	if name == "help" {
		name, args = args[0], []string{"--help"}
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "Error: unknown command %q for \"gosbi\"\nRun 'gosbi --help' for usage.\n", name)
		os.Exit(1)
	}
	// study prints its own help, with the options of the sub-command asked about
	if wantsHelp(c, args) && c.name != "study" {
		commandHelp(c)
		return
	}
	if err := c.run(args); err != nil {
		var pe *cmdflag.ParseError
		if !errors.As(err, &pe) {
			fmt.Fprintf(os.Stderr, "gosbi %s: %v\n", name, err)
		}
		os.Exit(1)
	}
}
