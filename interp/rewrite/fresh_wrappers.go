package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
)

// freshWrappers works around the interpreter's wrapper of a value of a type of the session
// that becomes a compiled interface with methods (error, fmt.Stringer, io.Reader). The wrapper
// (made by genInterfaceWrapper of yaegi's run.go) holds the value, but its methods get their
// receiver by evaluating again, in the frame of the function or the cell that made the
// wrapper, the expression it was made from (the receiver record keeps that node, and
// genValueRecv reads it when the method runs). That storage (a composite literal's, a call
// result's, a variable's) is reused by the statement's next run, so that in a loop
//
//	for i := 0; i < 3; i++ { es = append(es, E{i}) }
//
// every element of es calls Error on the last E (E2 E2 E2 where Go prints E0 E1 E2), from a
// pointer &E{i} or a variable v (es[i] = v) alike, and a variable that changes after the store
// changes the stored error too (var e error = x; x.i = 5). A value that a function returns as
// the interface is right, as each call has a frame of its own that nothing else reuses, so the
// pass sends the value through such a function, a literal that takes it as its parameter:
//
//	es = append(es, E{i})
//
// runs as
//
//	es = append(es, func(_gosbiFresh E) error { return _gosbiFresh }(E{i}))
//
// which has the same effect in Go: the value is evaluated once, where it was, and converted
// to the interface, which copies it. The same literal makes var e error = E{7} and
// error(E{7}) work as in Go, where the interpreter kept the bare value (fmt showed {7} and a
// call of Error failed). The parameter's name is no variable of the session: the interpreter
// orders a top-level var declaration after any global variable whose name its value uses,
// scopes aside.
//
// The pass rewrites a value whose type the unit shows (a composite literal, a variable, a
// range clause's value, a call of a function of the session, &, * and fields and elements of
// those) as a type of the session with the interface's methods: one declared at the top of a
// cell, an instance of a generic one whose type arguments are predeclared types or types of
// the session, a pointer to either, or an interface of the session. It rewrites it where it
// becomes error (or an alias of it) or a compiled interface with methods named pkg.Name: an
// argument of append to a slice of that interface, of a conversion to error or of a call of a
// function of the session (a function literal's too), the right side of an assignment (=) or
// the value of a var declaration of that type, an element or a field of a composite literal,
// a value sent on a channel of that interface. A value whose type or target the unit does not
// show is left (a method's result, an argument of a method or of a compiled function), and a
// return, which is right.
//
// Upstream: no upstream issue found.
var freshWrappers = Pass{
	Name:  "fresh-wrappers",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.HasMethods == nil || env.types == nil || len(env.types().methods) == 0 {
			return u.Text, nil
		}
		tt := env.types()
		return rewriteAll(u, func(p *parsed) (string, bool) { return p.freshWrapperStep(tt.with(env, p)) })
	},
}

// FreshName is the parameter of the function literals that fresh-wrappers inserts.
const FreshName = "_gosbiFresh"

// freshWrapperStep returns the unit's text with every value that needs it, and lies in no
// other such value, sent through a function literal, and false when none does.
func (p *parsed) freshWrapperStep(tt *typeTable) (string, bool) {
	var edits []span
	declared := p.declaredNames()
	try := func(value, target ast.Expr) {
		if value == nil || target == nil {
			return
		}
		if typ, iface, ok := tt.freshWrapper(value, target); ok && !declared.anyOf(typ, iface) {
			edits = append(edits, span{value.Pos(), value.End(), p.sendThrough(value, typ, iface)})
		}
	}
	inspectUnit(p, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					try(n.Rhs[i], tt.staticType(l, 0))
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && len(n.Values) == len(n.Names) {
				for _, v := range n.Values {
					try(v, n.Type)
				}
			}
		case *ast.SendStmt:
			if ct, ok := tt.underlying(tt.staticType(n.Chan, 0)).(*ast.ChanType); ok {
				try(n.Value, ct.Value)
			}
		case *ast.CompositeLit:
			tt.literalTargets(n, try)
		case *ast.CallExpr:
			tt.callTargets(n, try)
		}
		return true
	})
	edits = outermost(edits)
	if len(edits) == 0 {
		return "", false
	}
	return p.replaceSpans(edits), true
}

// nameSet is a set of identifiers.
type nameSet map[string]bool

// declaredNames returns the names that the unit declares other than the types declared at
// its top: variables, constants, parameters, results, functions and local types. Where one of
// them is a name that a function literal of fresh-wrappers would write (error, a package's
// name, the value's type), the name may mean something else at the site, so the site is left.
func (p *parsed) declaredNames() nameSet {
	top := map[*ast.Ident]bool{}
	for _, d := range p.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				top[sp.(*ast.TypeSpec).Name] = true
			}
		}
	}
	names := nameSet{}
	inspectUnit(p, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Obj != nil && id.Obj.Pos() == id.Pos() && !top[id] {
			names[id.Name] = true
		}
		return true
	})
	return names
}

