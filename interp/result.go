package interp

import (
	"context"
	"errors"
	"go/ast"
	"go/scanner"
	"go/token"
	"reflect"
	"strconv"
	"strings"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/stdlib"
)

// This file shows a cell's result: the value of its trailing expression, rendered as a MIME
// bundle, after resultCount has decided from the source how many values there are to show.

// evalExpr evaluates the cell's trailing expression and renders its value; a call of a
// function without results shows nothing.
func (s *Session) evalExpr(ctx context.Context, it item) (map[string]any, error) {
	e := it.stmt.(*ast.ExprStmt).X
	n := s.resultCount(e)
	text := exprText(it)
	dir := ";" + lineDirective(s.cell, it.line, it.col)
	// wrap puts code around the expression; the expression keeps its own line and columns
	wrap := func(before, after string) string {
		return ";" + before + lineDirective(s.cell, it.line, it.col) + text + after
	}
	switch {
	case n == 0:
		_, err := s.eval(ctx, dir+text)
		return nil, err
	case n == 1:
		// The value is kept in a variable first, so that trying to show it richly cannot run
		// the expression twice.
		var v reflect.Value
		_, err := s.eval(ctx, wrap("_gosbiV := (", ")"))
		if err == nil {
			v, err = s.showStored(ctx)
		} else if !s.ran(err) {
			// the interpreter cannot store some values (results of generic calls): show
			// them directly
			v, err = s.eval(ctx, wrap("_gosbiRender(", ")"))
		}
		if err != nil {
			return nil, err
		}
		data, _ := v.Interface().(map[string]any)
		return data, nil
	case n > 1:
		names := make([]string, n)
		for i := range names {
			names[i] = "_gosbiR" + strconv.Itoa(i)
		}
		if _, err := s.eval(ctx, wrap(strings.Join(names, ", ")+" :=", "")); err != nil {
			return nil, err
		}
		parts := make([]string, n)
		for i, nm := range names {
			v, err := s.eval(ctx, nm)
			if err != nil {
				return nil, err
			}
			parts[i] = display.PlainText(renderValue(v))
		}
		return map[string]any{display.MIMEText: strings.Join(parts, "\n")}, nil
	}
	v, err := s.eval(ctx, dir+text)
	if err != nil || isVoid(v) {
		return nil, err
	}
	return renderValue(v), nil
}

// showStored renders the value of _gosbiV by the first of its methods MIMEBundle, Error and
// String that it has (the order of fmt), and as a value when it has none of them. A method
// that panics fails the cell, unless the value is a nil pointer: that shows <nil>, as fmt
// shows it.
func (s *Session) showStored(ctx context.Context) (reflect.Value, error) {
	if p := s.storedValue(); p.IsValid() && p.Kind() == reflect.Pointer && p.IsNil() {
		// the interpreter makes a nil pointer a nil interface: call its methods directly
		for _, show := range []string{"_gosbiBundleOf(_gosbiV.MIMEBundle())", "_gosbiErrorText(_gosbiV.Error())", "_gosbiText(_gosbiV.String())"} {
			v, err := s.eval(ctx, show)
			switch {
			case err == nil:
				return v, nil
			case !s.ran(err):
				continue // the value lacks the method
			case ctx.Err() == nil:
				return reflect.ValueOf(display.Render(nil)), nil
			}
			return reflect.Value{}, err
		}
		return s.eval(ctx, "_gosbiRender(_gosbiV)")
	}
	// Each probe compiles code, which the interpreter keeps: the Error and String probes run
	// only for a value of a cell's type with methods, which reaches compiled code wrapped
	// (_gosbiRenderPlain answers nil for it); any other value has shown its methods to
	// display.Render, as fmt sees them.
	v, err := s.eval(ctx, "_gosbiBundle(_gosbiV)")
	if err == nil || s.ran(err) {
		return v, err
	}
	if v, err = s.eval(ctx, "_gosbiRenderPlain(_gosbiV)"); err != nil || !v.IsNil() {
		return v, err
	}
	for _, show := range []string{"_gosbiError(_gosbiV)", "_gosbiString(_gosbiV)"} {
		v, err := s.eval(ctx, show)
		if err == nil || s.ran(err) {
			return v, err
		}
	}
	return s.eval(ctx, "_gosbiRender(_gosbiV)")
}

// storedValue returns the value of _gosbiV as the interpreter holds it, read from its globals
// rather than by evaluating code (each evaluation compiles code the interpreter keeps), or the
// invalid Value when it cannot be read.
func (s *Session) storedValue() reflect.Value {
	return s.globalValues()["_gosbiV"]
}

