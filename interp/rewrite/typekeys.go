package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
)

// typeTable holds the type declarations of the session and of the cell, by name, to give
// check-type-identity the keys of the types a unit names.
type typeTable struct {
	specs       map[string]*ast.TypeSpec
	cellMethods map[string]bool // types of the cell's method declarations
	methods     []*ast.FuncDecl // the method declarations of the session and of the cell
	order       []string        // names in the order of declaration
	env         Env
	p           *parsed            // the unit whose types are looked up (with)
	locals      []*ast.TypeSpec    // the types declared in the unit's functions
	busy        map[string]bool    // declarations being expanded, against recursive types
	structs     []*ast.StructType  // the struct types written in the session's type declarations and the cell
	cellNames   map[string]bool    // the identifiers of the cell's units
	cellDefs    map[string]cellDef // the variables and functions the cell's units define at their top
	mirrorsOnly bool               // wrap-fmt-args gives operands only mirrors (see fmtHelper)
}

// typeKey is a type as Go knows it and as the interpreter represents its values.
type typeKey struct {
	name    string // how the cell writes it
	id      string // its identity in Go: declared types by name
	rep     string // its representation in the interpreter: a cell's types by what they are declared as
	named   bool   // rep is a defined type (predeclared or compiled), whose underlying type is under
	under   string
	session bool // a type declared in a cell is part of it (id and rep differ)
}

// declared says what the interpreter takes k and z for, for the errors of check-type-identity.
func (k typeKey) declared(z typeKey) string {
	switch {
	case k.session && z.session:
		return k.name + " and " + z.name + " are both " + k.rep
	case k.session:
		return k.name + " is " + k.rep
	}
	return z.name + " is " + z.rep
}

// newTypeTable returns the table of the session's type declarations (their sources, as
// Env.TypeDecls gives them) and of the cell's units.
func newTypeTable(env Env, units []Unit) *typeTable {
	tt := &typeTable{specs: map[string]*ast.TypeSpec{}, cellMethods: map[string]bool{}, env: env, cellNames: map[string]bool{},
		cellDefs: map[string]cellDef{}, methods: parseMethodDecls(env)}
	if env.TypeDecls != nil {
		for _, text := range env.TypeDecls() {
			if f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+text, 0); err == nil {
				tt.addDecls(f.Decls)
				tt.noteStructs(f)
			}
		}
	}
	values := map[string]bool{} // the names of the cell's variables, constants and functions
	for _, u := range units {
		p, err := parse(u)
		if err != nil {
			continue
		}
		if u.Kind == Decl {
			tt.addDecls(p.decls)
		}
		noteDefs(p, tt.cellDefs)
		for _, st := range p.body {
			noteNames(st, tt.cellNames, values)
			tt.noteStructs(st)
		}
		for _, d := range p.decls {
			noteNames(d, tt.cellNames, values)
			tt.noteStructs(d)
		}
	}
	for name := range values {
		delete(tt.cellNames, name) // a variable of the cell, used in a later statement of its own
	}
	return tt
}

// addDecls records the type declarations of decls, and the receiver types of its methods.
func (tt *typeTable) addDecls(decls []ast.Decl) {
	for _, d := range decls {
		if fd, ok := d.(*ast.FuncDecl); ok && isMethod(fd) {
			tt.cellMethods[embeddedName(fd.Recv.List[0].Type)] = true
			tt.methods = append(tt.methods, fd)
		}
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			if ts.Name.Name == "_" {
				continue
			}
			if _, ok := tt.specs[ts.Name.Name]; !ok {
				tt.order = append(tt.order, ts.Name.Name)
			}
			tt.specs[ts.Name.Name] = ts
		}
	}
}

// noteStructs records the struct types written in n.
func (tt *typeTable) noteStructs(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok {
			tt.structs = append(tt.structs, st)
		}
		return true
	})
}

// noteNames records in names the identifiers of n that may name a type of the session, and in
// values those that the unit resolves to one of its variables, constants or functions (A := 1,
// a parameter A): not the selected name of a selector (p.Label), nor a key of a composite
// literal (P{A: 1}).
func noteNames(n ast.Node, names, values map[string]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			noteNames(n.X, names, values)
			return false
		case *ast.KeyValueExpr:
			if _, ok := n.Key.(*ast.Ident); !ok {
				noteNames(n.Key, names, values)
			}
			noteNames(n.Value, names, values)
			return false
		case *ast.Ident:
			if n.Obj == nil || n.Obj.Kind == ast.Typ {
				names[n.Name] = true
			} else {
				values[n.Name] = true
			}
		}
		return true
	})
}

