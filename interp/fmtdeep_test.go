package interp

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gosbi/gosbi/display"
)

// The compiled counterparts of the cells' types of TestFmtNested: the same fields (named
// alike) and methods, so that fmt on them gives Go's output for the cells.
type (
	deepP struct{ X int }
	deepQ struct{ Y int }
	deepE struct{}
	deepW struct {
		In deepP
		N  int
	}
	deepU     struct{ in deepP }
	deepEmpty struct{}
	deepPs    []deepP
	deepBig   struct {
		A deepP
		c []deepP
	}
	deepNode struct {
		V    deepP
		Next *deepNode
	}
	deepShape interface{ Area() int }
	deepSq    struct{ side int }
	deepCi    struct{ r int }
	deepOdd   struct{ X int }
	deepBlank struct{}
	deepV     struct {
		A []deepP
		B map[string]*deepP
		C [][]deepP
		D []deepShape
		E *deepW
	}
	deepH struct {
		A any
		N int
	}
)

func (p deepP) String() string   { return fmt.Sprintf("P(%d)", p.X) }
func (q *deepQ) String() string  { return fmt.Sprintf("Q(%d)", q.Y) }
func (deepE) Error() string      { return "boom" }
func (s deepSq) Area() int       { return s.side * s.side }
func (c deepCi) Area() int       { return 3 * c.r }
func (deepOdd) String() int      { return 7 }
func (deepBlank) String() string { return "" }
func (s deepSq) String() string  { return fmt.Sprint("sq", s.side) }
func (e deepEmpty) Nothing() int { return 0 }

// deepTypes declares the cells' types of TestFmtNested; with pointer, Q's String has a
// pointer receiver, which changes what wrap-fmt-args gives fmt.
func deepTypes(pointer bool) string {
	s := "import \"fmt\"\n" +
		"type P struct{ X int }\nfunc (p P) String() string { return fmt.Sprintf(\"P(%d)\", p.X) }\n" +
		"type E struct{}\nfunc (E) Error() string { return \"boom\" }\n" +
		"type W struct{ In P; N int }\ntype U struct{ in P }\n" +
		"type Empty struct{}\nfunc (e Empty) Nothing() int { return 0 }\n" +
		"type Shape interface{ Area() int }\n" +
		"type Sq struct{ side int }\nfunc (s Sq) Area() int { return s.side * s.side }\nfunc (s Sq) String() string { return fmt.Sprint(\"sq\", s.side) }\n" +
		"type Ci struct{ r int }\nfunc (c Ci) Area() int { return 3 * c.r }\n" +
		"type Odd struct{ X int }\nfunc (Odd) String() int { return 7 }\n" +
		"type H struct{ A any; N int }\n" +
		"type V struct {\n\tA []P\n\tB map[string]*P\n\tC [][]P\n\tD []Shape\n\tE *W\n}\n"
	if pointer {
		s += "type Q struct{ Y int }\nfunc (q *Q) String() string { return fmt.Sprintf(\"Q(%d)\", q.Y) }\n"
	}
	return s
}

// deepVars defines the cells' variables of TestFmtNested.
const deepVars = "p := P{1}; ps := []P{{1}, {2}}; var a any = p; m := map[string]P{\"a\": {3}}; w := W{P{5}, 1}\n" +
	"var nps []P; var nm map[string]P; var nw *W; var sh Shape = Sq{3}"

