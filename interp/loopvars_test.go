package interp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLoopVariables runs three-clause for loops whose body changes its variable, at the top of
// a cell, in functions, nested and labeled, and loops the interpreter ran right. Each want is
// what the same code printed compiled by Go 1.23. The interpreter gave every row up to
// "captured in a function" another answer (n 10 where Go counts 7, [0 1 2 3 4 5 6 7 8 9],
// nested 16, a post statement of i saw 0, closures 1 2 3 6 where Go gives 1 3 5 3, a captured
// second variable 3 3 3) or never ended ("post reads another variable", "post stores") or
// failed to compile ("declared again"); the rows after it gave Go's answer already and must
// keep it.
func TestLoopVariables(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"fmt\"\n\t\"sync\"\n)\nvar _ = fmt.Sprint\nvar _ sync.Mutex\n"+
		"type E struct{ i int }\ntype Ctr struct{ n int }\nfunc (c *Ctr) Inc() { c.n += 2 }\n"+
		"func skip() int {\n\tc := 0\n\tfor i := 0; i < 10; i++ {\n\t\ti++\n\t\tc++\n\t}\n\treturn c\n}")
	for _, c := range []struct{ name, code, want string }{
		{"i++ in the body", "n := 0\nfor i := 0; i < 10; i++ {\n\tif i%3 == 0 {\n\t\ti++\n\t}\n\tn++\n}\nn", "7"},
		{"i += 3", "var seen []int\nfor i := 0; i < 10; i++ {\n\tseen = append(seen, i)\n\tif i == 2 {\n\t\ti += 3\n\t}\n}\nfmt.Sprint(seen)", `"[0 1 2 6 7 8 9]"`},
		{"i = 7", "var seen []int\nfor i := 0; i < 10; i++ {\n\tseen = append(seen, i)\n\tif i == 2 {\n\t\ti = 7\n\t}\n}\nfmt.Sprint(seen)", `"[0 1 2 8 9]"`},
		{"i--", "c := 0\nfor i := 0; i < 10; i++ {\n\ti--\n\ti += 2\n\tc++\n}\nc", "5"},
		{"multi-assign", "c, x := 0, 0\nfor i := 0; i < 10; i++ {\n\ti, x = i+2, x+1\n\tc++\n}\nfmt.Sprint(c, x)", `"4 4"`},
		{"in a declared function", "skip()", "5"},
		{"in a function literal", "f := func() int {\n\tc := 0\n\tfor i := 0; i < 10; i++ {\n\t\ti++\n\t\tc++\n\t}\n\treturn c\n}\nf()", "5"},
		{"post reads another variable", "k := 0\nfor i := 0; i < 3; k++ {\n\ti++\n}\nk", "3"},
		{"post stores", "ys := make([]int, 3)\nc := 0\nfor i := 0; i < 3; ys[i%3] = 5 {\n\ti++\n\tc++\n}\nfmt.Sprint(c, ys)", `"3 [5 5 5]"`},
		{"post stores i", "es := make([]E, 4)\nk := 0\nfor i := 0; k < 3; es[k] = (E{i}) {\n\ti++\n\tk++\n}\nfmt.Sprint(es)", `"[{0} {1} {2} {3}]"`},
		{"first of two variables", "cnt := 0\nfor i, j := 0, 10; i < j; i, j = i+1, j-1 {\n\tif i == 1 {\n\t\ti += 2\n\t}\n\tcnt++\n}\ncnt", "4"},
		{"nested", "c := 0\nfor i := 0; i < 4; i++ {\n\tfor j := 0; j < 4; j++ {\n\t\tif j == 1 {\n\t\t\tj = 3\n\t\t}\n\t\tif i == 0 {\n\t\t\ti = 2\n\t\t}\n\t\tc++\n\t}\n}\nc", "4"},
		{"continue L", "c := 0\nL:\n\tfor i := 0; i < 10; i++ {\n\t\tfor j := 0; j < 3; j++ {\n\t\t\tif j == 1 {\n\t\t\t\ti += 2\n\t\t\t\tcontinue L\n\t\t\t}\n\t\t\tc++\n\t\t}\n\t}\nc", "4"},
		{"break L", "c := 0\nL:\n\tfor i := 0; i < 10; i++ {\n\t\ti++\n\t\tfor {\n\t\t\tif i > 6 {\n\t\t\t\tbreak L\n\t\t\t}\n\t\t\tbreak\n\t\t}\n\t\tc++\n\t}\nc", "3"},
		{"declared again", "c := 0\nfor i := 0; i < 5; i++ {\n\ti := i + 10\n\ti++\n\tc += i\n}\nc", "65"},
		{"field", "c := 0\nfor p := (E{}); p.i < 10; p.i++ {\n\tp.i += 2\n\tc++\n}\nc", "4"},
		{"changed by a method", "c := 0\nfor k := (Ctr{}); k.n < 10; k.n++ {\n\tk.Inc()\n\tc++\n}\nc", "4"},
		// captured by a closure or an address: variables of each iteration
		{"closure captures a changed variable", "var gs []func() int\nfor i := 0; i < 6; i++ {\n\tgs = append(gs, func() int { return i })\n\ti++\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2](), len(gs))", `"1 3 5 3"`},
		{"closure changes the variable", "c := 0\nfor i := 0; i < 10; i++ {\n\tf := func() { i += 2 }\n\tf()\n\tc++\n}\nc", "4"},
		{"address", "c := 0\nfor i := 0; i < 10; i++ {\n\tp := &i\n\t*p += 2\n\tc++\n}\nc", "4"},
		{"second variable captured", "var gs []func() int\nfor i, j := 0, 0; i < 3; i, j = i+1, j+1 {\n\tgs = append(gs, func() int { return j })\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2]())", `"0 1 2"`},
		{"captured, no post statement", "var gs []func() int\nfor i := 0; i < 3; {\n\tgs = append(gs, func() int { return i })\n\ti++\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2]())", `"1 2 3"`},
		{"captured, no condition", "var gs []func() int\nfor i := 0; ; i++ {\n\tif i >= 3 {\n\t\tbreak\n\t}\n\tgs = append(gs, func() int { return i })\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2]())", `"0 1 2"`},
		{"captured, continue", "var gs []func() int\nL:\n\tfor i := 0; i < 10; i++ {\n\t\tgs = append(gs, func() int { return i })\n\t\tfor j := 0; j < 2; j++ {\n\t\t\tif j == 1 {\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tswitch {\n\t\t\tcase i%2 == 0:\n\t\t\t\ti++\n\t\t\t\tcontinue L\n\t\t\t}\n\t\t}\n\t\ti += 5\n\t}\nfmt.Sprint(len(gs), gs[0](), gs[1]())", `"5 1 3"`},
		{"captured, continue where i is declared again", "var gs []func() int\nc := 0\nfor i := 0; i < 10; i++ {\n\tgs = append(gs, func() int { return i })\n\ti := 100\n\tc += i\n\tif i > 0 {\n\t\tcontinue\n\t}\n}\nfmt.Sprint(len(gs), gs[0](), gs[1](), c)", `"10 0 1 1000"`},
		{"captured, nested", "var gs []func() int\nfor i := 0; i < 3; i++ {\n\tfor j := 0; j < 3; j++ {\n\t\tgs = append(gs, func() int { return 10*i + j })\n\t\tj++\n\t}\n\ti++\n}\nfmt.Sprint(len(gs), gs[0](), gs[1](), gs[2](), gs[3]())", `"4 11 13 31 33"`},
		{"blank identifier, address", "var ps []*int\nfor i, _ := 0, 0; i < 3; i++ {\n\tps = append(ps, &i)\n}\nfmt.Sprint(*ps[0], *ps[1], *ps[2])", `"0 1 2"`},
		{"blank identifier first, captured", "var gs []func() int\nfor _, j := 0, 0; j < 3; j++ {\n\tgs = append(gs, func() int { return j })\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2]())", `"0 1 2"`},
		{"goto to a label of the same name in a function literal", "func gotoElsewhere() int {\n\tc := 0\nL:\n\tfor i := 0; i < 10; i++ {\n\t\ti++\n\t\tc++\n\t\tif c > 100 {\n\t\t\tbreak L\n\t\t}\n\t}\n\tg := func() int {\n\t\tn := 0\n\tL:\n\t\tn++\n\t\tif n < 3 {\n\t\t\tgoto L\n\t\t}\n\t\treturn n\n\t}\n\treturn c*10 + g()\n}\ngotoElsewhere()", "53"},
		{"captured in a function", "func caps() string {\n\tvar gs []func() int\n\tfor i := 0; i < 6; i++ {\n\t\tgs = append(gs, func() int { return i })\n\t\ti++\n\t}\n\treturn fmt.Sprint(gs[0](), gs[1](), gs[2](), len(gs))\n}\ncaps()", `"1 3 5 3"`},
		// loops the interpreter ran as Go already
		{"plain loop", "c := 0\nfor i := 0; i < 10; i++ {\n\tc += i\n}\nc", "45"},
		{"closures of each iteration", "var gs []func() int\nfor i := 0; i < 3; i++ {\n\tgs = append(gs, func() int { return i })\n}\nfmt.Sprint(gs[0](), gs[1](), gs[2]())", `"0 1 2"`},
		{"goroutines", "var wg sync.WaitGroup\nres := make([]int, 3)\nfor i := 0; i < 3; i++ {\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\tres[i] = i * 10\n\t}()\n}\nwg.Wait()\nfmt.Sprint(res)", `"[0 10 20]"`},
		{"second of two variables", "cnt := 0\nfor i, j := 0, 10; i < j; i, j = i+1, j-1 {\n\tif i == 1 {\n\t\tj -= 4\n\t}\n\tcnt++\n}\ncnt", "3"},
		{"no condition", "c := 0\nfor i := 0; ; i++ {\n\tif i > 8 {\n\t\tbreak\n\t}\n\ti++\n\tc++\n}\nc", "5"},
		{"no post statement", "c := 0\nfor i := 0; i < 10; {\n\ti += 3\n\tc++\n}\nc", "4"},
		{"variable declared before", "c, i := 0, 0\nfor i = 0; i < 10; i++ {\n\ti++\n\tc++\n}\nfmt.Sprint(c, i)", `"5 10"`},
		{"range over an int", "c := 0\nfor i := range 10 {\n\ti++\n\tc += i\n}\nc", "55"},
		{"range over a slice", "c := 0\nfor i := range []int{1, 2, 3, 4, 5} {\n\ti += 2\n\tc += i\n}\nc", "20"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.runWithin(c.code, 10*time.Second)
			if res.Err != nil {
				t.Fatalf("%q failed: %s", c.code, res.Err.Value)
			}
			if got := text(res); got != c.want {
				t.Errorf("%q = %s, want %s", c.code, got, c.want)
			}
		})
	}
}

