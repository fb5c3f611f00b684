package interp

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/interp/explain"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/stdlib"
)

// Config configures a Session.
type Config struct {
	Stdout, Stderr io.Writer // the user's output; os.Stdout and os.Stderr when nil
	Stdin          io.Reader // what interpreted code reads; os.Stdin when nil
	Args           []string  // os.Args of interpreted code
	Display        runenv.DisplayFunc
	// Symbols are extra compiled packages cells may import, in the form of stdlib.Symbols.
	Symbols map[string]map[string]reflect.Value
	// Restarted says that the session replaces one whose process died: errors about
	// undefined names add that the earlier state was reset.
	Restarted bool
}

// Result is the outcome of one cell.
type Result struct {
	Data map[string]any // the MIME bundle of the cell's trailing expression; nil when none
	Err  *Error         // nil when the cell succeeded
	// Page is a MIME bundle for the front-end's pager (help text), shown apart from the
	// cell's output; nil when none.
	Page map[string]any
}

// Error is a failed cell: exactly one per failed cell.
type Error struct {
	Name      string   // "error" (compile), "panic", "CheckFailed", "Interrupted"
	Value     string   // e.g. "cell [3] line 2:5: undefined: foo"
	Traceback []string // the lines shown to the user
	ExitCode  int      // for Name "Exit": the code interpreted code passed to os.Exit
}

func (e *Error) Error() string { return e.Value }

// Session is a notebook session: an interpreter plus the declarations, imports and variables
// that the cells made. It is not safe for concurrent use, except Interrupt.
type Session struct {
	opts Config
	// extraUnder indexes the types of opts.Symbols for check-type-identity (extraUnderlying).
	extraUnder     map[string]compiledStructs
	extraUnderOnce sync.Once
	yi             *yaegi.Interpreter
	stderr         *explain.Stderr   // the interpreter's standard error, which keeps the frames of a panic
	imports        map[string]string // local name → import path
	auto           map[string]bool   // import paths added because a cell used them; %who lists them
	decls          map[string]*decl  // "f", "T", "T.M", "v"
	broken         map[string]string // functions that stopped compiling when a function they call changed
	seq            int
	ranSeq         int64 // the marker of the statements run so far (see stmtSource)
	// done is the lines of the running cell that ran so far (see partran.go)
	done ranSpan
	// executed says whether the last evaluation got past compiling its source
	executed bool
	cell     int // the cell being run, for positions
	// slots is the last cell run in each slot of line numbers (see cellLines), and its lines
	slots map[int]slotCell
	items []item // its items
	// cellDefers is the calls that the running cell's top level deferred (celldefers.go)
	cellDefers []func()
	mu         sync.Mutex
	cancel     context.CancelFunc
	// fileName, when set, names positions "file.go:2:5" instead of "cell [3] line 2:5" and
	// makes the session a script's: func main is kept aside to
	// be called at the end.
	fileName string
	ext      extension // cells for replay and switching to a worker that links more (extension.go)
	// runIDAddr is the interpreter's run number, set back after an interrupt (runid.go)
	runIDAddr *uint64
}

// NewSession starts an interpreter with the symbol tables of package stdlib loaded.
func NewSession(opts Config) (*Session, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	s := &Session{opts: opts}
	if err := s.reset(); err != nil {
		return nil, err
	}
	return s, nil
}

// reset discards all state and starts a fresh interpreter.
func (s *Session) reset() error {
	s.stderr = explain.NewStderr(s.opts.Stderr)
	s.yi = yaegi.New(yaegi.Options{
		Stdout: s.opts.Stdout,
		Stderr: s.stderr,
		Stdin:  s.opts.Stdin,
		Args:   s.opts.Args,
		// the real environment, so that %env and compiled code agree with os.Getenv in cells
		Unrestricted: true,
	})
	s.runIDAddr = runIDOf(s.yi)
	if err := s.yi.Use(stdlib.Symbols); err != nil {
		return fmt.Errorf("loading symbol tables: %w", err)
	}
	if _, isFile := s.opts.Stdin.(*os.File); !isFile {
		// os.Stdin of cells reads what Config.Stdin gives (in a notebook: input requests),
		// like fmt.Scan does; the interpreter would otherwise leave it the process's own.
		stdin := s.opts.Stdin
		if err := s.yi.Use(yaegi.Exports{"os/os": {"Stdin": reflect.ValueOf(&stdin).Elem()}}); err != nil {
			return fmt.Errorf("loading standard input: %w", err)
		}
	}
	if err := s.yi.Use(builtinSymbols); err != nil {
		return fmt.Errorf("loading builtins: %w", err)
	}
	if err := s.yi.Use(s.goPanicSymbols()); err != nil {
		return fmt.Errorf("loading builtins: %w", err)
	}
	if err := s.yi.Use(s.cellDeferSymbols()); err != nil {
		return fmt.Errorf("loading builtins: %w", err)
	}
	if s.opts.Symbols != nil {
		if err := s.yi.Use(s.opts.Symbols); err != nil {
			return fmt.Errorf("loading symbols: %w", err)
		}
	}
	s.imports = map[string]string{}
	s.auto = map[string]bool{}
	s.ext.history = nil
	s.decls = map[string]*decl{}
	s.broken = map[string]string{}
	if _, err := s.yi.Eval(prelude); err != nil {
		return fmt.Errorf("prelude: %w", err)
	}
	s.imports["cmp"] = "cmp"
	return nil
}