// anyOf reports whether the set holds an identifier of one of the Go expressions exprs.
func (s nameSet) anyOf(exprs ...string) bool {
	for _, e := range exprs {
		x, err := parser.ParseExpr(e)
		if err != nil {
			return true
		}
		found := false
		ast.Inspect(x, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && s[id.Name] {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// outermost returns the spans that lie in no other span, in the order of the text.
func outermost(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int {
		if a.from != b.from {
			return int(a.from - b.from)
		}
		return int(b.to - a.to)
	})
	var out []span
	for _, s := range spans {
		if len(out) > 0 && s.from < out[len(out)-1].to {
			continue
		}
		out = append(out, s)
	}
	return out
}

// literalTargets calls try with each element and field of the composite literal n and the
// type it is stored as, where the literal names its type.
func (tt *typeTable) literalTargets(n *ast.CompositeLit, try func(value, target ast.Expr)) {
	switch t := tt.underlying(n.Type).(type) {
	case *ast.ArrayType:
		for _, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			try(el, t.Elt)
		}
	case *ast.MapType:
		for _, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				try(kv.Value, t.Value)
			}
		}
	case *ast.StructType:
		fields := fieldTypes(t.Fields)
		for i, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					try(kv.Value, tt.fieldType(n.Type, id.Name))
				}
			} else if i < len(fields) {
				try(el, fields[i])
			}
		}
	}
}

// callTargets calls try with each argument of the call n and the type it is passed as: the
// elements of append, the operand of a conversion to error, and the arguments of a function
// of the session (a variadic parameter's type for each of its arguments).
func (tt *typeTable) callTargets(n *ast.CallExpr, try func(value, target ast.Expr)) {
	if n.Ellipsis.IsValid() || len(n.Args) == 0 {
		return
	}
	fun := ast.Unparen(n.Fun)
	if id, ok := fun.(*ast.Ident); ok && id.Obj == nil && !tt.defined(id.Name) {
		switch id.Name {
		case "append":
			if st, ok := tt.underlying(tt.staticType(n.Args[0], 0)).(*ast.ArrayType); ok && st.Len == nil {
				for _, a := range n.Args[1:] {
					try(a, st.Elt)
				}
			}
			return
		case "error":
			if len(n.Args) == 1 {
				try(n.Args[0], id)
			}
			return
		}
	}
	if tt.isType(fun) {
		return
	}
	ft, ok := tt.underlying(tt.staticType(fun, 0)).(*ast.FuncType)
	if !ok || ft.Params == nil {
		return
	}
	params := fieldTypes(ft.Params)
	for i, a := range n.Args {
		switch {
		case len(params) == 0:
			return
		case i < len(params)-1:
			try(a, params[i])
		default:
			last := params[len(params)-1]
			if el, ok := last.(*ast.Ellipsis); ok {
				last = el.Elt
			} else if i >= len(params) {
				return
			}
			try(a, last)
		}
	}
}

// fieldTypes returns the type of each field or parameter of fl, in order (one for each name).
func fieldTypes(fl *ast.FieldList) []ast.Expr {
	var ts []ast.Expr
	for _, f := range fl.List {
		for range max(len(f.Names), 1) {
			ts = append(ts, f.Type)
		}
	}
	return ts
}

// freshWrapper returns the type of the value v, as the parameter of the function literal
// writes it, and the compiled interface that it becomes stored as target, as its result
// writes it; false when v needs no function literal: target is no compiled interface with
// methods, or v's type is not a type of the session (or a pointer to one) that has the
// interface's methods.
func (tt *typeTable) freshWrapper(v, target ast.Expr) (typ, iface string, ok bool) {
	names, iface, ok := tt.compiledInterface(target)
	if !ok {
		return "", "", false
	}
	t := tt.valueType(v)
	base := t
	if star, ok := t.(*ast.StarExpr); ok {
		base = star.X
	}
	has := tt.sessionMethods(base, base != t)
	if has == nil {
		return "", "", false
	}
	for _, name := range names {
		if !has[name] {
			return "", "", false
		}
	}
	return types.ExprString(t), iface, true
}