// TestFmtNested runs cells that print values of the cell's types with String or Error nested
// in slices, arrays, maps, structs and pointers, and compares their output with fmt's of
// compiled types with the same fields and methods (the counterparts above, written as the
// cells write their values), which is Go's output: fmt calls the method of a nested value
// whose method set has it (not a value's String on a pointer receiver, nor that of an
// unexported field), and prints values without such methods as before. Each case runs in a
// session whose methods all have value receivers and in one where a String has a pointer
// receiver.
func TestFmtNested(t *testing.T) {
	p, ps, m, w := deepP{1}, []deepP{{1}, {2}}, map[string]deepP{"a": {3}}, deepW{deepP{5}, 1}
	var (
		nps []deepP
		nm  map[string]deepP
		nw  *deepW
	)
	cases := []struct{ name, code, want string }{
		{"Println of a slice, map and struct", "fmt.Println(p, ps, m, w)", fmt.Sprintln(p, ps, m, w)},
		{"Printf verbs", `fmt.Printf("%v %s %q %+v|%v %+v %s\n", ps, ps, ps, ps, w, w, m)`,
			fmt.Sprintf("%v %s %q %+v|%v %+v %s\n", ps, ps, ps, ps, w, w, m)},
		{"Sprint spaces", "fmt.Print(fmt.Sprint(ps, ps, \"s\", w))", fmt.Sprint(ps, ps, "s", w)},
		{"Errorf", "fmt.Println(fmt.Errorf(\"x %v %s\", ps, m))", fmt.Sprintln(fmt.Errorf("x %v %s", ps, m))},
		{"composite literals", "fmt.Println([]P{{7}}, [2]P{}, map[int]P{2: {8}}, W{P{5}, 1})",
			fmt.Sprintln([]deepP{{7}}, [2]deepP{}, map[int]deepP{2: {8}}, deepW{deepP{5}, 1})},
		{"errors", "fmt.Println([]E{{}}, map[string]E{\"k\": {}})", fmt.Sprintln([]deepE{{}}, map[string]deepE{"k": {}})},
		{"pointers", "fmt.Println(&ps, &w, []*P{nil, &p})", fmt.Sprintln(&ps, &w, []*deepP{nil, &p})},
		{"nil slice, map and pointer", "fmt.Println(nps, nm, nw)\nfmt.Printf(\"%v %+v %v\\n\", nps, nm, nw)",
			fmt.Sprintln(nps, nm, nw) + fmt.Sprintf("%v %+v %v\n", nps, nm, nw)},
		{"empty struct", "fmt.Println([]Empty{{}}, W{}, struct{}{})", fmt.Sprintln([]deepEmpty{{}}, deepW{}, struct{}{})},
		{"unexported field", "fmt.Println(U{P{4}}, []U{{P{6}}})", fmt.Sprintln(deepU{deepP{4}}, []deepU{{deepP{6}}})},
		{"nested two levels", "fmt.Println([][]P{{{1}}, nil}, map[string][]P{\"k\": {{2}}}, []W{w})",
			fmt.Sprintln([][]deepP{{{1}}, nil}, map[string][]deepP{"k": {{2}}}, []deepW{w})},
		{"interface of the session", "fmt.Println([]Shape{Sq{2}, nil, sh})", fmt.Sprintln([]deepShape{deepSq{2}, nil, deepSq{3}})},
		{"interface of the session holding values without String", "fmt.Println([]Shape{Ci{1}, Sq{2}}, map[string]Shape{\"c\": Ci{5}}, []Odd{{1}})",
			fmt.Sprintln([]deepShape{deepCi{1}, deepSq{2}}, map[string]deepShape{"c": deepCi{5}}, []deepOdd{{1}})},
		{"struct of them all", "v := V{A: ps, B: map[string]*P{\"x\": &p, \"y\": nil}, C: [][]P{ps}, D: []Shape{Sq{2}}}\nfmt.Printf(\"%v\\n%+v\\n\", v, &v)",
			func() string {
				v := deepV{A: ps, B: map[string]*deepP{"x": &p, "y": nil}, C: [][]deepP{ps}, D: []deepShape{deepSq{2}}}
				return fmt.Sprintf("%v\n%+v\n", v, &v)
			}()},
		{"in a function", "func show(ps []P) string { return fmt.Sprint(ps) }\nfmt.Println(show(ps))", fmt.Sprintln(fmt.Sprint(ps))},
		{"a variadic parameter", "func showAll(xs ...P) string { return fmt.Sprint(xs, len(xs)) }\nfmt.Println(showAll(ps...), showAll())",
			fmt.Sprintln(fmt.Sprint(ps, len(ps)), fmt.Sprint([]deepP(nil), 0))},
		{"a type local to a function", "func local() { type L struct{ A P }; fmt.Println([]L{{P{1}}}) }\nlocal()",
			fmt.Sprintln([]struct{ A deepP }{{deepP{1}}})},
		{"a named slice type and an unexported slice field", "type Ps []P\ntype Big struct{ A P; c []P }\nfmt.Println(Ps(ps), Big{P{1}, ps})",
			fmt.Sprintln(deepPs(ps), deepBig{deepP{1}, ps})},
		{"a pointer in a list", "type node struct{ V P; Next *node }\nfmt.Println(node{P{1}, nil})", fmt.Sprintln(deepNode{deepP{1}, nil})},
		{"any in a slice", "fmt.Println([]any{p, Ci{2}, 3})\nxs := []any{p, Ci{2}}\nfmt.Println(xs)",
			fmt.Sprintln([]any{p, deepCi{2}, 3}) + fmt.Sprintln([]any{p, deepCi{2}})},
		{"any in a map", "fmt.Println(map[string]any{\"a\": p, \"b\": E{}})", fmt.Sprintln(map[string]any{"a": p, "b": deepE{}})},
		{"any with verbs", "xs := []any{p, sh, nil}\nfmt.Printf(\"%v %+v %s|%v %+v\\n\", xs, xs, xs, map[int]any{1: p}, H{p, 2})",
			fmt.Sprintf("%v %+v %s|%v %+v\n", []any{p, deepSq{3}, nil}, []any{p, deepSq{3}, nil}, []any{p, deepSq{3}, nil}, map[int]any{1: p}, deepH{p, 2})},
		{"nil in any", "fmt.Println([]any{nil, p}, map[string]any{\"n\": nil})", fmt.Sprintln([]any{nil, p}, map[string]any{"n": nil})},
		{"any nested", "fmt.Println([][]any{{p, 1}, nil}, map[string][]any{\"k\": {p}}, []interface{}{p})",
			fmt.Sprintln([][]any{{p, 1}, nil}, map[string][]any{"k": {p}}, []interface{}{p})},
		{"a struct with an any field", "fmt.Println(H{p, 1}, []H{{Ci{3}, 2}})", fmt.Sprintln(deepH{p, 1}, []deepH{{deepCi{3}, 2}})},
		{"types without methods in any", "fmt.Println([]any{U{P{4}}, struct{ X int }{5}})",
			fmt.Sprintln([]any{deepU{deepP{4}}, struct{ X int }{5}})},
		{"a pointer in any", "fmt.Println([]any{&p})", fmt.Sprintln([]any{&p})},
		{"a recursive type, by its fields", "type tree struct{ Kids []tree; V P }\nfmt.Println(tree{nil, P{1}})",
			fmt.Sprintln(struct {
				Kids []struct{}
				V    struct{ X int }
			}{nil, struct{ X int }{1}})},
	}
	// In a session with a String on a pointer receiver, a value held by a variable of type
	// any prints by its fields (see the package's documentation).
	valueCases := []struct{ name, code, want string }{
		{"any", "fmt.Println(a, []any{1}, ps)", fmt.Sprintln(any(p), []any{1}, ps)},
	}
	pointerCases := []struct{ name, code, want string }{
		// In Go, fmt.Println(a) prints P(1); here a prints by its fields, as documented (the
		// interpreter's record of the value, a struct of pointers, printed before).
		{"any, by its fields", "fmt.Println(a, nps)", fmt.Sprintln(struct{ X int }{1}, nps)},
		{"pointer receiver", "q := Q{1}\nfmt.Println([]Q{q}, []*Q{&q, nil}, map[int]Q{1: q}, struct{ A Q; B *Q }{q, &q})",
			func() string {
				q := deepQ{1}
				return fmt.Sprintln([]deepQ{q}, []*deepQ{&q, nil}, map[int]deepQ{1: q}, struct {
					A deepQ
					B *deepQ
				}{q, &q})
			}()},
		{"pointer receiver in any", "q := Q{1}\nfmt.Println([]any{&q, q, nil})", func() string {
			q := deepQ{1}
			return fmt.Sprintln([]any{&q, q, nil})
		}()},
	}
	for _, pointer := range []bool{false, true} {
		ts := newTestSession(t)
		ts.mustRun(t, deepTypes(pointer))
		ts.mustRun(t, deepVars)
		all := slices.Concat(cases, valueCases)
		if pointer {
			all = slices.Concat(cases, pointerCases)
		}
		for _, c := range all {
			t.Run(fmt.Sprintf("pointer=%v/%s", pointer, c.name), func(t *testing.T) {
				ts.out.Reset()
				ts.mustRun(t, c.code)
				if got := ts.out.String(); got != c.want {
					t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
				}
			})
		}
	}
}

