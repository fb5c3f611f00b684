package interp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/interp/explain"
	"github.com/gosbi/gosbi/interp/extend"
)

// This file is the seam between the session and package extend: a cell that imports a
// package the running program does not link gets a new program (an extended worker) that
// links it, and the session moves there.
//
//   - Session.Execute records the cells that ran without error (the state to replay).
//   - runImport calls linkPackages for an unknown package. When the hosting program enabled
//     switching (the kernel's worker, the script runner, the REPL), linkPackages builds the
//     worker with package extend and calls the program's switcher, which replaces the
//     process (execve) by the new binary and hands it a resume file: the cells to replay
//     and the cell to run next. Without a switcher, or when the build fails, the cell fails
//     and the session is as it was.
//   - The new program reads the resume file (takeResume), replays the cells with their
//     output discarded, then runs the pending cell, which first says what happened: nothing
//     when there was no state, otherwise which cells were replayed and which failed.

// extension is the session's part of switching programs.
type extension struct {
	history   []resumeCell // the cells run without error, in order
	replaying bool         // replay is running the cells of the program this one replaced
	code      string       // the running cell
	count     int
	switcher  func(bin string, r *resume) error // replaces the process; nil: no switching
	dir       string                            // the notebook directory
	announce  string                            // printed at the start of the next cell
	// announceWarns sends the announcement to stderr: cells failed to replay or were not replayed.
	announceWarns bool
	// notesToStdout prints notes (a build, a switch that lost nothing) on standard output: a
	// notebook front end paints standard error as a warning. Terminals keep them on stderr.
	notesToStdout bool
	unusable      []string // "path.Name: why" for the identifiers cells cannot use
	// ask offers the replay to the user: it shows the question and returns the answer; ok is
	// false when no one can answer (a notebook run unattended), and the cells are replayed.
	ask func(question string) (answer string, ok bool)
}

// resume is what a program hands to the one that replaces it (in the file $GOSBI_RESUME).
type resume struct {
	Cells    []resumeCell // to replay, in order
	Pending  resumeCell   // the cell to run after the replay
	Silent   bool         // the pending cell is silent (kernel)
	Stdin    bool         // the pending cell may read standard input (kernel)
	ID       string       // the pending request's id (kernel)
	Linked   []string     // the packages the new program links
	Took     string       // how long building it took, "" when it came from the cache
	Unusable []string     // exported identifiers of those packages that cells cannot use
	Script   string       // the source of the script being run (script runner)
	Input    string       // what was left of a REPL's standard input when it is not a terminal
	Declined bool         // the user chose not to replay the cells
}

type resumeCell struct {
	Code  string
	Count int
}

// noteWriter is where notes go: standard output in a notebook, standard error in a terminal.
func (s *Session) noteWriter() io.Writer {
	if s.ext.notesToStdout {
		return s.opts.Stdout
	}
	return s.opts.Stderr
}

// resumeEnv names the file that holds a resume.
const resumeEnv = "GOSBI_RESUME"

// Execute runs one cell; count is its execution count, used in error positions.
func (s *Session) Execute(ctx context.Context, code string, count int) Result {
	s.ext.code, s.ext.count = code, count
	if a := s.ext.announce; a != "" {
		s.ext.announce = ""
		w := s.noteWriter()
		if s.ext.announceWarns {
			w = s.opts.Stderr
		}
		fmt.Fprint(w, a)
	}
	res := s.execute(ctx, code, count)
	if res.Err == nil {
		s.ext.history = append(s.ext.history, resumeCell{code, count})
	} else {
		s.unusableHint(res.Err)
	}
	return res
}

// unusableHint adds to an error about a missing symbol of a linked package why the symbol is
// missing, when it is one that yaegi cannot export (a generic function or type).
func (s *Session) unusableHint(e *Error) {
	if hint := explain.Unusable(e.Value, s.ext.unusable); hint != "" {
		e.Value += " (" + hint + ")"
		e.Traceback = append(e.Traceback, hint)
	}
}

// enableSwitching lets cells import packages that this program does not link: sw replaces
// the process by the program bin. dir is the notebook directory ("" for the current one).
func (s *Session) enableSwitching(dir string, sw func(bin string, r *resume) error) {
	s.ext.dir, s.ext.switcher = dir, sw
}

