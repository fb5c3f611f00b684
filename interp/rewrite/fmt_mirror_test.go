package rewrite

import (
	"testing"
)

// TestWrapFmtMirror checks the text that wrap-fmt-args gives an operand whose type holds
// values of a session type with String: the mirror of the package's documentation for a
// slice and a struct, made when fmt prints it, also after a * width or precision, which takes
// an operand of its own; and the operand left where the verb is %#v or %T, where the format
// has an explicit argument index, where the session type has String on a pointer receiver only
// (a value prints by its fields, as in Go) and where the type holds no session type.
func TestWrapFmtMirror(t *testing.T) {
	const (
		slice = "func(_gosbiM0s []P) any { return _gosbibuiltin.Lazy(func() any { if _gosbiM0s == nil { return _gosbiM0s }; _gosbiR := make([]any, len(_gosbiM0s)); " +
			"for _gosbiI, _gosbiM1 := range _gosbiM0s { _gosbiR[_gosbiI] = _gosbiFmtArg(_gosbiM1) }; return _gosbiR }) }(ps)"
		strct = `func(_gosbiM0 W) any { return _gosbibuiltin.Lazy(func() any { return _gosbibuiltin.Fields("In N", _gosbiFmtArg(_gosbiM0.In), _gosbiM0.N) }) }(w)`
	)
	for _, c := range []struct{ in, want string }{
		{"fmt.Println(ps, w)", "fmt.Println(" + slice + ", " + strct + ")"},
		{`fmt.Printf("%#v %T", ps, w)`, `fmt.Printf("%#v %T", ps, w)`},
		{`fmt.Printf("%*v %-*.*v", 6, ps, 2, 1, w)`, `fmt.Printf("%*v %-*.*v", 6, ` + slice + ", 2, 1, " + strct + ")"},
		{`fmt.Printf("%[2]*[1]v", ps, 6)`, `fmt.Printf("%[2]*[1]v", ps, 6)`},
		{"fmt.Println(qs)", "fmt.Println(_gosbiFmtArg(qs))"},
		{"fmt.Println(xs)", "fmt.Println(_gosbiFmtArg(xs))"},
	} {
		env := Env{
			PackagePath:  func(name string) string { return map[string]string{"fmt": "fmt"}[name] },
			PrintMethods: func() (bool, bool) { return true, false },
			TypeDecls: func() []string {
				return []string{"type P struct{ X int }\ntype W struct{ In P; N int }\ntype Q struct{ Y int }"}
			},
			MethodDecls: func() []string { return []string{"func (p P) String() string", "func (q *Q) String() string"} },
		}
		u := Unit{Kind: Decl, Text: "func f(ps []P, w W, qs []Q, xs []int) {\n\t" + c.in + "\n}", Line: 1, Col: 1}
		env.types = func() *typeTable { return newTypeTable(env, []Unit{u}) }
		got, err := wrapFmtArgs.Rewrite(env, u)
		got = lineDirective.ReplaceAllString(got, "")
		if want := "func f(ps []P, w W, qs []Q, xs []int) {\n\t" + c.want + "\n}"; err != nil || got != want {
			t.Errorf("%s: rewritten %q, %v; want %q", c.in, got, err, want)
		}
	}
}