// TestFmtAnyWithoutString checks that in a session whose types have methods but none String or
// Error, a value of such a type held in an any nested in a slice, map or struct prints by its
// fields, as fmt prints it in Go, both printed and as a cell's result (not as the interpreter's
// record of the value).
func TestFmtAnyWithoutString(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype S struct{ X int }\nfunc (s S) Area() int { return s.X }\ntype H struct{ A any }\nxs := []any{S{1}, 2}")
	type s struct{ X int }
	type h struct{ A any }
	xs := []any{s{1}, 2}
	ts.out.Reset()
	ts.mustRun(t, "fmt.Println(xs, map[string]any{\"s\": S{3}}, H{S{4}})")
	if got, want := ts.out.String(), fmt.Sprintln(xs, map[string]any{"s": s{3}}, h{s{4}}); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if got, want := text(ts.mustRun(t, "xs")), fmt.Sprint(xs); got != want {
		t.Errorf("result xs: %q, want %q", got, want)
	}
}

// TestFmtNestedSharpAndType checks that %#v and %T print a value nested in a slice or a
// struct as before: the same as for a format that is not a string literal, which
// wrap-fmt-args leaves (Go's %#v calls GoString, not String, and %T prints the operand's type,
// not the type of a mirror).
func TestFmtNestedSharpAndType(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deepTypes(false))
	ts.mustRun(t, deepVars)
	ts.out.Reset()
	ts.mustRun(t, "fmt.Printf(\"%#v %T %#v %T %T\\n\", ps, ps, w, w, m)\nf := \"%#v %T %#v %T %T\\n\"\nfmt.Printf(f, ps, ps, w, w, m)")
	got := ts.out.String()
	if len(got)%2 != 0 || got[:len(got)/2] != got[len(got)/2:] {
		t.Errorf("%%#v and %%T with a literal format printed %q, with a variable format the second half", got)
	}
}

