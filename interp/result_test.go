package interp

import (
	"strings"
	"testing"
)

// TestResultOfCellTypeWithMethods checks the result shown for a value of a type declared in a
// cell that has methods: the interpreter hands such a value to compiled code wrapped, without
// its methods, so rendering it as any other value showed the wrapper's fields. Its
// MIMEBundle, Error or String method decides what is shown, as fmt would; a method that
// panics fails the cell, except on a nil pointer, which shows <nil> as fmt does; the session
// goes on either way.
func TestResultOfCellTypeWithMethods(t *testing.T) {
	const types = `type T struct{ n int }
func (t T) String() string { return fmt.Sprint("T", t.n) }
type K int
func (k K) String() string { return fmt.Sprint("K", int(k)) }
type E struct{ msg string }
func (e *E) Error() string { return "E:" + e.msg }
type U struct{ n int }
func (u *U) String() string { return fmt.Sprint("U", u.n) }
type N struct{}
func (n *N) String() string { if n == nil { return "no N" }; return "N" }
type P struct{}
func (P) String() string { panic("boom in String") }
type M struct{}
func (M) MIMEBundle() map[string]any { panic("boom in MIMEBundle") }
type Card struct{ Title string }
func (c Card) MIMEBundle() map[string]any { return map[string]any{"text/plain": "card " + c.Title} }`
	cases := []struct {
		code, result, errText string
	}{
		{code: "T{3}", result: "T3"},
		{code: "x := T{4}\nx", result: "T4"},
		{code: "K(5)", result: "K5"},
		{code: "type Q struct{ A int }\nfunc (Q) Other() {}\nQ{8}", result: "{A:8}"}, // methods, none that shows
		{code: "&E{\"y\"}", result: "error: E:y"},
		{code: "var e error = &E{\"z\"}\ne", result: "error: E:z"},
		{code: "var u *U\nu", result: "<nil>"},
		{code: "&U{6}", result: "U6"},
		{code: "var n *N\nn", result: "no N"},
		{code: "var c *Card\nc", result: "<nil>"},
		{code: "Card{\"a\"}", result: "card a"},
		{code: "P{}", errText: "boom in String"},
		{code: "M{}", errText: "boom in MIMEBundle"},
		{code: "type S struct{ A int }\nS{7}", result: "{A:7}"},
	}
	ts := newTestSession(t)
	ts.mustRun(t, types)
	for _, c := range cases {
		res := ts.run(c.code)
		switch {
		case c.errText != "" && res.Err == nil:
			t.Errorf("%q: shown %q, want the error %q", c.code, text(res), c.errText)
		case c.errText != "" && !strings.Contains(res.Err.Value+strings.Join(res.Err.Traceback, "\n"), c.errText):
			t.Errorf("%q: error %q, want one with %q", c.code, res.Err.Value, c.errText)
		case c.errText == "" && res.Err != nil:
			t.Errorf("%q: error %v", c.code, res.Err.Value)
		case c.errText == "" && text(res) != c.result:
			t.Errorf("%q: shown %q, want %q", c.code, text(res), c.result)
		}
		if got := text(ts.mustRun(t, "1 + 1")); got != "2" {
			t.Fatalf("after %q: 1 + 1 shows %q", c.code, got)
		}
	}
}
