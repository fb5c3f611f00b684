package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// hoistMethodValues works around the interpreter's typing of a method value of a compiled
// type (d.LogProb with d a *dist.Normal) among the values of an assignment "a, b = x, y": it
// assigns through temporaries typed after each value, and types such a method value as the
// method with its receiver as first parameter, so the assignment panics with "reflect.Set:
// value of type func(*mat.Dense) []float64 is not assignable to type func(*dist.Normal,
// *mat.Dense) []float64". A short variable declaration of the value alone gets its type
// right, so the values of such assignments that may be method values (selectors other than a
// package's names) are first given variables of their own:
//
//	cfg.Clip, cfg.LogApprox = 0.5, approx.LogProb
//
// runs as
//
//	{ _gosbi_v1 := approx.LogProb; cfg.Clip, cfg.LogApprox = 0.5, _gosbi_v1 }
//
// which has the same effect: the values are evaluated before any variable is assigned, in the
// same order as before for calls and receives (the order of other operands is unspecified in
// Go).
//
// Upstream: https://github.com/traefik/yaegi/issues/488 (closed) reported the same panic for a
// variable initialised with a method value of a compiled type; the single assignment works
// now, the multi-value assignment still fails, and no upstream issue for it was found.
var hoistMethodValues = Pass{
	Name:  "hoist-method-values",
	Issue: "https://github.com/traefik/yaegi/issues/488 (closed; the multi-value form: no upstream issue found)",
	Rewrite: func(env Env, u Unit) (string, error) {
		isPackage := env.IsPackage
		if isPackage == nil {
			isPackage = func(string) bool { return false }
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.hoistOne(isPackage) })
	},
}

// HoistPrefix starts the names of the variables that hold hoisted values.
const HoistPrefix = "_gosbi_v"

// hoistOne returns the unit's text with the first assignment that needs it rewritten, and
// false when none does.
func (p *parsed) hoistOne(isPackage func(string) bool) (string, bool) {
	var found *ast.AssignStmt
	var values []ast.Expr
	consider := func(list []ast.Stmt) {
		for _, st := range list {
			if found != nil {
				return
			}
			as, ok := st.(*ast.AssignStmt)
			if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
				continue
			}
			var vs []ast.Expr
			for _, v := range as.Rhs {
				if mayBeMethodValue(v, isPackage) {
					vs = append(vs, v)
				}
			}
			if len(vs) > 0 {
				found, values = as, vs
			}
		}
	}
	if st, ok := p.root.(ast.Stmt); ok && p.Kind == Stmt {
		consider([]ast.Stmt{st}) // a statement of the cell itself
	}
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.BlockStmt:
			consider(n.List)
		case *ast.CaseClause:
			consider(n.Body)
		case *ast.CommClause:
			consider(n.Body)
		}
		return true
	})
	if found == nil {
		return "", false
	}
	return p.hoisted(found, values), true
}

// mayBeMethodValue reports whether a value may be a method value: a selector (in parentheses
// or not) that is not a name of a package, which could be an untyped constant.
func mayBeMethodValue(v ast.Expr, isPackage func(string) bool) bool {
	sel, ok := ast.Unparen(v).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return !ok || !isPackage(id.Name)
}

// hoisted returns the unit's text with the assignment as rewritten: a block that first
// defines a variable for each of values, then assigns with those variables in their place.
func (p *parsed) hoisted(as *ast.AssignStmt, values []ast.Expr) string {
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(as.Pos())])
	b.WriteString("{ ")
	names := make([]string, len(values))
	for k, v := range values {
		names[k] = fmt.Sprintf("%s%d", HoistPrefix, k+1)
		fmt.Fprintf(&b, "%s := %s%s; ", names[k], p.position(v.Pos()), p.src(v))
	}
	b.WriteString(p.position(as.Pos()))
	last := p.offset(as.Pos())
	for k, v := range values {
		b.WriteString(p.Text[last:p.offset(v.Pos())])
		b.WriteString(names[k])
		b.WriteString(p.position(v.End()))
		last = p.offset(v.End())
	}
	b.WriteString(p.Text[last:p.offset(as.End())])
	b.WriteString(" }")
	b.WriteString(p.position(as.End()))
	b.WriteString(p.Text[p.offset(as.End()):])
	return b.String()
}
