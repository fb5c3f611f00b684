package rewrite

import (
	"go/ast"
	"strconv"
	"strings"
)

// guardAssertions works around the interpreter's handling of a value of a cell's struct type
// with fields that a compiled interface with methods holds (an error returned by a function
// or by errors.Unwrap, a fmt.Stringer): the interpreter's wrapper keeps one of the value's
// fields in place of the value, so a type assertion or a type switch to the value's own type
// answers no where Go answers yes, and one to the type of that field may answer yes. The pass
// passes the operand of an assertion to such a type (a struct with fields and methods declared
// in the session), or of a type switch with a case of one, through the session's generic
// AssertableName, which returns it unchanged unless it holds the interpreter's wrapper, and
// then fails the cell with an explanation:
//
//	e, ok := err.(MyErr)
//
// runs as
//
//	e, ok := _gosbiAssertable(err, "MyErr").(MyErr)
//
// which has the same effect in Go where it does not fail. A value held in an interface of the
// cell, or in a variable of type any from where it was made, is not wrapped and answers as in
// Go; a pointer (x.(*MyErr)) is wrapped whole and answers as in Go too.
//
// Upstream: no upstream issue found.
var guardAssertions = Pass{
	Name:  "guard-assertions",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.types == nil || env.HasMethods == nil || !strings.Contains(u.Text, ".(") {
			return u.Text, nil
		}
		tt := env.types()
		if len(tt.specs) == 0 {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.guardAssertion(tt.with(env, p)) })
	},
}

// AssertableName is the session's generic function that guard-assertions passes operands
// through.
const AssertableName = "_gosbiAssertable"

// guardAssertion returns the unit's text with the first operand that needs it guarded, and
// false when none does.
func (p *parsed) guardAssertion(tt *typeTable) (string, bool) {
	var x ast.Expr
	var names []string
	ast.Inspect(p.root, func(n ast.Node) bool {
		if x != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil && tt.wrappedStruct(n.Type) && !guarded(n.X) {
				x, names = n.X, []string{p.src(n.Type)}
			}
		case *ast.TypeSwitchStmt:
			var ta *ast.TypeAssertExpr
			switch a := n.Assign.(type) {
			case *ast.ExprStmt:
				ta, _ = a.X.(*ast.TypeAssertExpr)
			case *ast.AssignStmt:
				ta, _ = a.Rhs[0].(*ast.TypeAssertExpr)
			}
			if ta == nil || guarded(ta.X) {
				return true
			}
			for _, cl := range n.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					if tt.wrappedStruct(e) {
						names = append(names, p.src(e))
					}
				}
			}
			if len(names) > 0 {
				x = ta.X
			}
		}
		return x == nil
	})
	if x == nil {
		return "", false
	}
	return p.replace(x, AssertableName+"(", ", "+strconv.Quote(strings.Join(names, ", "))+")"), true
}

// guarded reports whether x is an operand that guard-assertions guarded.
func guarded(x ast.Expr) bool {
	c, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == AssertableName
}

// wrappedStruct reports whether e names a struct type with fields and methods declared in the
// session, whose values the interpreter wraps without them in a compiled interface.
func (tt *typeTable) wrappedStruct(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok || id.Obj != nil && tt.specs[id.Name] != id.Obj.Decl {
		return false
	}
	k, ok := tt.key(id)
	return ok && k.session && strings.HasPrefix(k.rep, "struct{") && k.rep != "struct{}" &&
		(tt.env.HasMethods(id.Name) || tt.cellMethods[id.Name])
}
