package interp

import (
	"fmt"
	"strings"
	"testing"
)

// TestTupleAssignResults checks that every value of a multi-value assignment is assigned
// when some values are calls (of compiled, interpreted or builtin functions, or methods of
// compiled values), receives or composite literals, wherever the assignment is: at the top
// of a cell, in declared functions and methods, in function literals, in for and if headers.
// Each case prints what the Go compiler's program prints.
func TestTupleAssignResults(t *testing.T) {
	const helpers = "import (\"fmt\"; \"math\"; \"gonum.org/v1/gonum/mat\")\n" +
		"func three() float64 { return 3 }\ntype T struct{ A int }\n"
	cases := []struct {
		name  string
		cells []string // run in order in a fresh session, after helpers
		out   string   // the standard output of all cells
	}{
		{"running max and sum in a declared function", []string{
			"func stats(xs []float64) (float64, float64) {\n\thi, mean := math.Inf(-1), 0.0\n" +
				"\tfor _, v := range xs {\n\t\thi, mean = math.Max(hi, v), mean+v\n\t}\n\treturn hi, mean\n}",
			"fmt.Println(stats([]float64{1, 2, 3}))"},
			"3 6\n"},
		{"arithmetic values only (never affected)", []string{
			"func sums(xs []float64) (float64, float64) {\n\ta, b := 0.0, 0.0\n\tfor _, v := range xs {\n\t\ta, b = a+v, b+1\n\t}\n\treturn a, b\n}",
			"fmt.Println(sums([]float64{1, 2, 3}))"},
			"6 3\n"},
		{"top level loop", []string{
			"hi, sum := math.Inf(-1), 0.0\nfor _, v := range []float64{1, 2, 3} {\n\thi, sum = math.Max(hi, v), sum+v\n}\nfmt.Println(hi, sum)"},
			"3 6\n"},
		{"top level statement", []string{"x, y := 0.0, 0.0\nx, y = math.Sqrt(4), 5\nfmt.Println(x, y)"}, "2 5\n"},
		{"function literal", []string{"func() {\n\tx, y := 0.0, 0.0\n\tx, y = math.Sqrt(4), 5\n\tfmt.Println(x, y)\n}()"}, "2 5\n"},
		{"closure inside a declared function", []string{
			"func run() float64 {\n\tlo, n := 0.0, 0\n\tadd := func(v float64) { lo, n = math.Min(lo, v), n+1 }\n" +
				"\tadd(-2)\n\tadd(1)\n\treturn lo * float64(n)\n}",
			"fmt.Println(run())"},
			"-4\n"},
		{"compiled call in the second place", []string{"x, y := 0.0, 0.0\nx, y = 5, math.Sqrt(9)\nfmt.Println(x, y)"}, "5 3\n"},
		{"three values, call in the middle", []string{"func() {\n\tx, y, z := 0.0, 0.0, 0\n\tx, y, z = 1, math.Sqrt(4), 7\n\tfmt.Println(x, y, z)\n}()"}, "1 2 7\n"},
		{"interpreted function", []string{"func() { x, y := 0.0, 0.0; x, y = three(), 5; fmt.Println(x, y) }()"}, "3 5\n"},
		{"builtin call", []string{"func() { n, y := 0, 0.0; n, y = len(\"abc\"), 5; fmt.Println(n, y) }()"}, "3 5\n"},
		{"method of a compiled value", []string{
			"m := mat.NewDense(1, 2, []float64{3, 4})\nfunc() { a, b := 0.0, 0.0; a, b = m.At(0, 0), m.At(0, 1)+1; fmt.Println(a, b) }()"},
			"3 5\n"},
		{"variadic call", []string{"func() { x, y := []float64{}, 0; x, y = append(x, 1, 2), 5; fmt.Println(x, y) }()"}, "[1 2] 5\n"},
		{"composite literals", []string{"func() { p, a := T{}, [2]int{}; p, a = T{1}, [2]int{2, 3}; fmt.Println(p, a) }()"}, "{1} [2 3]\n"},
		{"define with a composite literal", []string{"p, n := T{7}, 5\nfmt.Println(p, n)"}, "{7} 5\n"},
		{"define with a receive", []string{"func() { ch := make(chan int, 1); ch <- 4; v, n := <-ch, 5; fmt.Println(v, n) }()"}, "4 5\n"},
		{"assign with a receive", []string{"ch := make(chan int, 1)\nch <- 4\nv, n := 0, 0\nv, n = <-ch, 5\nfmt.Println(v, n)"}, "4 5\n"},
		{"var declaration in a function", []string{"func() { var p, n = T{2}, 5; fmt.Println(p, n) }()"}, "{2} 5\n"},
		{"global var declaration", []string{"var gp, gn = T{3}, 5\nfmt.Println(gp, gn)"}, "{3} 5\n"},
		{"global var group used by a function", []string{"var (\n\tgp, gn = T{3}, 5\n)\nfunc show() { fmt.Println(gp, gn) }\nshow()"}, "{3} 5\n"},
		{"all values are evaluated before any is assigned", []string{
			"func() { a, b := 1.0, 2.0; a, b = math.Max(b, 0), a; fmt.Println(a, b) }()"},
			"2 1\n"},
		{"swap through calls", []string{"a, b := 1.0, 2.0\na, b = math.Abs(b), math.Abs(a)\nfmt.Println(a, b)"}, "2 1\n"},
		{"index operands are evaluated before the assignment", []string{
			"func() { s, i := []float64{0, 0}, 0; s[i], i = math.Sqrt(4), 1; fmt.Println(s, i) }()"},
			"[2 0] 1\n"},
		{"map entry and field", []string{
			"func() { m, p := map[string]float64{}, &T{}; m[\"a\"], p.A, m[\"b\"] = math.Sqrt(4), int(three()), 1; fmt.Println(m, *p) }()"},
			"map[a:2 b:1] {3}\n"},
		{"define redeclares one variable and declares another", []string{
			"func() { x := 1.0; x, z := math.Max(x, 5), x+1; fmt.Println(x, z) }()"},
			"5 2\n"},
		{"define redeclares a name that a later bare value reads", []string{
			"func() { x := 1.0; x, z := math.Max(x, 5), x; fmt.Println(x, z) }()"},
			"5 1\n"},
		{"top level define redeclares a name that a later value reads", []string{"x := 1.0\nx, z := 5.0, x\nfmt.Println(x, z)"}, "5 1\n"},
		{"top level define redeclares a variable of an earlier cell with a call", []string{
			"a := 1.0", "b := a\na, c := math.Sqrt(4), 5\nfmt.Println(a, b, c)"},
			"2 1 5\n"},
		{"top level define redeclares a variable of an earlier statement of the cell", []string{
			"p := 1\nq := p\np, r := 2, 5\nfmt.Println(p, q, r)"},
			"2 1 5\n"},
		{"top level define redeclares a variable defined before a declaration of the cell", []string{
			"x := 1\nfunc h() int { return 2 }\ny := x\nx, w := h(), 5\nfmt.Println(x, y, w)"},
			"2 1 5\n"},
		{"define with a chain of redeclared names", []string{
			"func() { a, b := 1, 2; a, b, c := 10, a, (b); fmt.Println(a, b, c) }()"},
			"10 1 2\n"},
		{"for header", []string{
			"func() {\n\tfor a, b := 0, 1; a < 20; a, b = b, int(math.Abs(float64(a+b))) {\n\t\tfmt.Print(a, \" \")\n\t}\n\tfmt.Println()\n}()"},
			"0 1 1 2 3 5 8 13 \n"},
		{"if header", []string{"if a, b := math.Max(1, 2), 3.0; a < b {\n\tfmt.Println(a, b)\n}"}, "2 3\n"},
		{"method declared in a cell", []string{
			"type acc struct{ hi, sum float64 }\nfunc (a *acc) add(v float64) { a.hi, a.sum = math.Max(a.hi, v), a.sum+v }",
			"a := &acc{}\nfor _, v := range []float64{1, 2, 3} { a.add(v) }\nfmt.Println(a.hi, a.sum)"},
			"3 6\n"},
		{"caller evaluated again after a redefinition", []string{
			"func scale() float64 { return 1 }\nfunc both() (float64, float64) { x, y := 0.0, 0.0; x, y = scale(), 5; return x, y }",
			"func scale() float64 { return 2 }",
			"fmt.Println(both())"},
			"2 5\n"},
		{"trailing expression with a function literal", []string{
			"fmt.Println(func() float64 { a, b := 0.0, 0.0; a, b = math.Max(1, 2), 3; return a + b }())"},
			"5\n"},
		{"value spread over lines", []string{"x, y := 0.0, 0.0\nx, y = math.Max(\n\t1,\n\t2,\n), 5\nfmt.Println(x, y)"}, "2 5\n"},
		{"values already in parentheses", []string{"x, y := 0.0, 0.0\nx, y = (math.Sqrt(4)), 5\nfmt.Println(x, y)"}, "2 5\n"},
		{"call inside a call's argument", []string{
			"func pair(f func() float64, g float64) (float64, float64) { return f(), g }\n" +
				"x, y := pair(func() float64 { a, b := 0.0, 0.0; a, b = three(), 4; return a + b }, 5)\nfmt.Println(x, y)"},
			"7 5\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, helpers)
			for _, cell := range c.cells {
				ts.mustRun(t, cell)
			}
			if got := ts.out.String(); got != c.out {
				t.Errorf("output %q, want %q", got, c.out)
			}
		})
	}
}