// Interrupt cancels the running cell, if any. It is safe to call from any goroutine.
func (s *Session) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// execute runs one cell (see Execute, which records it for replay).
func (s *Session) execute(ctx context.Context, code string, count int) Result {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}()
	runenv.SetContext(ctx)
	defer runenv.SetContext(nil)
	s.done = ranSpan{}
	if s.opts.Display != nil {
		runenv.SetDisplay(s.opts.Display)
	}
	if name, ok := helpRequest(code); ok {
		return s.helpPage(name)
	}
	if segs, ok := splitMagics(code, s.goBang()); ok {
		return s.runSegments(ctx, segs, count)
	}
	return s.runGo(ctx, code, count)
}

// runGo runs Go source (a cell without magics), then the calls its top level deferred.
func (s *Session) runGo(ctx context.Context, code string, count int) Result {
	s.cellDefers = nil
	return s.runCellDefers(ctx, s.runGoCode(ctx, code, count))
}

// runGoCode runs Go source (see runGo).
func (s *Session) runGoCode(ctx context.Context, code string, count int) (res Result) {
	s.cell = count
	if s.slots == nil {
		s.slots = map[int]slotCell{}
	}
	slot := lineBase(count)/cellLines - 10
	lines := strings.Count(code, "\n") + 1
	if last, ok := s.slots[slot]; ok && last.cell == count { // a later Go segment of a cell with magics
		lines = max(lines, last.lines)
	}
	s.slots[slot] = slotCell{count, lines}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Err: &Error{Name: "panic", Value: fmt.Sprint(r),
				Traceback: []string{fmt.Sprintf("internal error of the interpreter: %v", r)}}}
		}
	}()
	// an error found before the first part runs follows at most the earlier segments of a
	// cell with magics, which ranNote names
	items, err := splitCell(code, count)
	if err != nil {
		return s.fail(s.ranNote(err, 0))
	}
	if len(items) == 0 {
		return Result{}
	}
	if err := s.rewrite(items, count); err != nil {
		return s.fail(s.ranNote(err, 0))
	}
	s.items = items
	if err := s.checkBroken(items); err != nil {
		return s.fail(s.ranNote(err, 0))
	}
	if err := s.autoImport(items); err != nil {
		return s.fail(s.ranNote(err, 0))
	}
	for _, it := range items {
		if it.kind == importItem {
			if err := s.runImport(ctx, it); err != nil {
				return s.fail(s.ranNote(err, 0))
			}
		}
	}
	var group []item
	last := len(items) - 1
	trailing := items[last].kind == stmtItem && isExprStmt(items[last].stmt)
	if trailing && slices.ContainsFunc(items[:last], func(it item) bool { return it.kind != importItem }) {
		if err := s.checkTrailing(items); err != nil {
			return s.fail(s.ranNote(err, 0))
		}
	}
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		var err error
		if group[0].kind == declItem {
			err = s.runDecls(ctx, group)
		} else {
			err = s.runStmts(ctx, group)
		}
		group = group[:0]
		return err
	}
	for i, it := range items {
		if it.kind == importItem {
			continue
		}
		if i == last && trailing {
			break
		}
		if len(group) > 0 && (group[0].kind != it.kind || s.redefinesVar(it)) {
			if err := flush(); err != nil {
				return s.fail(err)
			}
		}
		group = append(group, it)
	}
	if err := flush(); err != nil {
		return s.fail(err)
	}
	if trailing {
		data, err := s.evalExpr(ctx, items[last])
		if err != nil {
			// evalExpr returns the error of the evaluation that failed, and once the
			// expression has run only evaluations that compile follow
			if !s.executed {
				err = s.ranNote(err, items[last].line)
			}
			return s.fail(err)
		}
		s.done.add(items[last])
		return Result{Data: data}
	}
	return Result{}
}

// redefinesVar reports whether a top-level statement defines anew a variable of the session
// ("a := 2.5" after a cell defined a). The interpreter creates the new variable when it
// compiles the statements evaluated together with it, so the statements before it must run
// on their own: else they read the new variable's zero value instead of the old value.
func (s *Session) redefinesVar(it item) bool {
	if it.kind != stmtItem {
		return false
	}
	for _, n := range definedVars(it) {
		if d := s.decls[n]; d != nil && d.kind == varDecl {
			return true
		}
	}
	return false
}

