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
