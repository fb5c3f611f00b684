package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// The comparisons of check-type-identity. The interpreter compares two interface values by
// the representation of their dynamic types, which is the same for two types it cannot tell
// apart (type T1 struct{ A int } and type T2 struct{ A int }, type A int and int): any(T1{}) ==
// any(T2{}) is true, and a T2 key finds a T1's entry of a map[any]int, where Go says no. No
// check at run time can tell such values apart, so the pass fails a cell where a comparison
// (== or !=) or a key of a map of interface keys (an index, a key of a map literal, the key of
// delete) may compare an interface value with a value of such a type: only in a session whose
// types hold such a pair. It follows the static types that the cell writes (conversions,
// composite literals, make and new, the declared types of variables, parameters and results, fields, elements, the
// session's variables and functions by Env.Definition) and leaves an operand whose type it
// cannot find (a function of a compiled package, a method): such a comparison is not checked.

// ambiguousPair is two types that the interpreter cannot tell apart.
type ambiguousPair struct{ k, z typeKey }

// ambiguousPairs returns the pairs of the session's and the cell's types with another type the
// interpreter cannot tell them from (two session types, or one and the type it is declared as).
func (tt *typeTable) ambiguousPairs() []ambiguousPair {
	var pairs []ambiguousPair
	for _, name := range tt.order {
		k, ok := tt.key(&ast.Ident{Name: name})
		if !ok {
			continue
		}
		k.name = name
		if z, ok := tt.confused(k, false); ok {
			pairs = append(pairs, ambiguousPair{k, z})
		}
	}
	return pairs
}

// checkComparisons returns an error for the first comparison of the unit whose operands may
// hold values of two types the interpreter cannot tell apart, nil when there is none.
func (p *parsed) checkComparisons(tt *typeTable, pairs []ambiguousPair) error {
	var err error
	ast.Inspect(p.root, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				err = p.checkComparison(tt, pairs, n, n.X, n.Y)
			}
		case *ast.IndexExpr:
			if key, ok := tt.mapKey(tt.staticType(n.X, 0)); ok {
				err = p.checkOperands(tt, pairs, n, key, n.Index)
			}
		case *ast.CompositeLit:
			if _, ok := tt.mapKey(n.Type); ok {
				err = p.checkKeys(tt, n)
			}
		case *ast.CallExpr:
			if m, k, ok := tt.deleted(n); ok {
				err = p.checkOperands(tt, pairs, n, m, k)
			}
		}
		return err == nil
	})
	return err
}

// deleted returns the key type of the map of interface keys and the key of a call of the
// predeclared delete, false for another call.
func (tt *typeTable) deleted(call *ast.CallExpr) (key, k ast.Expr, ok bool) {
	id, isIdent := call.Fun.(*ast.Ident)
	if !isIdent || id.Obj != nil || id.Name != "delete" || len(call.Args) != 2 || tt.defined(id.Name) {
		return nil, nil, false
	}
	key, ok = tt.mapKey(tt.staticType(call.Args[0], 0))
	return key, call.Args[1], ok
}

// checkKeys checks the keys of a literal of a map of interface keys against each other: two
// keys of types the interpreter cannot tell apart are one key to it.
func (p *parsed) checkKeys(tt *typeTable, lit *ast.CompositeLit) error {
	var keys []typeKey
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		t := tt.staticType(kv.Key, 0)
		if t == nil || tt.isInterface(t) {
			continue
		}
		k, ok := tt.key(t)
		if !ok {
			continue
		}
		k.name = types.ExprString(t)
		for _, c := range keys {
			if k.takenFor(c, false) {
				return p.comparisonError(kv.Key, k, c)
			}
		}
		keys = append(keys, k)
	}
	return nil
}

// checkComparison checks the comparison n of the operands x and y.
func (p *parsed) checkComparison(tt *typeTable, pairs []ambiguousPair, n ast.Node, x, y ast.Expr) error {
	if isNil(x) || isNil(y) {
		return nil
	}
	if tx := tt.staticType(x, 0); tt.isInterface(tx) {
		return p.checkOperands(tt, pairs, n, tx, y)
	}
	if ty := tt.staticType(y, 0); tt.isInterface(ty) {
		return p.checkOperands(tt, pairs, n, ty, x)
	}
	return nil
}

