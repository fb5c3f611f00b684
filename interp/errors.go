package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"reflect"
	"strings"
	"unicode/utf8"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/interp/explain"
	"github.com/gosbi/gosbi/interp/rewrite"
)

// This file is the seam between the session and package explain, which turns what the
// interpreter reports for a failed cell into the cell's one Error: the session says what kind
// of failure it is and answers the explainers' questions (explainEnv).

// fail turns an error of the interpreter into the cell's one Error.
func (s *Session) fail(err error) Result {
	return Result{Err: s.toError(err)}
}

func (s *Session) toError(err error) *Error {
	var ce *cellError
	var p yaegi.Panic
	var r explain.Report
	var ne *notedError
	switch {
	case errors.As(err, &ne):
		e := s.toError(ne.err)
		e.Value += "\n" + ne.note
		e.Traceback = append(e.Traceback, ne.note)
		return e
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("cell [%d] interrupted", s.cell)
		return &Error{Name: "Interrupted", Value: msg, Traceback: []string{msg}}
	case errors.As(err, &ce):
		r = explain.Located(s.explainEnv(), ce.Error())
	case errors.As(err, &p):
		r = explain.Panic(s.explainEnv(), p.Value, s.stderr.Frames())
	default:
		r = explain.Compile(s.explainEnv(), err.Error())
	}
	return &Error{Name: r.Name, Value: r.Value, Traceback: r.Traceback, ExitCode: r.ExitCode}
}

// notedError is a cell's error with a note of the session about the state the failure left,
// which the error shown adds after its explanation.
type notedError struct {
	err  error
	note string
}

func (e *notedError) Error() string { return e.err.Error() + "\n" + e.note }
func (e *notedError) Unwrap() error { return e.err }

// cellPos rewrites the positions "_.go:1300002:5" of the interpreter as "cell [3] line 2:5".
func (s *Session) cellPos(msg string) string {
	return explain.Positions(msg, s.where, s.isLine)
}

// explainEnv is what the explainers may ask of the session about the running cell.
func (s *Session) explainEnv() explain.Env {
	items := make([]explain.Item, len(s.items))
	defined := map[string]bool{}
	for i, it := range s.items {
		items[i] = explain.Item{Node: node(it), Fset: it.fset, Text: it.src, Line: it.line, Col: it.col, Stmt: it.kind == stmtItem,
			Cell: s.cell, Base: lineBase(s.cell)}
		definedNames(node(it), defined)
	}
	return explain.Env{
		Cell:      s.cell,
		File:      s.fileName,
		Items:     items,
		Where:     s.where,
		IsLine:    s.isLine,
		Signature: s.signature,
		Undefined: func(name string) bool { return !defined[name] && s.undefined(name) },
		Source:    s.source,
		Restarted: s.opts.Restarted,
		Package:   func(name string) bool { return s.imports[name] != "" },
		Symbols:   s.symbols,
		VarType: func(name string) (string, []string, bool) {
			if defined[name] {
				return "", nil, false // the cell redefines it: the session's type may not be its
			}
			return s.varType(name)
		},
		VarSource: func(name string) string {
			if d := s.decls[name]; d != nil && d.kind == varDecl {
				return d.src
			}
			return ""
		},
		SourceAt: s.sourceAt,
	}
}

// symbols returns the exported names of the package the session imported as name, or nil.
func (s *Session) symbols(name string) []string {
	if s.imports[name] == "" {
		return nil
	}
	return s.members(name)
}

// varType returns the type of the session's variable name as Go writes it (its declared type,
// the type of its composite literal, or the compiled type of its value; "" when none of these
// is known) and the fields and methods of that type: of the interface, for a variable of an
// interface type, not of its dynamic value. ok is false when name is no variable of the
// session.
func (s *Session) varType(name string) (typ string, members []string, ok bool) {
	d := s.decls[name]
	if d == nil || d.kind != varDecl && d.kind != constDecl {
		return "", nil, false
	}
	typ, members = d.typeExpr, s.members(name)
	if v, ok := s.globalValues()[name]; ok && v.IsValid() {
		if typ == "" {
			typ = compiledTypeName(v.Type())
		}
		switch {
		case v.Type().PkgPath() == yaegiPath:
			members = nil // the interpreter's own holder of a value of a cell's interface type
		case v.Kind() == reflect.Interface:
			members = typeMembers(v.Type())
		}
	}
	if m := s.interfaceMethods(typ); m != nil {
		members = m
	}
	return typ, members, true
}

// yaegiPath is the import path of the interpreter, whose types hold the values of cells'
// interface types.
var yaegiPath = reflect.TypeFor[yaegi.Panic]().PkgPath()