// linkPackages builds a program that links the package path (and the other unknown imports
// of the running cell) and switches to it. It returns nil when switching is not enabled
// (the caller reports the package as unavailable) and an error for the cell otherwise.
func (s *Session) linkPackages(ctx context.Context, path string, line int) error {
	if s.ext.switcher == nil {
		return nil
	}
	want := slices.Clone(extend.Linked)
	for _, it := range s.items {
		if it.kind != importItem {
			continue
		}
		for _, p := range importPaths(it) {
			if !packageKnown(p) && !s.extraPackage(p) && !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
	}
	if !slices.Contains(want, path) {
		want = append(want, path)
	}
	fail := func(err error) error {
		return &cellError{s.cell, line, 0, fmt.Sprintf("import %q: %v", path, err)}
	}
	b, err := extend.NewBuilder()
	if err != nil {
		return fail(err)
	}
	b.Log = func(msg string) { fmt.Fprintln(s.noteWriter(), "note: "+msg) }
	w, err := b.Build(ctx, extend.Request{Dir: s.ext.dir, Packages: want, Compiled: extend.CompiledCells})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // interrupted: reported as such
		}
		return fail(err)
	}
	return s.switchTo(w, fail)
}

// switchTo hands the session to the worker w; it returns only when that fails, with the
// error for the cell made by fail.
func (s *Session) switchTo(w *extend.Worker, fail func(error) error) error {
	r := &resume{Cells: s.ext.history, Pending: resumeCell{s.ext.code, s.ext.count}}
	for _, p := range w.Packages {
		if p == extend.CompiledPackage {
			p = "the %%compile cells"
		}
		r.Linked = append(r.Linked, p)
	}
	if !w.Cached {
		r.Took = w.Elapsed.Round(100 * time.Millisecond).String()
	}
	for _, u := range w.Unavailable {
		if u.Package == extend.CompiledPackage {
			continue // a %%compile cell's binding says it (extend.Binding)
		}
		r.Unusable = append(r.Unusable, u.String())
	}
	if len(r.Cells) > 0 && s.ext.ask != nil {
		q := fmt.Sprintf("This cell needs a new worker process that links %s. Run the %d earlier cells there again, to keep the session's state? [Y/n] ",
			strings.Join(r.Linked, ", "), len(r.Cells))
		if a, ok := s.ext.ask(q); ok && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a)), "n") {
			r.Cells, r.Declined = nil, true
		}
	}
	err := s.ext.switcher(w.Binary, r)
	return fail(fmt.Errorf("switching to the new worker: %w", err))
}

// importPaths lists the paths of an import declaration.
func importPaths(it item) []string {
	gd, ok := it.decl.(*ast.GenDecl)
	if !ok {
		return nil
	}
	var res []string
	for _, sp := range gd.Specs {
		if is, ok := sp.(*ast.ImportSpec); ok {
			if p, err := strconv.Unquote(is.Path.Value); err == nil {
				res = append(res, p)
			}
		}
	}
	return res
}

// writeResume stores r in a new file and returns its name; one larger than maxResumeSize,
// which takeResume would refuse, is an error, and the session stays where it is.
func writeResume(r *resume) (string, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	if len(data) > maxResumeSize {
		return "", fmt.Errorf("the script and the cells to run again take %d bytes, more than the %d (%d MiB) a resume file may hold: "+
			"restart the session with this import in its first cell, so that the new worker is built before there are cells to run again", len(data), maxResumeSize, maxResumeSize>>20)
	}
	f, err := os.CreateTemp("", "gosbi-resume-*.json")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// takeResume reads and removes the resume file this program was started with; nil when none.
func takeResume() (*resume, error) {
	name := os.Getenv(resumeEnv)
	if name == "" {
		return nil, nil
	}
	os.Unsetenv(resumeEnv)
	data, err := readlimit.File(name, "the cells to resume", maxResumeSize)
	os.Remove(name)
	if err != nil {
		return nil, fmt.Errorf("reading the cells to resume: %w", err)
	}
	var r resume
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading the cells to resume: %w", err)
	}
	return &r, nil
}

// execInto replaces the process by bin with args, handing it r.
func execInto(bin string, args []string, r *resume) error {
	name, err := writeResume(r)
	if err != nil {
		return err
	}
	env := append(os.Environ(), resumeEnv+"="+name)
	err = execve(bin, append([]string{bin}, args...), env)
	os.Remove(name)
	return err
}

