package interp

import (
	"strings"
	"testing"
	"time"
)

// deferPrelude declares what the cells of the defer tests call.
const deferPrelude = "import (\"fmt\"; \"sync\")\nvar _ sync.Mutex\n" +
	"func rec(s string, v ...any) { fmt.Println(append([]any{s}, v...)...) }\n" +
	"func showi(i int) { rec(\"i\", i) }\nfunc show2(a, b int) { rec(\"two\", a, b) }\n" +
	"func showv(xs ...int) { rec(\"v\", xs) }\nfunc takesFloat(f float64) { rec(\"f\", f) }\n" +
	"func two() (int, int) { return 7, 8 }\ntype S struct{ x int }\ntype C struct{ v int }\n" +
	"func (c C) M() { rec(\"M\", c.v) }\nfunc (c C) Add(x int) { rec(\"Add\", c.v, x) }"

// TestDeferEvaluatesArguments runs defer statements whose operands change after the statement,
// in functions and loops, and checks the output against what compiled Go prints (each want
// was printed by go run of the same code). The interpreter read the operands' storage when
// the function returned: the rows up to "in a function literal of the cell" printed the
// later values before eval-defers ("i 3" three times for the first, "i 5" for the second).
// The rows after them (a pointer's target is read at exit in Go too) printed Go's answer
// already and must keep it.
func TestDeferEvaluatesArguments(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deferPrelude)
	for _, c := range []struct{ name, code, want string }{
		{"expression in a loop", "func f() { for i := 0; i < 3; i++ { defer showi(i+1) } }\nf()", "i 3\ni 2\ni 1\n"},
		{"variable assigned later", "func f() { x := 1; defer showi(x); x = 5 }\nf()", "i 1\n"},
		{"field and element", "func f() { s := S{1}; xs := []int{10, 20}; i := 0; defer show2(s.x, xs[i]); s.x = 2; xs[0] = 99; i = 1 }\nf()", "two 1 10\n"},
		{"compiled variadic", "func f() { x := 1; defer fmt.Println(\"a\", x); x = 2 }\nf()", "a 1\n"},
		{"compiled variadic in a loop", "func f() { for i := 0; i < 3; i++ { defer fmt.Println(\"a\", i*2) } }\nf()", "a 4\na 2\na 0\n"},
		{"variadic", "func f() { x := 1; defer showv(x, x+1); x = 9 }\nf()", "v [1 2]\n"},
		{"method's argument", "func f() { c := C{1}; x := 5; defer c.Add(x); x = 6 }\nf()", "Add 1 5\n"},
		{"function literal's argument in a loop", "func f() { for i := 0; i < 3; i++ { defer func(v int) { showi(v) }(i * 10) } }\nf()", "i 20\ni 10\ni 0\n"},
		{"builtins", "func f() { m := map[int]int{1: 1, 2: 2}; k := 1; defer func() { rec(\"len\", len(m), m[2]) }(); defer delete(m, k); k = 2; ch := make(chan int); defer close(ch) }\nf()", "len 1 2\n"},
		{"range", "func f() { for _, v := range []int{1, 2, 3} { defer showi(v * 2) } }\nf()", "i 6\ni 4\ni 2\n"},
		{"in a function literal of the cell", "x := 1\nfunc() { defer showi(x); x = 2 }()", "i 1\n"},
		// forms the interpreter answered as Go does
		{"calls once, in order", "func f() { n := 0; next := func() int { n++; return n }; defer show2(next(), next()); n = 100; rec(\"n\", n) }\nf()", "n 100\ntwo 1 2\n"},
		{"pointer", "func f() { x := 1; defer func(p *int) { showi(*p) }(&x); x = 2 }\nf()", "i 2\n"},
		{"loop variable", "func f() { for i := 0; i < 3; i++ { defer showi(i) } }\nf()", "i 2\ni 1\ni 0\n"},
		{"variable of the iteration", "func f() { for i := 0; i < 3; i++ { j := i + 1; defer showi(j) } }\nf()", "i 3\ni 2\ni 1\n"},
		{"closure reads at exit", "func f() { x := 1; defer func() { showi(x) }(); x = 2 }\nf()", "i 2\n"},
		{"recover", "func f() { defer func() { if r := recover(); r != nil { rec(\"rec\", r) } }(); panic(\"boom\") }\nf()", "rec boom\n"},
		{"untyped constants", "func f() { defer takesFloat(1); defer takesFloat(2.5) }\nf()", "f 2.5\nf 1\n"},
		{"several results", "func f() { defer show2(two()) }\nf()", "two 7 8\n"},
		{"mutex", "func f() { var mu sync.Mutex; mu.Lock(); defer mu.Unlock(); rec(\"locked\") }\nf()\nfunc g() { var mu sync.Mutex; mu.Lock(); mu.Unlock() }\ng()", "locked\n"},
		{"direct recover", "func f() { defer func() { rec(\"after\", recover()) }(); defer recover(); panic(\"p2\") }\nf()", "after p2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q printed\n%s\nwant\n%s", c.code, got, c.want)
			}
		})
	}
}

