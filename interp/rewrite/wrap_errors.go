package rewrite

import (
	"go/ast"
	"strconv"
)

// wrapErrors works around the interpreter's handling of a value of a type declared in a cell
// that becomes an error: the interpreter hands it to compiled code in a wrapper that has the
// method Error and no other, is not comparable and hides the value's type (two cell types with
// the same fields look alike there). The compiled errors.Is then answers false where Go
// answers true (errors.Is(e, e) with e a cell's error, or an error whose Unwrap, Is or As
// method would find the target), errors.As with a pointer to a variable of a cell's type
// panics with a message about reflection, and errors.Unwrap returns nil for a value whose
// Unwrap method returns an error. The pass sends the calls of errors.Is, errors.As and
// errors.Unwrap to the session's helpers, which give the compiled answer where it is Go's and
// fail the cell with an explanation where it may not be:
//
//	errors.Is(err, ErrBad)
//
// runs as
//
//	_gosbiErrorsIs(true, err, ErrBad)
//
// whose first argument says whether the session's types have a method Unwrap, Is or As. The
// pass rewrites only when the session's types (or the cell's) have a method Error, and only
// calls: a function value (f := errors.Is) is left. The name errors must name the compiled
// package "errors" in the cell and not be shadowed where the call stands.
//
// Upstream: no upstream issue found.
var wrapErrors = Pass{
	Name:  "wrap-errors",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.PackagePath == nil || env.ErrorMethods == nil {
			return u.Text, nil
		}
		errorType, chain := env.ErrorMethods()
		if !errorType {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.wrapErrorsCall(env, chain) }), nil
	},
}

// errorsFuncs are the functions of package errors that wrap-errors sends to the session's
// helpers, with the helpers' names.
var errorsFuncs = map[string]string{"Is": "_gosbiErrorsIs", "As": "_gosbiErrorsAs", "Unwrap": "_gosbiErrorsUnwrap"}

// wrapErrorsCall returns the unit's text with the first call of errors.Is, errors.As or
// errors.Unwrap sent to the session's helper, and false when there is none.
func (p *parsed) wrapErrorsCall(env Env, chain bool) (string, bool) {
	var call *ast.CallExpr
	var helper string
	ast.Inspect(p.root, func(n ast.Node) bool {
		if call != nil {
			return false
		}
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		if name, ok := pkgFuncName(env, c, "errors"); ok && errorsFuncs[name] != "" {
			call, helper = c, errorsFuncs[name]
			return false
		}
		return true
	})
	if call == nil {
		return "", false
	}
	first := call.Args[0]
	return p.Text[:p.offset(call.Fun.Pos())] + p.position(call.Fun.Pos()) + helper + "(" + strconv.FormatBool(chain) + ", " +
		p.position(first.Pos()) + p.Text[p.offset(first.Pos()):], true
}
