package explain

import (
	"fmt"
	"strings"
	"testing"
)

// slotWhere formats positions as a session whose cell n lies in slot n.
func slotWhere(line, col int) string {
	if col > 0 {
		return fmt.Sprintf("cell [%d] line %d:%d", line/100000-10, line%100000, col)
	}
	return fmt.Sprintf("cell [%d] line %d", line/100000-10, line%100000)
}

// TestClosureFrames: the frames the interpreter names after function literals get the line
// of the literal's failing expression, and the session's literal around a top-level statement
// is the cell's frame; a literal found in no source keeps its name, without a line.
func TestClosureFrames(t *testing.T) {
	cur := func(text string, line int) Item {
		it := Item{Text: text, Line: line, Col: 1, Stmt: true, Cell: 3, Base: 1300000}
		it.Fset, it.Node, _ = parseItem(it) // the tree the session gives its items
		return it
	}
	earlier := map[string]Item{
		"f": {Text: "f := func(i int) int {\n\ts := []int{1}\n\treturn s[i]\n}", Line: 1, Col: 1, Stmt: true, Cell: 2, Base: 1200000},
		"h": {Text: "func h() {\n\tg := func() {\n\t\tvar p *int\n\t\t*p = 1\n\t}\n\tg()\n}", Line: 10, Col: 1, Cell: 2, Base: 1200000},
	}
	sourceAt := func(line int) (Item, bool) {
		for _, it := range earlier {
			if first := it.Base + it.Line; line >= first && line <= first+strings.Count(it.Text, "\n") {
				return it, true
			}
		}
		return Item{}, false
	}
	source := func(fn string) (Source, bool) {
		it, ok := earlier[fn]
		return Source{Text: it.Text, Cell: it.Cell, Line: it.Line}, ok
	}
	for _, c := range []struct {
		name   string
		items  []Item
		value  string
		frames []string
		want   []string
	}{
		{"closure of the cell", []Item{cur("f := func() {\n\ts := []int{1}\n\tk := 3\n\t_ = s[k]\n}", 1), cur("f()", 6)},
			"reflect: slice index out of range", []string{"_.go:1300002:7: panic: main.func(...)", "_.go:1300006:1: panic: main(...)"},
			[]string{"in func, cell [3] line 4", "at cell [3] line 6"}},
		{"the session's literal around a statement", []Item{cur("s := []int{1}", 1), cur("k := 3", 2), cur("_ = s[k]", 3)},
			"reflect: slice index out of range", []string{"_.go:1300003:5: panic: main.func(...)", "_.go:1300001:6: panic: main(...)"},
			[]string{"at cell [3] line 3"}},
		{"closure of an earlier cell", []Item{cur("x := 1", 1), cur("y := f(3)", 2)},
			"reflect: slice index out of range", []string{"_.go:1200002:7: panic: main.func(...)", "_.go:1300001:1: panic: main(...)"},
			[]string{"in func, cell [2] line 3", "at cell [3] line 2"}},
		{"a function whose first node is a literal", []Item{cur("h()", 1)},
			"reflect: call of reflect.Value.Set on zero Value", []string{"_.go:1200012:9: panic: main.h.func(...)", "_.go:1200011:7: panic: main.h.func(...)", "_.go:1300001:1: panic: main(...)"},
			[]string{"in h.func, cell [2] line 13", "in h, cell [2] line 15", "at cell [3] line 1"}},
		{"a literal in no source", []Item{cur("y := g(3)", 1), cur("z := y", 2)},
			"reflect: slice index out of range", []string{"_.go:1250002:7: panic: main.func(...)", "_.go:1300001:1: panic: main(...)"},
			[]string{"in func, cell [3]", "at cell [3] line 1"}},
		{"items without positions", []Item{{Text: "f := func() {\n\ts := []int{1}\n\tk := 3\n\t_ = s[k]\n}", Line: 1, Stmt: true}, {Text: "f()", Line: 6, Stmt: true}},
			"reflect: slice index out of range", []string{"_.go:1300002:7: panic: main.func(...)", "_.go:1300006:1: panic: main(...)"},
			[]string{"in func, cell [3]", "at cell [3] line 6"}},
	} {
		env := Env{Cell: 3, Where: slotWhere, Items: c.items, Source: source, SourceAt: sourceAt}
		r := Panic(env, c.value, c.frames)
		var got []string
		for _, l := range r.Traceback[1:] {
			got = append(got, strings.TrimSpace(l))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: frames %q, want %q", c.name, got, c.want)
		}
	}
}

// TestOneLineFunctionPlace: a frame in a function of one line, with no expression that can
// give the panic, names that line, not the range "lines 4-4".
func TestOneLineFunctionPlace(t *testing.T) {
	source := func(fn string) (Source, bool) {
		return Source{Text: "func f() { x := 1; _ = x }", Cell: 2, Line: 4}, fn == "f"
	}
	frames := []string{"_.go:1200004:12: panic: main.f(...)", "_.go:1300001:1: panic: main(...)"}
	for _, c := range []struct {
		file, want string
	}{
		{"", "in f, cell [2] line 4"},
		{"s.go", "in f, s.go:4"},
	} {
		env := Env{Cell: 3, File: c.file, Where: slotWhere, Items: []Item{{Text: "f()", Line: 1, Stmt: true}}, Source: source}
		r := Panic(env, "boom", frames)
		if len(r.Traceback) < 2 || strings.TrimSpace(r.Traceback[1]) != c.want {
			t.Errorf("file %q: traceback %q, want the frame %q", c.file, r.Traceback, c.want)
		}
	}
}