// valueType returns the type of the value v: its static type, or, for a variable of a range
// clause (or its address), the type the range gives it; nil when the unit does not show it.
func (tt *typeTable) valueType(v ast.Expr) ast.Expr {
	if t := tt.staticType(v, 0); t != nil {
		return t
	}
	addr := false
	if u, ok := ast.Unparen(v).(*ast.UnaryExpr); ok && u.Op == token.AND {
		v, addr = u.X, true
	}
	id, ok := ast.Unparen(v).(*ast.Ident)
	if !ok || id.Obj == nil {
		return nil
	}
	as, ok := id.Obj.Decl.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return nil
	}
	r, ok := as.Rhs[0].(*ast.UnaryExpr)
	if !ok || r.Op != token.RANGE {
		return nil
	}
	if value, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); !ok || len(as.Lhs) != 2 || value.Name != id.Name {
		return nil // a key, an index or no variable of the range
	}
	var t ast.Expr
	switch x := tt.underlying(tt.staticType(r.X, 0)).(type) {
	case *ast.ArrayType:
		t = x.Elt
	case *ast.MapType:
		t = x.Value
	}
	if t != nil && addr {
		return &ast.StarExpr{X: t}
	}
	return t
}

// sessionMethods returns the names of the methods of the type t (a pointer to it, pointer
// true): a type of the session declared at the top of a cell, an instance of a generic one
// whose type arguments are predeclared types or types of the session, or an interface of the
// session; nil for any other type.
func (tt *typeTable) sessionMethods(t ast.Expr, pointer bool) map[string]bool {
	var args []ast.Expr
	switch x := t.(type) {
	case *ast.IndexExpr:
		t, args = x.X, []ast.Expr{x.Index}
	case *ast.IndexListExpr:
		t, args = x.X, x.Indices
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return nil
	}
	ts := tt.spec(id)
	if ts == nil || ts != tt.specs[id.Name] || ts.Assign.IsValid() || (ts.TypeParams != nil) != (args != nil) {
		return nil
	}
	for _, a := range args {
		if !tt.plainType(a) {
			return nil
		}
	}
	has := map[string]bool{}
	if ms, iface, known := tt.interfaceMethods(id, 0); iface {
		if pointer || !known {
			return nil
		}
		for _, m := range ms {
			has[m.name] = true
		}
		return has
	}
	for _, m := range tt.methodSets()[id.Name] {
		has[m.name] = true
	}
	if !pointer { // a value has no method declared on a pointer receiver
		for _, fd := range tt.methods {
			if name, _ := receiver(fd); tt.aliased(name) == id.Name && isPointer(fd.Recv.List[0].Type) {
				delete(has, fd.Name.Name)
			}
		}
	}
	return has
}

// isPointer reports whether the receiver's type e is a pointer.
func isPointer(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.StarExpr)
	return ok
}

// plainType reports whether the type argument a is a predeclared type or a type of the
// session that is not generic.
func (tt *typeTable) plainType(a ast.Expr) bool {
	id, ok := a.(*ast.Ident)
	if !ok {
		return false
	}
	if ts := tt.spec(id); ts != nil {
		return ts == tt.specs[id.Name] && ts.TypeParams == nil
	}
	return id.Obj == nil && (predeclared[id.Name] != "" || id.Name == "any" || id.Name == "error")
}

// compiledInterface returns the names of the methods of the compiled interface with methods
// that target names (error, through aliases of the session, or pkg.Name), and how a
// function's result writes it; false for any other type.
func (tt *typeTable) compiledInterface(target ast.Expr) (names []string, iface string, ok bool) {
	for range maxTypeDepth {
		id, ok := target.(*ast.Ident)
		if !ok {
			break
		}
		ts := tt.spec(id)
		if ts == nil {
			if id.Name == "error" && id.Obj == nil && !tt.defined("error") {
				return []string{"Error"}, "error", true
			}
			return nil, "", false
		}
		if !ts.Assign.IsValid() || ts.TypeParams != nil {
			return nil, "", false
		}
		target = ts.Type
	}
	sel, ok := target.(*ast.SelectorExpr)
	if !ok {
		return nil, "", false
	}
	c := tt.compiledType(sel)
	if c == nil || c.Kind() != reflect.Interface || c.NumMethod() == 0 {
		return nil, "", false
	}
	for i := range c.NumMethod() {
		names = append(names, c.Method(i).Name)
	}
	return names, types.ExprString(sel), true
}

// sendThrough returns the text that passes the value v through a function literal that takes
// it as a parameter of type typ and returns it as the interface iface.
func (p *parsed) sendThrough(v ast.Expr, typ, iface string) string {
	at := p.position(v.Pos()) // the literal's parts too, so that a panic in it names the value
	return at + "func(" + FreshName + " " + typ + ") " + iface + " { return " + at + FreshName + " }(" +
		at + p.src(v) + ")" + p.position(v.End())
}
