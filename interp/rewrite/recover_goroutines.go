package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// GoPanicName is the prelude's function that a goroutine started by a cell's go statement
// defers, after recover-goroutines: GoPanicName(cell, line, recover()) reports a panic of the
// goroutine, cell and line being the cell and the interpreter's line of the go statement.
const GoPanicName = "_gosbiGoPanic"

// recoverGoroutines is no workaround of the interpreter: it keeps a session alive where Go
// would end the program. A panic that no deferred call recovers in a goroutine ends the
// process, and with it every variable of the session; a go statement of a cell instead runs
// its call under a deferred recover that reports the panic (in a notebook, on the standard
// error of the cell that runs when it happens) and ends only that goroutine.
//
// The function value and the arguments are evaluated where the go statement stands, as Go
// does: they go into temporaries first, and the new goroutine calls a function literal that
// defers the report and then makes the call, so that the panic of a deferred call of the
// user's (a function literal's own included) reaches the recover too:
//
//	go s.serve(ch, 10)
//
// runs as
//
//	{ _gosbiGo1f := s.serve; _gosbiGo1a0 := ch; go func() { defer func() { _gosbiGoPanic(3, 1300002, recover()) }(); _gosbiGo1f(_gosbiGo1a0, 10) }() }
//
// Some operands stay in the call, evaluated in the new goroutine where that gives the same
// value or where a temporary cannot hold them: a function literal, the name of a function or a
// builtin, a method expression (T.M, (*T).M), a package's name, and constants, whose type the
// call decides (a name is a constant by its declaration in the unit, a parameter or a variable
// of the unit being none, else by the session's and the cell's declarations, a variable
// first). A sole argument that is a call (go f(g())) goes into a temporary when it gives one
// value: a conversion, a builtin, a function of the unit, the cell or the session or a
// compiled function, a variable of a declared function type; otherwise (a call of several
// results, a method call, a call whose function's type the rewrite cannot tell) the go
// statement is left as written, evaluated as Go does but not recovered. Goroutines that
// compiled code starts are not covered, nor are runtime fatal errors (concurrent map writes, a
// stack overflow), which no recover can stop.
//
// The text after a rewritten statement keeps its position by a position comment.
var recoverGoroutines = Pass{
	Name:  "recover-goroutines",
	Issue: "no interpreter fault: Go ends a program on a goroutine's panic, a notebook keeps its session",
	Rewrite: func(env Env, u Unit) (string, error) {
		if !strings.Contains(u.Text, "go") {
			return u.Text, nil
		}
		tt := env.types()
		return repeat(u, func(p *parsed) (string, bool) { return p.recoverOne(env, tt.with(env, p)) })
	},
}

// recoverOne rewrites the first go statement of the unit that is not rewritten yet.
func (p *parsed) recoverOne(env Env, tt *typeTable) (string, bool) {
	var found *ast.GoStmt
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if g, ok := n.(*ast.GoStmt); ok && !recovered(g) && !soleCallArgument(env, tt, g.Call) {
			found = g
			return false
		}
		return true
	})
	if p.Kind == Stmt && found == nil {
		for _, s := range p.body {
			ast.Inspect(s, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok && found == nil && !recovered(g) && !soleCallArgument(env, tt, g.Call) {
					found = g
				}
				return found == nil
			})
		}
	}
	if found == nil {
		return "", false
	}
	line := p.fset.Position(found.Pos()).Line
	deferred := fmt.Sprintf("defer func() { %s(%d, %d, recover()) }(); ", GoPanicName, env.Cell, line)
	n := strings.Count(p.Text, GoPanicName+"(") + 1
	keep := func(fun ast.Expr) bool {
		_, lit := fun.(*ast.FuncLit)
		return lit || evaluatedLate(env, fun, true) || isMethodExpr(tt, fun)
	}
	temps, call := p.callTemps(env, found.Call, fmt.Sprintf("_gosbiGo%d", n), keep)
	text := "{ " + temps + "go func() { " + deferred + call + " }() }" + p.position(found.End())
	return p.Text[:p.offset(found.Pos())] + text + p.Text[p.offset(found.End()):], true
}

// callTemps returns the statements that evaluate the operands of call, in order, into
// temporaries named prefix+"f" (the function value) and prefix+"a0", prefix+"a1", … (the
// arguments), and the call's text with the temporaries in its place. The function value stays
// in the call where keep says so, and an argument stays where evaluatedLate says that it may.
func (p *parsed) callTemps(env Env, call *ast.CallExpr, prefix string, keep func(fun ast.Expr) bool) (temps, text string) {
	var b strings.Builder
	temp := func(name string, e ast.Expr) string {
		fmt.Fprintf(&b, "%s := %s%s; ", name, p.position(e.Pos()), p.src(e))
		return name
	}
	fun := p.position(call.Fun.Pos()) + p.src(call.Fun)
	if !keep(call.Fun) {
		fun = temp(prefix+"f", call.Fun)
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		if evaluatedLate(env, a, false) {
			args[i] = p.position(a.Pos()) + p.src(a)
			continue
		}
		args[i] = temp(fmt.Sprintf("%sa%d", prefix, i), a)
	}
	dots := ""
	if call.Ellipsis.IsValid() {
		dots = "..."
	}
	return b.String(), fun + "(" + strings.Join(args, ", ") + dots + ")"
}