func isExprStmt(st ast.Stmt) bool {
	_, ok := st.(*ast.ExprStmt)
	return ok
}

// checkBroken refuses a cell that uses a function left broken by a redefinition (calling it
// would fail deep inside the interpreter), unless the cell redefines it.
func (s *Session) checkBroken(items []item) error {
	if len(s.broken) == 0 {
		return nil
	}
	defined := map[string]bool{}
	for _, it := range items {
		if it.kind == declItem {
			for _, nk := range declNames(it.decl) {
				defined[nk.name] = true
			}
		}
	}
	for _, it := range items {
		for name := range usedIdents(node(it)) {
			if msg, ok := s.broken[name]; ok && !defined[name] {
				return &cellError{s.cell, it.line, 0, msg}
			}
		}
	}
	return nil
}

// eval runs source in the interpreter, recovering every panic.
func (s *Session) eval(ctx context.Context, src string) (v reflect.Value, err error) {
	s.stderr.Reset()
	s.executed = false
	defer func() {
		if r := recover(); r != nil {
			err = yaegi.Panic{Value: r}
		}
	}()
	// An evaluation started after the interrupt could no longer be stopped (see abandon.go).
	if err := ctx.Err(); err != nil {
		return reflect.Value{}, err
	}
	// Compiling first leaves only the start of the run, not the compilation, between the
	// interpreter's goroutine starting and the point from which an interrupt stops it.
	prog, err := s.yi.Compile(src)
	if err != nil {
		return reflect.Value{}, err
	}
	s.executed = true
	dropRoots(s.yi)
	parent := goroutineID()
	id := s.runID()
	v, err = s.yi.ExecuteWithContext(ctx, prog)
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The evaluation was given up: wait until its code has really stopped, so that
		// nothing of the cell runs after the interrupt is reported (see abandon.go).
		awaitEval(parent)
		// A cell interrupted while it ran is reported as interrupted, even where its code
		// returned in the same instant (the interpreter may report either).
		if err == nil {
			err = ctxErr
		}
		// The function literals of earlier cells run again (see runid.go).
		err = s.rewindRunID(id, err)
		for _, note := range s.waitNotes(s.items) {
			err = &notedError{err, note}
		}
	}
	return v, err
}

func (s *Session) runImport(ctx context.Context, it item) error {
	gd, ok := it.decl.(*ast.GenDecl)
	if !ok {
		return nil
	}
	for _, sp := range gd.Specs {
		is := sp.(*ast.ImportSpec)
		path, _ := strconv.Unquote(is.Path.Value)
		name := packageName(path)
		if is.Name != nil {
			name = is.Name.Name
		}
		if name == "_" {
			continue
		}
		if prev, ok := s.imports[name]; ok {
			if prev == path {
				continue
			}
			return &cellError{s.cell, it.line, 0, fmt.Sprintf("%s is already imported as %q; import %q under another name, e.g. import x%s %q", name, prev, path, name, path)}
		}
		if !packageKnown(path) && !s.extraPackage(path) {
			if err := s.linkPackages(ctx, path, it.line); err != nil {
				return err // the build failed: the cell fails, the session is unchanged
			}
			return &cellError{s.cell, it.line, 0, notAvailable(path)}
		}
		src := fmt.Sprintf("import %s %q", name, path)
		if _, err := s.eval(ctx, src); err != nil {
			return &cellError{s.cell, it.line, 0, err.Error()}
		}
		s.imports[name] = path
	}
	return nil
}

// notAvailable is the error of a cell that imports a package the worker lacks and cannot
// link; for a package of the standard library that the tables leave out, it says why.
func notAvailable(path string) string {
	msg := fmt.Sprintf("package %q is not available in notebooks: ", path)
	if why := stdlib.Omitted(path); why != "" {
		msg += "the interpreter's tables leave it out of the standard library: " + why + "; "
	}
	return msg + "cells can import the rest of the Go standard library, gonum, gonum/plot and gosbi's packages (see %help)"
}

