package rewrite

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"
)

// printMethods are the methods of an operand that fmt calls for %v, %s, %q, %x and %X, in the
// order it looks for them.
var printMethods = []string{"Format", "Error", "String"}

// printInterfaces are the interfaces by which fmt finds the methods of printMethods: a method
// of the name with another signature (time.Time's Format(layout string) string) is none that
// fmt calls.
var printInterfaces = map[string]reflect.Type{
	"Format": reflect.TypeFor[fmt.Formatter](),
	"Error":  reflect.TypeFor[error](),
	"String": reflect.TypeFor[fmt.Stringer](),
}

// printSigs are the signature keys of the methods of printInterfaces, by name.
var printSigs = func() map[string]string {
	sigs := map[string]string{}
	for name, t := range printInterfaces {
		sigs[name] = reflectSig(t.Method(0).Type, 0)
	}
	return sigs
}()

// promoted is where a method of a struct type of the session is promoted from: the path of
// embedded fields to a compiled type that has it, and whether the method is reached through
// a pointer (an embedded pointer on the path, or a pointer to the struct), which gives it the
// methods of the compiled type's pointer type; or the path to an embedded interface whose
// method Error or String it is.
type promoted struct {
	path    []string
	field   reflect.Type // the type of the last field of path; nil for an interface
	pointer bool
	// blocked: the struct type gets fmt's method from elsewhere than an embedded field that
	// the rewrite can pass: a method declared in a cell of fmt's signature (or of one it
	// cannot resolve), or the Format of an interface.
	blocked bool
	// hidden: the name is no method that fmt calls, and hides those of the name deeper down:
	// a field, a method of another signature, one that only the pointer type has where the
	// value is printed, a method declared in a cell of another signature, or two of the name at
	// the shallowest depth, which Go promotes neither of.
	hidden bool
}

// embedLevel is one struct type met at a depth of the walk of promotedPrint.
type embedLevel struct {
	typ     ast.Expr // the type of the field (or the struct type itself at depth 0)
	path    []string
	pointer bool
}

// promotedPrint returns the embedded field of the session's struct type t (a type name, or a
// pointer to one when pointer) whose compiled type gives t the method that fmt calls for
// %v (Format, Error or String, by Go's rules of promotion and by the method's signature), with
// the method's name, and false when t has none, when a cell declares it (the other parts of
// wrap-fmt-args see to it) or an embedded interface gives it, or when the methods of that field
// that fmt looks for are not all the ones t gets (String from one field, Error from another),
// which passing the field to fmt would not print alike.
func (tt *typeTable) promotedPrint(t ast.Expr, pointer bool) (promoted, string, bool) {
	found := map[string]promoted{}
	level := []embedLevel{{typ: t, pointer: pointer}}
	for depth := 0; len(level) > 0 && depth < maxTypeDepth; depth++ {
		at := map[string][]promoted{}
		var next []embedLevel
		for _, l := range level {
			next = append(next, tt.promotedAt(l, at)...)
		}
		for name, ps := range at {
			if _, done := found[name]; done {
				continue
			}
			if len(ps) > 1 {
				found[name] = promoted{hidden: true}
			} else {
				found[name] = ps[0]
			}
		}
		level = next
	}
	for _, name := range printMethods {
		p, ok := found[name]
		switch {
		case !ok || p.hidden: // fmt looks for the next
			continue
		case p.blocked:
			return promoted{}, "", false
		}
		return p, name, p.consistent(found)
	}
	return promoted{}, "", false
}

// consistent reports whether each method that fmt looks for which p's field has is the one
// that the struct type gets from it. The method of an interface is called, which gives fmt a
// string to print as it prints the method's result.
func (p promoted) consistent(found map[string]promoted) bool {
	if p.field == nil {
		return true
	}
	for _, name := range printMethods {
		if p.methods().Implements(printInterfaces[name]) {
			q := found[name]
			if q.blocked || q.hidden || !slices.Equal(q.path, p.path) {
				return false
			}
		}
	}
	return true
}

