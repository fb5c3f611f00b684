package rewrite

import (
	"go/ast"
	"strings"
)

// emptySwitch works around the interpreter's switch statement without clauses (switch x = 5;
// {}, switch f() {}, switch v.(type) {}): it runs neither the init statement nor the tag, so
// that the init's store and the tag's calls are lost. Go runs both, then nothing. The pass
// runs such a switch as a block of the same statements:
//
//	switch init; tag {}
//
// runs as
//
//	{ init; _ = tag }
//
// which has the same effect in Go: the init statement runs first, then the tag is evaluated
// once (a type switch's guard evaluates its operand). A type switch that declares a variable
// (switch v := x.(type) {}) is left: Go refuses it, as v is not used.
//
// Upstream: no upstream issue found.
var emptySwitch = Pass{
	Name:  "empty-switch",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, "switch") {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.emptySwitchStep() })
	},
}

// emptySwitchStep returns the unit's text with its first switch without clauses run as a
// block, and false when there is none.
func (p *parsed) emptySwitchStep() (string, bool) {
	var found ast.Stmt
	var init ast.Stmt
	var tag ast.Expr
	inspectUnit(p, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.SwitchStmt:
			if len(n.Body.List) == 0 {
				found, init, tag = n, n.Init, n.Tag
			}
		case *ast.TypeSwitchStmt:
			if es, ok := n.Assign.(*ast.ExprStmt); ok && len(n.Body.List) == 0 {
				found, init, tag = n, n.Init, es.X.(*ast.TypeAssertExpr).X
			}
		}
		return found == nil
	})
	if found == nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(found.Pos())] + "{ ")
	if init != nil {
		b.WriteString(p.position(init.Pos()) + p.src(init) + "; ")
	}
	if tag != nil {
		b.WriteString("_ = " + p.position(tag.Pos()) + p.src(tag) + " ")
	}
	b.WriteString("}" + p.position(found.End()) + p.Text[p.offset(found.End()):])
	return b.String(), true
}
