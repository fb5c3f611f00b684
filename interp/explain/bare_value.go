package explain

import (
	"fmt"
	"regexp"
)

// bareValue: the interpreter hands compiled code a value of a type declared in a cell in a
// wrapper with the methods of the compiled interface it becomes, but in some forms it passes
// the bare value, a struct compiled code cannot use, and reflect panics ("reflect: cannot use
// struct {} as type error in Call" for errors.Join(myErr{}), "reflect.Set: value of type
// struct { Xn int } is not assignable to type sbi.Embedding"). The rewrite wrap-interfaces
// removes the forms it can (literals of compiled structs, conversions); the explanation names
// the forms that work for the others, such as a variadic parameter of an interface type.
var bareValue = Explainer{
	Name:     "bare-value",
	Upstream: "yaegi passes a value of an interpreted type to compiled code without its interface wrapper in some forms (a compiled variadic parameter; a variable of type error); https://github.com/traefik/yaegi/issues/832 is the closed issue of the composite-literal form",
	Explain: func(env Env, f *Failure) {
		if f.Compile {
			return
		}
		m := bareValueRE.FindStringSubmatch(f.Msg)
		if m == nil {
			return
		}
		typ, iface := m[1]+m[3]+m[5], m[2]+m[4]+m[6]
		f.Note += fmt.Sprintf("\n(a value of a type declared in a cell, which compiled code sees as %s, reached the compiled interface %s without "+
			"the wrapper the interpreter gives it where it assigns it: declare it first, var v %s = value, or assign it to the field, "+
			"cfg.Field = value; for a variadic parameter, pass a slice literal, f([]%s{value}...))", typ, iface, iface, iface)
	},
}

// bareValueRE matches reflect's messages for a struct (or a pointer to one: the interpreter's
// representation of a cell's type) set into, or passed as, a compiled interface.
var bareValueRE = regexp.MustCompile(`^(?:reflect\.Set: value of type (\*?struct \{.*\}) is not assignable to type (\S+)|reflect: cannot use (\*?struct \{.*\}) as type (\S+) in Call|reflect: Call using (\*?struct \{.*\}) as type (\S+))$`)
