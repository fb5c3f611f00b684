package rewrite

import (
	"fmt"
	"go/ast"
	"reflect"
)

// checkEmbeddedCompiled works around the interpreter's type for a struct whose only field
// embeds a compiled type that is no interface and has methods (type Ev struct{ time.Time },
// type Buf struct{ *bytes.Buffer }): it builds the type with reflect.StructOf, which copies the
// embedded type's methods into the new type without the types of its unexported methods, so
// the first look of compiled code for an interface of such a value (fmt printing it, or a
// []Ev, a *Ev or a struct that holds one; the cell's result; log) ends the process with the Go
// runtime's fatal error "type offset base pointer out of range", which no recover stops and
// which loses the session. Such a value passes through variables of type any, so no check of
// its uses can keep it from compiled code: the pass fails the declaration of the type,
// naming the field to write instead. It fails it also where the embedded type has only
// exported methods (image.Point, *sync.Mutex), whose values print safely, as it cannot tell
// those types apart by reflection. A struct with more fields than the embedded one is left: the
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
	if pointer {
		t = reflect.PointerTo(t)
	}
	if t.NumMethod() == 0 {
		return nil
	}
	typ := p.src(f.Type)
	return fmt.Errorf("%s: the interpreter cannot hand a value of %s, which embeds %s as its only field, to compiled code: "+
		"printing it (fmt, log, the cell's result) would end the session with a fatal error of the Go runtime; "+
		"name the field (type %s struct{ %s %s }) and call its methods through it",
		p.fset.Position(f.Pos()), ts.Name.Name, typ, ts.Name.Name, fieldName(sel.Sel.Name), typ)
}

// fieldName returns a name for a field of the given type name that is not the type's own
// name, which an embedded field already has.
func fieldName(typeName string) string {
	return typeName[:1]
}
