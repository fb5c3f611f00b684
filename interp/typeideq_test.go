package interp

import (
	"testing"
)

// TestComparisonOfCellTypes compares interface values (==, !=, a key of a map of interface
// keys) that may hold values of the session's types in a table: each gives Go's answer or
// fails the cell with an explanation. The interpreter gives a type declared in a cell the
// type it is declared as without its name, so before check-type-identity checked comparisons
// each row that fails here answered true where Go answers false (any(T1{}) == any(T2{}), a
// T2 key found a T1's entry), and false for !=; a map made by make, a variable made by new
// and the key of delete were not followed, so those rows answered so until they were.
func TestComparisonOfCellTypes(t *testing.T) {
	const fails = "cannot tell"
	const noPair = "import \"io\"\ntype T struct{ A int }\ntype U struct{ B string }\nvar _ = io.EOF"
	sessions := map[string]*testSession{}
	for _, c := range []struct{ name, setup, value, code, want, err string }{
		// two struct types of the same fields
		{"converted operands", typeIDStructs, "", "any(T1{}) == any(T2{})", "", fails},
		{"interface variable and a literal", typeIDStructs, "var a any = T1{}", "a == T2{}", "", fails},
		{"two interface variables", typeIDStructs, "var a2 any = T1{}\nvar b2 any = T2{}", "a2 != b2", "", fails},
		{"variables of the cell", typeIDStructs, "", "var a3 any = T1{}\nb3 := any(T2{})\na3 == b3", "", fails},
		{"defined by conversion", typeIDStructs, "v4 := any(T1{})", "v4 == any(T2{})", "", fails},
		{"parameter", typeIDStructs, "", "func same(x, y any) bool { return x == y }\nsame(T1{}, T2{})", "", fails},
		{"map key", typeIDStructs, "m := map[any]int{T1{}: 1}", "m[T2{}]", "", fails},
		{"map literal key", typeIDStructs, "", "len(map[any]int{T1{}: 1, T2{}: 2})", "", fails},
		{"element of a slice of any", typeIDStructs, "xs := []any{T1{}}", "xs[0] == T2{}", "", fails},
		{"function result", typeIDStructs, "func mk() any { return T1{} }", "mk() == any(T2{})", "", fails},
		{"map made by make", typeIDStructs, "", "mk5 := make(map[any]int)\nmk5[T1{}] = 1\nmk5[T2{}]", "", fails},
		{"delete", typeIDStructs, "dm := map[any]int{T1{}: 1}", "delete(dm, T2{})\nlen(dm)", "", fails},
		{"variable made by new", typeIDStructs, "", "np := new(any)\n*np = T1{}\n*np == T2{}", "", fails},
		{"map of a local type", typeIDStructs, "",
			"func lm() int {\n\ttype L map[any]int\n\tm := L{T1{}: 1}\n\treturn m[T2{}]\n}\nlm()", "", fails},
		// a named type and the type it is declared as
		{"A and int", typeIDInts, "", "any(A(1)) == any(1)", "", fails},
		{"A variable and a constant", typeIDInts, "var av any = A(1)", "_ = A(0)\nav == 1", "", fails},
		// two error types of the same fields
		{"errors", typeIDErrors, "var e1 error = E1{}", "e1 == error(E2{})", "", fails},
		// comparisons the interpreter answers as Go does
		{"nil", typeIDStructs, "var n any", "n == nil", "true", ""},
		{"ints", typeIDStructs, "i, j := 1, 2", "i == j", "false", ""},
		{"same type", typeIDStructs, "t1 := T1{1}", "t1 == T1{1}", "true", ""},
		{"strings in any", typeIDStructs, "var s any = \"x\"", "s == \"x\"", "true", ""},
		{"compiled struct", typeIDPoint, "", "any(Pt{1, 2}) == any(image.Point{1, 2})", "false", ""},
		{"a constant, A not named", typeIDInts, "var av2 any = 1", "av2 == 1", "true", ""},
		{"map of ints made by make", typeIDStructs, "mi := make(map[int]int)", "mi[1] = 2\ndelete(mi, 3)\nmi[1]", "2", ""},
		{"new struct", typeIDStructs, "", "nt := new(T1)\n*nt == T1{}", "true", ""},
		{"type parameter named like a session type", typeIDStructs + "\ntype K any",
			"func eq[K comparable](a, b K) bool { return a == b }", "eq(1, 1)", "true", ""},
		{"type parameter named like a session map", typeIDStructs + "\ntype M map[any]int",
			"func get[M ~map[T1]int](m M) int { return m[T1{2}] }", "get(map[T1]int{T1{2}: 3})", "3", ""},
		{"no two types alike", noPair, "var x any = T{1}", "x == any(T{1})", "true", ""},
		{"no two types alike, map", noPair, "mm := map[any]int{T{1}: 1}", "mm[T{1}]", "1", ""},
		{"no two types alike, error", noPair, "var err error = io.EOF", "err == io.EOF", "true", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := sessions[c.setup]
			if ts == nil {
				ts = newTestSession(t)
				ts.mustRun(t, "import \"fmt\"\nvar _ = fmt.Sprint")
				ts.mustRun(t, c.setup)
				sessions[c.setup] = ts
			}
			if c.value != "" {
				ts.mustRun(t, c.value)
			}
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}