// runDecls evaluates a group of declarations: unchanged redefinitions are skipped, type and
// method redefinitions are refused with a warning, and functions that call a redefined
// function are evaluated again so the new body takes effect everywhere.
func (s *Session) runDecls(ctx context.Context, group []item) error {
	var run []item
	var redefined []string
	for _, it := range group {
		if fd, ok := it.decl.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			// renamed by package rewrite (see rewrite.MainName)
			if s.fileName == "" {
				fmt.Fprintf(s.opts.Stderr, "note: cell [%d]: func main is kept as _main; call _main() to run it\n", s.cell)
			}
		}
		skip := false
		for _, nk := range declNames(it.decl) {
			old, ok := s.decls[nk.name]
			if !ok {
				continue
			}
			switch {
			case sameSource(old.text, it.text) && (nk.kind == typeDecl || nk.kind == methodDecl || nk.kind == funcDecl) && s.broken[nk.name] == "":
				skip = true
			case nk.kind == typeDecl || nk.kind == methodDecl:
				what := "type " + nk.name
				if nk.kind == methodDecl {
					what = "method " + nk.name
				}
				fmt.Fprintf(s.opts.Stderr, "warning: cell [%d] line %d: %s is already defined differently (cell [%d]); "+
					"the interpreter cannot change a %s in a running session, so the old definition stays in effect. "+
					"Run %%reset and re-run the cells to use the new definition, or give it a new name.\n",
					s.cell, it.line, what, old.cell, nk.kind)
				skip = true
			case nk.kind == funcDecl || nk.kind == varDecl && old.kind == varDecl:
				redefined = append(redefined, nk.name)
			}
		}
		if !skip {
			run = append(run, it)
		}
	}
	if len(run) == 0 {
		return nil
	}
	names := undoableNames(run)
	snap := snapshotSymbols(s.yi, names)
	snap.methods = snapshotMethods(snap.table, receiverTypes(run))
	var saved map[string]reflect.Value
	if !snap.table.IsValid() {
		saved = s.saveValues(ctx, names)
	}
	if ev, err := s.evalDecls(ctx, run); err != nil {
		err = s.undoDecls(ctx, run, ev, redefined, snap, saved, err)
		if !ev.executed {
			s.done.add(run[:ev.start]...) // kept by undoDecls
			err = s.ranNote(err, run[ev.start].line)
		}
		return err
	}
	for _, it := range run {
		s.register(it, nil)
	}
	s.done.add(run...)
	return s.reevalDependants(ctx, redefined, run)
}

// evalDecls evaluates declarations in order. The interpreter refuses a package-level
// declaration of a variable whose value reads a variable of an earlier evaluation ("var y = x"
// with x from an earlier cell) with "variable definition loop", as it finds no declaration of x
// among those it is given; such a declaration is evaluated as a statement instead, which
// defines the same package-level variable. The others go to the interpreter together. When an
// evaluation fails, ev tells which items it had (see undoDecls).
func (s *Session) evalDecls(ctx context.Context, items []item) (ev failedEval, err error) {
	start := 0
	for i, it := range items {
		if !s.readsSessionVar(it) {
			continue
		}
		if i > start {
			if _, err := s.eval(ctx, s.declSource(items[start:i])); err != nil {
				return failedEval{start, i, true, s.executed}, err
			}
		}
		if _, err := s.eval(ctx, ";"+lineDirective(s.cell, it.line, it.col)+it.text+"\n"); err != nil {
			return failedEval{i, i + 1, false, s.executed}, err
		}
		start = i + 1
	}
	if start < len(items) {
		if _, err := s.eval(ctx, s.declSource(items[start:])); err != nil {
			return failedEval{start, len(items), true, s.executed}, err
		}
	}
	return failedEval{}, nil
}

// failedEval is the evaluation of declarations that failed: the items from start to end
// (those before it were evaluated), whether it was a package-level declaration of them, and
// whether it got past compiling them (a panic or an interrupt stopped it).
type failedEval struct {
	start, end int
	pkg        bool
	executed   bool
}

// undoDecls handles a group of declarations of which evaluation ev failed, as undoUnrun does
// statements. The declarations evaluated before ev are kept. When ev did not compile, the
// previous definitions of its functions come back (see restore), the methods it attached to
// types of the session are detached (see methodSnapshot), and its variables, constants and
// types are undone; when it compiled (and a panic or an interrupt stopped the initialization
// of its variables), its functions, methods, types and constants are kept, and its variables
// are undone. A name undone gets its old symbol back (a variable with its value and type), and
// a new one is removed, so that using it is an error. Functions of earlier
// cells that call a kept redefined function are evaluated again. err is returned, with a note
// where a value could not be put back or may have been computed.
func (s *Session) undoDecls(ctx context.Context, run []item, ev failedEval, redefined []string,
	snap symbolSnapshot, saved map[string]reflect.Value, err error) error {
	// the interrupt stopped the cell, not the evaluations that put the session back in order
	ctx = context.WithoutCancel(ctx)
	kept := run[:ev.start]
	if ev.executed {
		kept = run[:ev.end]
	}
	undone := map[string]bool{}
	var unsure, initialized []string
	for _, it := range run[ev.start:ev.end] {
		for _, nk := range declNames(it.decl) {
			if nk.kind != varDecl && (nk.kind != constDecl && nk.kind != typeDecl || ev.executed) {
				continue
			}
			undone[nk.name] = true
			if !snap.put(nk.name) && nk.kind != typeDecl {
				unsure = append(unsure, nk.name)
			}
		}
		initialized = append(initialized, initializedVars(it)...)
	}
	// functions compiled from here on bind to the variables put back
	if !ev.executed {
		snap.methods.detach()
		s.restore(ctx, run[ev.start:ev.end])
	}
	var keptNames []string
	for _, it := range kept {
		s.register(it, undone)
		for _, nk := range declNames(it.decl) {
			keptNames = append(keptNames, nk.name)
		}
	}
	var again []string
	for _, n := range redefined {
		if slices.Contains(keptNames, n) {
			again = append(again, n)
		}
	}
	if rerr := s.reevalDependants(ctx, again, kept); rerr != nil {
		err = &notedError{err, rerr.Error()}
	}
	if ev.executed && ev.pkg && len(initialized) > 1 {
		sort.Strings(initialized)
		err = &notedError{err, fmt.Sprintf("(%s: declared together by this cell, and the interpreter sets them at once: "+
			"the session cannot tell which of them were set before the failure, so each keeps its earlier value, "+
			"or is undefined if it is new; run the cell again to set them)", strings.Join(initialized, ", "))}
	}
	if len(unsure) == 0 {
		return err
	}
	return s.undoByValue(ctx, unsure, saved, err)
}

