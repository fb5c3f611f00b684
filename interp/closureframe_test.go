package interp

import (
	"strings"
	"testing"
)

// TestClosurePanicLines checks the frames of a panic inside a function literal, and of a
// top-level statement the session runs inside a literal of its own: Go's message, and each
// frame's line where the source names it (a closure's own lines when it has several sites),
// never the interpreter's first node of the function.
func TestClosurePanicLines(t *testing.T) {
	const nilDeref = "runtime error: invalid memory address or nil pointer dereference"
	for _, c := range []struct {
		cells  []string // the last one panics
		msg    string
		frames []string
	}{
		{[]string{"f := func() int {\n\tvar p *int\n\treturn *p\n}\nf()"}, nilDeref,
			[]string{"in func, cell [1] line 3", "at cell [1] line 5"}},
		{[]string{"f := func() {\n\ts := []int{1}\n\tk := 3\n\t_ = s[k]\n}\nf()"}, "runtime error: index out of range",
			[]string{"in func, cell [1] line 4", "at cell [1] line 6"}},
		{[]string{"f := func() {\n\ts := []int{1, 2, 3}\n\tn := 5\n\t_ = s[1:n]\n}\nf()"}, sliceBounds("Slice: "),
			[]string{"in func, cell [1] line 4", "at cell [1] line 6"}},
		{[]string{"import \"sort\"\ns := []int{3, 1}\nsort.Slice(s, func(i, j int) bool {\n\tk := 5\n\treturn s[k] < s[j]\n})"}, "runtime error: index out of range",
			[]string{"in func, cell [1] line 5", "at cell [1] line 3"}},
		// h's first node is the literal g, so the interpreter names h's frame "h.func"
		{[]string{"func h() {\n\tg := func() {\n\t\tvar p *int\n\t\t*p = 1\n\t}\n\tg()\n}", "h()"}, nilDeref,
			[]string{"in h.func, cell [1] line 4", "in h, cell [1] line 6", "at cell [2] line 1"}},
		// the session runs "_ = s[k]" inside a literal of its own: the cell's frame, once
		{[]string{"s := []int{1}\nk := 3\n_ = s[k]"}, "runtime error: index out of range",
			[]string{"at cell [1] line 3"}},
		{[]string{"s := []int{1}\nk := 3\nfunc() { _ = s[k] }()"}, "runtime error: index out of range",
			[]string{"in func, cell [1] line 3", "at cell [1] line 3"}},
		// a closure defined in an earlier cell
		{[]string{"f := func(i int) int {\n\ts := []int{1}\n\treturn s[i]\n}", "x := 1\ny := f(3)"}, "runtime error: index out of range",
			[]string{"in func, cell [1] line 3", "at cell [2] line 2"}},
		// two lines that can panic: the literal's lines
		{[]string{"f := func(s []int) int {\n\ta := s[0]\n\treturn a + s[1]\n}\nf(nil)"}, "runtime error: index out of range",
			[]string{"in func, cell [1] lines 1-4", "at cell [1] line 5"}},
		{[]string{"func g() {\n\ts := \"abc\"\n\tk := 5\n\t_ = s[k]\n}\ng()"}, "runtime error: index out of range",
			[]string{"in g, cell [1] line 4", "at cell [1] line 6"}},
		// the session inserts a literal as the first statement of a function with named results
		{[]string{"func gain(s []int, i int) (g, se int) {\n\tx := 1\n\tg = s[i] + x\n\treturn\n}\ngain(nil, 3)"}, "runtime error: index out of range",
			[]string{"in gain, cell [1] line 3", "at cell [1] line 6"}},
		{[]string{"f := func(s []int, i int) (g, se int) {\n\tx := 1\n\tg = s[i] + x\n\treturn\n}\nf(nil, 3)"}, "runtime error: index out of range",
			[]string{"in func, cell [1] line 3", "at cell [1] line 6"}},
	} {
		ts := newTestSession(t)
		for _, code := range c.cells[:len(c.cells)-1] {
			ts.mustRun(t, code)
		}
		res := ts.run(c.cells[len(c.cells)-1])
		if res.Err == nil {
			t.Errorf("%q: no panic", c.cells)
			continue
		}
		var frames []string
		for _, l := range res.Err.Traceback[1:] {
			frames = append(frames, strings.TrimSpace(l))
		}
		if !strings.HasPrefix(res.Err.Value, c.msg) || strings.Join(frames, "\n") != strings.Join(c.frames, "\n") {
			t.Errorf("%q:\n%s\nwant %q, then the frames %q", c.cells, strings.Join(res.Err.Traceback, "\n"), c.msg, c.frames)
		}
	}
}

