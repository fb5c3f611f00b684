package rewrite

import (
	"fmt"
	"go/ast"

	"reflect"
	"strings"
)

// checkInterfaceAssertions works around the interpreter's type assertions and type switches to
// an interface (x.(fmt.Stringer), case error, x.(Shape) of a cell's interface Shape): it does
// not see the methods of a value of a type declared in a cell there, so for such a value that
// has the interface's methods a type switch takes another case or its default, and a type
// assertion answers no or panics, where Go answers yes, in either form of the switch and
// wherever the value is held (a variable of type any, a parameter, a function literal). The
// interpreter answers right for a value of a compiled type, and for a few ways of holding a
// cell's value (a parameter of type any, an element of a []any), which the pass cannot tell
// apart from the others. The pass rewrites nothing: it fails the cell, naming the interface,
// where a type assertion or a case of a type switch names an interface each of whose methods,
// by name and signature, some type of the session or the cell, or a pointer to it, may have,
// declared (through an alias of the type too) or promoted from an embedded field, or that a
// struct type written in the session's type declarations or in the cell (a local type, an
// unnamed struct type) gets from its embedded fields. It takes the methods of all those types
// together, as one value's type may combine them (struct{ S; E } of a type S with String and
// E with Error, made in an earlier cell), so a method of another signature (a String(n int)
// string, time.Time's Format(layout string) string) counts for no fmt.Stringer or
// fmt.Formatter, but two methods on two types count for an interface of both. A signature it
// cannot resolve (a parameter of an interface type of the session, a method of a generic type)
// may be any, and an interface it cannot resolve counts once the session's types have methods.
// It does not see the struct types written in the functions and variables of earlier cells
// (package interp documents that gap).
//
// Upstream: traefik/yaegi#1558 (assertion between interfaces); yaegi's own test
// _test/assert1.go records the assertion of a value of an interpreted type held in interface{}
// as not yet supported there.
var checkInterfaceAssertions = Pass{
	Name:  "check-interface-assertions",
	Issue: "https://github.com/traefik/yaegi/issues/1558",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.types == nil || !strings.Contains(u.Text, ".(") {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		return u.Text, p.checkInterfaceAssertions(env.types().with(env, p))
	},
}

// checkInterfaceAssertions returns an error for the first type assertion or case of a type
// switch to an interface that a value of the session's types may satisfy, nil when there is
// none.
func (p *parsed) checkInterfaceAssertions(tt *typeTable) error {
	var err error
	var union []heldMethod // made on the first interface with methods
	made := false
	check := func(e ast.Expr, what string) {
		ms, iface, known := tt.interfaceMethods(e, 0)
		if !iface || known && len(ms) == 0 {
			return
		}
		if !made {
			union, made = tt.methodUnion(), true
		}
		if !known {
			ms = []methodSig{{}} // any method of the session's types
		}
		if typs, ok := holders(union, ms); ok {
			err = p.interfaceError(e, what, typs, ms, known)
		}
	}
	ast.Inspect(p.root, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				check(n.Type, "the type assertion "+p.src(n))
			}
		case *ast.TypeSwitchStmt:
			for _, cl := range n.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					if err == nil {
						check(e, "the type switch's case "+p.src(e))
					}
				}
			}
		}
		return err == nil
	})
	return err
}

// interfaceMethods returns the methods of the interface type e; iface is false for a type
// that is no interface, known false for an interface whose methods it cannot all resolve (ms
// holds those it can).
func (tt *typeTable) interfaceMethods(e ast.Expr, depth int) (ms []methodSig, iface, known bool) {
	if depth > 10 {
		return nil, true, false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		ts := tt.spec(e)
		if ts == nil {
			switch e.Name {
			case "error":
				return []methodSig{{"Error", printSigs["Error"]}}, true, true
			case "any":
				return nil, true, true
			}
			return nil, false, true
		}
		return tt.interfaceMethods(ts.Type, depth+1)
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		if !ok || tt.env.IsPackage == nil || !tt.env.IsPackage(pkg.Name) || tt.env.Compiled == nil {
			return nil, false, true
		}
		t := tt.env.Compiled(pkg.Name, e.Sel.Name)
		if t == nil || t.Kind() != reflect.Interface {
			return nil, false, true
		}
		for i := range t.NumMethod() {
			ms = append(ms, methodSig{t.Method(i).Name, reflectSig(t.Method(i).Type, 0)})
		}
		return ms, true, true
	case *ast.InterfaceType:
		known = true
		for _, f := range e.Methods.List {
			if len(f.Names) > 0 {
				sig := ""
				if ft, ok := f.Type.(*ast.FuncType); ok {
					sig = tt.funcSig(ft)
				}
				for _, n := range f.Names {
					ms = append(ms, methodSig{n.Name, sig})
				}
				continue
			}
			more, isIface, ok := tt.interfaceMethods(f.Type, depth+1)
			ms, known = append(ms, more...), known && ok && isIface
		}
		return ms, true, known
	}
	return nil, false, true
}

// spec returns the declaration of the type an identifier names in the unit (a local type of
// its functions, or one of the session or the cell), nil for any other.
func (tt *typeTable) spec(id *ast.Ident) *ast.TypeSpec {
	if id.Obj != nil {
		ts, _ := id.Obj.Decl.(*ast.TypeSpec)
		if ts == nil || tt.specs[id.Name] != ts && !tt.topLevel(ts) {
			return ts // a local type, or no type
		}
	}
	return tt.specs[id.Name]
}

// interfaceError is the error for a construct that names an interface whose methods ms values
// of the session's types typs (one for each method) may have (known false: an interface whose
// methods cannot all be resolved).
func (p *parsed) interfaceError(e ast.Expr, what string, typs []string, ms []methodSig, known bool) error {
	has := "the session's types have methods that it may name"
	if known {
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.name + " (" + typs[i] + ")"
		}
		has = fmt.Sprintf("the session's types (or pointers to them), or a struct type that embeds them, may have "+
			"its methods %s", strings.Join(names, ", "))
	}
	return fmt.Errorf("%s: %s may answer wrongly: the interpreter does not see the methods of a type declared in a "+
		"cell through a type assertion or a type switch to an interface, and %s, so for a value of one of them it would "+
		"answer no (a switch takes another case) where Go answers yes, without a word. Assert to the session's types "+
		"themselves (x.(MyType), or a type switch with a case for each), or call the method on a variable of the value's "+
		"own type", p.fset.Position(e.Pos()), what, has)
}