// undoableNames returns the names of the variables, constants and types that declarations
// declare (see undoDecls).
func undoableNames(items []item) []string {
	var names []string
	for _, it := range items {
		for _, nk := range declNames(it.decl) {
			if nk.kind == varDecl || nk.kind == constDecl || nk.kind == typeDecl {
				names = append(names, nk.name)
			}
		}
	}
	return names
}

// receiverTypes returns the names of the receiver types of the methods that declarations
// declare.
func receiverTypes(items []item) []string {
	var types []string
	for _, it := range items {
		if fd, ok := it.decl.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) > 0 {
			if name := explain.RecvTypeName(fd.Recv.List[0].Type); name != "" && !slices.Contains(types, name) {
				types = append(types, name)
			}
		}
	}
	return types
}

// initializedVars returns the names of the variables that a var declaration gives a value.
func initializedVars(it item) []string {
	gd, ok := it.decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return nil
	}
	var names []string
	for _, sp := range gd.Specs {
		if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) > 0 {
			for _, n := range vs.Names {
				if n.Name != "_" {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// readsSessionVar reports whether an item is a variable declaration whose values read a
// variable of an earlier cell.
func (s *Session) readsSessionVar(it item) bool {
	gd, ok := it.decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return false
	}
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for _, v := range vs.Values {
			for name := range usedIdents(v) {
				if d := s.decls[name]; d != nil && d.kind == varDecl {
					return true
				}
			}
		}
	}
	return false
}

// declSource joins declarations, each preceded by a line directive giving its cell position.
func (s *Session) declSource(items []item) string {
	var b strings.Builder
	b.WriteString("package main;")
	for _, it := range items {
		b.WriteString(lineDirective(s.cell, it.line, it.col))
		b.WriteString(it.text)
		b.WriteString("\n")
	}
	return b.String()
}

// register records the names a declaration declares, except those in skip.
func (s *Session) register(it item, skip map[string]bool) {
	for _, nk := range declNames(it.decl) {
		if skip[nk.name] {
			continue
		}
		delete(s.broken, nk.name)
		s.seq++
		d := &decl{kind: nk.kind, name: nk.name, text: it.text, src: it.src, cell: s.cell, line: it.line, col: it.col, seq: s.seq,
			signature: signatureOf(it.decl), doc: docOf(it.decl)}
		if fd, ok := it.decl.(*ast.FuncDecl); ok {
			d.uses = freeIdents(fd)
			d.results = fieldCount(fd.Type.Results)
		}
		if gd, ok := it.decl.(*ast.GenDecl); ok && (nk.kind == varDecl || nk.kind == constDecl) {
			d.typeExpr = specType(gd, nk.name)
		}
		s.decls[nk.name] = d
	}
}

// specType returns the type of the variable or constant name that the declaration gd
// declares: the type its spec writes, or the type of its value's literal, "" when neither is
// known. A constant's spec without type and values repeats the previous spec's.
func specType(gd *ast.GenDecl, name string) string {
	var prev *ast.ValueSpec
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		if gd.Tok == token.CONST && vs.Type == nil && len(vs.Values) == 0 && prev != nil {
			vs = &ast.ValueSpec{Names: vs.Names, Type: prev.Type, Values: prev.Values}
		}
		prev = vs
		for i, n := range vs.Names {
			switch {
			case n.Name != name:
			case vs.Type != nil:
				return printNode(vs.Type)
			case len(vs.Values) == len(vs.Names):
				return literalType(vs.Values[i])
			default:
				return ""
			}
		}
	}
	return ""
}

