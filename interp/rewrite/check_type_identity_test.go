package rewrite

import (
	"image"
	"reflect"
	"strings"
	"testing"
)

// TestCheckTypeIdentity runs check-type-identity on units after the session's type
// declarations: it refuses an assertion or a type switch that names a type the interpreter
// cannot tell from another, and leaves the others.
func TestCheckTypeIdentity(t *testing.T) {
	env := Env{
		IsPackage:   func(name string) bool { return name == "image" },
		PackagePath: func(name string) string { return name },
		Compiled: func(pkg, name string) reflect.Type {
			if name == "Point" {
				return reflect.TypeFor[image.Point]()
			}
			return nil
		},
	}
	for _, c := range []struct {
		name, session, unit, err string
	}{
		{"same fields", "type T1 struct{ A int }\ntype T2 struct{ A int }", "_, ok := x.(T1)", "cannot tell T1 from T2"},
		{"grouped", "type (\n\tT1 struct{ A int }\n\tT2 struct{ A int }\n)", "_, ok := x.(T2)", "cannot tell T2 from T1"},
		{"same fields, other tags", "type T1 struct{ A int `json:\"a\"` }\ntype T2 struct{ A int }", "_, ok := x.(T1)", ""},
		{"other fields", "type T1 struct{ A int }\ntype T2 struct{ B int }", "_, ok := x.(T1)", ""},
		{"other field types", "type T1 struct{ A int }\ntype T2 struct{ A int64 }", "_, ok := x.(T1)", ""},
		{"alias", "type T1 struct{ A int }\ntype T2 = T1", "_, ok := x.(T2)", ""},
		{"nested", "type T1 struct{ A int }\ntype T2 struct{ A int }\ntype U struct{ t T1 }\ntype V struct{ t T2 }", "_, ok := x.(U)", "cannot tell U from V"},
		{"named int", "type A int", "_, ok := x.(A)", "cannot tell A from int"},
		{"int, A named", "type A int", "_ = A(1)\n_, ok := x.(int)", "cannot tell int from A"},
		{"int, A not named", "type A int", "_, ok := x.(int)", ""},
		{"byte and uint8", "type A byte", "_ = A(1)\n_, ok := x.(uint8)", "cannot tell uint8 from A"},
		{"slice of float64", "type V []float64", "var _ V\n_, ok := x.([]float64)", "cannot tell []float64 from V"},
		{"slice of float64, V not named", "type V []float64", "_, ok := x.([]float64)", ""},
		{"string, Label not named", "type Label string", "s, ok := v.(string)", ""},
		{"switch of predeclared types", "type Celsius float64\ntype Label string\ntype Series []float64",
			"switch x := v.(type) {\ncase float64:\ncase string:\ncase []any:\ncase []float64:\n}", ""},
		{"switch of Celsius and float64", "type Celsius float64", "switch v.(type) {\ncase Celsius:\ncase float64:\n}", "cannot tell"},
		{"switch of float64 and Celsius", "type Celsius float64", "switch v.(type) {\ncase float64:\ncase Celsius:\n}", "cannot tell"},
		{"Celsius", "type Celsius float64", "_, ok := v.(Celsius)", "cannot tell Celsius from float64"},
		{"func type", "type F func(float64) float64", "_, ok := x.(F)", "cannot tell F from func(float64)(float64)"},
		{"variadic differs", "type F func(...int)\ntype G func([]int)", "_, ok := x.(F)", "cannot tell F from func(...int)()"},
		{"map of a session type", "type T1 struct{ A int }\ntype T2 struct{ A int }", "_, ok := x.(map[string]T1)", "cannot tell T1 from T2"},
		{"compiled struct named", "type Pt struct{ X, Y int }", "_ = Pt{}\n_, ok := x.(image.Point)", "cannot tell image.Point from Pt"},
		{"compiled struct, Pt not named", "type Pt struct{ X, Y int }", "_, ok := x.(image.Point)", ""},
		{"interface", "type T1 struct{ A int }\ntype T2 struct{ A int }", "_, ok := x.(interface{ M() })", ""},
		{"generic", "type B[T any] struct{ v T }\ntype C struct{ v int }", "_, ok := x.(B[int])", ""},
		{"unrelated", "type A int", "_, ok := x.(float64)", ""},
		{"type parameter named like a session type", "type T struct{ A int }\ntype T2 struct{ A int }", "func f[T any](x any) bool {\n\t_, ok := x.(T)\n\treturn ok\n}", ""},
		{"local type shadows", "type T1 struct{ A int }\ntype T2 struct{ A int }", "func f(x any) bool {\n\ttype T1 struct{ B string }\n\t_, ok := x.(T1)\n\treturn ok\n}", ""},
		{"local type like an int", "type T struct{ A int }", "func f(x any) bool {\n\ttype L int\n\t_, ok := x.(int)\n\treturn ok\n}", "cannot tell int from L"},
		{"switch cases", "type T1 struct{ A int }", "switch x.(type) {\ncase T1, struct{ A int }:\n}", "cannot tell struct{ A int } from T1"},
		{"switch of distinct types", "type T struct{ A int }\ntype U struct{ B int }", "switch x.(type) {\ncase T:\ncase U:\ncase int:\n}", ""},
		{"switch leaves a compiled struct", "type Pt struct{ X, Y int }", "switch x.(type) {\ncase Pt:\ncase image.Point:\n}", ""},
		{"no session types", "", "_, ok := x.(int)", ""},
		{"int, local variable A", "type A int", "A := 1\n_ = A\n_, ok := x.(int)", ""},
		{"int, parameter A", "type A int", "f := func(A int) int { return A }\n_, ok := x.(int)", ""},
		{"int, composite-literal key A", "type A int", "_ = P{A: 1}\n_, ok := x.(int)", ""},
		{"string, field selector Label", "type Label string", "_ = p.Label\ns, ok := v.(string)", ""},
		{"string, method selector Label", "type Label string", "p.Label()\ns, ok := v.(string)", ""},
		{"int, A in a variable's type", "type A int", "var y A\n_, ok := x.(int)", "cannot tell int from A"},
		{"int, A in a parameter's type", "type A int", "f := func(a A) {}\n_, ok := x.(int)", "cannot tell int from A"},
		{"int, A in a composite-literal value", "type A int", "_ = P{B: A(1)}\n_, ok := x.(int)", "cannot tell int from A"},
		{"int, A declared by the cell's function", "type A int", "func f(x any) bool {\n\tvar a A\n\t_, ok := x.(int)\n\treturn ok && a == 0\n}", "cannot tell int from A"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env
			if c.session != "" {
				e.TypeDecls = func() []string { return []string{c.session} }
			}
			checkUnit(t, e, c.unit, c.err)
		})
	}
}

