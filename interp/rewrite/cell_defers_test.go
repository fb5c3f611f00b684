package rewrite

import "testing"

// TestCellDefers checks that cell-defers hands each defer statement of a cell's top level,
// outside function literals, to CellDeferName with its operands evaluated where it stands.
func TestCellDefers(t *testing.T) {
	env := Env{IsVar: func(name string) bool { return name == "x" }}
	for _, c := range []struct{ in, want string }{
		{"defer show(x)", "_gosbiCellDefer(func() func() { _gosbiCD1a0 := x; return func() { show(_gosbiCD1a0) } }())"},
		{"for i := 0; i < 3; i++ {\n\tdefer show(i)\n}", "for i := 0; i < 3; i++ {\n\t_gosbiCellDefer(func() func() { _gosbiCD1a0 := i; return func() { show(_gosbiCD1a0) } }())\n}"},
		{"defer f.Close()", "_gosbiCellDefer(func() func() { return func() { f.Close() } }())"},
		// left as written: a defer statement of a function literal, and declarations
		{"g := func() {\n\tdefer show(x)\n}", ""},
		{"func f() {\n\tdefer show(1)\n}", ""},
	} {
		checkRewrite(t, cellDefers, env, c.in, c.want)
	}
}

func TestCanaryCellDefers(t *testing.T) {
	got, err := evalInt(t, newInterp(t), "var n int", "defer func() { n++ }()", "n += 0", "n += 0", "n")
	if err == nil && got <= 1 {
		t.Errorf("yaegi now runs a top-level deferred call at most once (n = %d): drop pass %s (%s)", got, cellDefers.Name, cellDefers.Issue)
	} else {
		t.Logf("yaegi ran the deferred call %d times (%v)", got, err)
	}
}