func fieldCount(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// literalType guesses the type name of a value expression: T{…}, &T{…}, NewT(…) or pkg.NewT(…).
func literalType(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		if e.Type != nil {
			return printNode(e.Type)
		}
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			if t := literalType(e.X); t != "" {
				return "*" + t
			}
		}
	}
	return ""
}

// restore re-evaluates the previous definitions of functions whose new definition failed, so
// a failed cell leaves the functions of earlier cells working. New functions of the failed
// cell are left half-defined by the interpreter: using them is refused until they compile.
func (s *Session) restore(ctx context.Context, failed []item) {
	for _, it := range failed {
		for _, nk := range declNames(it.decl) {
			old, ok := s.decls[nk.name]
			switch {
			case ok && nk.kind == funcDecl:
				_, _ = s.eval(ctx, "package main;"+lineDirective(old.cell, old.line, old.col)+old.text)
			case !ok && nk.kind == funcDecl:
				s.broken[nk.name] = fmt.Sprintf("%s did not compile in cell [%d]: fix it and run that cell again", nk.name, s.cell)
			}
		}
	}
}

// reevalDependants evaluates again, in definition order, the functions of earlier cells that
// call a redefined function or read a redefined variable (directly or through others), since
// the interpreter binds calls and variables when it compiles the function: else they would go
// on calling the old function and reading the old variable. Methods cannot be redefined; a
// method that uses a redefined name gets a warning, and a func init is left as it is (the
// interpreter runs an init it evaluates). An interrupt does not stop these evaluations: they
// compile declarations and run none of the cell's code, and the cell's
// definitions have taken effect, so stopping them would leave callers bound to what the cell
// replaced; the cell stops at its next step instead.
func (s *Session) reevalDependants(ctx context.Context, redefined []string, justRun []item) error {
	if len(redefined) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	inGroup := map[string]bool{}
	for _, it := range justRun {
		for _, nk := range declNames(it.decl) {
			inGroup[nk.name] = true
		}
	}
	changed := map[string]bool{}
	for _, n := range redefined {
		changed[n] = true
	}
	var deps []*decl
	for grew := true; grew; {
		grew = false
		for _, d := range s.decls {
			// an init has run and cannot be called again; evaluating it anew would run it
			if inGroup[d.name] || changed[d.name] || d.uses == nil || d.name == "init" {
				continue
			}
			for n := range changed {
				if d.uses[n] {
					changed[d.name] = true
					deps = append(deps, d)
					grew = true
					break
				}
			}
		}
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].seq < deps[j].seq })
	for _, d := range deps {
		if d.kind == methodDecl {
			fmt.Fprintf(s.opts.Stderr, "warning: method %s (cell [%d]) uses a redefined function or variable but keeps the old one: "+
				"the interpreter cannot redefine methods. Run %%reset and re-run the cells if it matters.\n", d.name, d.cell)
			continue
		}
		src := "package main;" + lineDirective(d.cell, d.line, d.col) + d.text + "\n"
		if _, err := s.eval(ctx, src); err != nil {
			msg := fmt.Sprintf("%s (cell [%d]) uses a redefined function or variable and no longer compiles: %s; redefine %s to use it again",
				d.name, d.cell, s.toError(err).Value, d.name)
			fmt.Fprintf(s.opts.Stderr, "warning: %s\n", msg)
			s.broken[d.name] = msg
		}
	}
	return nil
}

// runStmts evaluates a group of statements in the global scope. When the group fails, the
// definitions of its statements that did not run are undone (see undoUnrun).
func (s *Session) runStmts(ctx context.Context, group []item) error {
	base := s.ranSeq
	s.ranSeq += int64(len(group)) + 1
	var names []string
	for _, it := range group {
		names = append(names, definedVars(it)...)
	}
	var redefined []string // variables of the session the group defines anew
	for _, n := range names {
		if d := s.decls[n]; d != nil && d.kind == varDecl {
			redefined = append(redefined, n)
		}
	}
	snap := snapshotSymbols(s.yi, names)
	var saved map[string]reflect.Value
	if !snap.table.IsValid() {
		saved = s.saveRedefined(ctx, group)
	}
	if _, err := s.eval(ctx, s.stmtSource(group, base)); err != nil {
		compiled := s.executed
		err = s.undoUnrun(ctx, group, base, snap, saved, err)
		if !compiled {
			err = s.ranNote(err, group[0].line)
		}
		return err
	}
	for _, it := range group {
		s.registerVars(it)
	}
	s.done.add(group...)
	return s.reevalDependants(ctx, redefined, group)
}