// TestTupleErrorPositions checks that errors in and after rewritten values point at the
// cell's own line and column: the expected position is where the undefined name is in the
// cell's source.
func TestTupleErrorPositions(t *testing.T) {
	cases := []string{
		"x, y := 0.0, 0.0\nx, y = math.Max(x, missing), 5",
		"x, y := 0.0, 0.0\nx, y = math.Max(x, 1), missing",
		"x, y := 0.0, 0.0\nx, y = math.Max(x,\n\t\tmissing), 5",
		"func f() float64 {\n\tx, y := 0.0, 0.0\n\tx, y = math.Sqrt(x), math.Sqrt(y); z := missing\n\treturn x + y + z\n}",
		"func f() {\n\ta, b := T{1}, T{2}; a, b = T{3}, T{missing}\n\t_, _ = a, b\n}",
		"  func() { x, y := 0.0, 0.0; x, y = math.Sqrt(1), math.Max(2, 3); _ = missing }()",
		"x := 0.0\nx, z := math.Max(x, missing), x",
		"func f() float64 {\n\tx := 0.0\n\tx, z := 1.0, x; return z + missing\n}",
		"func f() {\n\tx := 0.0\n\tx, z := math.Max(1,\n\t\tmissing), x\n\t_ = z\n}",
		"var p, q = T{1}, T{}\nfunc g() (int, float64) { a, b := 0, 0.0; a, b = len(\"ab\"), math.Sqrt(4); return a, b + missing }",
	}
	for _, code := range cases {
		ts := newTestSession(t)
		ts.mustRun(t, "import \"math\"\ntype T struct{ A int }")
		res := ts.run(code)
		if res.Err == nil {
			t.Errorf("%q: no error", code)
			continue
		}
		off := strings.Index(code, "missing")
		line := 1 + strings.Count(code[:off], "\n")
		col := off - strings.LastIndexByte(code[:off], '\n')
		want := fmt.Sprintf("cell [2] line %d:%d: undefined: missing", line, col)
		if !strings.Contains(res.Err.Value, want) {
			t.Errorf("%q: error %q, want %q", code, res.Err.Value, want)
		}
	}
}

