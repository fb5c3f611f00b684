package interp

import (
	"fmt"
	"strings"
	"testing"
)

// freshSetup declares error types of a session whose values become compiled interfaces: E
// (value receiver), Q (pointer receiver), N (a named int), St (a fmt.Stringer), G (generic),
// S (an interface of the session that embeds error) with C, and a struct H with a field of
// type error; helpers that store what they are given.
const freshSetup = "import (\n\t\"errors\"\n\t\"fmt\"\n)\nvar _ = errors.New\n" +
	"type E struct{ i int }\nfunc (e E) Error() string { return fmt.Sprint(\"E\", e.i) }\n" +
	"type Q struct{ q, pad int }\nfunc (q *Q) Error() string { return fmt.Sprint(\"Q\", q.q) }\n" +
	"type N int\nfunc (n N) Error() string { return fmt.Sprint(\"N\", int(n)) }\n" +
	"type St struct{ s string }\nfunc (s St) String() string { return \"St\" + s.s }\n" +
	"type G[T any] struct{ v T }\nfunc (g G[T]) Error() string { return fmt.Sprint(\"G\", g.v) }\n" +
	"type S interface{ error; Code() int }\n" +
	"type C struct{ c float64 }\nfunc (c C) Error() string { return fmt.Sprint(\"C\", c.c) }\nfunc (c C) Code() int { return int(c.c) }\n" +
	"type H struct{ Err error; N int }\n" +
	"var kept []error\nfunc keep(e error) { kept = append(kept, e) }\nfunc keepAll(tag string, es ...error) { kept = append(kept, es...) }\n" +
	"func mkE(i int) E { return E{i} }\nfunc asError(i int) error { return E{i} }"