// checkOperands checks the comparison n of a value of the interface type iface with the
// operand other.
func (p *parsed) checkOperands(tt *typeTable, pairs []ambiguousPair, n ast.Node, iface, other ast.Expr) error {
	if tt.compiledValue(other) {
		return nil
	}
	methods := tt.hasMethods(iface)
	t := tt.staticType(other, 0)
	if t == nil || tt.isInterface(t) {
		methods = methods || tt.hasMethods(t)
		for _, pr := range pairs {
			if tt.holds(pr.k, methods) && tt.holds(pr.z, methods) && (pr.z.session || tt.cellNames[pr.k.name]) {
				return p.comparisonError(n, pr.k, pr.z)
			}
		}
		return nil
	}
	k, ok := tt.key(t)
	if !ok {
		return nil
	}
	k.name = types.ExprString(t)
	if z, ok := tt.confused(k, false); ok && tt.holds(k, methods) && tt.holds(z, methods) {
		return p.comparisonError(n, k, z)
	}
	return nil
}

// compiledValue reports whether e is a variable or constant of a compiled package (io.EOF),
// which holds no value of a cell's type.
func (tt *typeTable) compiledValue(e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Obj == nil && tt.env.IsPackage != nil && tt.env.IsPackage(pkg.Name) && tt.compiledType(sel) == nil
}

// holds reports whether a value of the type k may be held by an interface, of methods or not:
// an interface with methods holds only types of the session with methods.
func (tt *typeTable) holds(k typeKey, methods bool) bool {
	return !methods || k.session && tt.env.HasMethods != nil && tt.env.HasMethods(k.name)
}

// comparisonError is the error for a comparison that cannot tell the type k from z.
func (p *parsed) comparisonError(n ast.Node, k, z typeKey) error {
	what, src := "the key of a map of interface keys", StripPositions(p.src(n))
	switch n := n.(type) {
	case *ast.BinaryExpr:
		what = "the comparison"
		if x, y := p.fset.Position(n.X.Pos()), p.fset.Position(n.Y.Pos()); x.Filename == y.Filename && x.Line == y.Line &&
			x.Column == y.Column { // both operands where the case value stands: made by bind-switch-tag
			what, src = "the switch's case", StripPositions(p.src(n.Y))
		}
	case *ast.IndexExpr:
		what = "the index of a map of interface keys"
	case *ast.CallExpr:
		what = "the key deleted from a map of interface keys by"
	}
	example := ""
	if x, y := zeroValue(k), zeroValue(z); x != "" && y != "" {
		example = fmt.Sprintf(" (any(%s) == any(%s) is true, where Go says false)", x, y)
	}
	return fmt.Errorf("%s: %s %s cannot tell %s from %s: the interpreter knows a type declared in a cell only as "+
		"the type it is declared as, without its name (%s), so comparing interface values (or keys of a map of interface keys) "+
		"that hold them takes a value of %s for one of %s of the same contents, without a word%s. "+
		"Declare the types of the session so that they differ in their fields (a struct with a field "+
		"of its own for type A int), or compare values of the types themselves, not held in interfaces",
		p.fset.Position(n.Pos()), what, src, k.name, z.name, k.declared(z), k.name, z.name, example)
}

// zeroValue returns an expression of the zero value of the type k for the example of
// comparisonError: a composite literal of a struct or an array type, a conversion of a
// constant to a type of a basic kind; "" for another type, whose values an example could not
// compare (a slice) or write simply (a pointer).
func zeroValue(k typeKey) string {
	switch {
	case strings.HasPrefix(k.rep, "struct{") || strings.HasPrefix(k.rep, "[") && !strings.HasPrefix(k.rep, "[]"):
		return k.name + "{}"
	case !k.named || strings.HasPrefix(k.name, "*") || strings.HasPrefix(k.name, "["):
		return ""
	case k.under == "bool":
		return k.name + "(false)"
	case k.under == "string":
		return k.name + `("")`
	case basicNumbers[k.under]:
		return k.name + "(0)"
	}
	return ""
}

// basicNumbers are the representations of the numeric kinds of types.
var basicNumbers = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true, "float32": true, "float64": true,
	"complex64": true, "complex128": true,
}

// isNil reports whether e is the predeclared nil.
func isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil" && id.Obj == nil
}

// maxTypeDepth bounds the steps of staticType, against definitions that name each other.
const maxTypeDepth = 16

// defaultTypes are the default types of untyped constants, by the kind of their literal.
var defaultTypes = map[token.Token]string{token.INT: "int", token.FLOAT: "float64", token.IMAG: "complex128",
	token.CHAR: "rune", token.STRING: "string"}

