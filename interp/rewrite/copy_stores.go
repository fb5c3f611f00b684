package rewrite

import (
	"go/ast"
	"go/token"
	"strings"
)

// copyStores works around the interpreter's store of a value of a type of the session that
// has methods into an element of a slice, an array or a map, a field or a pointer's target
// (xs[i] = P{i}, m[k] = mk(k), w.A = P{i}, *p = P{i}) straight from a composite literal or a
// call: where the element's type is an interface (any, error, a cell's interface), it keeps a
// record that refers to the storage of the literal or of the call's result, which the next run
// of the statement (a loop's next iteration) reuses, so that every element ends holding the
// last value; where the interface is the cell's own (S of []S), the store fails with
// "reflect.Set: value of type interp.valueInterface is not assignable". A value stored from a
// variable is copied, so the pass moves the right side into temporaries of a block:
//
//	xs[i] = P{i}
//
// runs as
//
//	{ _gosbiT := P{i}; xs[i] = _gosbiT }
//
// which has the same effect in Go: the right side is evaluated once, before the store, and the
// left side holds no call or receive whose order could change. The pass moves a composite literal of a type of the
// session with methods, and, in a session with methods, a call that is no conversion to a
// predeclared type, no call of a builtin nor of a compiled package's function (none of which
// gives a value of a cell's type). It leaves an assignment whose left side holds a call or a
// receive (xs[f()] = P{i}), as the temporary would change the order Go evaluates them in, one
// of several values (a[i], b[j] = P{i}, P{j}, which the interpreter fails with the error of
// reflect, temporaries or not), and one that stands where no block may (a for loop's post
// statement, an if's or a switch's init statement): there a store of such a value still
// aliases, and a variable (v := P{i}; xs[i] = v) copies it. An element of a compiled interface
// type (error, fmt.Stringer) is not cured by a temporary, as the interpreter's wrapper of the
// value aliases a variable too: fresh-wrappers, which runs next, sends such a value through a
// function literal.
//
// Upstream: no upstream issue found.
var copyStores = Pass{
	Name:  "copy-stores",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.HasMethods == nil {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.copyStoreStep(env) })
	},
}

// TempName is the temporary that copy-stores declares.
const TempName = "_gosbiT"

// copyStoreStep returns the unit's text with its first store that needs it moved into
// temporaries, and false when none does.
func (p *parsed) copyStoreStep(env Env) (string, bool) {
	calls := env.types != nil && len(env.types().methods) > 0
	var found *ast.AssignStmt
	visit := func(list []ast.Stmt) {
		for _, st := range list {
			if l, ok := st.(*ast.LabeledStmt); ok {
				st = l.Stmt
			}
			if as, ok := st.(*ast.AssignStmt); ok && found == nil && p.needsCopy(env, as, calls) {
				found = as
			}
		}
	}
	visit(p.body)
	inspectUnit(p, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			visit(n.List)
		case *ast.CaseClause:
			visit(n.Body)
		case *ast.CommClause:
			visit(n.Body)
		}
		return found == nil
	})
	if found == nil {
		return "", false
	}
	return p.copyStore(found), true
}

// needsCopy reports whether the assignment as stores into an element, a field or a pointer's
// target, from a value that copy-stores moves.
func (p *parsed) needsCopy(env Env, as *ast.AssignStmt, calls bool) bool {
	return as.Tok == token.ASSIGN && len(as.Lhs) == 1 && len(as.Rhs) == 1 && isStore(as.Lhs[0]) && pure(as.Lhs[0]) &&
		movable(env, as.Rhs[0], calls)
}

// copyStore returns the unit's text with the assignment as run in a block that first
// evaluates its right side into a temporary.
func (p *parsed) copyStore(as *ast.AssignStmt) string {
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(as.Pos())])
	b.WriteString("{ " + TempName + " := " + p.position(as.Rhs[0].Pos()) + p.src(as.Rhs[0]) + "; ")
	b.WriteString(p.position(as.Pos()) + p.src(as.Lhs[0]) + " = " + TempName + " }")
	b.WriteString(p.position(as.End()))
	b.WriteString(p.Text[p.offset(as.End()):])
	return b.String()
}

// isStore reports whether l is an element, a field or a pointer's target, not a variable.
func isStore(l ast.Expr) bool {
	switch ast.Unparen(l).(type) {
	case *ast.IndexExpr, *ast.SelectorExpr, *ast.StarExpr:
		return true
	}
	return false
}

// movable reports whether copy-stores moves the value r into a temporary: a composite literal
// of a type of the session with methods, or (when calls) a call that may give a value of such
// a type. Either has a type of its own, so that the temporary has the type the value has.
func movable(env Env, r ast.Expr, calls bool) bool {
	switch r := ast.Unparen(r).(type) {
	case *ast.CompositeLit:
		id, ok := r.Type.(*ast.Ident)
		return ok && env.HasMethods(id.Name)
	case *ast.CallExpr:
		return calls && !r.Ellipsis.IsValid() && !builtinOrCompiled(env, r.Fun)
	}
	return false
}

// builtinOrCompiled reports whether fun names a builtin function, a predeclared type or a
// function or type of a compiled package.
func builtinOrCompiled(env Env, fun ast.Expr) bool {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return predeclaredFuncs[f.Name]
	case *ast.SelectorExpr:
		id, ok := f.X.(*ast.Ident)
		return ok && env.IsPackage != nil && env.IsPackage(id.Name)
	}
	return false
}

// predeclaredFuncs are the builtin functions and the predeclared types, whose calls and
// conversions may give untyped constants.
var predeclaredFuncs = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true,
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true,
}