// replay runs the cells of r in s, discarding what they print, and returns the announcement
// for the pending cell: empty when there was nothing to replay.
func (s *Session) replay(r *resume) string {
	s.ext.unusable = r.Unusable
	s.ext.announceWarns = r.Declined
	var b strings.Builder
	if r.Took != "" {
		fmt.Fprintf(&b, "note: built a worker that links %s in %s\n", strings.Join(r.Linked, ", "), r.Took)
	}
	for _, u := range r.Unusable {
		fmt.Fprintf(&b, "note: %s\n", u)
	}
	if r.Declined {
		fmt.Fprintf(&b, "note: the session moved to a new worker process that links %s; as asked, the earlier cells were not run again: "+
			"their variables and declarations are gone\n", strings.Join(r.Linked, ", "))
	}
	if len(r.Cells) == 0 {
		return b.String()
	}
	var failed []string
	s.ext.replaying = true
	defer func() { s.ext.replaying = false }()
	for _, c := range r.Cells {
		if res := s.Execute(context.Background(), c.Code, c.Count); res.Err != nil {
			msg := res.Err.Value
			if !strings.HasPrefix(msg, fmt.Sprintf("cell [%d]", c.Count)) {
				msg = fmt.Sprintf("cell [%d]: %s", c.Count, msg)
			}
			failed = append(failed, "  "+msg)
		}
	}
	cells := "cells"
	if len(r.Cells) == 1 {
		cells = "cell"
	}
	fmt.Fprintf(&b, "note: the session moved to a new worker process that links %s; the %d %s run so far were run again there, their output discarded",
		strings.Join(r.Linked, ", "), len(r.Cells), cells)
	if len(failed) == 0 {
		b.WriteString(": all of them succeeded\n")
	} else {
		s.ext.announceWarns = true
		fmt.Fprintf(&b, "; %d failed, so their variables and declarations are missing:\n%s\n", len(failed), strings.Join(failed, "\n"))
	}
	return b.String()
}

// notebookDir is the directory whose go.work or go.mod resolves the packages cells import:
// $GOSBI_NOTEBOOK_DIR (set by gosbi run) or the working directory (where Jupyter starts the
// kernel).
func notebookDir() string {
	if d := os.Getenv("GOSBI_NOTEBOOK_DIR"); d != "" {
		return d
	}
	d, _ := os.Getwd()
	return d
}

// goMagic runs "%go get MODULE@VERSION": the module joins the notebook's worker module, so
// that later imports of its packages resolve to that version.
func (s *Session) goMagic(ctx context.Context, arg string) Result {
	fields := strings.Fields(arg)
	if len(fields) < 2 || fields[0] != "get" {
		return s.fail(errors.New("usage: %go get MODULE@VERSION (adds a module to the notebook's worker)"))
	}
	b, err := extend.NewBuilder()
	if err != nil {
		return s.fail(err)
	}
	dir := s.ext.dir
	if dir == "" {
		dir = notebookDir()
	}
	for _, q := range fields[1:] {
		if err := b.Get(ctx, dir, q); err != nil {
			return s.fail(err)
		}
		fmt.Fprintf(s.opts.Stdout, "added %s to the modules of the notebooks in %s\n", q, filepath.Clean(dir))
	}
	return Result{}
}

// ask asks the notebook a question (an input request with the question as prompt) when the
// running request allows input. It reports false when no answer comes: input not allowed, the
// cell interrupted, or an answer the front could not pass on.
func (w *worker) ask(question string) (string, bool) {
	w.mu.Lock()
	id, allowed, abort := w.cur, w.stdin, w.abort
	w.mu.Unlock()
	if id == "" || !allowed {
		return "", false
	}
	w.flush()
	select {
	case <-w.inputs: // a late answer to an earlier request
	default:
	}
	if err := w.enc.Send(ipc.Event{ID: id, Type: ipc.InputRequest, Prompt: question}); err != nil {
		return "", false
	}
	select {
	case v := <-w.inputs:
		return v.Value, v.Error == ""
	case <-abort:
		return "", false
	}
}

// resumeWorker enables switching in a kernel worker and, in a worker that replaces another,
// replays the cells and runs the request it took over.
func (w *worker) resumeWorker() error {
	w.sess.enableSwitching(notebookDir(), w.switchProcess)
	w.sess.ext.ask = w.ask
	w.sess.ext.notesToStdout = true
	r, err := takeResume()
	if err != nil || r == nil {
		return err
	}
	// What the replayed cells print is discarded, as the announcement says: the front reads
	// descriptors 1 and 2 itself and would show it in the pending cell.
	w.flush()
	silenced(func() { w.sess.ext.announce = w.sess.replay(r) })
	return w.handle(ipc.Request{ID: r.ID, Type: ipc.Execute, Code: r.Pending.Code, ExecutionCount: r.Pending.Count,
		Silent: r.Silent, AllowStdin: r.Stdin})
}

