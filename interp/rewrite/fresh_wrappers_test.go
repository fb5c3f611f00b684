package rewrite

import (
	"fmt"
	"reflect"
	"testing"
)

// TestFreshWrappers checks which values fresh-wrappers sends through a function literal (a
// value of a type of the session with the interface's methods, stored as a compiled interface
// with methods) and which it leaves.
func TestFreshWrappers(t *testing.T) {
	env := withStringer(Env{
		HasMethods: func(name string) bool { return name != "R" && name != "W" },
		TypeDecls: func() []string {
			return []string{"type E struct{ i int }", "type P struct{ i int }", "type R struct{ i int }",
				"type G[T any] struct{ v T }", "type S interface{ error; Code() int }", "type W struct{ Err error; N int }"}
		},
		MethodDecls: func() []string {
			return []string{"func (e E) Error() string", "func (p *P) Error() string", "func (g G[T]) Error() string",
				"func (e E) String() string"}
		},
		Definition: func(name string) (string, string) {
			switch name {
			case "es":
				return "[]error", ""
			case "xs":
				return "[]any", ""
			case "keep":
				return "func(tag string, e ...error)", ""
			case "mk":
				return "func(i int) E", ""
			}
			return "", ""
		},
	})
	const wrapE = "func(_gosbiFresh E) error { return _gosbiFresh }"
	for _, c := range []struct{ in, want string }{
		{"es = append(es, E{i})", "es = append(es, " + wrapE + "(E{i}))"},
		{"es = append(es, E{i}, mk(i))", "es = append(es, " + wrapE + "(E{i}), " + wrapE + "(mk(i)))"},
		{"es = append(es, &P{i})", "es = append(es, func(_gosbiFresh *P) error { return _gosbiFresh }(&P{i}))"},
		{"es[i] = E{i}", "es[i] = " + wrapE + "(E{i})"},
		{"es[i], es[j] = E{i}, R{j}", "es[i], es[j] = " + wrapE + "(E{i}), R{j}"},
		{"var e error = E{7}", "var e error = " + wrapE + "(E{7})"},
		{"x := error(E{7})", "x := error(" + wrapE + "(E{7}))"},
		{"keep(\"a\", E{1}, E{2})", "keep(\"a\", " + wrapE + "(E{1}), " + wrapE + "(E{2}))"},
		{"w := W{E{1}, 2}", "w := W{" + wrapE + "(E{1}), 2}"},
		{"w := W{N: 2, Err: E{1}}", "w := W{N: 2, Err: " + wrapE + "(E{1})}"},
		{"m := map[int]error{1: E{1}}", "m := map[int]error{1: " + wrapE + "(E{1})}"},
		{"ch := make(chan error, 1)\nch <- E{1}", "ch := make(chan error, 1)\nch <- " + wrapE + "(E{1})"},
		{"var ss []fmt.Stringer\nss = append(ss, E{1})", "var ss []fmt.Stringer\nss = append(ss, func(_gosbiFresh E) fmt.Stringer { return _gosbiFresh }(E{1}))"},
		{"es = append(es, G[int]{1})", "es = append(es, func(_gosbiFresh G[int]) error { return _gosbiFresh }(G[int]{1}))"},
		{"for _, v := range []E{{1}} {\n\tes = append(es, v)\n}", "for _, v := range []E{{1}} {\n\tes = append(es, " + wrapE + "(v))\n}"},
		{"var s S\nes = append(es, s)", "var s S\nes = append(es, func(_gosbiFresh S) error { return _gosbiFresh }(s))"},
		// left as written
		{"xs = append(xs, E{i})", ""},                         // an interface without methods
		{"es = append(es, R{i})", ""},                         // no method Error
		{"es = append(es, P{i})", ""},                         // Error on the pointer only
		{"var ps []fmt.Stringer\nps = append(ps, &P{1})", ""}, // no method String
		{"es = append(es, es...)", ""},
		{"es = append(es, errors.New(\"x\"))", ""},
		{"var e error\ne = nil", ""},
		{"es = append(es, g.Make(i))", ""}, // a method's result: the unit does not show its type
		{"func f[T any](x T) {\n\tes = append(es, G[T]{x})\n}", ""},
		{"for k := range map[E]int{} {\n\tes = append(es, k)\n}", ""},
		{"func f() error {\n\treturn E{1}\n}", ""},
		{"func f() {\n\terror := 1\n\tes = append(es, E{1})\n\t_ = error\n}", ""}, // error shadowed
		{"func f(E int) {\n\tes = append(es, mk(E))\n}", ""},                      // the type's name shadowed
	} {
		checkRewrite(t, freshWrappers, env, c.in, c.want)
	}
}

// withStringer returns env with the compiled package fmt, of which it knows fmt.Stringer.
func withStringer(env Env) Env {
	env.IsPackage = func(name string) bool { return name == "fmt" || name == "io" }
	env.Compiled = func(pkg, name string) reflect.Type {
		if pkg == "fmt" && name == "Stringer" {
			return reflect.TypeFor[fmt.Stringer]()
		}
		return nil
	}
	return env
}