// staticType returns the type of the expression e as a type expression, nil when it cannot
// find it: an untyped constant has its default type.
func (tt *typeTable) staticType(e ast.Expr, depth int) ast.Expr {
	if depth > maxTypeDepth || e == nil {
		return nil
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return tt.staticType(e.X, depth+1)
	case *ast.BasicLit:
		return &ast.Ident{Name: defaultTypes[e.Kind]}
	case *ast.CompositeLit:
		return e.Type
	case *ast.FuncLit:
		return e.Type
	case *ast.CallExpr:
		if tt.isType(e.Fun) {
			return e.Fun
		}
		if t := tt.builtinType(e); t != nil {
			return t
		}
		if ft, ok := tt.underlying(tt.staticType(e.Fun, depth+1)).(*ast.FuncType); ok && ft.Results != nil &&
			len(ft.Results.List) == 1 && len(ft.Results.List[0].Names) <= 1 {
			return ft.Results.List[0].Type
		}
	case *ast.Ident:
		return tt.identType(e, depth)
	case *ast.IndexExpr:
		switch t := tt.underlying(tt.staticType(e.X, depth+1)).(type) {
		case *ast.MapType:
			return t.Value
		case *ast.ArrayType:
			return t.Elt
		}
	case *ast.StarExpr:
		if t, ok := tt.staticType(e.X, depth+1).(*ast.StarExpr); ok {
			return t.X
		}
	case *ast.UnaryExpr:
		if t := tt.staticType(e.X, depth+1); e.Op == token.AND && t != nil {
			return &ast.StarExpr{X: t}
		}
	case *ast.SelectorExpr:
		return tt.fieldType(tt.staticType(e.X, depth+1), e.Sel.Name)
	}
	return nil
}

// builtinType returns the type of a call of the predeclared make or new: its first argument, or
// a pointer to it; nil for another call, or where the unit, the cell or the session defines
// the name.
func (tt *typeTable) builtinType(call *ast.CallExpr) ast.Expr {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Obj != nil || len(call.Args) == 0 || (id.Name != "make" && id.Name != "new") || tt.defined(id.Name) {
		return nil
	}
	if id.Name == "new" {
		return &ast.StarExpr{X: call.Args[0]}
	}
	return call.Args[0]
}

// defined reports whether the cell or the session defines name: a type, a variable or a
// function that shadows a predeclared one.
func (tt *typeTable) defined(name string) bool {
	if _, ok := tt.cellDefs[name]; ok || tt.specs[name] != nil {
		return true
	}
	if tt.env.Definition == nil {
		return false
	}
	typ, value := tt.env.Definition(name)
	return typ != "" || value != ""
}

// identType returns the type of a variable, parameter or function named by id: one the unit
// declares, one an earlier unit of the cell defines, or the session's.
func (tt *typeTable) identType(id *ast.Ident, depth int) ast.Expr {
	if id.Obj != nil {
		switch d := id.Obj.Decl.(type) {
		case *ast.ValueSpec:
			if d.Type != nil {
				return d.Type
			}
			for i, n := range d.Names {
				if n.Name == id.Name && len(d.Values) == len(d.Names) {
					return tt.staticType(d.Values[i], depth+1)
				}
			}
		case *ast.Field:
			if el, ok := d.Type.(*ast.Ellipsis); ok {
				return &ast.ArrayType{Lbrack: el.Pos(), Elt: el.Elt} // a variadic parameter ...T is a []T
			}
			return d.Type
		case *ast.AssignStmt:
			return tt.assignedType(d, id.Name, depth)
		case *ast.FuncDecl:
			return d.Type
		}
		return nil
	}
	if def, ok := tt.cellDefs[id.Name]; ok {
		if def.typ != nil {
			return def.typ
		}
		return tt.staticType(def.value, depth+1)
	}
	if tt.env.Definition == nil {
		return nil
	}
	typ, value := tt.env.Definition(id.Name)
	if t, err := parser.ParseExpr(typ); typ != "" && err == nil {
		return t
	}
	if v, err := parser.ParseExpr(value); value != "" && err == nil {
		return tt.staticType(v, depth+1)
	}
	return nil
}

// assignedType returns the type that the definition as gives the variable name.
func (tt *typeTable) assignedType(as *ast.AssignStmt, name string, depth int) ast.Expr {
	if as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) {
		return nil
	}
	for i, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name == name {
			return tt.staticType(as.Rhs[i], depth+1)
		}
	}
	return nil
}

