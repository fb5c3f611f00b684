package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"reflect"
	"strings"

	"github.com/gosbi/gosbi/interp/explain"
)

// A cell runs in parts (see runGo): its imports, then its groups of declarations and of
// statements and its trailing expression in order; a cell with magics runs its magics and the
// Go source between them in order (see runSegments). Each part is compiled only when its turn
// comes: compiling a statement that defines a variable anew creates the new variable, which
// the parts compiled after it read (see redefinesVar). A later part that does not compile is
// therefore found after the earlier parts ran. The session records the lines that ran
// (Session.done), and the error of a part that did not compile, or that the session refused
// before it ran, says which lines ran before it and that what they did stays (ranNote). An
// import runs none of the cell's code and counts for nothing.

// ranSpan is the lines of a cell that ran: from line first to line last, whose last column
// that ran is col. The zero span holds no line.
type ranSpan struct {
	first, last, col int
}

// add records that the lines of items ran.
func (r *ranSpan) add(items ...item) {
	for _, it := range items {
		line, col := it.lastPos()
		if r.first == 0 || it.line < r.first {
			r.first = it.line
		}
		if line > r.last || line == r.last && col > r.col {
			r.last, r.col = line, col
		}
	}
}

// addLine records that the whole of a line ran (a magic).
func (r *ranSpan) addLine(line int) {
	if r.first == 0 || line < r.first {
		r.first = line
	}
	if line >= r.last {
		r.last, r.col = line, 0
	}
}

// lastPos returns the line and column of the item's last character as the cell shows it.
func (it item) lastPos() (line, col int) {
	text := strings.TrimRight(it.src, " \t\r\n")
	nl := strings.LastIndexByte(text, '\n')
	if nl < 0 {
		return it.line, it.col + len(text) - 1
	}
	return it.line + strings.Count(text, "\n"), len(text) - nl - 1
}

// ranNote adds to err, the error of a part of the running cell that did not compile or was
// refused before it ran, a note that says which lines of the cell ran before the part was
// reached, if any did. at is the line where the failing part starts (0 when it starts on a line
// of its own): where the lines that ran end on it, the note gives their last column.
func (s *Session) ranNote(err error, at int) error {
	r := s.done
	if r.first == 0 || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // nothing ran, or an interrupt stopped the cell, which its error says
	}
	unit := "cell"
	if s.fileName != "" {
		unit = "file" // a script, run as one cell
	}
	where := "this " + unit
	var lines string
	switch {
	case r.first == r.last && r.last == at && r.col > 0:
		lines = fmt.Sprintf("line %d of %s, up to column %d,", r.last, where, r.col)
	case r.first == r.last:
		lines = fmt.Sprintf("line %d of %s", r.last, where)
	case r.last == at && r.col > 0:
		lines = fmt.Sprintf("lines %d–%d of %s, line %d up to column %d,", r.first, r.last, where, r.last, r.col)
	default:
		lines = fmt.Sprintf("lines %d–%d of %s", r.first, r.last, where)
	}
	did := "what they did stays"
	if r.first == r.last {
		did = "what it did stays"
	}
	return &notedError{err, "(" + lines + " ran before this error was found, and " + did + ": " +
		"a " + unit + " runs in parts, each compiled when its turn comes)"}
}

// The commonest part that does not compile after others ran is a trailing expression that uses
// a name nothing defines (a misspelt variable in fmt.Println(reslt)). checkTrailing finds it
// before the cell's other parts run, so that the cell runs nothing, as in Go. It decides only
// where that is certain: in an expression, every identifier is a use of a name except a
// selected name (x.f), a composite literal's key (which may name a field) and the names that a
// function literal or type literal in it declares (parameters, fields, methods, labels), which
// count as defined like every name that an item of the cell declares anywhere. A used name
// that none of these define and that neither the interpreter's package main (which holds all
// the session's names, as the interpreter keeps them), nor an import, nor Go's universe, nor a
// package that a cell may import knows stays undefined while the cell's other parts run: they
// cannot define it. Anything else is left to the interpreter, when the expression's turn
// comes.

// checkTrailing returns the error that the interpreter's compiler gives a name that the
// trailing expression of items uses and nothing defines, in the compiler's form, or nil.
func (s *Session) checkTrailing(items []item) error {
	last := items[len(items)-1]
	e := last.stmt.(*ast.ExprStmt).X
	table := symbolTable(s.yi)
	if !table.IsValid() || s.imports["."] != "" {
		return nil // a dot import puts names in scope that the session does not list
	}
	defined := map[string]bool{}
	for _, it := range items {
		definedNames(node(it), defined)
	}
	undefined := func(name string) bool {
		if defined[name] || !s.undefined(name) {
			return false
		}
		sym := table.MapIndex(reflect.ValueOf(name).Convert(table.Type().Key()))
		return !sym.IsValid() || sym.IsNil()
	}
	found := explain.UndefinedUse(e, undefined)
	if found == nil {
		return nil
	}
	p := last.fset.Position(found.Pos())
	return fmt.Errorf("_.go:%d:%d: undefined: %s", p.Line, p.Column, found.Name)
}
