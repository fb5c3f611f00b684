package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// A value of a cell's type nested in another value (an element of a slice, array or map, a
// field of a struct, what a pointer points to) reaches fmt through reflect, where the cell's
// type has no methods, so fmt would print it by its fields where Go calls its String or Error.
// wrap-fmt-args passes such an operand, whose type the unit shows, through a mirror: a
// function literal, called where the operand stands, that copies the value into compiled
// values that fmt prints as Go prints the operand. Each element that Go prints by a method
// goes through the helper that such an operand gets (FmtArgName for a value whose method set
// has String or Error, FmtPtrName for a pointer, heldFmtArg's literal for an interface of the
// session, then UnwrapName, heldAny's literal for any); an element of type any is mirrored in
// every session whose types have methods, String or Error or not, as the interpreter gives fmt
// its record of such a value, and that alone is mirrored in a session without String and
// Error (mirrorsOnly); a slice or array becomes a []any of its elements' mirrors (fmt
// prints both as [a b]); a map a map of the same keys to its values' mirrors (fmt sorts the
// same keys); a struct a compiled struct of the same field names with fields of type any
// (FieldsName), which %v and %+v print as they print the struct; and a pointer to one of
// these, the operand itself, a pointer to its mirror (fmt prints &…). Nothing else is copied:
// a part of a type that holds no such value is passed as it is, and a type that holds none is
// not mirrored at all. For []P and W struct{ In P; N int }, with P's String on a value
// receiver:
//
//	fmt.Println(ps, w)
//
// runs as
//
//	fmt.Println(func(_gosbiM0s []P) any { return _gosbibuiltin.Lazy(func() any { if _gosbiM0s == nil { return _gosbiM0s }; _gosbiR := make([]any, len(_gosbiM0s)); for _gosbiI, _gosbiM1 := range _gosbiM0s { _gosbiR[_gosbiI] = _gosbiFmtArg(_gosbiM1) }; return _gosbiR }) }(ps), func(_gosbiM0 W) any { return _gosbibuiltin.Lazy(func() any { return _gosbibuiltin.Fields("In N", _gosbiFmtArg(_gosbiM0.In), _gosbiM0.N) }) }(w))
//
// The literal takes the operand where it stands, as Go hands fmt the operand (the slice, map
// or pointer itself, a copy of an array or struct), and returns what LazyName makes of the
// mirror's code, which fmt formats after every operand was evaluated: it makes the mirror
// then, reading the elements as fmt reads them in Go, and prints it with the same verb,
// flags, width and precision. The mirror of a cell's result is made at once.
//
// Go's rules decide what is mirrored: an element whose type has String only on a pointer
// receiver is printed by its fields (the value's method set lacks it), an unexported field is
// printed by its fields at every depth (fmt cannot call its methods), and a pointer nested in
// a value prints as an address. A map's keys are left as they are (they print by their
// fields). The mirror is left out, and the operand printed as before, where the type holds a
// struct that embeds a field (which may promote a method), a field named _, a field with a
// tag, a type of the session with a method Format or with print methods on both receivers,
// a generic type, a type that holds itself, an element type whose kind is byte (fmt prints
// such a slice as bytes for %s, %q and %x), or a name the unit shadows.

// Names in the mirrors of wrap-fmt-args.
const (
	// FmtMirrorName starts the names of the parameters of the function literals of a mirror,
	// which end with the depth of the value (and s for a slice or array, m for a map); a call
	// of such a literal is an operand that wrap-fmt-args has wrapped.
	FmtMirrorName = "_gosbiM"
	// FieldsName is the compiled function of the prelude's package builtin that makes the
	// mirror of a struct: given the field names separated by spaces and the fields' values, a
	// value of a struct type with those names and fields of type any.
	FieldsName = "_gosbibuiltin.Fields"
	// UnwrapName is the compiled function of the prelude's package builtin that gives the value
	// of a cell's type that the interpreter hands compiled code as its own record of an
	// interface's value (a struct of the expression's node and the value), and any other value
	// as it is. The mirror of an interface's value passes through it: a value that heldFmtArg's
	// literal passes on as it is would print as that record, in a slice or map of the cell.
	UnwrapName = "_gosbibuiltin.Unwrap"
	// WrappedName is the compiled function of the prelude's package builtin that reports
	// whether a value is the interpreter's record of a value of a cell's type (see UnwrapName).
	WrappedName = "_gosbibuiltin.Wrapped"
	// AddrName is the compiled function of the prelude's package builtin that returns a
	// pointer to a copy of a mirror.
	AddrName = "_gosbibuiltin.Addr"
	// LazyName is the compiled function of the prelude's package builtin that, given a
	// function that makes a mirror, returns a value that fmt prints as the mirror, made when
	// fmt formats the value, with the same verb, flags, width and precision.
	LazyName = "_gosbibuiltin.Lazy"
)