// stmtSource joins the statements of a group, keeping the cell's positions, and has each
// statement that ends set the marker _gosbiRan to base plus its number (1 for the first), so
// that after a panic or an interrupt the session knows which statements ran.
func (s *Session) stmtSource(group []item, base int64) string {
	first := group[0]
	var b strings.Builder
	b.WriteString(";")
	b.WriteString(lineDirective(s.cell, first.line, first.col))
	end := first.start
	for i, it := range group {
		// keep the cell's layout between statements so positions stay right
		if it.start > end && end != first.start {
			b.WriteString(";")
			b.WriteString(lineDirective(s.cell, it.line, it.col))
		}
		b.WriteString(it.text)
		fmt.Fprintf(&b, ";_gosbiRan = %d\n", base+int64(i)+1)
		end = it.end
	}
	return b.String()
}

// statementsRan returns how many statements of the group marked from base (see stmtSource)
// ran to their end, and false when the marker cannot be read. None ran when the group did not
// compile. Otherwise the interpreter's frame has room for the group's variables and Globals
// answers without running code (which would discard the frames of a panic kept in s.stderr).
func (s *Session) statementsRan(base int64, n int) (ran int, known bool) {
	if !s.executed {
		return 0, true
	}
	v := s.globalValues()["_gosbiRan"]
	if !v.IsValid() || !v.CanInt() {
		return 0, false
	}
	return int(min(max(v.Int()-base, 0), int64(n))), true
}

// undoUnrun handles a group that failed (did not compile, panicked or was interrupted). The
// interpreter creates the variables that the group's statements define when it compiles it: a
// variable of the session defined anew would be left at zero, and a new one would exist with
// its zero value, though their statements did not run. The statements that ran keep their
// variables (now session variables); for the others, the old variable is put back, with its
// value and type, and a new one is removed, so that using it is an error. err is returned,
// with a note where that could not be done.
func (s *Session) undoUnrun(ctx context.Context, group []item, base int64, snap symbolSnapshot,
	saved map[string]reflect.Value, err error) error {
	ran, known := s.statementsRan(base, len(group))
	if !known {
		return &notedError{err, "(inconclusive: the session could not tell which statements of the cell ran, " +
			"so its variables may hold values the cell had not finished computing)"}
	}
	interrupted := ctx.Err() != nil
	// the interrupt stopped the cell, not the evaluations that put the session back in order
	ctx = context.WithoutCancel(ctx)
	if ran < len(group) && interrupted {
		if names := s.assignedByCall(ctx, group[ran]); len(names) > 0 {
			ran++ // the statement the interrupt stopped had assigned what its call returned
			err = &notedError{err, fmt.Sprintf("(%s: kept, as the interrupted call returned them: a library call that polls for "+
				"the interrupt returns what it had done and an error)", strings.Join(names, ", "))}
		}
	}
	ranDefs := map[string]bool{}
	var redefined []string // variables of the session that the statements which ran defined anew
	for _, it := range group[:ran] {
		for _, n := range definedVars(it) {
			if d := s.decls[n]; d != nil && d.kind == varDecl && !ranDefs[n] {
				redefined = append(redefined, n)
			}
			ranDefs[n] = true
		}
		s.registerVars(it)
	}
	if rerr := s.reevalDependants(ctx, redefined, group[:ran]); rerr != nil {
		err = &notedError{err, rerr.Error()}
	}
	var unsure []string
	for _, it := range group[ran:] {
		for _, n := range definedVars(it) {
			if !ranDefs[n] && !snap.put(n) {
				unsure = append(unsure, n)
			}
		}
	}
	if len(unsure) == 0 {
		return err
	}
	return s.undoByValue(ctx, unsure, saved, err)
}

// assignedByCall returns the variables that the statement it defines with the results of one
// call (res, err := sbi.Sequential(…)) when they hold what the call returned: the interrupt
// came while the call ran in compiled code, the call returned (a library call that polls for
// the interrupt returns what it had done and an error), and the interpreter assigned its
// results before it stopped the cell at the next statement, whose marker then says that the
// statement did not run. A call that did not return (an interpreted function stopped midway)
// assigns nothing, and the variables keep their zero values: then it returns none, and the
// statement is undone as one that did not run.
func (s *Session) assignedByCall(ctx context.Context, it item) []string {
	as, ok := it.stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Rhs) != 1 {
		return nil
	}
	if _, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); !ok {
		return nil
	}
	names := definedVars(it)
	globals := s.globals(ctx)
	for _, n := range names {
		if v, ok := globals[n]; ok && v.IsValid() && !v.IsZero() {
			return names
		}
	}
	return nil
}

