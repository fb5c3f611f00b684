package rewrite

import (
	"fmt"
	"go/ast"
	"strings"
)

// CellDeferName is the prelude's function that keeps a deferred call of a cell's top level,
// after cell-defers: the session runs the calls it kept when the cell's Go code ends.
const CellDeferName = "_gosbiCellDefer"

// cellDefersPrefix starts the names of the temporaries that cell-defers declares.
const cellDefersPrefix = "_gosbiCD"

// cellDefers works around the interpreter's defer statement at the top level of a cell, which
// Go allows only in a function. The interpreter keeps the deferred call in its global frame,
// runs it when the statement's own evaluation ends (before the cell's next statement) and
// again at the end of every later evaluation, as nothing clears the global frame's list:
//
//	defer fmt.Println("done")   // cell [1]: printed before the cell's next line, and again
//	fmt.Println("cell 1")       // at the end of the cell; then once more in every later cell
//
// The pass gives the statement the meaning it has in the body of a main function, where the
// notebook's cell stands: the operands are evaluated where it stands (as eval-defers does in
// functions), and the call runs once, when the cell's Go code ends, after the calls deferred
// after it:
//
//	defer show(x)   →   _gosbiCellDefer(func() func() { _gosbiCD1a0 := x; return func() { show(_gosbiCD1a0) } }())
//
// This also holds for a defer statement in a block or a loop of the cell's top level, outside
// any function literal. recover called in a deferred call of the top level returns nil: the
// session reports the cell's panic as it did (a top-level defer could not recover it before
// either).
//
// Upstream: no upstream issue found.
var cellDefers = Pass{
	Name:  "cell-defers",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind != Stmt || !strings.Contains(u.Text, "defer") {
			return u.Text, nil
		}
		tt := env.types()
		return repeat(u, func(p *parsed) (string, bool) { return p.cellDeferStep(env, tt.with(env, p)) })
	},
}

// cellDeferStep returns the unit's text with its first defer statement of the cell's top level
// handed to CellDeferName, and false when there is none.
func (p *parsed) cellDeferStep(env Env, tt *typeTable) (string, bool) {
	var found *ast.DeferStmt
	for _, s := range p.body {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.DeferStmt:
				found = n
			}
			return found == nil
		})
		if found != nil {
			break
		}
	}
	if found == nil {
		return "", false
	}
	n := 1
	for strings.Contains(p.Text, fmt.Sprintf("%s%d", cellDefersPrefix, n)) {
		n++
	}
	temps, call := "", p.position(found.Call.Pos())+p.src(found.Call)
	if needsEval(env, tt, found.Call) {
		keep := func(fun ast.Expr) bool { return keepDeferFun(env, tt, fun) }
		temps, call = p.callTemps(env, found.Call, fmt.Sprintf("%s%d", cellDefersPrefix, n), keep)
	}
	text := p.position(found.Pos()) + CellDeferName + "(func() func() { " + temps + "return func() { " + call + " } }())" + p.position(found.End())
	return p.Text[:p.offset(found.Pos())] + text + p.Text[p.offset(found.End()):], true
}