// with returns the table for looking up the types of the unit p.
func (tt *typeTable) with(env Env, p *parsed) *typeTable {
	c := *tt
	c.env, c.p, c.busy, c.locals = env, p, map[string]bool{}, nil
	ast.Inspect(p.root, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && !c.topLevel(ts) {
			c.locals = append(c.locals, ts)
		}
		return true
	})
	return &c
}

// key returns the key of a concrete type; false for an interface, a generic type and a type it
// cannot resolve.
func (tt *typeTable) key(e ast.Expr) (typeKey, bool) {
	k, iface, ok := tt.keyOf(e)
	return k, ok && !iface
}

// confused returns a type of the session's universe that the interpreter cannot tell from k:
// one whose representation is k's, or, for an assertion (assign), one assignable to it as
// the interpreter sees them (an unnamed type and a defined type of the same underlying type).
// For a type k made of no type of the session and no unnamed struct (float64, []any,
// image.Point), it counts only the session's types that the cell names as a type: a cell that
// asserts float64 without naming type Celsius float64 is taken to hold no Celsius, though it
// may hold one that an earlier cell stored, a session function returned or a field held (the
// gap that package interp documents).
func (tt *typeTable) confused(k typeKey, assign bool) (typeKey, bool) {
	namedOnly := !k.session && !strings.Contains(k.rep, "struct{") // see the doc comment
	for _, name := range tt.order {
		if namedOnly && !tt.cellNames[name] {
			continue
		}
		z, ok := tt.key(&ast.Ident{Name: name})
		if ok && k.takenFor(z, assign) {
			z.name = name
			return z, true
		}
	}
	for _, ts := range tt.locals {
		z, iface, ok := tt.specKey(ts, fmt.Sprintf("local %s at %s", ts.Name.Name, tt.p.fset.Position(ts.Pos())))
		if ok && !iface && k.takenFor(z, assign) {
			z.name = ts.Name.Name
			return z, true
		}
	}
	// The type a cell's type is declared as: int for type A int, []float64 for type V
	// []float64. Values of unnamed struct types are left (see the pass).
	if k.session && !strings.Contains(k.rep, "struct{") {
		z := typeKey{name: k.rep, id: k.rep, rep: k.rep, named: k.named, under: k.under}
		if k.takenFor(z, assign) {
			return z, true
		}
	}
	// A compiled type declared as a cell's type is (image.Point for type Pt struct{ X, Y int }),
	// whose values the interpreter assigns to it.
	if k.session && !k.named && assign && tt.env.CompiledOfUnderlying != nil {
		if name := tt.env.CompiledOfUnderlying(k.rep); name != "" {
			return typeKey{name: name, id: "compiled " + name, rep: "compiled " + name, named: true, under: k.rep}, true
		}
	}
	return typeKey{}, false
}

// takenFor reports whether the interpreter cannot tell the type k from z, another type: their
// representations are one, or, for an assertion (assign), the interpreter assigns one to the
// other (an unnamed type and a defined type of the same underlying type).
func (k typeKey) takenFor(z typeKey, assign bool) bool {
	return z.id != k.id && (z.rep == k.rep ||
		assign && (k.named && !z.named && k.under == z.rep || !k.named && z.named && k.rep == z.under))
}

// confusedIn returns a type that the interpreter cannot tell from the type e (of key k), or
// from a type of the session that e is made of (T1 in *T1, []T1, map[string]T1), with the
// type it confuses.
func (tt *typeTable) confusedIn(e ast.Expr, k typeKey, assign bool) (typeKey, typeKey, bool) {
	if z, ok := tt.confused(k, assign); ok {
		return k, z, true
	}
	var part, z typeKey
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.Field:
			ast.Inspect(n.Type, func(m ast.Node) bool { return !found && tt.confusedPart(m, &part, &z, &found) })
			return false
		case *ast.SelectorExpr:
			return false
		}
		return tt.confusedPart(n, &part, &z, &found)
	})
	return part, z, found
}

// confusedPart is the step of confusedIn's walk at n: when n names a type of the session that
// the interpreter cannot tell from another, it records both.
func (tt *typeTable) confusedPart(n ast.Node, part, z *typeKey, found *bool) bool {
	id, ok := n.(*ast.Ident)
	if !ok || id.Obj != nil || tt.specs[id.Name] == nil {
		return true
	}
	k, ok := tt.key(id)
	if !ok {
		return true
	}
	k.name = id.Name
	*z, *found = tt.confused(k, false) // a composite of T is assignable only to one of T's representation
	*part = k
	return !*found
}

// predeclared are the predeclared concrete types, with the names reflect gives them.
var predeclared = map[string]string{
	"bool": "bool", "string": "string", "int": "int", "int8": "int8", "int16": "int16", "int32": "int32",
	"int64": "int64", "uint": "uint", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
	"uintptr": "uintptr", "float32": "float32", "float64": "float64", "complex64": "complex64",
	"complex128": "complex128", "byte": "uint8", "rune": "int32",
}

