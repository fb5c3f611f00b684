package rewrite

import (
	"fmt"
	"go/ast"
	"strings"
)

// evalDefers works around the interpreter's defer statement, which keeps the storage of the
// call's operands (the frame slot of a variable or of an expression's result) instead of their
// values, and reads it when the surrounding function returns: a variable assigned after the
// defer statement gives the deferred call its later value (x := 1; defer f(x); x = 5 calls
// f(5)), and an expression's result in a loop gives every deferred call the last iteration's
// value (defer f(i+1) for i from 0 to 2 calls f(3) three times), where Go evaluates the
// function value and the arguments where the defer statement stands. A variable that a short
// variable declaration defines gets storage of its own each time the declaration runs, so the
// pass evaluates the operands into such variables, in Go's order, in a block:
//
//	defer f(x, i+1)
//
// runs as
//
//	{ _gosbiD1a0 := x; _gosbiD1a1 := i+1; defer f(_gosbiD1a0, _gosbiD1a1) }
//
// which has the same effect in Go. The function value goes into a temporary too when it is a
// variable or an expression (fn of defer fn(), fs[i], g()), not when it is a function literal,
// the name of a function or a builtin, a package's function or a method expression. Operands
// stay in the call where a temporary would change the program: constants, whose type the call
// decides (defer takesFloat(1)); and a defer statement is left as written where an argument
// is an operand that wrap-fmt-args passed through one of its helpers (a temporary of its
// result would reach fmt as the interpreter's record of the value: defer fmt.Println(v) with v
// an any holding a cell's value), where its only
// argument is a call that may give several values (defer f(g())), where its function value is
// a selector other than a package's function (defer mu.Unlock(), defer obj.M(x): moving
// the method value, f := mu.Unlock, would be Go's meaning, but the interpreter's method values
// of compiled types have faults of their own (see hoist-method-values), so the receiver is
// still read when the function returns; the arguments are moved only when the receiver holds
// no call or receive, whose order the move would change), and at the top level of a cell, where a
// block would run in a function literal of its own (func-scope) and the deferred call too
// early. A function literal without arguments (defer func() { … }()) needs nothing, and
// recover called directly by a deferred function literal keeps working. A fault of the
// interpreter's defer remains with or without the pass: a call with ... fails with an error of
// reflect (see the package documentation of interp); detach-closures mends deferred calls of
// function literals of the same function, which never returned.
//
// Go statements have the same fault; recover-goroutines evaluates their operands into
// temporaries.
//
// Upstream: no upstream issue found.
var evalDefers = Pass{
	Name:  "eval-defers",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, "defer") {
			return u.Text, nil
		}
		tt := env.types()
		return repeat(u, func(p *parsed) (string, bool) { return p.evalDeferStep(env, tt.with(env, p)) })
	},
}

// DeferTempPrefix starts the names of the temporaries that eval-defers declares.
const DeferTempPrefix = "_gosbiD"

// evalDeferStep returns the unit's text with its first defer statement inside a function that
// needs it run in a block that evaluates its operands into temporaries, and false when none
// does.
func (p *parsed) evalDeferStep(env Env, tt *typeTable) (string, bool) {
	var found *ast.DeferStmt
	var inFunc func(n ast.Node) bool
	inFunc = func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok && found == nil && needsEval(env, tt, d.Call) {
			found = d
		}
		return found == nil
	}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				ast.Inspect(n.Body, inFunc)
			}
			return false
		case *ast.FuncLit:
			ast.Inspect(n.Body, inFunc)
			return false
		}
		return found == nil
	}
	if p.Kind == Stmt {
		for _, s := range p.body {
			ast.Inspect(s, visit)
		}
	} else {
		ast.Inspect(p.root, visit)
	}
	if found == nil {
		return "", false
	}
	n := 1
	for strings.Contains(p.Text, fmt.Sprintf("%s%d", DeferTempPrefix, n)) {
		n++
	}
	keep := func(fun ast.Expr) bool { return keepDeferFun(env, tt, fun) }
	temps, call := p.callTemps(env, found.Call, fmt.Sprintf("%s%d", DeferTempPrefix, n), keep)
	text := "{ " + temps + p.position(found.Pos()) + "defer " + call + " }" + p.position(found.End())
	return p.Text[:p.offset(found.Pos())] + text + p.Text[p.offset(found.End()):], true
}

// needsEval reports whether eval-defers rewrites the deferred call: an operand of it would go
// into a temporary, and nothing leaves the statement as written (see evalDefers).
func needsEval(env Env, tt *typeTable, call *ast.CallExpr) bool {
	if soleCallArgument(env, tt, call) {
		return false
	}
	for _, a := range call.Args {
		if c, ok := ast.Unparen(a).(*ast.CallExpr); ok && fmtWrapped(c) {
			return false // the interpreter hands fmt a temporary of such a result as its own record
		}
	}
	moves := !keepDeferFun(env, tt, call.Fun) && !isDeferTemp(call.Fun)
	for _, a := range call.Args {
		moves = moves || !evaluatedLate(env, a, false) && !isDeferTemp(a)
	}
	if !moves {
		return false
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && !evaluatedLate(env, sel, true) && !isMethodExpr(tt, sel) {
		return pure(sel.X)
	}
	return true
}

// keepDeferFun reports whether the function value of a deferred call stays in the call: a
// function literal, a name that is no variable, a package's function, a method expression, or
// a selector of a method or a field (see evalDefers).
func keepDeferFun(env Env, tt *typeTable, fun ast.Expr) bool {
	switch f := ast.Unparen(fun).(type) {
	case *ast.FuncLit, *ast.SelectorExpr:
		return true
	case *ast.Ident:
		return evaluatedLate(env, f, true)
	}
	return isMethodExpr(tt, fun)
}

// isDeferTemp reports whether e is a temporary of eval-defers.
func isDeferTemp(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && strings.HasPrefix(id.Name, DeferTempPrefix)
}
