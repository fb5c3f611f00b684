package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
)

// funcScope works around the interpreter's handling of statements in its global scope, where
// it runs a cell's top-level statements:
//   - a type switch with a binding ("switch v := x.(type) {…}") fails to compile;
//   - a definition in a nested block ("if ok { a := 2 }", "for _, v := range xs {…}", "var a
//     = 2" in a block) assigns a session variable of the same name instead of declaring a new
//     one, and a multi-value one ("if ok { a, b := f() }") is left undefined: the interpreter
//     resolves the names of blocks in the global scope against the globals;
//   - an assignment to the blank identifier ("_ = f()") fails after an earlier top-level
//     "_, x := g()", because that definition gave "_" a type in the global scope.
//
// Such a statement defines nothing that outlives it, so it runs inside a function literal,
// with the same effect:
//
//	if ok { a := 2 }   →   func() { if ok { a := 2 } }()
//
// A line directive before the statement keeps its own lines and columns.
//
// Upstream: no upstream issue found.
var funcScope = Pass{
	Name:  "func-scope",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		if u.Kind != Stmt {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		st, ok := p.root.(ast.Stmt)
		if !ok || !needsFuncScope(st) {
			return u.Text, nil
		}
		return fmt.Sprintf("func() {\n//line _.go:%d:%d\n%s\n}()", u.Line, u.Col, u.Text), nil
	},
}

// needsFuncScope reports whether a top-level statement must run inside a function literal
// (see funcScope). None of these statements defines a name that outlives it: the names
// defined inside a block are local to it.
func needsFuncScope(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.TypeSwitchStmt:
		return true
	case *ast.AssignStmt:
		return st.Tok == token.ASSIGN && hasBlank(st.Lhs)
	case *ast.DeclStmt, *ast.ExprStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // a function has its own scope
		case *ast.AssignStmt:
			found = n.Tok == token.DEFINE || (n.Tok == token.ASSIGN && hasBlank(n.Lhs))
		case *ast.ValueSpec:
			found = true
		case *ast.RangeStmt:
			found = n.Tok == token.DEFINE
		case *ast.TypeSwitchStmt:
			found = true
		}
		return !found
	})
	return found
}

// hasBlank reports whether one of the expressions is the blank identifier.
func hasBlank(es []ast.Expr) bool {
	for _, e := range es {
		if id, ok := e.(*ast.Ident); ok && id.Name == "_" {
			return true
		}
	}
	return false
}