// keyOf returns the key of a type expression and whether it is an interface; false when it
// cannot resolve it.
func (tt *typeTable) keyOf(e ast.Expr) (k typeKey, iface, ok bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return tt.keyOf(e.X)
	case *ast.Ident:
		return tt.identKey(e)
	case *ast.SelectorExpr:
		return tt.compiledKey(e)
	case *ast.StarExpr:
		return tt.compose(func(s []string) string { return "*" + s[0] }, e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return tt.compose(func(s []string) string { return "[]" + s[0] }, e.Elt)
		}
		lit, isLit := e.Len.(*ast.BasicLit)
		if !isLit || lit.Kind != token.INT {
			return typeKey{}, false, false
		}
		n, err := strconv.ParseInt(lit.Value, 0, 64)
		if err != nil {
			return typeKey{}, false, false
		}
		return tt.compose(func(s []string) string { return fmt.Sprintf("[%d]%s", n, s[0]) }, e.Elt)
	case *ast.MapType:
		return tt.compose(func(s []string) string { return "map[" + s[0] + "]" + s[1] }, e.Key, e.Value)
	case *ast.ChanType:
		dir := "chan "
		switch e.Dir {
		case ast.RECV:
			dir = "<-chan "
		case ast.SEND:
			dir = "chan<- "
		}
		return tt.compose(func(s []string) string { return dir + s[0] }, e.Value)
	case *ast.FuncType:
		return tt.funcKey(e)
	case *ast.StructType:
		return tt.structKey(e)
	case *ast.InterfaceType:
		if len(e.Methods.List) == 0 {
			return typeKey{id: "interface{}", rep: "interface{}"}, true, true
		}
	}
	return typeKey{}, false, false
}

// compose returns the key of a composite type of the given parts; an interface part is
// written as its key says.
func (tt *typeTable) compose(f func([]string) string, parts ...ast.Expr) (typeKey, bool, bool) {
	ids, reps := make([]string, len(parts)), make([]string, len(parts))
	session := false
	for i, e := range parts {
		k, _, ok := tt.keyOf(e)
		if !ok {
			return typeKey{}, false, false
		}
		ids[i], reps[i] = k.id, k.rep
		session = session || k.session
	}
	return typeKey{id: f(ids), rep: f(reps), session: session}, false, true
}

// identKey returns the key of a type named by an identifier: a type of the session or the
// unit, a local type of the unit, or a predeclared type.
func (tt *typeTable) identKey(id *ast.Ident) (typeKey, bool, bool) {
	if id.Obj != nil {
		ts, isType := id.Obj.Decl.(*ast.TypeSpec)
		if !isType {
			return typeKey{}, false, false
		}
		if tt.specs[id.Name] != ts && !tt.topLevel(ts) {
			return tt.specKey(ts, fmt.Sprintf("local %s at %s", id.Name, tt.p.fset.Position(ts.Pos())))
		}
	}
	if ts := tt.specs[id.Name]; ts != nil {
		return tt.specKey(ts, "main."+id.Name)
	}
	switch id.Name {
	case "error":
		return typeKey{id: "error", rep: "error", named: true, under: "error"}, true, true
	case "any":
		return typeKey{id: "interface{}", rep: "interface{}"}, true, true
	}
	if r, ok := predeclared[id.Name]; ok {
		return typeKey{id: r, rep: r, named: true, under: r}, false, true
	}
	return typeKey{}, false, false
}

// topLevel reports whether ts is a specification of the unit's own declaration.
func (tt *typeTable) topLevel(ts *ast.TypeSpec) bool {
	gd, ok := tt.p.root.(*ast.GenDecl)
	if !ok {
		return false
	}
	for _, sp := range gd.Specs {
		if sp == ts {
			return true
		}
	}
	return false
}

// specKey returns the key of a declared type whose identity is id.
func (tt *typeTable) specKey(ts *ast.TypeSpec, id string) (typeKey, bool, bool) {
	if ts.TypeParams != nil || tt.busy[id] {
		return typeKey{}, false, false
	}
	tt.busy[id] = true
	defer delete(tt.busy, id)
	u, iface, ok := tt.keyOf(ts.Type)
	if !ok || iface || ts.Assign.IsValid() {
		return u, iface, ok
	}
	return typeKey{id: id, rep: u.rep, named: u.named, under: u.under, session: true}, false, true
}

