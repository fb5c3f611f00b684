package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
)

// methodSig is a method as the passes compare it with an interface's or with fmt's: its name
// and the key of its signature (the typeKey.id of its function type, without the receiver). A
// signature that cannot be resolved (a parameter of an interface type of the session, a
// generic receiver) has the key "", which may be any signature; an empty name stands for
// methods that cannot be told at all (an embedded interface that cannot be resolved), which
// may be any methods.
type methodSig struct{ name, sig string }

// mayBe reports whether the method m may be the method i of an interface (of no name: any
// method).
func (m methodSig) mayBe(i methodSig) bool {
	return m.name == "" || i.name == "" || m.name == i.name && (m.sig == "" || i.sig == "" || m.sig == i.sig)
}

// parseMethodDecls returns the method declarations of Env.MethodDecls.
func parseMethodDecls(env Env) []*ast.FuncDecl {
	if env.MethodDecls == nil {
		return nil
	}
	var fds []*ast.FuncDecl
	for _, text := range env.MethodDecls() {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+text, 0)
		if err != nil || len(f.Decls) != 1 {
			continue
		}
		if fd, ok := f.Decls[0].(*ast.FuncDecl); ok && isMethod(fd) {
			fds = append(fds, fd)
		}
	}
	return fds
}

// isMethod reports whether fd declares a method.
func isMethod(fd *ast.FuncDecl) bool { return fd.Recv != nil && len(fd.Recv.List) == 1 }

// receiver returns the name of the type a method is declared on, and whether that type is
// generic; "" when the receiver names no type.
func receiver(fd *ast.FuncDecl) (name string, generic bool) {
	e, generic := baseType(fd.Recv.List[0].Type)
	if id, ok := e.(*ast.Ident); ok {
		return id.Name, generic
	}
	return "", generic
}

// baseType returns the type that a receiver's or an embedded field's type e names, without
// parentheses, a pointer and type arguments (T for *T, (T) and T[P]), and whether it has
// type arguments.
func baseType(e ast.Expr) (base ast.Expr, generic bool) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e, generic = x.X, true
		case *ast.IndexListExpr:
			e, generic = x.X, true
		default:
			return e, generic
		}
	}
}

// funcSig returns the key of a function type as a method's signature, "" when it cannot
// resolve it.
func (tt *typeTable) funcSig(ft *ast.FuncType) string {
	k, _, ok := tt.keyOf(ft)
	if !ok {
		return ""
	}
	return k.id
}

// reflectSig returns the key of the signature of a compiled method of type ft, without its
// first skip parameters (the receiver of a concrete type's method).
func reflectSig(ft reflect.Type, skip int) string {
	if skip == 0 {
		return reflectUnder(ft)
	}
	in := make([]reflect.Type, ft.NumIn()-skip)
	for i := range in {
		in[i] = ft.In(skip + i)
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	return reflectUnder(reflect.FuncOf(in, out, ft.IsVariadic()))
}

// declaredMethods returns the methods that the session's and the cell's method declarations
// give each type, by the type's name (the type an alias receiver names: T for type A = T and
// func (A) M()); a generic receiver's have no signature key.
func (tt *typeTable) declaredMethods() map[string][]methodSig {
	declared := map[string][]methodSig{}
	for _, fd := range tt.methods {
		name, generic := receiver(fd)
		sig := ""
		if !generic {
			sig = tt.funcSig(fd.Type)
		}
		name = tt.aliased(name)
		declared[name] = append(declared[name], methodSig{fd.Name.Name, sig})
	}
	return declared
}

// aliased returns the name of the type of the session or the cell that the type name stands
// for: the target of an alias of one (through aliases of aliases), name itself otherwise.
func (tt *typeTable) aliased(name string) string {
	for range maxTypeDepth {
		ts := tt.specs[name]
		if ts == nil || !ts.Assign.IsValid() {
			break
		}
		id, ok := ts.Type.(*ast.Ident)
		if !ok || tt.specs[id.Name] == nil {
			break
		}
		name = id.Name
	}
	return name
}

// methodSets returns the methods that a pointer to each type of the session and the cell has
// (a value's are among them), declared or promoted from an embedded field, by the type's
// name; types without methods are left out. Where Go promotes one of several methods of a
// name, or none, it keeps them all: a type counts for an interface that it may satisfy.
func (tt *typeTable) methodSets() map[string][]methodSig {
	declared := tt.declaredMethods()
	sets := map[string][]methodSig{}
	for _, name := range tt.order {
		if ms := tt.typeMethods(tt.specs[name], declared, 0); len(ms) > 0 {
			sets[name] = ms
		}
	}
	for name, ms := range declared {
		if sets[name] == nil { // a receiver whose type the table lacks
			sets[name] = ms
		}
	}
	return sets
}

// heldMethod is a method that a value of a type of the session or the cell may have, with the
// type that has it, as the errors name it.
type heldMethod struct {
	methodSig
	typ string
}

// methodUnion returns the methods that a value of any type of the session or the cell, or a
// pointer to one, may have: those of the declared types, and those that the struct types
// written anywhere else in the session's type declarations or in the cell (a function's local
// type, an unnamed struct type, a field's type) get from their embedded fields. A value's type
// may combine the methods of several declared types (struct{ S; E }), and may come from an
// earlier cell, so the methods count together, whichever types have them.
func (tt *typeTable) methodUnion() []heldMethod {
	declared := tt.declaredMethods()
	sets := tt.methodSets()
	var union []heldMethod
	add := func(typ string, ms []methodSig) {
		for _, m := range ms {
			union = append(union, heldMethod{m, typ})
		}
	}
	for _, name := range tt.order {
		add(name, sets[name])
	}
	for name, ms := range sets {
		if !slices.Contains(tt.order, name) {
			add(name, ms)
		}
	}
	for _, st := range tt.structs {
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 {
				add(types.ExprString(st), tt.embeddedMethods(f.Type, declared, 0))
			}
		}
	}
	return union
}