// TestClosurePanicMethodFrame: a method whose first statement defines a function literal is
// named after its literal by the interpreter; its frame is the method's, named T.M, at the
// method's own lines, not at those of a function M of the session or of another type's M.
func TestClosurePanicMethodFrame(t *testing.T) {
	const nilDeref = "runtime error: invalid memory address or nil pointer dereference"
	method := "type T struct{}\n\nfunc (T) M() {\n\tg := func() {}\n\t_ = g\n\tvar p *int\n\t*p = 1\n}"
	inLit := "type T struct{}\n\nfunc (*T) M() {\n\tg := func() {\n\t\tvar p *int\n\t\t*p = 1\n\t}\n\tg()\n}"
	for _, c := range []struct {
		name   string
		cells  []string // the last one panics
		frames []string
	}{
		{"a function M too", []string{"func M() {\n\tx := 1\n\t_ = x\n}", method, "T{}.M()"},
			[]string{"in T.M, cell [2] line 7", "at cell [3] line 1"}},
		{"another type's M", []string{"type U struct{}\n\nfunc (U) M() {}", method, "T{}.M()"},
			[]string{"in T.M, cell [2] line 7", "at cell [3] line 1"}},
		{"in the method's literal", []string{"func M() {}", inLit, "(&T{}).M()"},
			[]string{"in T.M.func, cell [2] line 6", "in T.M, cell [2] line 8", "at cell [3] line 1"}},
	} {
		ts := newTestSession(t)
		for _, code := range c.cells[:len(c.cells)-1] {
			ts.mustRun(t, code)
		}
		res := ts.run(c.cells[len(c.cells)-1])
		if res.Err == nil {
			t.Errorf("%s: no panic", c.name)
			continue
		}
		var frames []string
		for _, l := range res.Err.Traceback[1:] {
			frames = append(frames, strings.TrimSpace(l))
		}
		if !strings.HasPrefix(res.Err.Value, nilDeref) || strings.Join(frames, "\n") != strings.Join(c.frames, "\n") {
			t.Errorf("%s:\n%s\nwant the frames %q", c.name, strings.Join(res.Err.Traceback, "\n"), c.frames)
		}
	}
}

// TestSourceAtRewrittenLines: the declaration that holds a line is found by the lines of its
// source as written, which the interpreter's positions follow, not by those of its rewritten
// text; a rewrite that adds lines must not extend a declaration over the next one. The
// declarations are a map, so each line is looked up many times.
func TestSourceAtRewrittenLines(t *testing.T) {
	src := "func f() {\n\tx := 1\n\t_ = x\n}"
	s := &Session{decls: map[string]*decl{
		// func-scope's three lines around a statement of f's body
		"f": {kind: funcDecl, name: "f", cell: 1, line: 1, col: 1, src: src,
			text: "func f() {\n\tx := 1\n\tfunc() {\n//line _.go:1100003:2\n\t_ = x\n}()\n}"},
		"g": {kind: funcDecl, name: "g", cell: 1, line: 5, col: 1, src: "func g() {\n\tvar p *int\n\t*p = 1\n}",
			text: "func g() {\n\tvar p *int\n\t*p = 1\n}"},
	}}
	for _, c := range []struct {
		line int // of cell 1
		want string
	}{
		{1, src}, {4, src}, {5, "func g() {"}, {6, "func g() {"}, {7, "func g() {"}, {8, "func g() {"},
	} {
		for range 200 {
			it, ok := s.sourceAt(lineBase(1) + c.line)
			if !ok || !strings.HasPrefix(it.Text, c.want) || it.Base != lineBase(1) {
				t.Errorf("line %d: got %+v, %v; want the declaration %q", c.line, it, ok, c.want)
				break
			}
		}
	}
}