// methods returns the type whose methods the struct type gets from p's field.
func (p promoted) methods() reflect.Type {
	if p.pointer && p.field.Kind() != reflect.Pointer {
		return reflect.PointerTo(p.field)
	}
	return p.field
}

// promotedAt records in at the methods and fields of the names of printMethods that the type
// of l has at its depth, and returns the embedded fields of a struct type of the session, one
// depth down.
func (tt *typeTable) promotedAt(l embedLevel, at map[string][]promoted) []embedLevel {
	e, pointer := l.typ, l.pointer
	if s, ok := e.(*ast.StarExpr); ok {
		e, pointer = s.X, true
	}
	if len(l.path) > 0 && tt.printInterface(e, l.path, at, 0) {
		return nil
	}
	switch e := e.(type) {
	case *ast.SelectorExpr:
		if c := tt.compiledType(e); c != nil {
			p := promoted{path: l.path, field: c, pointer: pointer}
			if _, ok := l.typ.(*ast.StarExpr); ok {
				p.field = reflect.PointerTo(c)
			}
			p.record(at)
		}
	case *ast.Ident:
		ts := tt.specs[e.Name]
		if ts == nil || ts.TypeParams != nil {
			return nil
		}
		for _, name := range printMethods {
			if p, ok := tt.declaredPrint(e.Name, name); ok {
				at[name] = append(at[name], p)
			}
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			return tt.embeddedFields(st, l, pointer, at)
		}
	}
	return nil
}

// declaredPrint returns what a method name of printMethods that a cell declares on the type
// typeName is to fmt, and false when none declares it: blocked where its signature is fmt's
// (the other parts of wrap-fmt-args see to it) or cannot be resolved, hidden where it is
// another, which fmt does not call and which hides the methods of the name deeper down.
func (tt *typeTable) declaredPrint(typeName, name string) (promoted, bool) {
	found := false
	for _, fd := range tt.methods {
		if recv, _ := receiver(fd); tt.aliased(recv) != tt.aliased(typeName) || fd.Name.Name != name {
			continue
		}
		if sig := tt.funcSig(fd.Type); sig == "" || sig == printSigs[name] {
			return promoted{blocked: true}, true
		}
		found = true
	}
	return promoted{hidden: true}, found
}

// record records in at the methods of the names of printMethods that p's compiled field
// gives the struct type: those that fmt calls, and as hidden the others of the names (of
// another signature, or of the pointer type only where the value is printed).
func (p promoted) record(at map[string][]promoted) {
	all := p.field // the methods of the name, which a value gets or not
	if all.Kind() != reflect.Pointer {
		all = reflect.PointerTo(all)
	}
	for _, name := range printMethods {
		if _, ok := all.MethodByName(name); !ok {
			continue
		}
		if _, ok := p.methods().MethodByName(name); ok && p.methods().Implements(printInterfaces[name]) {
			at[name] = append(at[name], p)
		} else {
			at[name] = append(at[name], promoted{hidden: true})
		}
	}
}

