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
			"the wrapper the interpreter gives it where it assigns it: %s)", typ, iface, bareValueAdvice(iface, m[3] != ""))
	},
}

// bareValueAdvice says what works for a value that reached the compiled interface iface bare,
// passed to a compiled variadic parameter (reflect's "in Call" message) or not. A variable
// declared with the interface type gets the wrapper, except for error: a variable of type error
// holds a cell's value bare, and fails wherever it reaches compiled code; a variable of the
// value's own type does not. A variadic parameter gets the value bare in every form but a
// slice literal.
func bareValueAdvice(iface string, variadic bool) string {
	switch {
	case variadic && iface == "error":
		return "a compiled variadic parameter gets it bare: pass a slice literal, f([]error{value}...), of the value itself or of a variable " +
			"of its own type (e := T{…}), not of a variable of type error"
	case variadic:
		return fmt.Sprintf("a compiled variadic parameter gets it bare: pass a slice literal, f([]%s{value}...)", iface)
	case iface == "error":
		return "a variable of type error holds it bare: keep it in a variable of its own type, e := T{…}, not var e error = value, " +
			"and pass that (to a variadic parameter in a slice literal, f([]error{e}...))"
	}
	return fmt.Sprintf("declare it first, var v %s = value, or assign it to the field, cfg.Field = value; "+
		"for a variadic parameter, pass a slice literal, f([]%s{value}...)", iface, iface)
}

// bareValueRE matches reflect's messages for a struct (or a pointer to one: the interpreter's
// representation of a cell's type) set into, or passed as, a compiled interface.
var bareValueRE = regexp.MustCompile(`^(?:reflect\.Set: value of type (\*?struct \{.*\}) is not assignable to type (\S+)|reflect: cannot use (\*?struct \{.*\}) as type (\S+) in Call|reflect: Call using (\*?struct \{.*\}) as type (\S+))$`)
