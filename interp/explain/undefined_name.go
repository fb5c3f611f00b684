package explain

import (
	"fmt"
	"go/ast"
	"strings"
)

// undefinedName: the interpreter reports a name that nothing defines, used at the top level of
// a cell ("x := nope + 1"), as "constant definition loop", and some others as "incomplete
// type" or a panic of its compiler ("CFG post-order panic", or one without a position, such
// as "nil pointer dereference" for "p := q[0] + nope"). The explainer replaces such a message
// by "undefined: nope" at the first name of the cell that nothing defines, when there is one:
// Go reports it, whatever else the interpreter lacks.
var undefinedName = Explainer{
	Name:     "undefined-name",
	Upstream: "yaegi reports an undefined name at the top level of a cell as \"constant definition loop\" (others as \"incomplete type\" or a CFG panic); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.Compile || !misleading(f.Msg) && !f.CompilerPanic {
			return
		}
		if u := firstUndefined(env); u != "" {
			f.Msg = u
		}
	},
}

// misleading reports whether msg is one of the interpreter's messages that can stand for an
// undefined name.
func misleading(msg string) bool {
	return strings.Contains(msg, "constant definition loop") || strings.Contains(msg, "incomplete type") ||
		strings.Contains(msg, "CFG post-order panic") || strings.Contains(msg, "CFG pre-order panic")
}

// firstUndefined returns "_.go:L:C: undefined: name" for the first name the cell uses that
// nothing defines, or "".
func firstUndefined(env Env) string {
	if env.Undefined == nil {
		return ""
	}
	for _, it := range env.Items {
		if found := UndefinedUse(it.Node, env.Undefined); found != nil {
			p := it.Fset.Position(found.Pos())
			return fmt.Sprintf("_.go:%d:%d: undefined: %s", p.Line, p.Column, found.Name)
		}
	}
	return ""
}

// UndefinedUse returns the first identifier of n for whose name undefined reports true, or
// nil. It skips the identifiers that are no variables, functions or packages: the selected
// name of x.f (also inside a chain pkg.F().M(), whose F is no name of the cell's scope), the
// key of a composite literal's element, the label of a branch and the names of imports.
func UndefinedUse(n ast.Node, undefined func(name string) bool) *ast.Ident {
	var found *ast.Ident
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.SelectorExpr:
			ast.Inspect(n.X, visit)
			return false
		case *ast.KeyValueExpr:
			ast.Inspect(n.Value, visit)
			return false
		case *ast.BranchStmt:
			return false
		case *ast.Ident:
			if undefined(n.Name) {
				found = n
			}
		}
		return true
	}
	ast.Inspect(n, visit)
	return found
}