// TestFreshWrappers stores values of a cell's types into compiled interfaces (error,
// fmt.Stringer) in loops, in functions and from variables. The interpreter's wrapper of such a
// value called its methods on the storage of the expression it was made from, which the next
// iteration reuses, so that every element showed the last value ([E2 E2 E2] where Go prints
// [E0 E1 E2]), a value changed after the store changed the stored error, and var e error = E{7}
// and error(E{7}) held the bare value (fmt showed {7}, a call of Error failed). Every row up to
// "right before" gave the interpreter's answer before fresh-wrappers (the two with more than
// 100 stores, before it rewrote every site); the rows after it gave Go's answer already and
// must keep it.
func TestFreshWrappers(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, freshSetup)
	for _, c := range []struct{ name, code, want string }{
		{"append a literal", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, E{i})\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"append two", "var es []error\nfor i := 0; i < 2; i++ {\n\tes = append(es, E{i}, E{10 + i})\n}\nfmt.Sprint(es)", `"[E0 E10 E1 E11]"`},
		{"append a variable", "var es []error\nfor i := 0; i < 3; i++ {\n\tv := E{i}\n\tes = append(es, v)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"append a pointer", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, &Q{q: i})\n}\nfmt.Sprint(es)", `"[Q0 Q1 Q2]"`},
		{"append a pointer variable", "var es []error\nfor i := 0; i < 3; i++ {\n\tq := &Q{q: i}\n\tes = append(es, q)\n}\nfmt.Sprint(es)", `"[Q0 Q1 Q2]"`},
		{"append an address", "var es []error\nfor i := 0; i < 3; i++ {\n\te := E{i}\n\tes = append(es, &e)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"append a function's result", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, mkE(i))\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"append a conversion", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, N(i))\n}\nfmt.Sprint(es)", `"[N0 N1 N2]"`},
		{"append a generic type", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, G[int]{i})\n}\nfmt.Sprint(es)", `"[G0 G1 G2]"`},
		{"append an interface of the session", "var es []error\nfor i := 0; i < 3; i++ {\n\tvar s S = C{float64(i)}\n\tes = append(es, s)\n}\nfmt.Sprint(es)", `"[C0 C1 C2]"`},
		{"append a range value", "var es []error\nfor _, v := range []E{{0}, {1}, {2}} {\n\tes = append(es, v)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"append a slice literal", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, []error{E{i}}...)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"fmt.Stringer", "var ss []fmt.Stringer\nfor i := 0; i < 3; i++ {\n\tss = append(ss, St{fmt.Sprint(i)})\n}\nfmt.Sprint(ss)", `"[St0 St1 St2]"`},
		{"slice element", "es := make([]error, 3)\nfor i := range es {\n\tes[i] = E{i}\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"slice element from a variable", "es := make([]error, 3)\nfor i := range es {\n\tv := E{i}\n\tes[i] = v\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"slice element from a range value", "es := make([]error, 3)\nfor i, v := range []E{{0}, {1}, {2}} {\n\tes[i] = v\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"array element", "var a [3]error\nfor i := range a {\n\ta[i] = E{i}\n}\nfmt.Sprint(a)", `"[E0 E1 E2]"`},
		{"map element", "m := map[int]error{}\nfor i := 0; i < 3; i++ {\n\tm[i] = E{i}\n}\nfmt.Sprint(m[0], m[1], m[2])", `"E0 E1 E2"`},
		{"field", "hs := make([]H, 3)\nfor i := range hs {\n\ths[i].Err = E{i}\n}\nfmt.Sprint(hs[0].Err, hs[2].Err)", `"E0 E2"`},
		{"pointer's target", "es := make([]error, 3)\nfor i := range es {\n\tp := &es[i]\n\t*p = E{i}\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"two at once", "es, fs := make([]error, 2), make([]error, 2)\nfor i := range es {\n\tes[i], fs[i] = E{i}, E{10 + i}\n}\nfmt.Sprint(es, fs)", `"[E0 E1] [E10 E11]"`},
		{"if's init statement", "es := make([]error, 3)\nfor i := range es {\n\tif es[i] = (E{i}); i < 0 {\n\t}\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"keyed struct literal", "hs := make([]H, 3)\nfor i := range hs {\n\ths[i] = H{Err: E{i}, N: i}\n}\nfmt.Sprint(hs[0].Err, hs[2].Err)", `"E0 E2"`},
		{"positional struct literal", "hs := make([]H, 3)\nfor i := range hs {\n\ths[i] = H{E{i}, i}\n}\nfmt.Sprint(hs[0].Err, hs[2].Err)", `"E0 E2"`},
		{"map literal", "ms := make([]map[string]error, 3)\nfor i := range ms {\n\tms[i] = map[string]error{\"a\": E{i}}\n}\nfmt.Sprint(ms[0][\"a\"], ms[2][\"a\"])", `"E0 E2"`},
		{"channel", "ch := make(chan error, 3)\nfor i := 0; i < 3; i++ {\n\tch <- E{i}\n}\na := <-ch\nb := <-ch\nc := <-ch\nfmt.Sprint(a, b, c)", `"E0 E1 E2"`},
		{"variable of type error", "var es []error\nfor i := 0; i < 3; i++ {\n\tvar e error\n\te = E{i}\n\tes = append(es, e)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"declared error", "var es []error\nfor i := 0; i < 3; i++ {\n\tvar e error = E{i}\n\tes = append(es, e)\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"conversion to error", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, error(E{i}))\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"parameter of a function", "kept = nil\nfor i := 0; i < 3; i++ {\n\tkeep(E{i})\n}\nfmt.Sprint(kept)", `"[E0 E1 E2]"`},
		{"variadic parameter", "kept = nil\nfor i := 0; i < 2; i++ {\n\tkeepAll(\"x\", E{i}, E{10 + i})\n}\nfmt.Sprint(kept)", `"[E0 E10 E1 E11]"`},
		{"parameter of a function literal", "var es []error\nadd := func(e error) { es = append(es, e) }\nfor i := 0; i < 3; i++ {\n\tadd(E{i})\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"in a function", "func collect() (out []error) {\n\tfor i := 0; i < 3; i++ {\n\t\tout = append(out, E{i})\n\t}\n\treturn\n}\nfmt.Sprint(collect())", `"[E0 E1 E2]"`},
		{"changed after the store", "x := E{1}\nvar e error = x\nx.i = 9\nfmt.Sprint(e, x)", `"E1 E9"`},
		{"declared at the top", "var e7 error = E{7}\ne7.Error()", `"E7"`},
		{"converted at the top", "e8 := error(E{8})\ne8.Error()", `"E8"`},
		{"declared, then joined", "var e9 error = E{9}\nerrors.Join(e9).Error()", `"E9"`},
		{"after 100 other stores", manyStores(), `"[E0 E1 E2]"`}, // the rewrite stopped at 100
		{"101 in one append", manyValues(), `"E0 E0 E1 E2"`},
		// right before
		{"a function returning error", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, asError(i))\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"a slice of any", "var es []any\nfor i := 0; i < 3; i++ {\n\tes = append(es, E{i})\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"a slice of the session's interface", "var ss []S\nfor i := 0; i < 3; i++ {\n\tss = append(ss, C{float64(i)})\n}\nfmt.Sprint(ss[0].Code(), ss[2].Code())", `"0 2"`},
		{"a slice of the type", "var es []E\nfor i := 0; i < 3; i++ {\n\tes = append(es, E{i})\n}\nfmt.Sprint(es)", `"[E0 E1 E2]"`},
		{"a literal of two", "es := []error{E{1}, E{2}}\nfmt.Sprint(es)", `"[E1 E2]"`},
		{"errors made by fmt", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, fmt.Errorf(\"w%d: %w\", i, E{i}))\n}\nfmt.Sprint(es)", `"[w0: E0 w1: E1 w2: E2]"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := text(ts.mustRun(t, c.code)); got != c.want {
				t.Errorf("%q = %s, want %s", c.code, got, c.want)
			}
		})
	}
}

// TestFreshWrappersKeepPositions checks that errors in and after a value that fresh-wrappers
// sends through a function literal name the cell's own lines and columns.
func TestFreshWrappersKeepPositions(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, freshSetup)
	for _, c := range []struct{ code, want string }{
		{"var es []error\nes = append(es, E{nope})", "line 2:19: undefined: nope"},
		{"var es []error\nes = append(es, E{1}, nope)", "line 2:23: undefined: nope"},
		{"var e error = E{1}\nnope", "line 2:1: undefined: nope"},
		{"var es []error\nfor i := 0; i < 2; i++ {\n\tes = append(es, mkE(i), E{nope})\n}", "line 3:28: undefined: nope"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) || strings.Contains(res.Err.Value, "_gosbi") {
			t.Errorf("%q: error %q, want it to contain %q", c.code, res.Err.Value, c.want)
		}
	}
}

// TestCompareInterfaces compares values of a cell's types held in a compiled interface with
// methods. A variable of type error holds the interpreter's wrapper of such a value, which ==
// compared as a wrapper: quietly false against a value of the cell's type (var a error =
// E{2}; a == E{2}), a panic "comparing uncomparable type interp._error" against another
// wrapper. Each comparison now gives Go's answer (see go run of the same code) or fails the
// cell with an explanation where the interpreter keeps too little of the value to decide.
func TestCompareInterfaces(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, freshSetup)
	ts.mustRun(t, "import \"io\"\nvar _ = io.EOF\ntype notFound struct{ k string }\n"+
		"func (n notFound) Error() string { return n.k }\nvar ErrNotFound error = notFound{\"k\"}\nfunc find() error { return ErrNotFound }")
	const explained = "cannot compare these two values with == or !="
	for _, c := range []struct{ name, code, want, wantErr string }{
		{"declared, with a value", "var a error = E{2}\nfmt.Sprint(a == E{2}, a != E{2})", "", explained},
		{"assigned, with a value", "var b error\nb = E{3}\nfmt.Sprint(b == E{3})", "", explained},
		{"converted, with a value", "c := error(E{4})\nfmt.Sprint(c == E{4})", "", explained},
		{"switch case", "var d error = E{5}\nswitch d {\ncase E{5}:\n\tfmt.Print(\"five\")\ndefault:\n\tfmt.Print(\"default\")\n}", "", explained},
		{"element, with a value", "var es []error\nfor i := 0; i < 3; i++ {\n\tes = append(es, E{i})\n}\nfmt.Sprint(es[0] == E{0})", "", explained},
		{"parameter, with a value", "func check(e error) bool { return e == E{7} }\ncheck(E{7})", "", explained},
		{"two stored errors", "{\n\tvar a error = E{1}\n\tvar b error = E{1}\n\tfmt.Print(a == b)\n}", "", explained},
		{"sentinel", "find() == ErrNotFound", "", explained},
		{"sentinel switch", "switch err := find(); err {\ncase ErrNotFound:\n\tfmt.Print(\"nf\")\n}", "", explained},
		// Go's answer
		{"pointers", "var ps []error\nfor i := 0; i < 3; i++ {\n\tps = append(ps, &Q{q: i})\n}\nfmt.Sprint(ps[0] == ps[0], ps[0] == ps[1], ps[0] != ps[1])", `"true false true"`, ""},
		{"with a compiled error", "var eof error = io.EOF\nvar ee error = E{1}\nfmt.Sprint(ee == eof, eof == ee, eof == io.EOF, ee != nil)", `"false false true true"`, ""},
		{"switch with a compiled case", "var sw error = io.EOF\nr := \"none\"\nswitch sw {\ncase E{5}:\n\tr = \"five\"\ncase io.EOF:\n\tr = \"eof\"\n}\nr", `"eof"`, ""},
		{"nil", "var n error\nvar m error = E{1}\nfmt.Sprint(n == nil, m == nil, m != nil)", `"true false true"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.run(c.code)
			switch {
			case c.wantErr != "":
				if res.Err == nil || !strings.Contains(res.Err.Value, c.wantErr) {
					t.Errorf("%q: got %s (error %v), want the error %q", c.code, text(res), res.Err, c.wantErr)
				}
			case res.Err != nil:
				t.Errorf("%q failed: %s", c.code, res.Err.Value)
			case c.want != "" && text(res) != c.want:
				t.Errorf("%q = %s, want %s", c.code, text(res), c.want)
			}
		})
	}
}

// TestFreshWrappersShadowed runs cells where a name that the function literal would write
// (error, the value's type) is a variable or parameter at the site: the literal failed to
// compile there, in cells that ran before fresh-wrappers. Such a site is left as written.
func TestFreshWrappersShadowed(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, freshSetup)
	for _, c := range []struct{ name, code string }{
		{"error", "func f() {\n\terror := \"shadow\"\n\tfor i := 0; i < 2; i++ {\n\t\tkeep(E{i})\n\t}\n\t_ = error\n}\nf()"},
		{"type's name as a parameter", "func g(E int) {\n\tvar es []error\n\tfor i := 0; i < 2; i++ {\n\t\tes = append(es, mkE(i))\n\t}\n\tfmt.Print(es, E)\n}\ng(7)"},
		{"type's name in a block", "var es2 []error\nfor i := 0; i < 2; i++ {\n\tv := E{i}\n\t{\n\t\tE := 3\n\t\t_ = E\n\t\tes2 = append(es2, v)\n\t}\n}\nlen(es2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if res := ts.run(c.code); res.Err != nil {
				t.Errorf("%q failed: %s", c.code, res.Err.Value)
			}
		})
	}
}

// manyStores is a loop with 100 other stores of a cell's error before the one it shows.
func manyStores() string {
	var b strings.Builder
	b.WriteString("var es3, junk []error\nfor i := 0; i < 3; i++ {\n")
	for k := range 100 {
		fmt.Fprintf(&b, "\tjunk = append(junk, E{%d})\n", k)
	}
	b.WriteString("\tes3 = append(es3, E{i})\n}\nfmt.Sprint(es3)")
	return b.String()
}

// manyValues is a loop that appends 101 values of a cell's error type at once.
func manyValues() string {
	return "var es4 []error\nfor i := 0; i < 3; i++ {\n\tes4 = append(es4, " + strings.Repeat("E{i}, ", 100) + "E{i})\n}\n" +
		"fmt.Sprint(es4[0], es4[100], es4[101], es4[302])"
}

// TestFreshWrappersPanicPosition runs a value whose wrapper panics inside the function literal
// of fresh-wrappers (a type that gets Error by embedding error): the panic named a column past
// the end of the user's line, where the literal's body stood.
func TestFreshWrappersPanicPosition(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, freshSetup+"\ntype W struct{ error; n int }")
	const code = "var es []error\nfor i := 0; i < 3; i++ { es = append(es, W{fmt.Errorf(\"x%d\", i), i}) }\nfmt.Sprint(es)"
	res := ts.run(code)
	if res.Err == nil {
		return // the interpreter handles such a value now: nothing to place
	}
	const want = "line 2:42:" // where W{ starts
	if !strings.Contains(res.Err.Value, want) {
		t.Errorf("%q: error %q, want it at %q", code, res.Err.Value, want)
	}
}