// interfaceMethods returns the methods of the interface type typ as a cell writes it: an
// interface type the session declared or an interface literal, with the methods of the
// interfaces it embeds (the session's, compiled ones, error), or a compiled interface type;
// nil for any other type.
func (s *Session) interfaceMethods(typ string) []string {
	e, err := parser.ParseExpr(typ)
	if err != nil {
		return nil
	}
	var res []string
	s.appendInterfaceMethods(&res, e, map[string]bool{})
	return res
}

// appendInterfaceMethods appends to res the methods of the interface type expression e; seen
// holds the names of the session's types already listed.
func (s *Session) appendInterfaceMethods(res *[]string, e ast.Expr, seen map[string]bool) {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Name == "error" && s.decls["error"] == nil {
			*res = append(*res, "Error")
		}
		if t := s.sessionTypeExpr(e.Name); t != nil && !seen[e.Name] {
			seen[e.Name] = true
			s.appendInterfaceMethods(res, t, seen)
		}
	case *ast.SelectorExpr:
		if t, isType := s.compiledType(e); isType && t.Kind() == reflect.Interface {
			for i := range t.NumMethod() {
				*res = append(*res, t.Method(i).Name)
			}
		}
	case *ast.InterfaceType:
		for _, m := range e.Methods.List {
			if len(m.Names) == 0 { // an embedded interface
				s.appendInterfaceMethods(res, m.Type, seen)
			}
			for _, id := range m.Names {
				*res = append(*res, id.Name)
			}
		}
	}
}

// compiledTypeName is the name of t as Go writes it ("*sbi.TrainResult", "[]float64"), or ""
// for a type the interpreter made for a cell's type, whose name reflect does not know, and for
// the interpreter's holder of a value of a cell's interface type.
func compiledTypeName(t reflect.Type) string {
	name := t.String()
	if strings.Contains(name, "struct {") || strings.Contains(name, "interface {") || t.PkgPath() == yaegiPath {
		return ""
	}
	return name
}

// sourceAt returns the function, method or variable definition of the session whose source
// holds the interpreter's line, for the frame of a function literal it holds.
func (s *Session) sourceAt(line int) (explain.Item, bool) {
	for _, d := range s.decls {
		if d.kind != funcDecl && d.kind != methodDecl && d.kind != varDecl {
			continue
		}
		base := lineBase(d.cell)
		first := base + d.line
		// the lines as written, which the interpreter's positions follow, not the rewritten text's
		if line < first || line > first+strings.Count(d.src, "\n") {
			continue
		}
		return explain.Item{Text: d.src, Line: d.line, Col: d.col, Stmt: d.stmt, Cell: d.cell, Base: base}, true
	}
	return explain.Item{}, false
}

// signature is the declaration of the function fn ("diag.C2ST", "f", "x.Method") as its
// documentation gives it, or "".
func (s *Session) signature(fn string) string {
	doc, ok := s.Inspect(fn, utf8.RuneCountInString(fn))
	if !ok {
		return ""
	}
	sig, _, _ := strings.Cut(doc, "\n\n")
	if !strings.HasPrefix(sig, "func") || strings.Contains(sig, "\n") {
		return ""
	}
	return sig
}

// undefined reports whether nothing of the session, an importable package or the universe
// defines name.
func (s *Session) undefined(name string) bool {
	if name == "_" || s.decls[name] != nil || s.imports[name] != "" || types.Universe.Lookup(name) != nil {
		return false
	}
	if name == "min" || name == "max" || name == "clear" || strings.HasPrefix(name, "_gosbi") { // the session's own helpers
		return false
	}
	indexPackages()
	return pkgIndex.byName[name] == ""
}

// source returns a function or method of the session by the name a panic frame gives it: a
// method by its name alone, when only one type has a method of that name.
func (s *Session) source(fn string) (explain.Source, bool) {
	d := s.decls[fn]
	if fn == rewrite.MainName {
		d = s.decls["main"]
	}
	if d == nil {
		for name, m := range s.decls {
			if m.kind == methodDecl && strings.HasSuffix(name, "."+fn) {
				if d != nil {
					return explain.Source{}, false
				}
				d = m
			}
		}
	}
	if d == nil || (d.kind != funcDecl && d.kind != methodDecl) {
		return explain.Source{}, false
	}
	return explain.Source{Text: d.src, Cell: d.cell, Line: d.line}, true
}

// compiledDecl says what an interpreted declaration of the session is, for the errors of a
// %%compile cell that uses it (explain.CompiledUndefined).
func (s *Session) compiledDecl(name string) (kind string, cell int, ok bool) {
	d := s.decls[name]
	if d == nil {
		return "", 0, false
	}
	switch d.kind {
	case varDecl:
		kind = explain.KindVar
	case constDecl:
		kind = explain.KindConst
	case funcDecl:
		kind = explain.KindFunc
	case typeDecl:
		kind = explain.KindType
	default:
		return "", 0, false
	}
	return kind, d.cell, true
}