// printInterface records in at the methods of the names of printMethods of the interface
// type e (error, a compiled interface or one of the session, and the interfaces those embed)
// of the embedded field at path: as promoted Error and String of fmt's signatures, as
// blocked a Format of its signature, and as hidden those of another signature. It reports
// whether e is an interface type.
func (tt *typeTable) printInterface(e ast.Expr, path []string, at map[string][]promoted, depth int) bool {
	if depth > maxTypeDepth {
		return false
	}
	switch e := e.(type) {
	case *ast.SelectorExpr:
		c := tt.compiledType(e)
		if c == nil || c.Kind() != reflect.Interface {
			return false
		}
		for _, name := range printMethods {
			if _, ok := c.MethodByName(name); ok {
				at[name] = append(at[name], interfaceMethod(name, path, c.Implements(printInterfaces[name])))
			}
		}
		return true
	case *ast.Ident:
		if ts := tt.specs[e.Name]; ts != nil {
			return ts.TypeParams == nil && tt.printInterface(ts.Type, path, at, depth+1)
		}
		if e.Name == "error" {
			at["Error"] = append(at["Error"], interfaceMethod("Error", path, true))
			return true
		}
		return e.Name == "any"
	case *ast.InterfaceType:
		for _, m := range e.Methods.List {
			if len(m.Names) == 0 {
				tt.printInterface(m.Type, path, at, depth+1)
				continue
			}
			for _, n := range m.Names {
				if slices.Contains(printMethods, n.Name) {
					at[n.Name] = append(at[n.Name], interfaceMethod(n.Name, path, tt.fmtSignature(n.Name, m.Type)))
				}
			}
		}
		return true
	}
	return false
}

// interfaceMethod is the method name of an embedded interface at path, of fmt's signature
// or not.
func interfaceMethod(name string, path []string, fmtSig bool) promoted {
	switch {
	case !fmtSig:
		return promoted{hidden: true}
	case name == "Format":
		return promoted{blocked: true}
	}
	return promoted{path: path}
}

// fmtSignature reports whether the method name of type t, of an interface type of the
// session, has the signature by which fmt calls it.
func (tt *typeTable) fmtSignature(name string, t ast.Expr) bool {
	ft, ok := t.(*ast.FuncType)
	if !ok {
		return false
	}
	if name != "Format" {
		return types.ExprString(ft) == "func() string" && tt.specs["string"] == nil
	}
	if ft.Results != nil || ft.Params.NumFields() != 2 {
		return false
	}
	params := fieldTypes(ft.Params)
	sel, ok := params[0].(*ast.SelectorExpr)
	if !ok || types.ExprString(params[1]) != "rune" || tt.specs["rune"] != nil {
		return false
	}
	_, isFmt := pkgSelName(tt.env, sel, "fmt")
	return isFmt && sel.Sel.Name == "State"
}

// embeddedFields records in at the fields of st whose names are those of printMethods, and
// returns its embedded fields, one depth down.
func (tt *typeTable) embeddedFields(st *ast.StructType, l embedLevel, pointer bool, at map[string][]promoted) []embedLevel {
	var next []embedLevel
	for _, f := range st.Fields.List {
		names := []string{embeddedName(f.Type)}
		if len(f.Names) > 0 {
			names = names[:0]
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
		} else {
			next = append(next, embedLevel{typ: f.Type, path: append(slices.Clip(l.path), names[0]), pointer: pointer})
		}
		for _, n := range names {
			if slices.Contains(printMethods, n) {
				at[n] = append(at[n], promoted{hidden: true})
			}
		}
	}
	return next
}

// promoteFmtArg returns the unit's text with the first operand of a call of fmt's functions
// whose type gets the method that fmt calls for it from an embedded compiled type replaced by
// that embedded field, and false when there is none. The field goes through FmtArgName, which
// leaves it as it is and keeps the other parts of wrap-fmt-args from wrapping it again.
func (p *parsed) promoteFmtArg(env Env, tt *typeTable) (string, bool) {
	var text string
	found := false
	ast.Inspect(p.root, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if found || !ok || call.Ellipsis.IsValid() {
			return !found
		}
		name, ok := fmtFuncName(env, call)
		if !ok {
			return true
		}
		ops, verbs := fmtVerbs(name, call)
		for i, a := range ops {
			if !fmtOperand(a, false) {
				continue
			}
			pkg := ast.Unparen(call.Fun).(*ast.SelectorExpr).X.(*ast.Ident).Name // fmtFuncName found it
			if prefix, suffix, ok := tt.promotedOperand(a, verbs[i], pkg, len(ops) > 1 && spacedFuncs[name]); ok {
				text, found = p.replace(a, prefix, suffix), true
				return false
			}
		}
		return true
	})
	return text, found
}