// soleCallArgument reports whether call's only argument is a call that may give several
// values (go f(g()) with g of two results, a method call, a call whose function's type the
// rewrite cannot tell). Go evaluates it where the go statement stands, and no temporary of
// one value can hold what it gives, so the statement is left as the cell wrote it: its
// operands are evaluated as Go does, and a panic of its goroutine ends the session.
func soleCallArgument(env Env, tt *typeTable, call *ast.CallExpr) bool {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return false
	}
	a := call.Args[0]
	return !evaluatedLate(env, a, false) && results(tt, a) > 1
}

// isMethodExpr reports whether fun is a method expression, T.M or (*T).M, which stays in
// the call: the interpreter cannot take its value into a variable.
func isMethodExpr(tt *typeTable, fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x := ast.Unparen(sel.X)
	if star, ok := x.(*ast.StarExpr); ok {
		x = star.X
	}
	return tt.isType(x)
}

// results returns how many values e gives when it is a call: 1 for a conversion or a
// predeclared function of one result, the count of a function of the unit, the cell or the
// session or of a compiled function, and 2 (may be several) where the count is unknown, as
// for a method call. It returns 1 for an expression that is no call.
func results(tt *typeTable, e ast.Expr) int {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || tt.isType(call.Fun) {
		return 1
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if f.Obj == nil && singleBuiltins[f.Name] && !tt.defined(f.Name) && (tt.env.IsVar == nil || !tt.env.IsVar(f.Name)) {
			return 1
		}
		if ft, ok := tt.identType(f, 0).(*ast.FuncType); ok {
			return ft.Results.NumFields()
		}
	case *ast.SelectorExpr:
		pkg, ok := f.X.(*ast.Ident)
		env := tt.env
		if ok && pkg.Obj == nil && env.IsPackage != nil && env.IsPackage(pkg.Name) && env.CompiledFunc != nil {
			if t := env.CompiledFunc(pkg.Name, f.Sel.Name); t != nil {
				return t.NumOut()
			}
		}
	case *ast.FuncLit:
		return f.Type.Results.NumFields()
	}
	return 2
}

// singleBuiltins are the predeclared functions that give one value.
var singleBuiltins = map[string]bool{
	"append": true, "cap": true, "complex": true, "imag": true, "len": true, "make": true,
	"max": true, "min": true, "new": true, "real": true,
}

// recovered reports whether g is a go statement that recover-goroutines made or rewrote: its
// function literal's body starts with the deferred call of GoPanicName.
func recovered(g *ast.GoStmt) bool {
	lit, ok := g.Call.Fun.(*ast.FuncLit)
	if !ok || len(lit.Body.List) == 0 {
		return false
	}
	d, ok := lit.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	inner, ok := d.Call.Fun.(*ast.FuncLit)
	if !ok || len(inner.Body.List) != 1 {
		return false
	}
	es, ok := inner.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == GoPanicName
}

// evaluatedLate reports whether e may stay in the call that the new goroutine makes: a
// constant (whose type the call decides, so that it cannot go to a temporary), a package's
// name, or for the function value (fun) a name that no variable of the session has (a
// function, a builtin).
func evaluatedLate(env Env, e ast.Expr, fun bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return evaluatedLate(env, e.X, fun)
	case *ast.Ident:
		switch e.Name {
		case "nil", "true", "false", "iota":
			return true
		}
		if e.Obj != nil {
			return e.Obj.Kind == ast.Con || fun && e.Obj.Kind != ast.Var
		}
		if env.IsVar != nil && env.IsVar(e.Name) {
			return false
		}
		return fun || env.IsConst != nil && env.IsConst(e.Name)
	case *ast.SelectorExpr:
		id, ok := e.X.(*ast.Ident)
		return ok && env.IsPackage != nil && env.IsPackage(id.Name)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && evaluatedLate(env, e.X, false)
	case *ast.BinaryExpr:
		return evaluatedLate(env, e.X, false) && evaluatedLate(env, e.Y, false)
	case *ast.CallExpr:
		return constantCall(env, e)
	}
	return false
}

// constantCall reports whether call is a call of a predeclared function whose result is an
// untyped constant when its arguments are constants (min, max, complex, real, imag), all of
// them constants.
func constantCall(env Env, call *ast.CallExpr) bool {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Obj != nil || !constantBuiltins[id.Name] || env.IsVar != nil && env.IsVar(id.Name) || len(call.Args) == 0 {
		return false
	}
	for _, a := range call.Args {
		if !evaluatedLate(env, a, false) {
			return false
		}
	}
	return true
}

// constantBuiltins are the predeclared functions whose result is an untyped constant when
// their arguments are.
var constantBuiltins = map[string]bool{"complex": true, "imag": true, "max": true, "min": true, "real": true}
