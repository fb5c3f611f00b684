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
// does. A function literal keeps its arguments, and gets the deferred call as the first
// statement of its body, so that the user's own deferred calls run first:
//
//	go func(i int) { work(i) }(i)
//
// runs as
//
//	go func(i int) { defer func() { _gosbiGoPanic(3, 1300002, recover()) }(); work(i) }(i)
//
// Another call gets its function value (unless it is a name of a function or a package's
// name) and its arguments (unless they are constants or names of a package, whose type the
// call decides) in temporaries first:
//
//	go s.serve(ch, 10)
//
// runs as
//
//	{ _gosbiGo1f := s.serve; _gosbiGo1a0 := ch; go func() { defer func() { … }(); _gosbiGo1f(_gosbiGo1a0, 10) }() }
//
// A sole argument that is a call (go f(g())) is left in the call, as it may give several
// values: it is evaluated in the new goroutine. Goroutines that compiled code starts are not
// covered, nor are runtime fatal errors (concurrent map writes, a stack overflow), which no
// recover can stop.
//
// The text after a rewritten statement keeps its position by a position comment.
var recoverGoroutines = Pass{
	Name:  "recover-goroutines",
	Issue: "no interpreter fault: Go ends a program on a goroutine's panic, a notebook keeps its session",
	Rewrite: func(env Env, u Unit) (string, error) {
		if !strings.Contains(u.Text, "go") {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.recoverOne(env) }), nil
	},
}

// recoverOne rewrites the first go statement of the unit that is not rewritten yet.
func (p *parsed) recoverOne(env Env) (string, bool) {
	var found *ast.GoStmt
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if g, ok := n.(*ast.GoStmt); ok && !recovered(g) {
			found = g
			return false
		}
		return true
	})
	if p.Kind == Stmt && found == nil {
		for _, s := range p.body {
			ast.Inspect(s, func(n ast.Node) bool {
				if g, ok := n.(*ast.GoStmt); ok && found == nil && !recovered(g) {
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
	call := found.Call
	if lit, ok := call.Fun.(*ast.FuncLit); ok {
		at := p.offset(lit.Body.Lbrace) + 1
		return p.Text[:at] + " " + deferred + p.position(lit.Body.Lbrace+1) + p.Text[at:], true
	}
	n := strings.Count(p.Text, GoPanicName+"(") + 1
	var temps, args []string
	temp := func(name string, e ast.Expr) string {
		temps = append(temps, fmt.Sprintf("%s := %s%s; ", name, p.position(e.Pos()), p.src(e)))
		return name
	}
	fun := p.src(call.Fun)
	if evaluatedLate(env, call.Fun, true) {
		fun = p.position(call.Fun.Pos()) + fun
	} else {
		fun = temp(fmt.Sprintf("_gosbiGo%df", n), call.Fun)
	}
	for i, a := range call.Args {
		if _, isCall := a.(*ast.CallExpr); (isCall && len(call.Args) == 1 && !call.Ellipsis.IsValid()) || evaluatedLate(env, a, false) {
			args = append(args, p.position(a.Pos())+p.src(a))
			continue
		}
		args = append(args, temp(fmt.Sprintf("_gosbiGo%da%d", n, i), a))
	}
	dots := ""
	if call.Ellipsis.IsValid() {
		dots = "..."
	}
	text := "{ " + strings.Join(temps, "") + "go func() { " + deferred + fun + "(" + strings.Join(args, ", ") + dots + ") }() }" + p.position(found.End())
	return p.Text[:p.offset(found.Pos())] + text + p.Text[p.offset(found.End()):], true
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
		if fun {
			return env.IsVar == nil || !env.IsVar(e.Name)
		}
		return isConst(env, e.Name)
	case *ast.SelectorExpr:
		id, ok := e.X.(*ast.Ident)
		return ok && env.IsPackage != nil && env.IsPackage(id.Name)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && evaluatedLate(env, e.X, false)
	case *ast.BinaryExpr:
		return evaluatedLate(env, e.X, false) && evaluatedLate(env, e.Y, false)
	}
	return false
}

// isConst reports whether name is a constant of the session or the cell.
func isConst(env Env, name string) bool {
	return env.IsConst != nil && env.IsConst(name)
}
