package interp

import (
	"strings"
	"testing"
)

// TestIndexDefineError checks the error of a top-level definition whose value indexes a string
// or a compiled package's slice: it names the definition and the interpreter's fault, and not
// a name the cell defines or imports (the session once reported "undefined: NewReader" for the
// chained call in f) or only that the cell does not compile.
func TestIndexDefineError(t *testing.T) {
	const f = "func f() int { return strings.NewReader(\"ab\").Len() }\n"
	cases := []struct {
		name    string
		cells   []string // all but the last must succeed
		errText string
	}{
		{"slice of a compiled package, same cell", []string{f + "q := strings.Fields(\"a b\")\np := q[1]\nprintln(p, f())"},
			"cell [1] line 3:1: p := q[1]: the interpreter cannot infer"},
		{"slice of a compiled package, earlier cell", []string{f + "q := strings.Fields(\"a b\")", "p := q[1]"},
			"cell [2] line 1:1: p := q[1]: the interpreter cannot infer"},
		{"string", []string{"s := \"abc\"\nc := s[0]"}, "cell [1] line 2:1: c := s[0]: the interpreter cannot infer"},
		{"inside a larger value", []string{"q := strings.Fields(\"a b\")\nn := 1\np := q[1] + \"x\""},
			"If the index in cell [1] line 3:1 (p := q[1] + \"x\") is on a string, or a slice, array or map of a compiled package's type, the interpreter cannot infer"},
		{"var declaration", []string{"q := strings.Fields(\"a b\")", "var p = q[1]"}, "cell [2] line 1:5: var p = q[1]: the interpreter cannot infer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			last := len(c.cells) - 1
			for _, cell := range c.cells[:last] {
				ts.mustRun(t, cell)
			}
			res := ts.run(c.cells[last])
			if res.Err == nil {
				t.Fatalf("%q ran; want an error containing %q", c.cells[last], c.errText)
			}
			if !strings.Contains(res.Err.Value, c.errText) {
				t.Errorf("error %q does not contain %q", res.Err.Value, c.errText)
			}
			if strings.Contains(c.errText, "cannot infer") && !strings.Contains(res.Err.Value, "issues/1437") {
				t.Errorf("error %q does not name the upstream issue", res.Err.Value)
			}
		})
	}
}

// TestIndexDefineWorkarounds runs the forms the error message proposes.
func TestIndexDefineWorkarounds(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "q := strings.Fields(\"a b\")")
	for _, c := range []struct{ code, want string }{
		{"var p string = q[1]\np", `"b"`},
		{"r := string(q[0])\nr", `"a"`},
		{"var u string = q[1] + \"x\"\nu", `"bx"`},
		{"func second(q []string) string { return q[1] }\ns := second(q)\ns", `"b"`},
	} {
		if got := text(ts.mustRun(t, c.code)); got != c.want {
			t.Errorf("%q = %s, want %s", c.code, got, c.want)
		}
	}
}

// The canary of the interpreter's fault is in package explain (canaryIndexDefine).