// TestLoopVariablesRefused runs loops that the interpreter would run otherwise than Go and
// that loop-vars cannot rewrite (a closure in the post statement captures the variable that
// the body changes; a goto jumps to the loop's label): the cell fails before it runs, naming
// the loop's line, the variable and what to write. Before loop-vars the first never ended
// (the body's i++ was lost; Go's f() gives 3) and the second was accepted.
func TestLoopVariablesRefused(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\nvar _ = fmt.Sprint\nran := 0")
	for _, c := range []struct{ name, code, want string }{
		{"closure in the post statement", "ran++\nvar f func() int\nfor i := 0; i < 3; f = func() int { return i } {\n\ti++\n}\nf()",
			"line 3:1: the interpreter cannot run this loop as Go does: a function literal in its condition or post statement captures the loop variable i"},
		{"goto", "func g() int {\n\tc := 0\nL:\n\tfor i := 0; i < 3; i++ {\n\t\ti++\n\t\tc++\n\t}\n\tif c < 5 {\n\t\tgoto L\n\t}\n\treturn c\n}",
			"line 4:2: the interpreter cannot run this loop as Go does, and the session cannot mend it because a goto jumps to its label L: declare i before the label and assign in the init statement (L: for i = 0; …)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.runWithin(c.code, 10*time.Second)
			if res.Err == nil {
				t.Fatalf("%q ran (%s), want the error %q", c.code, text(res), c.want)
			}
			if !strings.Contains(res.Err.Value, c.want) {
				t.Errorf("%q failed with\n%s\nwant\n%s", c.code, res.Err.Value, c.want)
			}
		})
	}
	if got := text(ts.mustRun(t, "ran")); got != "0" {
		t.Errorf("ran = %s after the refused cells, want 0: a refused cell ran", got)
	}
}