// TestTupleRedefinitionUnchanged checks that running the same method again in a later cell is
// recognised as unchanged although its rewritten text names the cell it came from.
func TestTupleRedefinitionUnchanged(t *testing.T) {
	ts := newTestSession(t)
	cell := "import \"math\"\ntype acc struct{ hi, sum float64 }\nfunc (a *acc) add(v float64) { a.hi, a.sum = math.Max(a.hi, v), a.sum+v }"
	ts.mustRun(t, cell)
	ts.mustRun(t, cell)
	if w := ts.errOut.String(); strings.Contains(w, "already defined differently") {
		t.Errorf("re-running an unchanged method warned: %s", w)
	}
	res := ts.mustRun(t, "a := &acc{}\na.add(2)\na.add(1)\na.sum")
	if got := text(res); got != "3" {
		t.Errorf("sum %s, want 3", got)
	}
}

// TestTupleInScript checks the rewrite in a script's session, whose positions name the file.
func TestTupleInScript(t *testing.T) {
	ts := newTestSession(t)
	ts.fileName = "prog.go"
	prog := "import (\"fmt\"; \"math\")\n\nfunc main() {\n\thi, sum := 0.0, 0.0\n\tfor _, v := range []float64{1, 2, 3} {\n" +
		"\t\thi, sum = math.Max(hi, v), sum+v\n\t}\n\tfmt.Println(hi, sum)\n}"
	ts.mustRun(t, prog)
	ts.mustRun(t, "_main()")
	if got := ts.out.String(); got != "3 6\n" {
		t.Errorf("output %q, want %q", got, "3 6\n")
	}
	line3 := "\ta, b = math.Max(a, 1), math.Min(b, nope)"
	res := ts.run("func g() {\n\ta, b := 0.0, 0.0\n" + line3 + "\n}")
	want := fmt.Sprintf("prog.go:3:%d: undefined: nope", strings.Index(line3, "nope")+1)
	if res.Err == nil || !strings.Contains(res.Err.Value, want) {
		t.Errorf("error %v, want %q", res.Err, want)
	}
}