// maxMirrorDepth bounds the depth of a mirror: an operand whose type holds a value that needs
// one deeper (the element of nine nested slices) is not mirrored at all, and prints by its
// fields.
const maxMirrorDepth = 8

// mirror makes the mirror of one operand type.
type mirror struct {
	tt        *typeTable
	pointer   bool     // a String or Error of the session has a pointer receiver
	path      []string // the named types that the value being mirrored is nested in
	recursive *bool    // set where a named type holds itself: such a type is not mirrored
	limit     int      // the most elements of a slice or array mirrored, 0 for all
	lazy      bool     // the operand's mirror is made when fmt prints it (see literal)
}

// resultElements is the most elements of a slice or array that the mirror of a cell's result
// copies: the session shows no more than 20,000 bytes of a value (display.Render), and each
// element takes one at least (a space), so the elements after them are cut from what it shows.
const resultElements = 20001

// fmtMirror returns the function literal, up to the "(" of its argument, that a print
// operand of type t goes through, and "" when its type holds no value that Go prints by a
// method where the interpreter does not.
func (tt *typeTable) fmtMirror(t ast.Expr, pointer bool) string {
	return tt.mirrorOf(t, mirror{tt: tt, pointer: pointer, recursive: new(bool), lazy: true})
}

// mirrorOf returns the function literal that fmtMirror returns, made by m.
func (tt *typeTable) mirrorOf(t ast.Expr, m mirror) string {
	if t == nil {
		return ""
	}
	v := FmtMirrorName + "0"
	e, ok := m.value(t, v, 0)
	typ, named := m.typeText(t)
	if !ok || !named || *m.recursive {
		return ""
	}
	if lit, ok := strings.CutSuffix(e, "("+v+")"); ok && strings.HasPrefix(lit, "func(") {
		return lit + "(" // the mirror of a slice, array, map or pointer is a literal called on v
	}
	return strings.TrimSuffix(m.literal(v, typ, "return "+e, "", 0), ")")
}

// literal returns the call, on v, of a function literal of a mirror with the parameter p of
// type typ and the body. For the operand of a print function (depth 0, m.lazy), the literal
// returns what LazyName makes of the body, which runs when fmt prints the operand: as in Go,
// the operand's value is taken where it stands (the slice, map or pointer itself, a copy of an
// array or struct), and the elements that it refers to are read after every operand was
// evaluated.
func (m mirror) literal(p, typ, body, v string, depth int) string {
	if m.lazy && depth == 0 {
		body = fmt.Sprintf("return %s(func() any { %s })", LazyName, body)
	}
	return fmt.Sprintf("func(%s %s) any { %s }(%s)", p, typ, body, v)
}

// value returns the expression of the mirror of the value v of type t at depth (0 for the
// operand), and false when the value needs none.
func (m mirror) value(t ast.Expr, v string, depth int) (string, bool) {
	if depth > maxMirrorDepth {
		return "", false
	}
	switch t := t.(type) {
	case *ast.ParenExpr:
		return m.value(t.X, v, depth)
	case *ast.Ident:
		if m.tt.isAny(t) {
			return m.held(v, depth)
		}
		return m.named(t, v, depth)
	case *ast.InterfaceType:
		if m.tt.isAny(t) {
			return m.held(v, depth)
		}
	case *ast.StarExpr:
		return m.pointee(t, v, depth)
	case *ast.ArrayType:
		return m.elements(t, v, depth)
	case *ast.MapType:
		return m.entries(t, v, depth)
	case *ast.StructType:
		return m.fields(t, v, depth)
	}
	return "", false
}

