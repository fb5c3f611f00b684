package rewrite

import (
	"go/ast"
	"strings"
)

// bindTypeSwitch works around the interpreter's type switch without a variable
// (switch x.(type)): it matches a case by comparing the name of the value's dynamic type with
// the case's, so a case of a type declared in a cell (whose values the interpreter gives an
// unnamed type) and a case of an interface (case error, which no dynamic type is named) never
// match, and the switch silently takes its default. A type switch that binds a variable
// compares the types themselves, so the pass binds one, which the cases do not use:
//
//	switch x.(type) {
//
// runs as
//
//	switch _gosbi_ts := x.(type) {
//
// which has the same effect in Go, except that Go would reject the unused variable (the
// interpreter does not). The types of a cell that the interpreter cannot tell apart are the
// concern of check-type-identity.
//
// Upstream: no upstream issue found.
var bindTypeSwitch = Pass{
	Name:  "bind-type-switch",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, ".(type)") {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.bindTypeSwitch() })
	},
}

// TypeSwitchName is the variable that bind-type-switch binds.
const TypeSwitchName = "_gosbi_ts"

// bindTypeSwitch returns the unit's text with the first type switch without a variable given
// one, and false when there is none.
func (p *parsed) bindTypeSwitch() (string, bool) {
	var x ast.Expr
	ast.Inspect(p.root, func(n ast.Node) bool {
		if x != nil {
			return false
		}
		if ts, ok := n.(*ast.TypeSwitchStmt); ok {
			if es, ok := ts.Assign.(*ast.ExprStmt); ok {
				x = es.X
				return false
			}
		}
		return true
	})
	if x == nil {
		return "", false
	}
	return p.Text[:p.offset(x.Pos())] + TypeSwitchName + " := " + p.position(x.Pos()) + p.Text[p.offset(x.Pos()):], true
}