// spacedFuncs are the print functions that put a space between operands when neither is a
// string.
var spacedFuncs = map[string]bool{"Print": true, "Sprint": true, "Fprint": true}

// fmtVerbs returns the operands of a call of fmt's function name and the verb that fmt
// prints each by (v for the print functions); a call with a format that formatVerbs does not
// follow has none.
func fmtVerbs(name string, call *ast.CallExpr) ([]ast.Expr, []operandVerb) {
	if skip, ok := printFuncs[name]; ok && len(call.Args) > skip {
		ops := call.Args[skip:]
		verbs := make([]operandVerb, len(ops))
		for i := range verbs {
			verbs[i] = operandVerb{verb: 'v'}
		}
		return ops, verbs
	}
	at, ok := formatFuncs[name]
	if !ok || len(call.Args) <= at {
		return nil, nil
	}
	verbs, ok := formatVerbs(call.Args[at])
	if !ok {
		return nil, nil
	}
	ops := call.Args[at+1:]
	return ops[:min(len(ops), len(verbs))], verbs[:min(len(ops), len(verbs))]
}

// promotedOperand returns the text to put around the operand a of a fmt function, printed
// by the verb v, that makes it the embedded field whose method fmt calls for it, and false
// when a's type is none the unit shows (a value of a struct type of the session, or a pointer
// to one) or fmt calls no method of such a field for v. For %w, whose error Errorf wraps, it
// gives none: the field would be wrapped in place of the value. Between operands of Print,
// Sprint or Fprint, which fmt separates by a space unless one is a string, a field of a
// string type is left. The method of an embedded interface is called, and its result given to
// fmt as an error made by fmt.Errorf("%s", …) of the package fmt (the cell's name of it):
// fmt prints an error's text as it prints a Stringer's, and spaces it as it spaces a struct.
func (tt *typeTable) promotedOperand(a ast.Expr, v operandVerb, fmtPkg string, spaced bool) (prefix, suffix string, ok bool) {
	t, pointer := tt.operandType(a)
	id, ok := t.(*ast.Ident)
	if !ok || tt.specs[id.Name] == nil || tt.spec(id) != tt.specs[id.Name] || v.verb == 'w' || v.verb == '*' {
		return "", "", false
	}
	pr, method, ok := tt.promotedPrint(id, pointer)
	switch {
	case !ok:
		return "", "", false
	case method == "Format":
		ok = v.verb != 'T' && v.verb != 'p'
	default:
		ok = methodVerb(v.verb, v.sharp, false)
	}
	if !ok || spaced && pr.field != nil && pr.field.Kind() == reflect.String {
		return "", "", false
	}
	field := "." + strings.Join(pr.path, ".")
	amp := ""
	switch {
	case pr.field == nil: // the interface's method, as Go calls it; a nil one panics
		amp, field = fmtPkg+`.Errorf("%s", `, field+"."+method+"())"
	case pr.methods() != pr.field:
		amp = "&" // the pointer methods of an embedded value, which a pointer reaches
	}
	if pointer && !addressOf(a) {
		// A nil pointer prints as <nil>, as in Go, where its field would fail the cell.
		p := "_gosbiP"
		return fmt.Sprintf("%s(func(%s *%s) any { if %s == nil { return %s }; return %s%s%s }(", FmtArgName, p, id.Name, p, p,
			amp, p, field), "))", true
	}
	return FmtArgName + "(" + amp + "(", ")" + field + ")", true
}

// operandType returns the type of an operand as the unit shows it, with a pointer to a type
// given as the type and true.
func (tt *typeTable) operandType(a ast.Expr) (ast.Expr, bool) {
	t := tt.staticType(a, 0) // &x is a pointer to x's type
	if s, ok := t.(*ast.StarExpr); ok {
		return s.X, true
	}
	return t, false
}