// TestCheckTypeIdentitySkipsUnits runs the passes on cells in a session with two types the
// interpreter cannot tell apart: check-type-identity builds the table of the session's types
// (and looks for pairs of them) only for a unit that may assert (.() or compare (==, !=, an
// index, delete), not for every unit of every cell.
func TestCheckTypeIdentitySkipsUnits(t *testing.T) {
	for _, c := range []struct {
		unit  string
		table bool
	}{
		{"x := 1\ny := f(x)", false},
		{"s := fmt.Sprint(a, b)", false},
		{"_ = a == b", true},
		{"_ = a != b", true},
		{"_ = m[k]", true},
		{"delete(m, k)", true},
		{"_ = M{k: 1}", true},
		{"x := T1{}", false},
		{"_, ok := x.(int)", true},
	} {
		built := false
		env := Env{TypeDecls: func() []string {
			built = true
			return []string{"type T1 struct{ A int }\ntype T2 struct{ A int }"}
		}}
		if err := Run(env, []Unit{{Kind: Stmt, Text: c.unit, Line: 1, Col: 1}}); err != nil {
			t.Errorf("%q: %v", c.unit, err)
		}
		if built != c.table {
			t.Errorf("%q: the table of types was built: %v, want %v", c.unit, built, c.table)
		}
	}
}

// checkUnit runs the passes with env on unit (a declaration where it starts with func, else a
// statement) and checks that they accept it when wantErr is empty, and otherwise fail it with
// an error containing wantErr.
func checkUnit(t *testing.T, env Env, unit, wantErr string) {
	t.Helper()
	kind := Stmt
	if strings.HasPrefix(unit, "func") {
		kind = Decl
	}
	err := Run(env, []Unit{{Kind: kind, Text: unit, Line: 1, Col: 1}})
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("%q: %v", unit, err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Errorf("%q: error %v, want one with %q", unit, err, wantErr)
	}
}