// cellDef is a variable or function that a unit of the cell defines at its top: its declared
// type, or the value it is defined by.
type cellDef struct{ typ, value ast.Expr }

// noteDefs records in defs the variables and functions that the unit p defines at its top.
func noteDefs(p *parsed, defs map[string]cellDef) {
	switch n := p.root.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					defs[id.Name] = cellDef{value: n.Rhs[i]}
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := n.Decl.(*ast.GenDecl); ok {
			noteValueSpecs(gd, defs)
		}
	case *ast.GenDecl:
		noteValueSpecs(n, defs)
	case *ast.FuncDecl:
		if n.Recv == nil {
			defs[n.Name.Name] = cellDef{typ: n.Type}
		}
	}
}

// noteValueSpecs records the variables and constants of a declaration in defs.
func noteValueSpecs(gd *ast.GenDecl, defs map[string]cellDef) {
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, n := range vs.Names {
			d := cellDef{typ: vs.Type}
			if vs.Type == nil && len(vs.Values) == len(vs.Names) {
				d.value = vs.Values[i]
			}
			defs[n.Name] = d
		}
	}
}

// fieldType returns the type of the field name of a struct type t (or a pointer to one) of
// the session, nil when there is none.
func (tt *typeTable) fieldType(t ast.Expr, name string) ast.Expr {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	st, ok := tt.underlying(t).(*ast.StructType)
	if !ok {
		return nil
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return f.Type
			}
		}
	}
	return nil
}

// underlying returns the type literal that the type t is declared as, following the names of
// the session's types and of the unit's local types (tt.spec, which leaves a type parameter
// of the same name as a session's type); t itself for another type, nil for nil.
func (tt *typeTable) underlying(t ast.Expr) ast.Expr {
	for range maxTypeDepth {
		switch e := t.(type) {
		case *ast.ParenExpr:
			t = e.X
			continue
		case *ast.Ident:
			if ts := tt.spec(e); ts != nil && ts.TypeParams == nil {
				t = ts.Type
				continue
			}
		}
		return t
	}
	return nil
}

// isType reports whether e names a type: a predeclared type, a type of the session, a type
// literal or a compiled type.
func (tt *typeTable) isType(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if e.Obj != nil {
			return e.Obj.Kind == ast.Typ
		}
		return tt.specs[e.Name] != nil || predeclared[e.Name] != "" || e.Name == "any" || e.Name == "error"
	case *ast.SelectorExpr:
		return tt.compiledType(e) != nil
	case *ast.InterfaceType, *ast.ArrayType, *ast.MapType, *ast.StructType, *ast.FuncType, *ast.ChanType:
		return true
	}
	return false
}

// compiledType returns the compiled type pkg.Name, nil when e names none.
func (tt *typeTable) compiledType(e *ast.SelectorExpr) reflect.Type {
	pkg, ok := e.X.(*ast.Ident)
	env := tt.env
	if !ok || pkg.Obj != nil || env.IsPackage == nil || env.Compiled == nil || !env.IsPackage(pkg.Name) {
		return nil
	}
	return env.Compiled(pkg.Name, e.Sel.Name)
}

// isInterface reports whether t is an interface type.
func (tt *typeTable) isInterface(t ast.Expr) bool {
	switch u := tt.underlying(t).(type) {
	case *ast.InterfaceType:
		return true
	case *ast.Ident:
		return u.Name == "any" || u.Name == "error"
	case *ast.SelectorExpr:
		c := tt.compiledType(u)
		return c != nil && c.Kind() == reflect.Interface
	}
	return false
}

// hasMethods reports whether t is an interface type with methods.
func (tt *typeTable) hasMethods(t ast.Expr) bool {
	switch u := tt.underlying(t).(type) {
	case *ast.InterfaceType:
		return len(u.Methods.List) > 0
	case *ast.Ident:
		return u.Name == "error"
	case *ast.SelectorExpr:
		c := tt.compiledType(u)
		return c != nil && c.Kind() == reflect.Interface && c.NumMethod() > 0
	}
	return false
}

// mapKey returns the key type of a map type t when it is an interface.
func (tt *typeTable) mapKey(t ast.Expr) (ast.Expr, bool) {
	m, ok := tt.underlying(t).(*ast.MapType)
	if !ok || !tt.isInterface(m.Key) {
		return nil, false
	}
	return m.Key, true
}
