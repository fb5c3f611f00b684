package rewrite

import (
	"go/ast"
	"reflect"
	"strings"
)

// wrapInterfaces works around the interpreter's handling of a value of a type declared in a
// cell that becomes a compiled interface (sbi.Embedding, dist.Distribution, mat.Matrix): the
// interpreter hands compiled code such a value in a wrapper, a compiled type with the
// interface's methods, where it assigns the value to a variable, a field or an element of the
// interface type, passes it to a parameter or returns it; but it stores the bare value (a
// struct the compiled code cannot use) in two forms, which then panic with "reflect.Set: value
// of type struct { Xn int } is not assignable to type sbi.Embedding":
//   - an element of a composite literal of a compiled struct type, keyed or positional, with
//     the type named (sbi.NPEConfig{Embedding: half{}}, &calib.Region{p, 0.9}) or elided in a
//     compiled slice, array or map literal ([]sbi.NPEConfig{{Embedding: half{}}});
//   - a conversion to the compiled interface (sbi.Embedding(half{})).
//
// A field assignment and a return wrap the value, so the pass rewrites such an element into a
// field assignment in a function literal, and a conversion into a return:
//
//	sbi.NPEConfig{Embedding: half{}}
//	sbi.Embedding(half{})
//
// run as
//
//	sbi.NPEConfig{Embedding: func() sbi.NPEConfig { var _gosbi_w sbi.NPEConfig; _gosbi_w.Embedding = half{}; return _gosbi_w }().Embedding}
//	func() sbi.Embedding { return half{} }()
//
// which have the same effect in Go: the value is evaluated once, where it was. The pass
// rewrites only where the symbol tables say that the type is a compiled struct whose field is
// an interface with methods, or a compiled interface with methods, named as pkg.Name; a
// literal whose type it cannot name ([][]sbi.NPEConfig{{{…}}}) is left, and so is one of a
// type of a dot-imported package (NPEConfig{…} after import . "…/sbi"), which the pass does
// not look up, and a value passed to a compiled variadic parameter of an interface type
// (errors.Join(myErr{})), which the interpreter also passes bare, and for the predeclared
// error even from a variable: package explain says what happened and what works.
//
// Upstream: https://github.com/traefik/yaegi/issues/832 (closed: fixed for the literals of
// interpreted struct types; those of compiled struct types still fail).
var wrapInterfaces = Pass{
	Name:  "wrap-interfaces",
	Issue: "https://github.com/traefik/yaegi/issues/832 (closed; a compiled struct's literal and a conversion to a compiled interface still fail: no upstream issue found)",
	Rewrite: func(env Env, u Unit) (string, error) {
		if env.Compiled == nil || env.IsPackage == nil {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.wrapOne(env) })
	},
}

// WrapName is the variable of the function literals that wrap-interfaces inserts.
const WrapName = "_gosbi_w"

// wrapOne returns the unit's text with the first value that needs it wrapped, and false when
// none does.
func (p *parsed) wrapOne(env Env) (string, bool) {
	elided := map[*ast.CompositeLit]ast.Expr{} // literals whose struct type their parent names
	var text string
	found := false
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.CompositeLit:
			typeExpr := n.Type
			if typeExpr == nil {
				typeExpr = elided[n]
			}
			st := p.structType(env, typeExpr)
			if st == nil {
				p.noteElided(env, n, elided)
				return true
			}
			text, found = p.wrapElement(n, st, typeExpr)
		case *ast.CallExpr:
			text, found = p.wrapConversion(env, n)
		}
		return !found
	})
	return text, found
}

// compiledType returns the compiled type that the expression pkg.Name names, or nil.
func compiledType(env Env, e ast.Expr) reflect.Type {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok || !env.IsPackage(id.Name) {
		return nil
	}
	return env.Compiled(id.Name, sel.Sel.Name)
}

