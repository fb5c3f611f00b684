package interp

import (
	"strings"
	"testing"
)

// TestCallMessages: a call with the wrong number of arguments, or assigned to the wrong number
// of variables, names the function and shows its signature (the interpreter's own messages
// name neither, or leave a blank where the function's name goes).
func TestCallMessages(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "a := mat.NewDense(4, 2, nil)\nfunc add(x, y int) int { return x + y }")
	for _, c := range []struct{ code, want string }{
		{"diag.C2ST(a)", "not enough arguments in call to diag.C2ST: have 1 argument; want func C2ST(x, y *mat.Dense, seed uint64) float64"},
		{"strings.Split(\"a\", \"b\", \"c\")", "too many arguments in call to strings.Split: have 3 arguments; want func Split(s, sep string) []string"},
		{"c, err := diag.C2ST(a, a, 1)\nfmt.Println(c, err)", "assignment mismatch: 2 variables but diag.C2ST returns 1 value: func C2ST(x, y *mat.Dense, seed uint64) float64"},
		{"s, n := add(1, 2)\nfmt.Println(s, n)", "assignment mismatch: 2 variables but add returns 1 value: func add(x, y int) int"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) {
			t.Errorf("%q: error %q, want %q", c.code, res.Err.Value, c.want)
		}
		if strings.Contains(res.Err.Value, "  ") {
			t.Errorf("%q: error %q has a double space", c.code, res.Err.Value)
		}
	}
}

// TestExplanationsKeepToTheirCause runs cells where an explainer's pattern matches but the
// cause is another: the explanation must not blame what did not happen (the first of two
// calls, another assignment, a function of the session that a variable of the cell shadows,
// a missing feature or an index for an error of the cell, a method value where none is
// taken). The missing-generic explainer's case is in package explain (TestMissingGeneric).
func TestExplanationsKeepToTheirCause(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "func add(x, y int) int { return x + y }\nfunc two() (int, int) { return 1, 2 }\nfunc three(a, b, c int) int { return a }\n"+
		"type D interface{ F(int) int }\ntype I struct{}\nfunc (I) F(x int) int { return x }\nvar d D = I{}\nq := strings.Fields(\"a b\")")
	for _, c := range []struct {
		code          string
		want, notWant string
	}{
		// call arity: the call at the error's position, not the first call of the function
		{"x := add(1, 2)\ny := add(1)", "not enough arguments in call to add: have 1 argument; want func add(x, y int) int", "have 2"},
		// the assignment at the error's position, not the first one of two variables
		{"u, v := two()\nr, s := strings.Split(\"a\", \"b\")", "assignment mismatch: 2 variables but strings.Split returns 1 value", "two returns"},
		// an argument that is a call may give several values: no count of arguments
		{"z := three(two())", "not enough arguments in call to three; want func three(a, b, c int) int", "have 1"},
		// a function literal of the cell named as a function of the session: not its signature
		{"func useAdd() int {\n\tadd := func(a, b, c int) int { return a }\n\treturn add(1)\n}", "not enough arguments in call to add", "want func add"},
		// a method call without a name in the interpreter's message
		{"var i I\nq := i.F()", "not enough arguments in call to i.F", "call to  "},
		// compiler panic: an error of the cell, not only a missing feature
		{"x := append()", "may have an error that Go would report", "it lacks a few Go features"},
		// index define: the compiler's panic in a cell that indexes a compiled package's slice
		// and uses a name nothing defines is the name's
		{"p := q[0] + nope", "undefined: nope", "If the index"},
		// method value: a function of another signature, no method value taken
		{"var f func(float64) float64 = math.Max", "cannot use type func(float64, float64) float64", "method value"},
		{"k := func(x int) int { return x }\nvar h func() int = k", "cannot use type func(int) int", "method value"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) {
			t.Errorf("%q: error %q, want %q", c.code, res.Err.Value, c.want)
		}
		if strings.Contains(res.Err.Value, c.notWant) {
			t.Errorf("%q: error %q says %q", c.code, res.Err.Value, c.notWant)
		}
	}
}

// TestMethodValueNote: the note on a function type mismatch is given where a method value of
// an interface value is taken, in the cell or in the definition of a variable it uses.
func TestMethodValueNote(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "type D interface{ F(int) int }\ntype I struct{}\nfunc (I) F(x int) int { return x }\nvar d D = I{}")
	ts.mustRun(t, "mv := d.F")
	for _, code := range []string{"var h func() int = d.F", "var h func(int, int) int = mv"} {
		res := ts.run(code)
		if res.Err == nil || !strings.Contains(res.Err.Value, "if this is a method value of an interface value") {
			t.Errorf("%q: got %+v, want the method-value note", code, res.Err)
		}
	}
}