// undoByValue is the way of undoUnrun and undoDecls when the interpreter's symbols cannot be
// reached: the variables of the session that the statements or declarations which did not run
// define anew get their saved values back where the interpreter kept their type; the error
// names the others, which may hold zero values or, for constants, the cell's values.
func (s *Session) undoByValue(ctx context.Context, names []string, saved map[string]reflect.Value, err error) error {
	redefined := map[string]reflect.Value{}
	var fresh, consts, unsaved []string
	for _, n := range names {
		d := s.decls[n]
		switch v, ok := saved[n]; {
		case ok:
			redefined[n] = v
		case d != nil && d.kind == varDecl:
			unsaved = append(unsaved, n)
		case d != nil && d.kind == constDecl:
			consts = append(consts, n)
		default:
			fresh = append(fresh, n)
		}
	}
	var notes []string
	if len(unsaved) > 0 {
		sort.Strings(unsaved)
		notes = append(notes, fmt.Sprintf("(%s: defined anew by this cell, whose definition did not run, and the session "+
			"could not save the old value: it may hold the zero value)", strings.Join(unsaved, ", ")))
	}
	if lost := s.restoreRedefined(ctx, redefined); len(lost) > 0 {
		notes = append(notes, fmt.Sprintf("(%s: defined anew with another type by this cell, whose definition did not run: "+
			"the old value is lost)", strings.Join(lost, ", ")))
	}
	if len(fresh) > 0 {
		sort.Strings(fresh)
		notes = append(notes, fmt.Sprintf("(%s: defined by this cell, whose definition did not run: "+
			"it exists with its zero value)", strings.Join(fresh, ", ")))
	}
	if len(consts) > 0 {
		sort.Strings(consts)
		notes = append(notes, fmt.Sprintf("(%s: declared anew by this cell, whose declaration did not compile: "+
			"the constant may hold the value this cell gave it)", strings.Join(consts, ", ")))
	}
	if len(notes) == 0 {
		return err
	}
	return &notedError{err, strings.Join(notes, "\n")}
}

// definedVars returns the names a top-level statement defines with :=.
func definedVars(it item) []string {
	as, ok := it.stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil
	}
	var names []string
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	return names
}

// saveRedefined copies the values of the session's variables that the statements of group
// define anew at the top of the cell, for undoByValue.
func (s *Session) saveRedefined(ctx context.Context, group []item) map[string]reflect.Value {
	var names []string
	for _, it := range group {
		names = append(names, definedVars(it)...)
	}
	return s.saveValues(ctx, names)
}

// saveValues copies the values of the session's variables among names, for undoByValue.
func (s *Session) saveValues(ctx context.Context, names []string) map[string]reflect.Value {
	saved := map[string]reflect.Value{}
	var globals map[string]reflect.Value
	for _, name := range names {
		if s.decls[name] == nil || s.decls[name].kind != varDecl {
			continue
		}
		if globals == nil {
			globals = s.globals(ctx)
		}
		if v, ok := globals[name]; ok && v.IsValid() {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			saved[name] = c
		}
	}
	return saved
}

// globals returns the interpreter's global variables. The interpreter sizes its frame for the
// variables of a program that did not compile only when it next runs code, and until then
// panics when asked for them: then it runs an empty program first.
func (s *Session) globals(ctx context.Context) map[string]reflect.Value {
	for range 2 {
		if g := s.globalValues(); g != nil {
			return g
		}
		_, _ = s.eval(ctx, ";")
	}
	return map[string]reflect.Value{}
}

// restoreRedefined puts back the values saveRedefined saved. It returns the names whose
// variable the interpreter replaced with one of another type, whose values it cannot put back.
func (s *Session) restoreRedefined(ctx context.Context, saved map[string]reflect.Value) (lost []string) {
	if len(saved) == 0 {
		return nil
	}
	globals := s.globals(ctx)
	for name, old := range saved {
		v, ok := globals[name]
		if ok && v.Type() == old.Type() && v.CanSet() {
			v.Set(old)
			continue
		}
		lost = append(lost, name)
	}
	sort.Strings(lost)
	return lost
}

// registerVars records the variables a top-level statement defines.
func (s *Session) registerVars(it item) {
	as, ok := it.stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return
	}
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		s.seq++
		d := &decl{kind: varDecl, name: id.Name, text: it.text, src: it.src, cell: s.cell, line: it.line, col: it.col, stmt: true, seq: s.seq}
		if len(as.Rhs) == len(as.Lhs) {
			d.typeExpr = literalType(as.Rhs[i])
		}
		s.decls[id.Name] = d
	}
}

// Evaluate runs code as a cell of its own and returns the bundle of its trailing expression
// (for user_expressions of an execute request).
func (s *Session) Evaluate(code string) (map[string]any, *Error) {
	cell := s.cell
	defer func() { s.cell = cell }()
	s.done = ranSpan{}
	res := s.runGo(context.Background(), code, cell)
	if res.Data == nil && res.Err == nil {
		res.Data = map[string]any{}
	}
	return res.Data, res.Err
}

// extraPackage reports whether path is one of the packages of Config.Symbols.
func (s *Session) extraPackage(path string) bool {
	for k := range s.opts.Symbols {
		if k[:strings.LastIndexByte(k, '/')] == path {
			return true
		}
	}
	return false
}
