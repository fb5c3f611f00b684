package rewrite

import (
	"strings"
	"testing"
)

// unit returns a unit of cell 1 (interpreter lines 1100001…) at line 1, column 1.
func unit(text string) Unit {
	kind := Stmt
	if strings.HasPrefix(text, "var ") || strings.HasPrefix(text, "func g") {
		kind = Decl
	}
	return Unit{Kind: kind, Text: text, Line: 1100001, Col: 1}
}

// apply runs passes on one unit.
func apply(t *testing.T, u Unit, passes ...Pass) string {
	t.Helper()
	for _, p := range passes {
		text, err := p.Rewrite(Env{}, u)
		if err != nil {
			t.Fatalf("%s on %q: %v", p.Name, u.Text, err)
		}
		u.Text = text
	}
	return u.Text
}

// TestTupleRewrites checks which values parenthesize-tuples puts in parentheses and which
// short variable declarations reorder-defines reorders; position comments are removed before
// comparing.
func TestTupleRewrites(t *testing.T) {
	cases := []struct{ in, want string }{
		{"x, y = f(), 5", "x, y = (f()), 5"},
		{"x, y = 5, pkg.F(1, 2)", "x, y = 5, (pkg.F(1, 2))"},
		{"x, y := T{1}, <-ch", "x, y := (T{1}), (<-ch)"},
		{"var a, b = f(), g()", "var a, b = (f()), (g())"},
		{"x, y = a+f(), -f()", "x, y = a+f(), -f()"},
		{"x, y = (f()), 5", "x, y = (f()), 5"},
		{"x, y = f()", "x, y = f()"},
		{"x = f()", "x = f()"},
		{"var a = T{1}", "var a = T{1}"},
		{"a, b = b, a", "a, b = b, a"},
		{"s := \"x, y = f(), 5\"", "s := \"x, y = f(), 5\""},
		{"func g() {\n\ta, b := 0, 0\n\ta, b = h(a), b+1\n}", "func g() {\n\ta, b := 0, 0\n\ta, b = (h(a)), b+1\n}"},
		{"f(func() { a, b = g(func() { c, d = h(), 1 }), 2 })", "f(func() { a, b = (g(func() { c, d = (h()), 1 })), 2 })"},
		{"for a, b := 0, 1; a < 9; a, b = b, f(a) {\n}", "for a, b := 0, 1; a < 9; a, b = b, (f(a)) {\n}"},
		{"x, z := f(x), x", "z, x := x, (f(x))"},
		{"a, b, c := 10, a, b", "c, b, a := b, a, 10"},
		{"x, z := x, 5", "x, z := x, 5"},
		{"f := func() {\n\tx, z := T{}, x\n\tg(func() { y, w := 1, y })\n}", "f := func() {\n\tz, x := x, (T{})\n\tg(func() { w, y := y, 1 })\n}"},
	}
	for _, c := range cases {
		got := apply(t, unit(c.in), reorderDefines, parenthesizeTuples)
		if unchanged := c.in == c.want; (got == c.in) != unchanged {
			t.Errorf("%q: rewritten %q; want the text unchanged: %v", c.in, got, unchanged)
		}
		if plain := StripPositions(got); plain != c.want {
			t.Errorf("%q: rewritten %q, want %q", c.in, plain, c.want)
		}
	}
}

// TestCyclicDefineRefused checks that a short variable declaration whose values read the
// names it assigns in a cycle is refused, at its position, and that others are not.
func TestCyclicDefineRefused(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"a, b, c := b, a, 3", "_.go:1100001:1: the interpreter would assign this declaration wrongly: its values read a, b"},
		{"f := func() {\n\tx, y := y, x\n}", "_.go:1100002:2: "},
		{"a, b, c := 10, a, b", ""},
		{"a, b = b, a", ""},
	} {
		_, err := reorderDefines.Rewrite(Env{}, unit(c.in))
		if (err != nil) != (c.err != "") || err != nil && !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		}
	}
}

// TestTupleRewritePositions checks the position comments: each gives the cell line and
// column of the source that follows it.
func TestTupleRewritePositions(t *testing.T) {
	u := Unit{Kind: Stmt, Text: "x, y = f(\n\t1), 5", Line: 1400002, Col: 3}
	got := apply(t, u, reorderDefines, parenthesizeTuples)
	want := "x, y = (/*line _.go:1400002:10*/f(\n\t1))/*line _.go:1400003:4*/, 5"
	if got != want {
		t.Errorf("rewritten %q, want %q", got, want)
	}
}