// exprText is the source of the trailing expression of item it without comments after it: a
// comment after the expression ("x // shown") would otherwise swallow the code that evalExpr
// puts after it. It scans the item's current text, which a rewrite may have changed.
func exprText(it item) string {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(it.text))
	sc.Init(file, []byte(it.text), nil, scanner.ScanComments)
	end := len(it.text)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT || tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		end = file.Offset(pos) + tokenLen(tok, lit)
	}
	return it.text[:end]
}

func tokenLen(tok token.Token, lit string) int {
	if lit != "" {
		return len(lit)
	}
	return len(tok.String())
}

// ran reports whether an evaluation that failed had started running the user's code: a
// runtime panic (with frames in a cell) or an interruption, as opposed to a refusal to compile.
func (s *Session) ran(err error) bool {
	var p yaegi.Panic
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return errors.As(err, &p) && len(s.stderr.Frames()) > 0
}

// isVoid recognises what the interpreter returns for a call without results.
func isVoid(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Interface && v.Type().Elem().NumMethod() == 0 {
		return v.IsNil() || v.Elem().IsNil()
	}
	return false
}

func renderValue(v reflect.Value) map[string]any {
	if !v.IsValid() {
		return display.Render(nil)
	}
	if !v.CanInterface() {
		return map[string]any{display.MIMEText: v.String()}
	}
	return display.Render(v.Interface())
}

// resultCount returns how many values an expression has: calls of functions without results
// have none, tuples several; -1 when it cannot tell (the interpreter's value decides).
func (s *Session) resultCount(e ast.Expr) int {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return 1
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if d, ok := s.decls[f.Name]; ok {
			switch d.kind {
			case funcDecl:
				return d.results
			case typeDecl:
				return 1
			}
			return -1
		}
		switch f.Name {
		case "panic", "print", "println", "close", "delete", "clear":
			return 0
		case "len", "cap", "append", "complex", "real", "imag", "new", "make", "min", "max", "copy",
			"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
			"float32", "float64", "string", "byte", "rune", "bool", "any", "complex64", "complex128":
			return 1
		}
	case *ast.SelectorExpr:
		if inner, ok := ast.Unparen(f.X).(*ast.CallExpr); ok {
			// a method of the result of a compiled call, e.g. viz.Coverage(c).Show()
			return methodOutputs(s.compiledResult(inner), f.Sel.Name)
		}
		pkg, ok := f.X.(*ast.Ident)
		if !ok {
			return -1
		}
		if d, isVar := s.decls[pkg.Name]; isVar {
			return s.methodResults(d, f.Sel.Name)
		}
		path, ok := s.imports[pkg.Name]
		if !ok {
			return -1
		}
		if path == "fmt" && strings.Contains(f.Sel.Name, "rint") && !strings.HasPrefix(f.Sel.Name, "S") &&
			!strings.HasPrefix(f.Sel.Name, "A") {
			return 0 // fmt.Print* and fmt.Fprint*: their (n, err) is not worth showing
		}
		sym, ok := stdlib.Symbols[path+"/"+packageName(path)][f.Sel.Name]
		if !ok {
			return -1
		}
		if sym.Kind() == reflect.Func {
			return sym.Type().NumOut()
		}
		return 1
	case *ast.FuncLit:
		return fieldCount(f.Type.Results)
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.InterfaceType, *ast.StarExpr:
		return 1
	}
	return -1
}

// compiledResult returns the type of the one result of a call of a compiled package's
// function, or nil when the call is of anything else.
func (s *Session) compiledResult(call *ast.CallExpr) reflect.Type {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || s.decls[pkg.Name] != nil {
		return nil
	}
	path, ok := s.imports[pkg.Name]
	if !ok {
		return nil
	}
	sym, ok := stdlib.Symbols[path+"/"+packageName(path)][sel.Sel.Name]
	if !ok || sym.Kind() != reflect.Func || sym.Type().NumOut() != 1 {
		return nil
	}
	return sym.Type().Out(0)
}

// methodOutputs returns the number of results of method name of type t (or of *t), or -1.
func methodOutputs(t reflect.Type, name string) int {
	if t == nil {
		return -1
	}
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		if m, ok := t.MethodByName(name); ok {
			return m.Type.NumOut()
		}
	}
	return -1
}

// methodResults returns the number of results of method name of a session variable, or -1.
func (s *Session) methodResults(d *decl, name string) int {
	if d.kind != varDecl && d.kind != constDecl {
		return -1
	}
	if m, ok := s.decls[strings.TrimPrefix(d.typeExpr, "*")+"."+name]; ok {
		return m.results
	}
	v, ok := s.global(d.name)
	if !ok {
		return -1
	}
	for _, t := range []reflect.Type{v.Type(), reflect.PointerTo(v.Type())} {
		if m, ok := t.MethodByName(name); ok {
			return m.Type.NumOut()
		}
	}
	return -1
}
