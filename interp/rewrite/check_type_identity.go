package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// checkTypeIdentity works around the interpreter's types of a cell: it gives a type declared in
// a cell the type it is declared as, without its name (type T1 struct{ A int } is the unnamed
// struct{ A int }, type A int is int), so it cannot tell apart two such types declared alike, nor
// one of them from what it is declared as, and a type assertion or a type switch takes one for
// the other silently: with type T2 struct{ A int } too, x.(T2) accepts a T1, and with type A
// int, x.(A) accepts an int and x.(int) an A; a type assertion also accepts a value of a cell's
// struct type as a compiled struct of the same fields, and the reverse (type Pt struct{ X, Y
// int } and image.Point). The pass rewrites nothing: it fails the cell, naming both types and
// what to do, where a type assertion x.(T), or a case of a type switch, names a type (or a
// type made of one, *T, []T) that the interpreter cannot tell from another: a type the session,
// the cell or one of the unit's functions declares, what such a type is declared as (int for
// type A int) unless that is a struct, another case of the switch, or, for an assertion, a
// compiled struct type of the same fields (Env.CompiledOfUnderlying). For a type made of no
// type of the session and no unnamed struct (float64, []any, image.Point) it counts only the
// session's types that the cell names, so that a cell that asserts x.(float64) after type
// Celsius float64 runs: a Celsius stored in x by an earlier cell passes it. Assertions to interfaces,
// which go by methods, are left, and so are generic types and types the pass cannot resolve
// (a dot-imported package's). A value of an unnamed struct type of the same fields
// (struct{ A int }{1}) that no case of the switch names still passes as the session's type.
// The pass also fails a comparison of interface values that may hold two types the
// interpreter cannot tell apart (any(T1{}) == any(T2{}) is true to it), in a session whose
// types hold such a pair: see check_comparisons.go.
//
// Upstream: no upstream issue found.
var checkTypeIdentity = Pass{
	Name:  "check-type-identity",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		asserts, compares := strings.Contains(u.Text, ".("), mayCompare(u.Text)
		if u.Kind == Import || env.types == nil || !asserts && !compares {
			return u.Text, nil
		}
		tt := env.types()
		if len(tt.specs) == 0 {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		tu := tt.with(env, p)
		if asserts {
			if err := p.checkTypeIdentity(tu); err != nil {
				return u.Text, err
			}
		}
		if !compares {
			return u.Text, nil
		}
		if pairs := tu.ambiguousPairs(); len(pairs) > 0 {
			return u.Text, p.checkComparisons(tu, pairs)
		}
		return u.Text, nil
	},
}

// mayCompare reports whether the text of a unit may hold a comparison that checkComparisons
// checks: ==, !=, an index, a call of delete, or a key of a composite literal (M{k: 1} of
// type M map[any]int), whose colon is other than that of :=.
func mayCompare(text string) bool {
	return strings.Contains(text, "==") || strings.Contains(text, "!=") || strings.Contains(text, "[") ||
		strings.Contains(text, "delete(") || strings.Count(text, ":") > strings.Count(text, ":=")
}

// checkTypeIdentity returns an error for the first type assertion or type switch of the unit
// that the interpreter may answer wrongly, nil when there is none.
func (p *parsed) checkTypeIdentity(tt *typeTable) error {
	var err error
	ast.Inspect(p.root, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				err = p.checkAssertion(tt, n)
			}
		case *ast.TypeSwitchStmt:
			err = p.checkSwitch(tt, n)
		}
		return err == nil
	})
	return err
}

// checkAssertion checks a type assertion x.(T): the interpreter accepts a value whose type's
// representation is assignable to T's.
func (p *parsed) checkAssertion(tt *typeTable, n *ast.TypeAssertExpr) error {
	k, ok := tt.key(n.Type)
	if !ok {
		return nil
	}
	k.name = p.src(n.Type)
	if k, z, ok := tt.confusedIn(n.Type, k, true); ok {
		return p.identityError(n.Pos(), "the type assertion "+p.src(n), k, z)
	}
	return nil
}

// checkSwitch checks the cases of a type switch, which the interpreter matches by the
// representation of the value's type: each against the session's types and against the other
// cases.
func (p *parsed) checkSwitch(tt *typeTable, n *ast.TypeSwitchStmt) error {
	var cases []typeKey
	for _, cl := range n.Body.List {
		for _, e := range cl.(*ast.CaseClause).List {
			k, ok := tt.key(e)
			if !ok {
				continue
			}
			k.name = p.src(e)
			for _, c := range cases {
				if k.takenFor(c, false) {
					return p.identityError(e.Pos(), "the type switch", k, c)
				}
			}
			if k, z, ok := tt.confusedIn(e, k, false); ok {
				return p.identityError(e.Pos(), "the type switch", k, z)
			}
			cases = append(cases, k)
		}
	}
	return nil
}

// identityError is the error for a construct that cannot tell the type k from z.
func (p *parsed) identityError(pos token.Pos, what string, k, z typeKey) error {
	return fmt.Errorf("%s: %s cannot tell %s from %s: the interpreter knows a type declared in a cell only as "+
		"the type it is declared as, without its name (%s), so it would take a value of %s for %s, or the reverse, "+
		"without a word. Declare the types of the session so that they differ in their fields (a struct with a field of its own "+
		"for type A int), or tell the values apart by a method (an interface with a method that each type answers differently)",
		p.fset.Position(pos), what, k.name, z.name, k.declared(z), z.name, k.name)
}