// named returns the mirror of a value v of the named type id (see value).
func (m mirror) named(id *ast.Ident, v string, depth int) (string, bool) {
	tt := m.tt
	ts := tt.spec(id)
	if ts == nil || ts.TypeParams != nil {
		return "", false
	}
	if tt.isInterface(id) {
		if depth == 0 || ts.Assign.IsValid() {
			return "", false // fmtHelper's literal handles the operand
		}
		h := tt.heldFmtArg(id.Name, false, false, m.pointer)
		if !strings.HasPrefix(h, "func(") {
			return "", false
		}
		return UnwrapName + "(" + h + v + "))", true
	}
	name := id.Name
	var value, ptr, format bool
	if ts == tt.specs[id.Name] { // a local type has no methods
		name = tt.aliased(id.Name)
		value, ptr, format = tt.printReceivers(name)
	}
	st, isStruct := ts.Type.(*ast.StructType)
	switch {
	case format, value && ptr, isStruct && embedsField(st):
		return "", false
	case value:
		if depth == 0 {
			return "", false // fmtHelper's helpers handle the operand
		}
		return FmtArgName + "(" + v + ")", true
	}
	if slices.Contains(m.path, name) {
		*m.recursive = true
		return "", false
	}
	m.path = append(m.path[:len(m.path):len(m.path)], name)
	return m.value(ts.Type, v, depth)
}

// held returns the mirror of a value v of type any (or interface{}) nested in the operand (see
// value), made by the function literal of heldAny. The operand itself is left to fmtHelper,
// and so is every value where the session declares no methods (the interpreter keeps no record
// of a value then) or where any names another type.
func (m mirror) held(v string, depth int) (string, bool) {
	tt := m.tt
	if depth == 0 || len(tt.methods) == 0 || tt.defined("any") || tt.shadowed("any") {
		return "", false
	}
	return tt.heldAny(m.pointer) + v + ")", true
}

// heldAny returns the function literal, up to the "(" of its argument, that the mirror passes
// a value of type any through, with heldFmtArg's cases for any: the interpreter's record of a
// value of a session's type goes through a type switch on the value it records (on the record,
// held by a parameter of type any, the cases do not match), so that a value whose method set
// has Error or String prints by it, as an operand of its type would, and any other value as
// UnwrapName gives it, by its fields, never as the record; any other value (a pointer to a
// value of a session's type, nil, a compiled value) through a type switch with the cases of
// the pointers alone, and as it is otherwise. The switches have two cases at most for each of
// the session's types with Format, Error or String.
func (tt *typeTable) heldAny(pointer bool) string {
	ptrs, values := tt.heldCases(nil, FmtPtrName, false, pointer)
	return fmt.Sprintf("func(%[1]s any) any { if !%[2]s(%[1]s) { switch _gosbiW := %[1]s.(type) { %[4]s}; return %[1]s }; switch _gosbiW := %[3]s(%[1]s).(type) { %[4]s%[5]s}; return %[3]s(%[1]s) }(",
		FmtHeldName, WrappedName, UnwrapName, ptrs, values)
}

// printReceivers reports whether the session declares the methods Error or String of the
// type name on a value receiver, on a pointer receiver, and whether it declares Format.
func (tt *typeTable) printReceivers(name string) (value, pointer, format bool) {
	for _, fd := range tt.methods {
		recv, _ := receiver(fd)
		if tt.aliased(recv) != name {
			continue
		}
		switch fd.Name.Name {
		case "Format":
			format = true
		case "Error", "String":
			if _, star := ast.Unparen(fd.Recv.List[0].Type).(*ast.StarExpr); star {
				pointer = true
			} else {
				value = true
			}
		}
	}
	return value, pointer, format
}

// embeds reports whether the session's type name is a struct type that embeds a field.
func (tt *typeTable) embeds(name string) bool {
	ts := tt.specs[name]
	if ts == nil {
		return false
	}
	st, ok := ts.Type.(*ast.StructType)
	return ok && embedsField(st)
}

// embedsField reports whether a struct type embeds a field.
func embedsField(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return true
		}
	}
	return false
}

// pointee returns the mirror of a pointer v of type t (see value): the pointer through
// FmtPtrName where its element type is one of the session's with a method Error or String,
// and, for the operand itself, a pointer to the mirror of the array, slice, map or struct it
// points to (a nil pointer as it is; fmt prints any other pointer as an address).
func (m mirror) pointee(t *ast.StarExpr, v string, depth int) (string, bool) {
	if id, ok := ast.Unparen(t.X).(*ast.Ident); ok && m.tt.spec(id) == m.tt.specs[id.Name] && m.tt.specs[id.Name] != nil {
		value, ptr, format := m.tt.printReceivers(m.tt.aliased(id.Name))
		if format || m.tt.embeds(m.tt.aliased(id.Name)) {
			return "", false
		}
		if value || ptr {
			if depth == 0 {
				return "", false
			}
			return FmtPtrName + "(" + v + ")", true
		}
	}
	switch m.tt.underlying(t.X).(type) {
	case *ast.ArrayType, *ast.MapType, *ast.StructType:
	default:
		return "", false // fmt prints a pointer to anything else as an address
	}
	if depth > 0 {
		return "", false // fmt prints a nested pointer as an address
	}
	p := FmtMirrorName + strconv.Itoa(depth+1)
	e, ok := m.value(t.X, "(*"+p+")", depth+1)
	typ, named := m.typeText(t)
	if !ok || !named {
		return "", false
	}
	return m.literal(p, typ, fmt.Sprintf("if %[1]s == nil { return %[1]s }; return %[2]s(%[3]s)", p, AddrName, e), v, depth), true
}

