package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// The interpreter assigns the values of "a, b = x, y" through temporaries typed after each
// value, and types a method value of a compiled type (d.LogProb with d a *dist.Normal) as the
// method with its receiver as first parameter: such an assignment panics with "reflect.Set:
// value of type func(*mat.Dense) []float64 is not assignable to type func(*dist.Normal,
// *mat.Dense) []float64". A short variable declaration of the value alone gets its type right,
// so the values of such assignments that may be method values (selectors other than a
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
// Go). Position comments (/*line _.go:L:C*/) keep the cell's own lines and columns.

// hoistPrefix starts the names of the variables that hold hoisted values.
const hoistPrefix = "_gosbi_v"

// hoistMethodValues rewrites the items of a cell as described above and parses the rewritten
// ones again. An item whose rewrite does not parse is left as it was.
func (s *Session) hoistMethodValues(items []item, cell int) {
	isPackage := s.packageNames(items)
	for i := range items {
		cur := items[i]
		changed := false
		for range maxReorders {
			text, ok := cur.hoistOne(isPackage)
			if !ok {
				break
			}
			next := cur
			next.text = text
			if next.parse(cell) != nil {
				break
			}
			cur, changed = next, true
		}
		if changed {
			items[i] = cur
		}
	}
}

// packageNames returns a test of whether a name in the cell's code names a package: one the
// session or the cell imports, or one the session would import on its use, that the cell does
// not define otherwise.
func (s *Session) packageNames(items []item) func(string) bool {
	defined := map[string]bool{}
	imported := map[string]bool{}
	for _, it := range items {
		if it.kind != importItem {
			definedNames(node(it), defined)
			continue
		}
		gd, ok := it.decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			if is.Name != nil {
				imported[is.Name.Name] = true
			} else {
				imported[packageName(strings.Trim(is.Path.Value, `"`))] = true
			}
		}
	}
	return func(name string) bool {
		if defined[name] || s.decls[name] != nil {
			return false
		}
		if imported[name] || s.imports[name] != "" {
			return true
		}
		indexPackages()
		_, ok := pkgIndex.byName[name]
		return ok
	}
}

// hoistOne returns the item's text with the first assignment that needs it rewritten, and
// false when none does.
func (it item) hoistOne(isPackage func(string) bool) (string, bool) {
	if it.fset == nil {
		return "", false
	}
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
	root := node(it)
	if st, ok := root.(ast.Stmt); ok && it.kind == stmtItem {
		consider([]ast.Stmt{st}) // a statement of the cell itself
	}
	ast.Inspect(root, func(n ast.Node) bool {
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
	return it.hoisted(found, values), true
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

// hoisted returns the item's text with the assignment as rewritten: a block that first
// defines a variable for each of values, then assigns with those variables in their place.
func (it item) hoisted(as *ast.AssignStmt, values []ast.Expr) string {
	var b strings.Builder
	b.WriteString(it.text[:it.offset(as.Pos())])
	b.WriteString("{ ")
	names := make([]string, len(values))
	for k, v := range values {
		names[k] = fmt.Sprintf("%s%d", hoistPrefix, k+1)
		fmt.Fprintf(&b, "%s := %s%s; ", names[k], it.lineComment(v.Pos()), it.text[it.offset(v.Pos()):it.offset(v.End())])
	}
	b.WriteString(it.lineComment(as.Pos()))
	last := it.offset(as.Pos())
	for k, v := range values {
		b.WriteString(it.text[last:it.offset(v.Pos())])
		b.WriteString(names[k])
		b.WriteString(it.lineComment(v.End()))
		last = it.offset(v.End())
	}
	b.WriteString(it.text[last:it.offset(as.End())])
	b.WriteString(" }")
	b.WriteString(it.lineComment(as.End()))
	b.WriteString(it.text[it.offset(as.End()):])
	return b.String()
}
