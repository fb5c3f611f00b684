package rewrite

import (
	"reflect"
	"strings"
	"testing"
)

// TestCheckComparisons runs check-type-identity on comparisons after the session's type
// declarations: it refuses one that may compare an interface value with a value of a type the
// interpreter cannot tell from another, and leaves the others (every comparison in a session
// without two such types).
func TestCheckComparisons(t *testing.T) {
	env := Env{
		IsPackage:   func(name string) bool { return name == "io" },
		PackagePath: func(name string) string { return name },
		Compiled:    func(pkg, name string) reflect.Type { return nil },
		Definition: func(name string) (string, string) {
			switch name {
			case "sv":
				return "any", ""
			case "dv":
				return "", "any(T1{})"
			case "mk":
				return "func() any", ""
			}
			return "", ""
		},
	}
	const structs = "type T1 struct{ A int }\ntype T2 struct{ A int }"
	for _, c := range []struct {
		name, session, unit, err string
	}{
		{"converted", structs, "_ = any(T1{}) == any(T2{})", "the comparison any(T1{}) == any(T2{}) cannot tell"},
		{"not equal", structs, "var a, b any\n_ = a != b", "cannot tell T1 from T2"},
		{"session variable", structs, "_ = sv == T2{}", "cannot tell T2 from T1"},
		{"session variable by its value", structs, "_ = dv == any(T2{})", "cannot tell"},
		{"session function", structs, "_ = mk() == any(T2{})", "cannot tell"},
		{"parameter", structs, "func eq(x any) bool { return x == T1{} }", "cannot tell T1 from T2"},
		{"map index", structs, "m := map[any]int{}\n_ = m[T1{}]", "the index of a map of interface keys"},
		{"map literal keys", structs, "_ = map[any]int{T1{}: 1, T2{}: 2}", "the key of a map of interface keys"},
		{"A and a constant", "type A int", "_ = A(1)\nvar x any\n_ = x == 1", "cannot tell int from A"},
		{"A and a constant, A not named", "type A int", "var x any\n_ = x == 1", ""},
		{"nil", structs, "var x any\n_ = x == nil", ""},
		{"ints", structs, "i, j := 1, 2\n_ = i == j", ""},
		{"same type", structs, "_ = T1{} == T1{}", ""},
		{"compiled value", structs, "var err error\n_ = err == io.EOF", ""},
		{"error, types without methods", structs, "var err, e2 error\n_ = err == e2", ""},
		{"type parameter named like a session interface", structs + "\ntype K any", "func eq[K comparable](a, b K) bool { return a == b }", ""},
		{"type parameter named like a session map", structs + "\ntype M map[any]int", "func get[M ~map[T1]int](m M) int { return m[T1{}] }", ""},
		{"local map type", structs, "func f(x any) bool {\n\ttype L map[any]int\n\tvar m L\n\treturn m[T1{}] == 0\n}", "the index of a map of interface keys"},
		{"literal of a named map type", structs + "\ntype M map[any]int", "_ = M{T1{}: 1, T2{}: 2}", "the key of a map of interface keys"},
		{"map literal of one type", structs, "_ = map[any]int{T1{}: 1, T1{A: 2}: 2}", ""},
		{"no two types alike", "type T struct{ A int }\ntype U struct{ B int }", "var x any\n_ = x == T{}", ""},
		{"made map", structs, "m := make(map[any]int)\n_ = m[T1{}]", "the index of a map of interface keys"},
		{"made map of a session type", structs + "\ntype M map[any]int", "m := make(M, 1)\n_ = m[T2{}]", "the index of a map"},
		{"made map of ints", structs, "m := make(map[int]int)\n_ = m[1]", ""},
		{"new interface", structs, "p := new(any)\n_ = *p == T2{}", "the comparison *p == T2{} cannot tell"},
		{"new struct", structs, "p := new(T1)\n_ = *p == T1{}", ""},
		{"delete", structs, "m := map[any]int{}\ndelete(m, T2{})", "the key deleted from a map of interface keys"},
		{"delete from a map of ints", structs, "m := map[int]int{}\ndelete(m, 1)", ""},
		{"variable named new", structs, "var new func(x any) any\n_ = new(T1{}) == T2{}", "the comparison new(T1{}) == T2{} cannot tell"},
		{"function named make", structs, "func make(x any) any { return x }\nfunc f() bool { return make(T1{}) == T2{} }", "cannot tell"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env
			e.TypeDecls = func() []string { return []string{c.session} }
			checkUnit(t, e, c.unit, c.err)
		})
	}
}

// TestCheckComparisonsShadowedBuiltins runs check-type-identity on calls of make, new and
// delete where the session defines a function of that name: the call is the session's
// function, whose declared type the pass follows, not the predeclared one.
func TestCheckComparisonsShadowedBuiltins(t *testing.T) {
	defs := map[string]string{"make": "func(x any) any", "new": "func(x any) any", "delete": "func(m, k any)"}
	env := Env{
		PackagePath: func(name string) string { return "" },
		TypeDecls:   func() []string { return []string{"type T1 struct{ A int }\ntype T2 struct{ A int }"} },
		Definition:  func(name string) (string, string) { return defs[name], "" },
	}
	for _, c := range []struct{ unit, err string }{
		{"_ = new(T1{}) == T2{}", "the comparison new(T1{}) == T2{} cannot tell"},
		{"_ = make(T1{}) == T2{}", "the comparison make(T1{}) == T2{} cannot tell"},
		{"m := map[any]int{}\ndelete(m, T2{})", ""},
	} {
		checkUnit(t, env, c.unit, c.err)
	}
}

// TestComparisonErrorExample checks the example of the error for a comparison: it is valid Go
// for the pair of types it names (a composite literal for structs, a conversion of a constant
// for a named basic type), and is left out where neither fits (a slice, whose values do not
// compare).
func TestComparisonErrorExample(t *testing.T) {
	for _, c := range []struct{ session, unit, want string }{
		{"type T1 struct{ A int }\ntype T2 struct{ A int }", "_ = any(T1{}) == any(T2{})", "(any(T1{}) == any(T2{}) is true, where Go says false)"},
		{"type A int", "_ = A(1)\nvar x any\n_ = x == 1", "(any(int(0)) == any(A(0)) is true, where Go says false)"},
		{"type L string\ntype M string", "var x any\n_ = x == L(\"a\")", "(any(L(\"\")) == any(M(\"\")) is true, where Go says false)"},
		{"type F bool", "_ = F(true)\nvar x any\n_ = x == true", "(any(F(false)) == any(bool(false)) is true, where Go says false)"},
		{"type V []float64", "var a, b any\n_ = V{}\n_ = a == b", ""},
	} {
		env := Env{TypeDecls: func() []string { return []string{c.session} }}
		err := Run(env, []Unit{{Kind: Stmt, Text: c.unit, Line: 1, Col: 1}})
		switch {
		case err == nil:
			t.Errorf("%q: no error, want one", c.unit)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: error %v, want one with %q", c.unit, err, c.want)
		case c.want == "" && strings.Contains(err.Error(), "where Go says"):
			t.Errorf("%q: error %v, want one without an example", c.unit, err)
		}
	}
}