// TestResultNested checks that a cell's result that holds values of the cell's types with
// String shows them as fmt.Println prints them (with the field names of %+v for a struct, as
// the session shows every struct), and that a value of such a type held by a variable of type
// any or of an interface type of the session shows by its method, as fmt prints it.
func TestResultNested(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deepTypes(false))
	ts.mustRun(t, deepVars)
	ps, m, w := []deepP{{1}, {2}}, map[string]deepP{"a": {3}}, deepW{deepP{5}, 1}
	for _, c := range []struct{ code, want string }{
		{"ps", fmt.Sprint(ps)},
		{"a", fmt.Sprint(deepP{1})},
		{"m", fmt.Sprint(m)},
		{"w", fmt.Sprintf("%+v", w)},
		{"&ps", fmt.Sprint(&ps)},
		{"[]Shape{sh}", fmt.Sprint([]deepShape{deepSq{3}})},
		{"sh", fmt.Sprint(deepSq{3})},
		{"p", fmt.Sprint(deepP{1})},
		{"[]any{p, Ci{2}, nil}", fmt.Sprint([]any{deepP{1}, deepCi{2}, nil})},
		{"map[string]any{\"a\": p}", fmt.Sprint(map[string]any{"a": deepP{1}})},
	} {
		t.Run(c.code, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, "fmt.Println("+c.code+")")
			printed := ts.out.String()
			if got := text(ts.mustRun(t, c.code)); got != c.want || got+"\n" != printed && c.code != "w" {
				t.Errorf("%s: result %q, want %q (fmt.Println printed %q)", c.code, got, c.want, printed)
			}
		})
	}
}

// TestResultLongSlice checks that a cell's result that is a long slice of a cell's type with
// String shows as the session shows such a slice of a compiled type: its elements by their
// method, cut after the bytes that the session shows of a value (the mirror of the result
// copies no more elements than those). Blank's String is empty, so that its elements take the
// fewest bytes, one space each.
func TestResultLongSlice(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deepTypes(false)+"type Blank struct{}\nfunc (Blank) String() string { return \"\" }\n")
	for _, c := range []struct {
		typ  string
		n    int
		want string
	}{
		{"P", 30000, display.PlainText(display.Render(make([]deepP, 30000)))},
		{"Blank", 19999, display.PlainText(display.Render(make([]deepBlank, 19999)))},
		{"Blank", 20000, display.PlainText(display.Render(make([]deepBlank, 20000)))},
		{"Blank", 30000, display.PlainText(display.Render(make([]deepBlank, 30000)))},
	} {
		code := fmt.Sprintf("make([]%s, %d)", c.typ, c.n)
		if got, want := text(ts.mustRun(t, code)), c.want; got != want {
			t.Errorf("%s: result of %d bytes ending %q, want %d bytes ending %q", code, len(got), got[max(0, len(got)-60):], len(want), want[max(0, len(want)-60):])
		}
	}
}
