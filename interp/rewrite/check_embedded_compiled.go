package rewrite

import (
	"fmt"
	"go/ast"
	"reflect"
)

// checkEmbeddedCompiled works around the interpreter's type for a struct whose only field
// embeds a compiled type that is no interface and has methods (type Ev struct{ time.Time },
// type P struct{ image.Point }): it builds the type with reflect.StructOf, which copies the
// embedded type's methods into the new type, and the pointer type to it without any.
//
// Where one of the copied methods is unexported (time.Time, *bytes.Buffer, time.Duration,
// archive/tar.Header, which have unexported methods), StructOf copies it without its type
// when the linker dropped that (as it does for an unexported method that no interface of the
// program names), so the first look of compiled code for an interface of such a value (fmt
// printing it, or a []Ev, a *Ev or a struct that holds one; the cell's result; log) ends the
// process with the Go runtime's fatal error "type offset base pointer out of range", which no
// recover stops and which loses the session. Whether the linker kept the type depends on the
// program, so every unexported method counts. StructOf counts the methods it copies among the
// exported ones, so the pass tells them apart by the method count of the type StructOf makes
// against the exported methods of the embedded type. A type that StructOf refuses to embed
// (it panics) is refused too, with StructOf's reason.
//
// Where the methods are all exported (image.Point, *image.Point, sort.IntSlice) the value
// prints and behaves as in Go, but a pointer to it (&p, a []*P, a *P in a variable of type any)
// reaches compiled code and type assertions without the methods that Go gives *P: fmt prints
// &p as &(1,2) where Go calls String and prints (1,2), and any(&p).(fmt.Stringer) answers no.
//
// Such values pass through variables of type any, so no check of their uses can keep them from
// compiled code: the pass fails the declaration of the type, naming the field to write instead,
// with the reason that applies. A struct with more fields than the embedded one is left: the
// interpreter does not embed the field for reflect, so compiled code sees none of the field's
// methods (fmt prints the fields of type Dur struct{ time.Duration; n int } where Go calls
// String), which doc.go states.
//
// Upstream: golang/go#15924 (reflect.StructOf with embedded fields with methods), which yaegi
// avoids for structs of several fields only.
var checkEmbeddedCompiled = Pass{
	Name:  "check-embedded-compiled",
	Issue: "golang/go#15924",
	Rewrite: func(env Env, u Unit) (string, error) {
		if env.Compiled == nil || u.Kind == Import {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		var found error
		inspectUnit(p, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && found == nil {
				found = embedsCompiledMethods(env, p, ts)
			}
			return found == nil
		})
		return u.Text, found
	},
}

// inspectUnit walks the syntax tree of a parsed unit.
func inspectUnit(p *parsed, f func(ast.Node) bool) {
	for _, d := range p.decls {
		ast.Inspect(d, f)
	}
	for _, s := range p.body {
		ast.Inspect(s, f)
	}
}

// embedsCompiledMethods returns the error for a type specification of a struct whose only
// field embeds a compiled type with methods, nil for any other.
func embedsCompiledMethods(env Env, p *parsed, ts *ast.TypeSpec) error {
	st, ok := ts.Type.(*ast.StructType)
	if !ok || st.Fields == nil || len(st.Fields.List) != 1 || len(st.Fields.List[0].Names) > 0 {
		return nil
	}
	f := st.Fields.List[0]
	e, pointer := f.Type, false
	if star, ok := e.(*ast.StarExpr); ok {
		e, pointer = star.X, true
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || env.IsPackage == nil || !env.IsPackage(pkg.Name) {
		return nil
	}
	t := env.Compiled(pkg.Name, sel.Sel.Name)
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	all, exported, refused := copiedMethods(t, sel.Sel.Name, pointer)
	if all == 0 && refused == "" {
		return nil
	}
	typ := p.src(f.Type)
	var why string
	switch {
	case refused != "":
		why = fmt.Sprintf("the interpreter builds the type with reflect.StructOf, and reflect.StructOf refuses to embed %s (%s)",
			typ, refused)
	case all == exported:
		why = fmt.Sprintf("the interpreter gives a pointer to it none of the methods of %s, so fmt would print &v by "+
			"its fields where Go calls the method, and a type assertion of a *%s to an interface would answer no, "+
			"without a word", typ, ts.Name.Name)
	default:
		why = "printing it (fmt, log, the cell's result) would end the session with a fatal error of the Go runtime, " +
			"as " + typ + " has unexported methods"
	}
	return fmt.Errorf("%s: the interpreter cannot hand a value of %s, which embeds %s as its only field, to compiled code: "+
		"%s; name the field (type %s struct{ %s %s }) and call its methods through it",
		p.fset.Position(f.Pos()), ts.Name.Name, typ, why, ts.Name.Name, fieldName(sel.Sel.Name), typ)
}

// copiedMethods returns the number of methods that reflect.StructOf copies into a struct
// type whose only field, of the given name, embeds t (or *t), and the number of exported
// ones among them, which reflect shows of t: those of *t and of t for *t, which StructOf
// copies both. StructOf counts unexported methods among the exported ones, so all exceeds
// exported where t has some. Where StructOf refuses the type (it panics), refused is its
// reason.
func copiedMethods(t reflect.Type, name string, pointer bool) (all, exported int, refused string) {
	defer func() {
		if r := recover(); r != nil {
			all, exported, refused = 0, 0, fmt.Sprint(r)
		}
	}()
	field, exported := t, t.NumMethod()
	if pointer {
		field = reflect.PointerTo(t)
		exported += field.NumMethod()
	}
	s := reflect.StructOf([]reflect.StructField{{Name: name, Type: field, Anonymous: true}})
	return s.NumMethod(), exported, ""
}

// fieldName returns a name for a field of the given type name that is not the type's own
// name, which an embedded field already has.
func fieldName(typeName string) string {
	return typeName[:1]
}