// TestDeferHeldFmtOperand checks that a deferred fmt call whose operand wrap-fmt-args passes
// through its type switch (an any holding a value of a cell's type, in a session with a
// pointer-receiver Error and a String) prints the value, as the same call not deferred does:
// with the operand moved to a temporary, fmt got the interpreter's record of the value
// ("h {0x… {0x… 0x… 409}}"). Go prints h P(1); the session prints the fields there, as without defer.
func TestDeferHeldFmtOperand(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype P struct{ X int }\nfunc (p P) String() string { return fmt.Sprintf(\"P(%d)\", p.X) }\n"+
		"type E struct{}\nfunc (e *E) Error() string { return \"e\" }\nfunc h(v any) { defer fmt.Println(\"h\", v) }\nfunc h2(v any) { fmt.Println(\"h\", v) }")
	ts.out.Reset()
	ts.mustRun(t, "h2(P{1})")
	plain := ts.out.String()
	ts.out.Reset()
	ts.mustRun(t, "h(P{1})")
	if got := ts.out.String(); got != plain || strings.Contains(got, "0x") {
		t.Errorf("deferred fmt.Println of an any holding P{1} printed %q, the same call not deferred %q", got, plain)
	}
}

// TestDeferPositions checks that a compile error and a panic in a rewritten defer statement
// name the cell's own line and column.
func TestDeferPositions(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deferPrelude)
	res := ts.run("func f() {\n\tx := 1\n\tdefer show2(x, undefinedName)\n}")
	if res.Err == nil || !strings.Contains(res.Err.Value, "3:17") || !strings.Contains(res.Err.Value, "undefinedName") {
		t.Errorf("compile error %v, want one at 3:17 naming undefinedName", res.Err)
	}
	res = ts.run("func g() {\n\tvar xs []int\n\tk := 3\n\tdefer showi(xs[k])\n}\ng()")
	if res.Err == nil || !strings.HasPrefix(res.Err.Value, "runtime error: index out of range") ||
		len(res.Err.Traceback) < 2 || !strings.Contains(res.Err.Traceback[1], "line 4") {
		t.Errorf("panic %+v, want an index out of range on line 4", res.Err)
	}
}

// TestDeferCallsClosures runs deferred calls that call function literals of the same
// function, through a variable, inside a deferred literal or as an argument. Each cell never
// ended before detach-closures (the interpreter's deferred calls waited on a lock that they
// held themselves); each want was printed by go run of the same code.
func TestDeferCallsClosures(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deferPrelude+"\nfunc run(f func()) { f() }\nfunc (c C) Close() { fn := func() { rec(\"close\", c.v) }; defer fn() }")
	for _, c := range []struct{ name, code, want string }{
		{"variable", "func g() { fn := func() { rec(\"fn\") }; defer fn() }\ng()", "fn\n"},
		{"inside a deferred literal", "func f() { fn := func() { rec(\"fn\") }; defer func() { fn() }() }\nf()", "fn\n"},
		{"argument", "func a() { defer run(func() { rec(\"a\") }) }\na()", "a\n"},
		{"sees the later value", "func c() { x := 1; fn := func() { showi(x) }; defer fn(); x = 2 }\nc()", "i 2\n"},
		{"recursive literal", "func r() { var fib func(int) int; fib = func(n int) int { if n < 2 { return n }; return fib(n-1) + fib(n-2) }; defer func() { rec(\"fib\", fib(10)) }() }\nr()", "fib 55\n"},
		{"sets a named result", "func nr() (n int) { set := func() { n = 5 }; defer set(); return 1 }\nshowi(nr())", "i 5\n"},
		{"in a loop", "func lp() { for i := 0; i < 3; i++ { f := func() { showi(i) }; defer f() } }\nlp()", "i 2\ni 1\ni 0\n"},
		{"method", "C{4}.Close()", "close 4\n"},
		{"function literal of the cell", "func() { fn := func() { rec(\"top-lit\") }; defer fn() }()", "top-lit\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			done := make(chan Result, 1)
			go func() { done <- ts.run(c.code) }()
			select {
			case res := <-done:
				if res.Err != nil {
					t.Fatalf("%q failed: %v", c.code, res.Err.Value)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%q did not end within 20 s", c.code)
			}
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q printed\n%s\nwant\n%s", c.code, got, c.want)
			}
		})
	}
}