// enableScriptSwitching lets a script import any package: the script (src, from the file
// name or "-" for standard input) starts again in the program that links its imports, whose
// go.work or go.mod is looked up from the script's directory.
// r is the resume this program started with, if any.
func enableScriptSwitching(sess *Session, name string, src []byte, args []string, r *resume) {
	if r != nil {
		sess.ext.unusable = r.Unusable
	}
	dir := ""
	if name != "-" {
		if abs, err := filepath.Abs(name); err == nil {
			dir = filepath.Dir(abs)
		}
	}
	if dir == "" {
		dir = notebookDir()
	}
	sess.enableSwitching(dir, func(bin string, r *resume) error {
		r.Script, r.Cells = string(src), nil
		return execInto(bin, append([]string{"script"}, args...), r)
	})
}

// compileCell runs a %%compile cell: its declarations are compiled natively into the
// notebook's worker module (package extend.CompiledPackage), the session moves to a worker
// that links them unless the running one already does, and the names are bound in the
// session (extend.Binding) as if an ordinary cell had declared them.
func (s *Session) compileCell(ctx context.Context, code string, count int) Result {
	s.cell = count
	c := extend.Cell{Code: code, Count: count}
	merged, err := extend.MergeCells(extend.CompiledCells, c)
	if err != nil {
		return errorResult(err.Error()) // the message names the cell and the line
	}
	if s.ext.replaying || extend.SameCells(merged, extend.CompiledCells) {
		return s.bindCompiled(ctx, c)
	}
	fail := func(err error) error { return fmt.Errorf("cell [%d]: %%%%compile: %w", count, err) }
	if s.ext.switcher == nil {
		return errorResult(fail(errors.New("this program cannot move to a worker that links compiled cells: use a notebook, gosbi script or gosbi repl")).Error())
	}
	b, err := extend.NewBuilder()
	if err != nil {
		return errorResult(fail(err).Error())
	}
	b.Log = func(msg string) { fmt.Fprintln(s.noteWriter(), "note: "+msg) }
	w, err := b.Build(ctx, extend.Request{Dir: s.ext.dir, Packages: extend.Linked, Compiled: merged})
	if err != nil {
		if ctx.Err() != nil {
			return s.fail(ctx.Err())
		}
		return errorResult(explain.CompiledUndefined(fail(err).Error(), s.compiledDecl))
	}
	return errorResult(s.switchTo(w, fail).Error())
}

func errorResult(msg string) Result {
	return Result{Err: &Error{Name: "error", Value: msg, Traceback: []string{msg}}}
}

// bindCompiled declares the names of a compiled cell in the session.
func (s *Session) bindCompiled(ctx context.Context, c extend.Cell) Result {
	src, notes, err := extend.Binding(c)
	if err != nil {
		return s.fail(err)
	}
	for _, n := range notes {
		fmt.Fprintf(s.noteWriter(), "note: cell [%d]: %s\n", c.Count, n)
	}
	return s.runGo(ctx, src, c.Count)
}

// replSwitcher is the REPL's switcher: the new program goes on with the REPL. rest, when not
// nil, returns what is left of standard input (not a terminal), which the new program reads
// first.
func replSwitcher(args []string, rest func() string) func(string, *resume) error {
	return func(bin string, r *resume) error {
		if rest != nil {
			r.Input = rest()
		}
		return execInto(bin, append([]string{"repl"}, args...), r)
	}
}

// resumeREPL replays, with its output discarded, the cells of the REPL this program took
// over and runs the cell that moved it; it returns the resume (nil when there is none).
func resumeREPL(sess *Session, stdout, stderr io.Writer) (*resume, error) {
	r, err := takeResume()
	if err != nil || r == nil {
		return nil, err
	}
	silenced(func() { sess.ext.announce = sess.replay(r) })
	printResult(sess.Execute(context.Background(), r.Pending.Code, r.Pending.Count), stdout, stderr)
	return r, nil
}

// askTerminal asks on the terminal (standard input in line mode between cells).
func askTerminal(question string) (string, bool) {
	fmt.Fprint(os.Stderr, question)
	var line []byte
	buf := make([]byte, 1)
	for {
		n, err := os.Stdin.Read(buf)
		if n == 1 && buf[0] != '\n' {
			line = append(line, buf[0])
			continue
		}
		if n == 1 || err != nil {
			return string(line), err == nil || len(line) > 0
		}
	}
}

// maxResumeSize bounds a resume file (256 MiB): it holds the script and the cells to run again.
const maxResumeSize = 256 << 20
