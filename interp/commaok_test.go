package interp

import (
	"strings"
	"testing"
)

// commaOKSetup defines the operands of the comma-ok forms of TestCommaOKTopLevel.
const commaOKSetup = `type S struct{ A int }
m := map[string]int{"a": 1}
var x any = 2
var y any = S{7}
ch := make(chan int, 1)
ch <- 3
calls := 0
mk := func() map[string]int { calls++; return m }
key := func() string { calls += 10; return "a" }`

// TestCommaOKTopLevel runs comma-ok forms at the top level of a cell (the interpreter once
// failed on them with "nil type") and checks the values and types of their variables in the
// next cell, which they outlive as other variables of the session do.
func TestCommaOKTopLevel(t *testing.T) {
	show := `fmt.Sprintf("%T %v %T %v", n, n, ok, ok)`
	cases := []struct {
		name, code, check, want string
	}{
		{"map index", `n, ok := m["a"]`, show, `"int 1 bool true"`},
		{"map index of a missing key", `n, ok := m["z"]`, show, `"int 0 bool false"`},
		{"map index in parentheses", `n, ok := (m["a"])`, show, `"int 1 bool true"`},
		{"map and key evaluated once", `n, ok := mk()[key()]`, show + " + fmt.Sprint(calls)", `"int 1 bool true11"`},
		{"type assertion", `n, ok := x.(int)`, show, `"int 2 bool true"`},
		{"type assertion that fails", `n, ok := x.(string)`, show, `"string  bool false"`},
		{"type assertion to a cell's type", `n, ok := y.(S)`, `fmt.Sprint(n.A, ok)`, `"7 true"`},
		{"type assertion to an interface", `n, ok := x.(fmt.Stringer)`, `fmt.Sprint(n == nil, ok)`, `"true false"`},
		{"receive of the status only", `_, ok := <-ch; n := len(ch)`, show, `"int 0 bool true"`},
		{"receive of the value only", `n, _ := <-ch; ok := true`, show, `"int 3 bool true"`},
		{"map index of the status only", `_, ok := m["a"]; n := 0`, show, `"int 0 bool true"`},
		// the value only of an assertion that fails: the comma-ok form does not panic
		{"failed type assertion of the value only", "n, _ := x.(string); ok := n == \"\"", show, `"string  bool true"`},
		// two definitions of one line whose maps are calls: each has its own temporary
		{"two on one line", `n, ok := mk()["a"]; k, ok2 := mk()["z"]; _ = k; ok = ok && !ok2`, show, `"int 1 bool true"`},
		{"redeclaring a variable", "n := 5\nprintln(n)\nn, ok := m[\"a\"]", show, `"int 1 bool true"`},
		{"assignment", "var n int\nvar ok bool\nn, ok = m[\"a\"]", show, `"int 1 bool true"`},
		{"receive assigned to declared variables", "var n int\nvar ok bool\nn, ok = <-ch", show, `"int 3 bool true"`},
		{"in a function", "func f() (int, bool) { n, ok := m[\"a\"]; return n, ok }\nn, ok := f()", show, `"int 1 bool true"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, commaOKSetup)
			ts.mustRun(t, c.code)
			if got := text(ts.mustRun(t, c.check)); got != c.want {
				t.Errorf("after %q: %s = %s, want %s", c.code, c.check, got, c.want)
			}
		})
	}
}

// TestCommaOKTopLevelRefused checks the error for the comma-ok forms the interpreter cannot
// run at the top level of a cell: it says what to write instead.
func TestCommaOKTopLevelRefused(t *testing.T) {
	cases := []struct {
		name, code, errText string
	}{
		{"receive", `n, ok := <-ch`, "cell [2] line 1:1: the interpreter cannot define the variables of a comma-ok receive (v, ok := <-ch) at the top level of a cell: declare them first and assign them (var v T and var ok bool, with T the channel's element type, then v, ok = <-ch)"},
		{"var of a map index", `var n, ok = m["a"]`, `cell [2] line 1:1: var n, ok = m["a"]: the interpreter cannot declare variables from a comma-ok expression at the top level of a cell: write n, ok := m["a"]`},
		{"var of a type assertion", `var n, ok = x.(int)`, `write n, ok := x.(int)`},
		{"var of a receive", `var n, ok = <-ch`, "comma-ok receive (v, ok := <-ch)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, commaOKSetup)
			res := ts.run(c.code)
			if res.Err == nil {
				t.Fatalf("%q ran; want an error containing %q", c.code, c.errText)
			}
			if !strings.Contains(res.Err.Value, c.errText) {
				t.Errorf("error %q does not contain %q", res.Err.Value, c.errText)
			}
			// nothing was received: the value is still in the channel
			if got := text(ts.mustRun(t, "len(ch)")); got != "1" {
				t.Errorf("len(ch) = %s after the refused cell, want 1", got)
			}
		})
	}
}

// TestCommaOKCompiledMap checks a comma-ok definition on a map of a compiled package's type,
// whose value type the interpreter cannot infer at the top level of a cell: the error says so
// and proposes the declaration it accepts, which the test runs.
func TestCommaOKCompiledMap(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, `uv := url.Values{"a": {"z"}}`)
	res := ts.run(`w, found := uv["a"]`)
	const want = `cell [2] line 1:1: w, found := uv["a"]: the interpreter cannot infer the type of a top-level variable ` +
		`whose value indexes a string, or a slice, array or map of a compiled package's type ` +
		`(https://github.com/traefik/yaegi/issues/1437): declare the variables with their types and assign them, ` +
		`as in var w T; var found bool; then w, found = uv["a"]`
	if res.Err == nil || !strings.Contains(res.Err.Value, want) {
		t.Fatalf("error = %v, want one containing %q", res.Err, want)
	}
	ts.mustRun(t, "var w []string\nvar found bool\nw, found = uv[\"a\"]")
	if got := text(ts.mustRun(t, `fmt.Sprintf("%T %v %T %v", w, w, found, found)`)); got != `"[]string [z] bool true"` {
		t.Errorf("w, found = %s", got)
	}
}