// structType returns the compiled struct type that e names, or nil.
func (p *parsed) structType(env Env, e ast.Expr) reflect.Type {
	if e == nil {
		return nil
	}
	t := compiledType(env, e)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// noteElided records the elements of a slice, array or map literal whose type is elided and
// is a compiled struct (or a pointer to one), with the expression that names it.
func (p *parsed) noteElided(env Env, n *ast.CompositeLit, elided map[*ast.CompositeLit]ast.Expr) {
	var elem ast.Expr
	switch t := n.Type.(type) {
	case *ast.ArrayType:
		elem = t.Elt
	case *ast.MapType:
		elem = t.Value
	default:
		return
	}
	if star, ok := elem.(*ast.StarExpr); ok {
		elem = star.X
	}
	if p.structType(env, elem) == nil {
		return
	}
	for _, el := range n.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if cl, ok := el.(*ast.CompositeLit); ok && cl.Type == nil {
			elided[cl] = elem
		}
	}
}

// wrapElement rewrites the first element of the literal n of the compiled struct type st
// (named by typeExpr) that is a value for a field of a compiled interface type with methods.
func (p *parsed) wrapElement(n *ast.CompositeLit, st reflect.Type, typeExpr ast.Expr) (string, bool) {
	for i, el := range n.Elts {
		var field reflect.StructField
		value := el
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			key, ok := kv.Key.(*ast.Ident)
			if !ok {
				continue
			}
			f, ok := directField(st, key.Name)
			if !ok {
				continue
			}
			field, value = f, kv.Value
		} else {
			if i >= st.NumField() {
				break
			}
			field = st.Field(i)
		}
		if !field.IsExported() || !wrappable(field.Type) || !needsWrap(value) {
			continue
		}
		typ := p.src(typeExpr)
		return p.replace(value, "func() "+typ+" { var "+WrapName+" "+typ+"; "+WrapName+"."+field.Name+" = ",
			"; return "+WrapName+" }()."+field.Name), true
	}
	return "", false
}

// directField returns the field of st named name, not a promoted one (a literal's keys name
// the struct's own fields).
func directField(st reflect.Type, name string) (reflect.StructField, bool) {
	for i := range st.NumField() {
		if f := st.Field(i); f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// wrapConversion rewrites a conversion to a compiled interface with methods.
func (p *parsed) wrapConversion(env Env, call *ast.CallExpr) (string, bool) {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return "", false
	}
	t := compiledType(env, call.Fun)
	if t == nil || !wrappable(t) || !needsWrap(call.Args[0]) {
		return "", false
	}
	return p.replaceNode(call, call.Args[0], "func() "+p.src(call.Fun)+" { return ", " }()"), true
}

// wrappable reports whether t is an interface with methods, whose values the interpreter
// wraps.
func wrappable(t reflect.Type) bool {
	return t.Kind() == reflect.Interface && t.NumMethod() > 0
}

// needsWrap reports whether a value may be of a type of the cell: it is not nil, nor a value
// the pass wrapped already.
func needsWrap(v ast.Expr) bool {
	v = ast.Unparen(v)
	if id, ok := v.(*ast.Ident); ok && id.Name == "nil" {
		return false
	}
	return !isWrapped(v)
}

// isWrapped reports whether v is an element that the pass wrapped: the field of a call of a
// function literal that starts by declaring WrapName.
func isWrapped(v ast.Expr) bool {
	sel, ok := v.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	call, ok := sel.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	lit, ok := call.Fun.(*ast.FuncLit)
	if !ok || len(lit.Body.List) == 0 {
		return false
	}
	ds, ok := lit.Body.List[0].(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || len(gd.Specs) != 1 {
		return false
	}
	vs, ok := gd.Specs[0].(*ast.ValueSpec)
	return ok && len(vs.Names) == 1 && vs.Names[0].Name == WrapName
}

// replace returns the unit's text with the expression v put between prefix and suffix.
func (p *parsed) replace(v ast.Expr, prefix, suffix string) string {
	return p.replaceNode(v, v, prefix, suffix)
}

// replaceNode returns the unit's text with the node outer replaced by its part inner put
// between prefix and suffix. Position comments keep the cell's positions of the inserted
// text (that of outer), of inner and of the text after outer.
func (p *parsed) replaceNode(outer, inner ast.Node, prefix, suffix string) string {
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(outer.Pos())])
	b.WriteString(p.position(outer.Pos()))
	b.WriteString(prefix)
	b.WriteString(p.position(inner.Pos()))
	b.WriteString(p.src(inner))
	b.WriteString(suffix)
	b.WriteString(p.position(outer.End()))
	b.WriteString(p.Text[p.offset(outer.End()):])
	return b.String()
}