// TestLoopVariablesPositions checks that a panic and a compile error in a loop that loop-vars
// rewrites name the user's line and column.
func TestLoopVariablesPositions(t *testing.T) {
	ts := newTestSession(t)
	res := ts.run("s := []int{1, 2}\nfor i := 0; i < 5; i++ {\n\ti++\n\t_ = s[i]\n}")
	if res.Err == nil || !strings.Contains(res.Err.Value, "index out of range") || len(res.Err.Traceback) < 2 ||
		strings.TrimSpace(res.Err.Traceback[1]) != "at cell [1] line 4" {
		t.Errorf("panic in a rewritten loop: %v, want an index out of range at cell [1] line 4", res.Err)
	}
	res = ts.run("for i := 0; i < 5; i++ {\n\ti++\n\tvar q int = \"no\"\n\t_ = q\n}")
	if res.Err == nil || !strings.Contains(res.Err.Value, "line 3:14") {
		t.Errorf("compile error in a rewritten loop: %v, want one at line 3:14", res.Err)
	}
	res = ts.run("for i := 0; i < undefinedBound; i++ {\n\ti++\n}")
	if res.Err == nil || !strings.Contains(res.Err.Value, "line 1:17") {
		t.Errorf("compile error in a rewritten loop's condition: %v, want one at line 1:17", res.Err)
	}
}

// runWithin runs a cell and interrupts it after d: a loop that the interpreter gets wrong may
// never end.
func (ts *testSession) runWithin(code string, d time.Duration) Result {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ts.count++
	return ts.Execute(ctx, code, ts.count)
}