// elements returns the mirror of a slice or array v of type t (see value): a []any of its
// elements' mirrors, or a nil slice as it is.
func (m mirror) elements(t *ast.ArrayType, v string, depth int) (string, bool) {
	if m.byteKind(t.Elt) {
		return "", false
	}
	e, em, typ, ok := m.element(t, t.Elt, depth)
	if !ok {
		return "", false
	}
	p := FmtMirrorName + strconv.Itoa(depth) + "s"
	nilCheck := ""
	if t.Len == nil {
		nilCheck = fmt.Sprintf("if %[1]s == nil { return %[1]s }; ", p)
	}
	if m.limit > 0 {
		return m.literal(p, typ, fmt.Sprintf("%[2]s_gosbiN := len(%[1]s); if _gosbiN > %[5]d { _gosbiN = %[5]d }; _gosbiR := make([]any, _gosbiN); for _gosbiI, %[3]s := range %[1]s[:_gosbiN] { _gosbiR[_gosbiI] = %[4]s }; return _gosbiR",
			p, nilCheck, e, em, m.limit), v, depth), true
	}
	return m.literal(p, typ, fmt.Sprintf("%[2]s_gosbiR := make([]any, len(%[1]s)); for _gosbiI, %[3]s := range %[1]s { _gosbiR[_gosbiI] = %[4]s }; return _gosbiR",
		p, nilCheck, e, em), v, depth), true
}

// element returns, for a slice, array or map of type t at depth whose elements have the type
// elem, the name of the variable of an element, the expression of its mirror, and the text of t;
// false when the elements need no mirror or t cannot be written.
func (m mirror) element(t, elem ast.Expr, depth int) (e, em, typ string, ok bool) {
	e = FmtMirrorName + strconv.Itoa(depth+1)
	em, ok = m.value(elem, e, depth+1)
	typ, named := m.typeText(t)
	return e, em, typ, ok && named
}

// byteKind reports whether the type t may be of the kind byte, whose slices fmt prints as
// bytes for some verbs.
func (m mirror) byteKind(t ast.Expr) bool {
	switch u := m.tt.underlying(t).(type) {
	case *ast.Ident:
		return u.Name == "byte" || u.Name == "uint8"
	case *ast.ArrayType, *ast.MapType, *ast.StructType, *ast.StarExpr, *ast.FuncType, *ast.ChanType, *ast.InterfaceType:
		return false
	}
	return true
}

// entries returns the mirror of a map v of type t (see value): a map of the same keys to its
// values' mirrors, or a nil map as it is.
func (m mirror) entries(t *ast.MapType, v string, depth int) (string, bool) {
	e, em, typ, ok := m.element(t, t.Value, depth)
	if !ok {
		return "", false
	}
	p := FmtMirrorName + strconv.Itoa(depth) + "m"
	return m.literal(p, typ, fmt.Sprintf("if %[1]s == nil { return %[1]s }; _gosbiR := make(map[%[2]s]any, len(%[1]s)); for _gosbiK, %[3]s := range %[1]s { _gosbiR[_gosbiK] = %[4]s }; return _gosbiR",
		p, types.ExprString(t.Key), e, em), v, depth), true
}

// fields returns the mirror of a struct v of type t (see value), made by FieldsName: the
// mirrors of its exported fields that need one, and the other fields as they are.
func (m mirror) fields(t *ast.StructType, v string, depth int) (string, bool) {
	if embedsField(t) {
		return "", false
	}
	var names, values []string
	mirrored := false
	for _, f := range t.Fields.List {
		if f.Tag != nil {
			return "", false
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				return "", false
			}
			fv := v + "." + n.Name
			if n.IsExported() {
				if fm, ok := m.value(f.Type, fv, depth+1); ok {
					fv, mirrored = fm, true
				}
			}
			names, values = append(names, n.Name), append(values, fv)
		}
	}
	if !mirrored {
		return "", false
	}
	return fmt.Sprintf("%s(%q, %s)", FieldsName, strings.Join(names, " "), strings.Join(values, ", ")), true
}