// holders returns for each of the methods ms of an interface a type that may have it, and
// false when one of them is none that a value of the session's types may have.
func holders(union []heldMethod, ms []methodSig) ([]string, bool) {
	typs := make([]string, len(ms))
	for i, m := range ms {
		j := slices.IndexFunc(union, func(h heldMethod) bool { return h.mayBe(m) })
		if j < 0 {
			return nil, false
		}
		typs[i] = union[j].typ
	}
	return typs, true
}

// typeMethods returns the methods of a pointer to the declared type ts: those declared on it,
// and those promoted from the embedded fields of the struct type it is declared as (directly
// or through types of the session, generic ones included).
func (tt *typeTable) typeMethods(ts *ast.TypeSpec, declared map[string][]methodSig, depth int) []methodSig {
	if ts == nil || depth > maxTypeDepth {
		return nil
	}
	ms := slices.Clone(declared[ts.Name.Name])
	if ts.Assign.IsValid() { // an alias has its type's methods; an interface's are no value's
		if _, iface, _ := tt.interfaceMethods(ts.Type, 0); iface {
			return ms
		}
		return append(ms, tt.embeddedMethods(ts.Type, declared, depth)...)
	}
	e := ts.Type
	for range maxTypeDepth { // type T2 T1 has the fields of T1, not its methods
		id, ok := e.(*ast.Ident)
		if b, generic := baseType(e); generic { // type T3 G[int]
			id, ok = b.(*ast.Ident)
		}
		if !ok || tt.spec(id) == nil {
			break
		}
		e = tt.spec(id).Type
	}
	st, ok := e.(*ast.StructType)
	if !ok {
		return ms
	}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			ms = append(ms, tt.embeddedMethods(f.Type, declared, depth)...)
		}
	}
	return ms
}

// embeddedMethods returns the methods that an embedded field of type e gives a pointer to the
// struct type (or that the type e of an alias has): those of an interface, of a pointer to a
// type of the session (those of a generic one without signature keys), or of a pointer to a
// compiled type.
func (tt *typeTable) embeddedMethods(e ast.Expr, declared map[string][]methodSig, depth int) []methodSig {
	e, generic := baseType(e)
	switch e := e.(type) {
	case *ast.Ident:
		if _, iface, _ := tt.interfaceMethods(e, 0); iface {
			return tt.interfaceSigs(e)
		}
		ms := tt.typeMethods(tt.spec(e), declared, depth+1)
		if generic {
			for i := range ms {
				ms[i].sig = ""
			}
		}
		return ms
	case *ast.SelectorExpr:
		return tt.compiledMethods(e)
	}
	return nil
}

// compiledMethods returns the methods of the compiled type that e names, or of a pointer to it
// for a type that is no interface.
func (tt *typeTable) compiledMethods(e *ast.SelectorExpr) []methodSig {
	t := tt.compiledType(e)
	switch {
	case t == nil:
		return nil
	case t.Kind() == reflect.Interface:
		return tt.interfaceSigs(e)
	}
	pt := reflect.PointerTo(t)
	ms := make([]methodSig, pt.NumMethod())
	for i := range ms {
		ms[i] = methodSig{pt.Method(i).Name, reflectSig(pt.Method(i).Type, 1)}
	}
	return ms
}

// interfaceSigs returns the methods of the interface type e, with one of no name for methods
// it cannot resolve.
func (tt *typeTable) interfaceSigs(e ast.Expr) []methodSig {
	ms, _, known := tt.interfaceMethods(e, 0)
	if !known {
		ms = append(ms, methodSig{})
	}
	return ms
}
