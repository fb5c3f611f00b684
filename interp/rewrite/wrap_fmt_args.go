package rewrite

import "go/ast"

// wrapFmtArgs works around the interpreter's handling of a value of a type declared in a cell
// that is passed to a compiled parameter of type any, such as the operands of fmt.Println: the
// interpreter passes the bare value, a struct without methods, so fmt prints its fields where
// Go calls its String or Error method (fmt.Println(T{}) prints "{0}", not what T.String
// returns). Its dynamic assertions to fmt.Stringer or error lose the methods as well, but a
// generic function instantiated with the value's own type keeps them, so the pass passes each
// operand of the compiled fmt package's Print, Println, Sprint, Sprintln, Fprint and Fprintln
// through the session's generic FmtArgName, which returns the value as an error or a
// fmt.Stringer (a wrapper that calls the cell's method) when it is one, and the value itself
// otherwise:
//
//	fmt.Println(t, "x")
//
// runs as
//
//	fmt.Println(_gosbiFmtArg(t), _gosbiFmtArg("x"))
//
// which has the same effect in Go. The pass rewrites only when the session's types (or the
// cell's) have a method String or Error, and none of them declares it on a pointer receiver:
// the interpreter counts such a method as one of the value's own, so a value would print by
// it where Go prints its fields. It leaves a literal nil, a basic literal, an operand spread
// with ..., a lone call (it may return several values), the writer of Fprint and Fprintln, and
// the functions with a format (Printf, Sprintf, Fprintf, Errorf), whose verbs such as %d would
// print the wrapper. It does not help a pointer to a value whose String has a value receiver,
// a value held in a variable of type any, or a value nested in a struct, slice or map: fmt
// prints those by their fields. The name fmt must name the compiled package "fmt" in the cell
// (Env.PackagePath), not a package or variable of the user's.
//
// Upstream: no upstream issue found.
var wrapFmtArgs = Pass{
	Name:  "wrap-fmt-args",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.PackagePath == nil || env.PrintMethods == nil {
			return u.Text, nil
		}
		if value, pointer := env.PrintMethods(); !value || pointer {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.wrapFmtArg(env) }), nil
	},
}

// FmtArgName is the session's generic function that wrap-fmt-args passes fmt's operands
// through.
const FmtArgName = "_gosbiFmtArg"

// printFuncs are the functions of fmt whose operands wrap-fmt-args wraps, with the number of
// leading arguments that are no operands.
var printFuncs = map[string]int{"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0, "Fprint": 1, "Fprintln": 1}

// wrapFmtArg returns the unit's text with the first operand of a call of fmt's print functions
// that needs it wrapped, and false when none does.
func (p *parsed) wrapFmtArg(env Env) (string, bool) {
	var text string
	found := false
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Ellipsis.IsValid() {
			return true
		}
		skip, ok := fmtPrintCall(env, call)
		if !ok || len(call.Args) <= skip {
			return true
		}
		for _, a := range call.Args[skip:] {
			if fmtOperand(a, len(call.Args)-skip == 1) {
				text, found = p.replace(a, FmtArgName+"(", ")"), true
				return false
			}
		}
		return true
	})
	return text, found
}

// fmtPrintCall reports whether call calls a print function of the compiled package fmt, and
// how many of its leading arguments are no operands.
func fmtPrintCall(env Env, call *ast.CallExpr) (int, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0, false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok || env.PackagePath(id.Name) != "fmt" {
		return 0, false
	}
	skip, ok := printFuncs[sel.Sel.Name]
	return skip, ok
}

// fmtOperand reports whether an operand of a print function needs wrapping: it may be a value
// of a cell's type and it is not wrapped yet. A lone call is left, as it may give several
// values.
func fmtOperand(a ast.Expr, alone bool) bool {
	a = ast.Unparen(a)
	switch a := a.(type) {
	case *ast.BasicLit:
		return false
	case *ast.Ident:
		return a.Name != "nil"
	case *ast.CallExpr:
		if id, ok := a.Fun.(*ast.Ident); ok && id.Name == FmtArgName {
			return false
		}
		return !alone
	}
	return true
}