// typeText returns the type expression t as the mirror writes it, and false when it cannot be
// written where the unit's operand stands: each name in it must be a predeclared type that
// nothing redefines, a type of the session that nothing shadows there, a type of the unit, or
// a package's type, and it may hold no function, channel or interface literal, array length
// other than a number, or field tag.
func (m mirror) typeText(t ast.Expr) (string, bool) {
	ok := true
	ast.Inspect(t, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			ok = ok && n.Tag == nil
			if ok {
				ast.Inspect(n.Type, func(n ast.Node) bool { return m.inspectName(n, &ok) })
			}
			return false
		default:
			return m.inspectName(n, &ok)
		}
	})
	return types.ExprString(t), ok
}

// inspectName clears ok when n cannot be written where the operand stands (see typeText), and
// reports whether the inspection goes on.
func (m mirror) inspectName(n ast.Node, ok *bool) bool {
	tt := m.tt
	switch n := n.(type) {
	case *ast.SelectorExpr:
		pkg, isIdent := n.X.(*ast.Ident)
		*ok = *ok && isIdent && pkg.Obj == nil && tt.env.IsPackage != nil && tt.env.IsPackage(pkg.Name)
		return false
	case *ast.Ident:
		switch {
		case n.Obj != nil:
			*ok = *ok && n.Obj.Kind == ast.Typ
		case tt.specs[n.Name] != nil:
			*ok = *ok && !tt.shadowed(n.Name)
		case predeclared[n.Name] != "" || n.Name == "any" || n.Name == "error":
			*ok = *ok && !tt.defined(n.Name)
		default:
			*ok = false
		}
	case *ast.BasicLit:
		*ok = *ok && n.Kind == token.INT
	case *ast.InterfaceType:
		*ok = *ok && len(n.Methods.List) == 0
		return false
	case *ast.FuncType, *ast.ChanType, *ast.Ellipsis, *ast.IndexExpr, *ast.IndexListExpr:
		*ok = false
	}
	return *ok
}

// wrapResult returns the text of the unit, the cell's trailing expression, with the
// expression passed through the mirror that fmt's operand of its type gets (fmtMirror, which
// copies no more of a slice than the session shows), so that the session shows the value as
// fmt.Println prints it; an expression of the type any
// or of an interface type of the session goes through the helper that fmtHelper gives such an
// operand, which passes on the value that the interface holds as fmt gets it. A value of a
// type of the session with methods is left (the session shows it by its own MIMEBundle, Error
// or String), and so is any other value.
func (p *parsed) wrapResult(pointer bool, tt *typeTable) string {
	st, ok := p.root.(*ast.ExprStmt)
	if !ok || len(p.body) != 1 {
		return p.Text
	}
	t := tt.staticType(st.X, 0)
	if s, ok := t.(*ast.StarExpr); ok && tt.declaresMethods(s.X) || tt.declaresMethods(t) {
		return p.Text
	}
	prefix := tt.mirrorOf(t, mirror{tt: tt, pointer: pointer, recursive: new(bool), limit: resultElements})
	if id, ok := t.(*ast.Ident); ok && prefix == "" && tt.isInterface(id) && id.Name != "error" &&
		(id.Name == "any" && !tt.defined("any") || tt.specs[id.Name] != nil && tt.spec(id) == tt.specs[id.Name]) {
		prefix = fmtHelper(false, operandVerb{verb: 'v'}, st.X, pointer, tt)
	}
	if prefix == "" {
		return p.Text
	}
	return p.replaceAll([]edit{{st.X, prefix, ")"}})
}

// declaresMethods reports whether t names a type of the session on which the session or the
// cell declares methods.
func (tt *typeTable) declaresMethods(t ast.Expr) bool {
	id, ok := ast.Unparen(t).(*ast.Ident)
	if !ok || tt.specs[id.Name] == nil || tt.spec(id) != tt.specs[id.Name] {
		return false
	}
	name := tt.aliased(id.Name)
	for _, fd := range tt.methods {
		if recv, _ := receiver(fd); tt.aliased(recv) == name {
			return true
		}
	}
	return false
}

// isAny reports whether t is the predeclared type any, or the empty interface literal.
func (tt *typeTable) isAny(t ast.Expr) bool {
	switch t := ast.Unparen(t).(type) {
	case *ast.Ident:
		return t.Name == "any" && t.Obj == nil && !tt.defined("any")
	case *ast.InterfaceType:
		return len(t.Methods.List) == 0
	}
	return false
}
