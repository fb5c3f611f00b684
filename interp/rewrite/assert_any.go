package rewrite

import "go/ast"

// assertAny works around the interpreter's comma-ok type assertion to the empty interface: in
// v, ok := x.(any) (or interface{}, in an assignment or a var declaration too) it answers ok ==
// false and v == nil for any value, where Go answers true and x for any x that is not nil, and
// the panicking form x.(any) panics ("nil is not any") for any value. The pass calls the
// session's functions AnyOKName and AnyMustName in their place, which answer as Go does:
//
//	v, ok := x.(any)   →   v, ok := _gosbiAnyOK(x)
//	x.(any)            →   _gosbiAnyMust(x)
//
// A case any of a type switch is left: the interpreter answers it as Go does.
//
// Upstream: no upstream issue found.
var assertAny = Pass{
	Name:  "assert-any",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		if u.Kind == Import {
			return u.Text, nil
		}
		return repeat(u, (*parsed).assertAnyStep)
	},
}

// AnyOKName and AnyMustName are the session's functions that assert-any calls in place of
// x.(any) in its comma-ok and its panicking form.
const (
	AnyOKName   = "_gosbiAnyOK"
	AnyMustName = "_gosbiAnyMust"
)

// assertAnyStep returns the unit's text with its first assertion to the empty interface
// rewritten, and false when it has none.
func (p *parsed) assertAnyStep() (string, bool) {
	var outer ast.Expr // the assertion, in the parentheses around it in a comma-ok form
	var ta *ast.TypeAssertExpr
	commaOK := false
	inspectUnit(p, func(n ast.Node) bool {
		if ta != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				outer, ta, commaOK = n.Rhs[0], emptyInterfaceAssertion(n.Rhs[0]), true
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				outer, ta, commaOK = n.Values[0], emptyInterfaceAssertion(n.Values[0]), true
			}
		default:
			p.findAnyMust(n, &outer, &ta)
			commaOK = false
		}
		return ta == nil
	})
	if ta == nil {
		return "", false
	}
	if commaOK {
		return p.replaceNode(outer, ta.X, AnyOKName+"(", ")"), true
	}
	return p.replaceNode(outer, ta.X, AnyMustName+"(", ")"), true
}

// findAnyMust sets outer and ta to n when n is a panicking assertion to the empty interface.
// The comma-ok forms are found from their assignment, before their assertion.
func (p *parsed) findAnyMust(n ast.Node, outer *ast.Expr, ta **ast.TypeAssertExpr) {
	if e, ok := n.(ast.Expr); ok {
		if a := emptyInterfaceAssertion(e); a != nil && a == e {
			*outer, *ta = e, a
		}
	}
}

// emptyInterfaceAssertion returns e as a type assertion to any or interface{}, nil when it is
// none.
func emptyInterfaceAssertion(e ast.Expr) *ast.TypeAssertExpr {
	ta, ok := ast.Unparen(e).(*ast.TypeAssertExpr)
	if !ok || ta.Type == nil {
		return nil
	}
	switch t := ast.Unparen(ta.Type).(type) {
	case *ast.Ident:
		if t.Name == "any" && t.Obj == nil {
			return ta
		}
	case *ast.InterfaceType:
		if t.Methods == nil || len(t.Methods.List) == 0 {
			return ta
		}
	}
	return nil
}
