package interp

import (
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"

	yaegi "github.com/traefik/yaegi/interp"
)

// The interpreter stops interpreted code by a run number: an interrupted evaluation advances
// the interpreter's number, and code runs only while the number of its frame equals it. A
// function literal keeps the number of the evaluation that made it (functions declared with
// func take the current one when called), so after an interrupt every function literal made
// before it (in a variable, a struct field, a map, or returned by a function) would return
// zero values without running. The session therefore sets the number back once the
// interrupted evaluation has stopped. Interpreted goroutines that take a step in between stop
// with the cell; one that waits then (in time.Sleep, a library call, a channel operation of an
// earlier cell) goes on.

// runIDOf returns the address of the interpreter's run number, or nil when the field is
// missing or of another type (a newer interpreter; TestRunIDField fails then).
func runIDOf(yi *yaegi.Interpreter) *uint64 {
	f := settableField(reflect.ValueOf(yi).Elem(), "id")
	if !f.IsValid() || f.Type() != reflect.TypeFor[uint64]() {
		return nil
	}
	return f.Addr().Interface().(*uint64)
}

// runID returns the interpreter's run number (0 without access to it).
func (s *Session) runID() uint64 {
	if s.runIDAddr == nil {
		return 0
	}
	return atomic.LoadUint64(s.runIDAddr)
}

// rewindRunID sets the run number back to id, that of before an interrupted evaluation,
// which has stopped. Without access to the number it returns a note for the cell's error.
func (s *Session) rewindRunID(id uint64, err error) error {
	if s.runIDAddr == nil {
		return &notedError{err, "function literals made before this interrupt no longer run (calling one " +
			"returns zero values): run the cells that made them again"}
	}
	atomic.StoreUint64(s.runIDAddr, id)
	return err
}

// An interrupt also closes the channel by which the interpreter ends the channel operations of
// the evaluation it stops, and every function literal made during the interrupted evaluation
// keeps that channel, whether the cell's code made it or a function the cell called (a
// function, a method, or a function literal of an earlier cell that returns a closure):
// afterwards such a literal ends at once where it would wait on a channel (a receive, a send,
// a select or a range over a channel that must wait), returning zero values or failing inside
// the interpreter. Function literals made by earlier evaluations are not affected. The
// interpreter offers no way to replace that channel, so the interrupt's error says so whenever
// the cell, or a function of the session that the cell names (directly or through others),
// has a function literal that may wait on a channel.

// waitNote is the note of an interrupted cell that may have made a function literal that may
// wait on a channel.
const waitNote = "note: a function literal made while this cell ran (by the cell, or by a function it called) " +
	"now ends at once where it would wait on a channel (a receive, send, select or range over a channel), " +
	"returning zero values or failing: run the cell again before calling it"

// The same holds for the methods of a value of the session's types that a function or a
// function literal put in an interface while the interrupted cell ran (an error, a
// fmt.Stringer, a sort.Interface): the interpreter ties the methods called through that
// interface to the frame of the function that made it, so they end at once where they would
// wait on a channel, whether a cell or compiled code (fmt.Println, sort.Sort) calls them.
// Interfaces that the cell's top-level statements make are not affected. The interrupt's error
// names the methods that the cell reaches (as literalMayWait follows names) and whose own body
// may wait on a channel.

// methodWaitNote is the note of an interrupted cell that may have put a value whose methods
// may wait on a channel in an interface; methods are named "Type.Method".
func methodWaitNote(methods []string) string {
	what, rest := "method "+methods[0], "the method, called through that interface from a cell or from "+
		"compiled code such as fmt.Println, now ends at once where it would wait"
	if len(methods) > 1 {
		what, rest = "methods "+strings.Join(methods, ", "), "the methods, called through that interface from "+
			"a cell or from compiled code such as fmt.Println, now end at once where they would wait"
	}
	return "note: " + what + " may wait on a channel: where a function run by this cell put a value in an " +
		"interface (an error, a fmt.Stringer, a sort.Interface, …), " + rest + ", returning zero values " +
		"or failing: run the cell again before using such a value"
}

// waitNotes returns the notes of an interrupted cell with the items about what it may have
// made that now ends at once where it would wait on a channel (see literalMayWait).
func (s *Session) waitNotes(items []item) []string {
	literal, methods := s.literalMayWait(items)
	var notes []string
	if literal {
		notes = append(notes, waitNote)
	}
	if len(methods) > 0 {
		notes = append(notes, methodWaitNote(methods))
	}
	return notes
}

// literalMayWait reports whether the items, or what they call, may have made a function
// literal that may wait on a channel: the items have one, or a function or method of the
// session that they name (a method by its name or its type's) has one in its body, or a
// variable they name was defined by a function literal that has one inside; the functions,
// methods and variables these name are followed in turn. A definition whose source no longer
// parses counts as having one. It also returns, sorted, the methods so reached whose own body
// may wait on a channel, which an interface made while the items ran may call.
func (s *Session) literalMayWait(items []item) (literal bool, methods []string) {
	byName := map[string][]*decl{} // methods by method name and by type name
	for _, d := range s.decls {
		if d.kind == methodDecl {
			typ, name, _ := strings.Cut(d.name, ".")
			byName[name] = append(byName[name], d)
			byName[typ] = append(byName[typ], d)
		}
	}
	seen := map[*decl]bool{}
	var todo []*decl
	follow := func(n ast.Node) {
		for name := range namesIn(n) {
			cands := byName[name]
			if d := s.decls[name]; d != nil {
				cands = append(cands[:len(cands):len(cands)], d)
			}
			for _, d := range cands {
				if !seen[d] && (d.kind == funcDecl || d.kind == methodDecl || d.kind == varDecl) {
					seen[d] = true
					todo = append(todo, d)
				}
			}
		}
	}
	for _, it := range items {
		literal = literal || waitingLiteral(node(it), false)
		follow(node(it))
	}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		defs, err := splitCell(d.text, d.cell)
		if err != nil {
			literal = true
			continue
		}
		for _, it := range defs {
			// a variable's own function literal was made when it was defined, not by this cell
			literal = literal || waitingLiteral(node(it), d.kind == varDecl)
			if fd, ok := it.decl.(*ast.FuncDecl); ok && d.kind == methodDecl && fd.Body != nil && mayWait(fd.Body) {
				methods = append(methods, d.name)
			}
			follow(node(it))
		}
	}
	sort.Strings(methods)
	return literal, methods
}

// waitingLiteral reports whether n has a function literal that may wait on a channel; with
// nested, only one inside another function literal.
func waitingLiteral(n ast.Node, nested bool) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		lit, ok := m.(*ast.FuncLit)
		if ok && !found {
			if nested {
				found = waitingLiteral(lit.Body, false)
			} else {
				found = mayWait(lit.Body)
			}
			return false
		}
		return !found
	})
	return found
}

// namesIn returns the identifiers of n, selected names included ("M" of "x.M").
func namesIn(n ast.Node) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			names[id.Name] = true
		}
		return true
	})
	return names
}

// mayWait reports whether the body has a channel operation that may wait.
func mayWait(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt, *ast.SelectStmt:
			found = true
		case *ast.UnaryExpr:
			found = found || n.Op == token.ARROW
		case *ast.RangeStmt:
			found = found || n.Value == nil
		}
		return !found
	})
	return found
}