// compiledKey returns the key of a compiled type pkg.Name.
func (tt *typeTable) compiledKey(e *ast.SelectorExpr) (typeKey, bool, bool) {
	pkg, ok := e.X.(*ast.Ident)
	env := tt.env
	if !ok || pkg.Obj != nil || env.IsPackage == nil || env.Compiled == nil || env.PackagePath == nil || !env.IsPackage(pkg.Name) {
		return typeKey{}, false, false
	}
	t := env.Compiled(pkg.Name, e.Sel.Name)
	if t == nil {
		return typeKey{}, false, false
	}
	r := reflectKey(t)
	return typeKey{id: r, rep: r, named: true, under: reflectUnder(t)}, t.Kind() == reflect.Interface, true
}

// funcKey returns the key of a function type.
func (tt *typeTable) funcKey(e *ast.FuncType) (typeKey, bool, bool) {
	var parts []ast.Expr
	variadic := false
	count := func(fl *ast.FieldList) int {
		n := 0
		if fl == nil {
			return 0
		}
		for _, f := range fl.List {
			t := f.Type
			if el, ok := t.(*ast.Ellipsis); ok {
				t, variadic = el.Elt, true
			}
			for range max(1, len(f.Names)) {
				parts = append(parts, t)
				n++
			}
		}
		return n
	}
	in := count(e.Params)
	count(e.Results)
	return tt.compose(func(s []string) string {
		if variadic {
			s[in-1] = "..." + s[in-1]
		}
		return "func(" + strings.Join(s[:in], ",") + ")(" + strings.Join(s[in:], ",") + ")"
	}, parts...)
}

// structKey returns the key of a struct type.
func (tt *typeTable) structKey(e *ast.StructType) (typeKey, bool, bool) {
	var names []string
	var parts []ast.Expr
	for _, f := range e.Fields.List {
		tag := ""
		if f.Tag != nil {
			s, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				return typeKey{}, false, false
			}
			tag = " " + strconv.Quote(s)
		}
		if len(f.Names) == 0 {
			names = append(names, "embed "+embeddedName(f.Type)+" %s"+tag)
			parts = append(parts, f.Type)
		}
		for _, n := range f.Names {
			names = append(names, n.Name+" %s"+tag)
			parts = append(parts, f.Type)
		}
	}
	return tt.compose(func(s []string) string {
		fields := make([]string, len(s))
		for i := range s {
			fields[i] = fmt.Sprintf(names[i], s[i])
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	}, parts...)
}

// embeddedName returns the field name of an embedded field's type.
func embeddedName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return "?"
}

// UnderlyingKey returns the representation of a compiled type's underlying type that
// Env.CompiledOfUnderlying is asked for.
func UnderlyingKey(t reflect.Type) string { return reflectUnder(t) }

// reflectKey returns the representation of a compiled type as a part of another, in the form
// of typeKey.rep: a defined type by its package path and name.
func reflectKey(t reflect.Type) string {
	switch {
	case t.Name() == "":
		return reflectUnder(t)
	case t.PkgPath() == "":
		return t.Name()
	}
	return t.PkgPath() + "." + t.Name()
}

// reflectUnder returns the representation of a compiled type's underlying type.
func reflectUnder(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + reflectKey(t.Elem())
	case reflect.Slice:
		return "[]" + reflectKey(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), reflectKey(t.Elem()))
	case reflect.Map:
		return "map[" + reflectKey(t.Key()) + "]" + reflectKey(t.Elem())
	case reflect.Chan:
		dir := map[reflect.ChanDir]string{reflect.RecvDir: "<-chan ", reflect.SendDir: "chan<- ", reflect.BothDir: "chan "}
		return dir[t.ChanDir()] + reflectKey(t.Elem())
	case reflect.Func:
		in, out := make([]string, t.NumIn()), make([]string, t.NumOut())
		for i := range in {
			in[i] = reflectKey(t.In(i))
		}
		if t.IsVariadic() {
			in[len(in)-1] = "..." + reflectKey(t.In(len(in)-1).Elem())
		}
		for i := range out {
			out[i] = reflectKey(t.Out(i))
		}
		return "func(" + strings.Join(in, ",") + ")(" + strings.Join(out, ",") + ")"
	case reflect.Struct:
		fields := make([]string, t.NumField())
		for i := range fields {
			f := t.Field(i)
			name := f.Name
			if !f.IsExported() {
				name = f.PkgPath + "." + name // never a cell's field
			}
			if f.Anonymous {
				name = "embed " + name
			}
			fields[i] = name + " " + reflectKey(f.Type)
			if f.Tag != "" {
				fields[i] += " " + strconv.Quote(string(f.Tag))
			}
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "interface{}"
		}
		return "interface " + t.String()
	case reflect.UnsafePointer:
		return "unsafe.Pointer"
	}
	return t.Kind().String()
}
