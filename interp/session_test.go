package interp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/syncbuf"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
)

type testSession struct {
	*Session
	out, errOut *syncbuf.Buffer
	displays    []runenv.Output
	count       int
}

func newTestSession(t testing.TB) *testSession {
	t.Helper()
	ts := &testSession{out: &syncbuf.Buffer{}, errOut: &syncbuf.Buffer{}}
	s, err := NewSession(Config{Stdout: ts.out, Stderr: ts.errOut, Stdin: strings.NewReader(""),
		Display: func(o runenv.Output) { ts.displays = append(ts.displays, o) }})
	if err != nil {
		t.Fatal(err)
	}
	ts.Session = s
	t.Cleanup(func() { runenv.SetDisplay(nil) })
	return ts
}

// run executes a cell with the next execution count.
func (ts *testSession) run(code string) Result {
	ts.count++
	return ts.Execute(context.Background(), code, ts.count)
}

func (ts *testSession) mustRun(t testing.TB, code string) Result {
	t.Helper()
	res := ts.run(code)
	if res.Err != nil {
		t.Fatalf("cell [%d] %q failed: %v\n%s", ts.count, code, res.Err.Value, strings.Join(res.Err.Traceback, "\n"))
	}
	return res
}

func text(res Result) string {
	if res.Data == nil {
		return "<no result>"
	}
	return display.PlainText(res.Data)
}

// TestCellSemantics runs sequences of cells; each step states the expected result text,
// output or error.
func TestCellSemantics(t *testing.T) {
	type step struct {
		code    string
		result  string // text/plain of execute_result; "<no result>" when none
		out     string // substring of the standard output of the cell
		errText string // substring of the error value; "" when the cell must succeed
		errOut  string // substring of the standard error (notes, warnings)
		notOut  string // must not appear in the standard output
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"mixed cell: import, func, statements, trailing expression", []step{
			{code: "import \"strings\"\nfunc shout(s string) string { return strings.ToUpper(s) + \"!\" }\nx := shout(\"hi\")\nx + \"?\"", result: `"HI!?"`},
		}},
		{"a variable redefined in a later cell keeps its value for the statements before", []step{
			{code: "a := 1", result: "<no result>"},
			{code: "b := a\na := 2.5\nb", result: "1"},
			{code: "a", result: "2.5"},
			{code: "c := a\na := \"s\"\nd := a\nfmt.Sprint(c, d)", result: `"2.5s"`},
			{code: "e := a\na, f := \"t\", 1\ne + a", result: `"st"`},
		}},
		{"labeled statements and else if with an init statement at the top of a cell", []step{
			{code: "n := 0\nouter:\nfor i := 0; i < 3; i++ {\n\tfor j := 0; j < 3; j++ {\n\t\tif j == 1 {\n\t\t\tcontinue outer\n\t\t}\n\t\tn++\n\t}\n}\nn", result: "3"},
			{code: "m := 0\nloop: for i := 0; i < 5; i++ { m = i; if i == 2 { break loop } }\nm", result: "2"},
			{code: "k := 0\nif n > 5 {\n\tk = 1\n} else if v := n * 2; v > 5 {\n\tk = v\n}\nk", result: "6"},
			{code: "sel:\nswitch x := n; x {\ncase 3:\n\tbreak sel\n}\nn", result: "3"},
		}},
		{"a cell that does not compile keeps the values of the variables it redefines", []step{
			{code: "a := 1\nxs := []float64{1, 2}", result: "<no result>"},
			{code: "a := 2\nd := nope", errText: "undefined: nope"},
			{code: "a", result: "1"},
			{code: "xs := append(xs, 3)\ny := xs[0] + \"s\"", errText: "mismatched types"},
			{code: "xs", result: "[]float64 (len 2)\n[1 2]"},
			// the interpreter gives a a new type here, and the old variable comes back
			{code: "b := 2\na := a + 1 + \"s\"", errText: "mismatched types"},
			{code: "a", result: "1"},
			{code: "b", result: "2"},
			// a variable the cell would have defined does not exist
			{code: "d", errText: "undefined: d"},
		}},
		{"a cell that panics keeps the variables whose definitions did not run", []step{
			{code: "data := []float64{1, 2}\nmodel := 7\nm := 3.5\nother := func() int { panic(\"boom\") }", result: "<no result>"},
			{code: "model := int(data[10])", errText: "index out of range"},
			{code: "model", result: "7"},
			{code: "model := other()", errText: "boom"},
			{code: "model", result: "7"},
			{code: "y := 1\nx := data[10]\nmodel := 8", errText: "index out of range"},
			{code: "model", result: "7"},
			{code: "y", result: "1"},
			// the definition of x did not run: x does not exist, rather than being 0
			{code: "x", errText: "undefined: x"},
			{code: "x := 4.5\nx", result: "4.5"},
			// the statements of the failed cell that ran defined y as a session variable: a
			// redefinition of it keeps the old value for the statements before it
			{code: "z := y\ny := 2.5\nz", result: "1"},
			// the interpreter gives m a new type here, and the old variable comes back
			{code: "m := fmt.Sprint(data[5])", errText: "index out of range"},
			{code: "m", result: "3.5"},
		}},
		{"statements only show nothing", []step{
			{code: "import \"fmt\"\nfmt.Println(\"hello\")", result: "<no result>", out: "hello\n"},
			{code: "y := 3", result: "<no result>"},
			{code: "for i := 0; i < 2; i++ { y++ }", result: "<no result>"},
			{code: "y", result: "5"},
		}},
		{"a comment after the trailing expression", []step{
			{code: "total := 0.0\nfor i := 1; i <= 3; i++ { total += float64(i * i) }\ntotal // the sum of squares", result: "14"},
			{code: "total * 2 /* doubled */ // and a line comment", result: "28"},
			{code: "func two() (int, int) { return 7, 2 }\ntwo() // two values", result: "7\n2"},
		}},
		{"package-level var reading variables of earlier cells", []step{
			{code: "k := 3\nvar j = 4", result: "<no result>"},
			{code: "var a = j + k\na", result: "7"},
			{code: "type T struct{ N int }\nvar t = T{k}\nfunc getN() int { return t.N }\ngetN()", result: "3"},
			{code: "var a = k * 2\na", result: "6"},
			{code: "var b = nope + k", errText: "line 1:9: undefined: nope"},
		}},
		{"variables persist and change type", []step{
			{code: "v := 1", result: "<no result>"},
			{code: "v * 10", result: "10"},
			{code: "v := \"now a string\"\nv", result: `"now a string"`},
		}},
		{"re-running a cell with imports and declarations", []step{
			{code: "import \"math\"\ntype P struct{ X float64 }\nfunc norm(p P) float64 { return math.Abs(p.X) }\nnorm(P{-2})", result: "2"},
			{code: "import \"math\"\ntype P struct{ X float64 }\nfunc norm(p P) float64 { return math.Abs(p.X) }\nnorm(P{-2})", result: "2"},
		}},
		{"redefined function takes effect in earlier callers", []step{
			{code: "func f() int { return 1 }\nfunc g() int { return f() * 10 }\nfunc h() int { return g() + 1 }", result: "<no result>"},
			{code: "h()", result: "11"},
			{code: "func f() int { return 2 }", result: "<no result>"},
			{code: "g()", result: "20"},
			{code: "h()", result: "21"},
		}},
		{"a redefined variable takes effect in the functions that read it", []step{
			{code: "c := 1\nfunc get() int { return c }\nfunc twice() int { return 2 * get() }\nfunc local() int { c := 3; return c }", result: "<no result>"},
			{code: "c := 7\nget()", result: "7"},
			{code: "twice()", result: "14"},
			{code: "c = 8\nget()", result: "8"},
			{code: "var c = 9\nget()", result: "9"},
			{code: "local()", result: "3"},
			{code: "c := 10\nif c > 0 {\n\tpanic(\"after the redefinition\")\n}", errText: "after the redefinition"},
			{code: "get()", result: "10"},
			{code: "c := \"now a string\"", errOut: "get (cell [1]) uses a redefined function or variable and no longer compiles"},
			{code: "get()", errText: "redefine get to use it again"},
		}},
		{"a variable redefined by a cell that then fails takes effect in the functions that read it", []step{
			{code: "c := 1\nfunc get() int { return c }", result: "<no result>"},
			{code: "c := 10\nif c > 0 {\n\tpanic(\"after the redefinition\")\n}", errText: "after the redefinition"},
			{code: "get()", result: "10"},
		}},
		{"a caller that no longer compiles after a redefinition is reported", []step{
			{code: "func f() int { return 1 }\nfunc g() int { return f() + 1 }", result: "<no result>"},
			{code: "func f(x int) int { return x }", errOut: "g (cell [1]) uses a redefined function or variable and no longer compiles"},
			{code: "g()", errText: "redefine g to use it again"},
			{code: "func g() int { return f(2) + 1 }\ng()", result: "3"},
		}},
		{"redefined type warns and keeps the old one", []step{
			{code: "type T struct{ A int }", result: "<no result>"},
			{code: "type T struct{ A, B int }", errOut: "type T is already defined differently"},
			{code: "%reset", result: "<no result>"},
			{code: "type T struct{ A, B int }\nT{1, 2}", result: "{A:1 B:2}"},
		}},
		{"errors name the cell and line", []step{
			{code: "a := 1\nb := foo + a", errText: "cell [1] line 2:6: undefined: foo"},
			{code: "func k() int {\n\treturn zzz\n}", errText: "cell [2] line 2:9: undefined: zzz"},
			{code: "x := 1 +", errText: "cell [3] line 1:"},
			{code: "b + undefinedThing", errText: "cell [4] line 1:5: undefined: undefinedThing"},
			{code: "strconv.Atoi(nope)", errText: "cell [5] line 1:14: undefined: nope"},
			// the function named in a chain pkg.F().M() is no undefined name of the cell
			{code: "n := strings.NewReader(\"ab\").Len()\np := nope[n]", errText: "cell [6] line 2:6: undefined: nope"},
		}},
		{"a failed cell keeps earlier state", []step{
			{code: "kept := 41\nfunc inc(n int) int { return n + 1 }", result: "<no result>"},
			{code: "func inc(n int) int { return n + undefinedName }", errText: "undefined"},
			{code: "inc(kept)", result: "42"},
			{code: "kept = 7\npanic(\"stop\")", errText: "stop"},
			{code: "func fresh() int { return nothing }", errText: "undefined: nothing"},
			{code: "fresh()", errText: "fresh did not compile in cell [5]"},
			{code: "func fresh() int { return 5 }\nfresh()", result: "5"},
			{code: "kept", result: "7"},
			{code: "mat.NewDense(2, 2, []float64{1})", errText: "mat: dimension mismatch"},
			{code: "xs := []int{1, 2}\nxs[kept]", errText: "runtime error: index out of range"},
		}},
		{"auto-import of known packages", []step{
			{code: "m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})\nmat.Det(m)", result: "-2"},
			{code: "strings.Repeat(\"ab\", 2)", result: `"abab"`},
			{code: "%who", out: "auto-imports: gonum.org/v1/gonum/mat, strings"},
		}},
		{"calls without results and tuples", []step{
			{code: "func nothing() {}\nnothing()", result: "<no result>"},
			{code: "fmt.Sprint(1)\nfmt.Println(\"x\")", result: "<no result>", out: "x\n"},
			{code: "strconv.Atoi(\"12\")", result: "12\n<nil>"},
			{code: "func two() (int, string) { return 1, \"a\" }\ntwo()", result: "1\n\"a\""},
		}},
		{"builtins the interpreter lacks", []step{
			{code: "min(3, 1, 2)", result: "1"},
			{code: "a, b := 2.5, 7.0\nmax(a, b)", result: "7"},
			{code: "mm := map[string]int{\"a\": 1}\nclear(mm)\nlen(mm)", result: "0"},
		}},
		{"os.Exit and log.Fatal do not end the session", []step{
			{code: "os.Exit(3)", errText: "os.Exit(3) called"},
			{code: "1 + 1", result: "2"},
		}},
		{"redefined method warns", []step{
			{code: "type V struct{ A int }\nfunc (v V) Get() int { return v.A }", result: "<no result>"},
			{code: "func (v V) Get() int { return v.A + 100 }", errOut: "method V.Get is already defined differently"},
			{code: "V{3}.Get()", result: "3"},
		}},
		{"what the interpreter lacks gives a clear error, not a crash", []step{
			{code: "var x any = 2.5\nswitch v := x.(type) {\ncase float64:\n\tfmt.Println(\"float\", v*2)\n}", out: "float 5\n"},
			{code: "func seq(yield func(int) bool) { yield(1) }\nfor v := range seq {\n\t_ = v\n}", errText: "or use a Go feature the interpreter lacks (range over functions"},
			{code: "slices.Sort([]int{3, 1})", errText: "use sort.Float64s, sort.Ints"},
			{code: "var d dist.Distribution = dist.NewNormal([]float64{0}, []float64{1})\nf := d.LogProb", errText: "use a function literal"},
			{code: "var h struct{ A, B func(*mat.Dense) []float64 }\ng := d.LogProb\nh.A, h.B = g, g", errText: "use a function literal"},
			{code: "lp := func(x *mat.Dense) []float64 { return d.LogProb(x) }\nmath.Abs(lp(mat.NewDense(1, 1, []float64{0}))[0]+0.5*math.Log(2*math.Pi)) < 1e-12", result: "true"},
			{code: "sx, sy := 1, 2", result: "<no result>"},
			{code: "sx, sy, sz := sy, sx, 3", errText: "its values read sx, sy while it assigns them"},
			{code: "if true { sx, sy := sy, sx; _, _ = sx, sy }", errText: "a swap fails"},
			{code: "cx, cy := sy, sx\nsx, sy, sz := cx, cy, 3\nfmt.Sprint(sx, sy, sz)", result: `"2 1 3"`},
			{code: "var d dist.Distribution = dist.NewNormal([]float64{0}, []float64{1})\nf := d.LogProb", errText: "use a function literal"},
			{code: "var h struct{ A, B func(*mat.Dense) []float64 }\ng := d.LogProb\nh.A, h.B = g, g", errText: "use a function literal"},
			{code: "lp := func(x *mat.Dense) []float64 { return d.LogProb(x) }\nmath.Abs(lp(mat.NewDense(1, 1, []float64{0}))[0]+0.5*math.Log(2*math.Pi)) < 1e-12", result: "true"},
			{code: "import \"github.com/someone/else\"", errText: "cell [14] line 1: package \"github.com/someone/else\" is not available"},
			{code: "import \"debug/elf\"", errText: "cell [15] line 1: package \"debug/elf\" is not available in notebooks: the interpreter's tables leave it out of the standard library: it reads executables"},
			{code: "import \"crypto/tls\"", errText: "package \"crypto/tls\" is not available in notebooks: the interpreter's tables leave it out of the standard library: it encrypts"},
			{code: "import (\n\t\"crypto/sha256\"\n\t\"encoding/hex\"\n)\nh := sha256.Sum256([]byte(\"abc\"))\nhex.EncodeToString(h[:4])", result: `"ba7816bf"`},
			{code: "x", result: "2.5"},
		}},
		{"func main is kept aside", []step{
			{code: "func main() { fmt.Println(\"main ran\") }", errOut: "func main is kept as _main"},
			{code: "1", result: "1", notOut: "main ran"},
			{code: "_main()", out: "main ran\n"},
			// positions after the renamed name stay the cell's own
			{code: "func main() { fmt.Println(nope) }", errText: "cell [4] line 1:27: undefined: nope"},
		}},
		{"multi-value definitions inside blocks at a cell's top level", []step{
			{code: "import \"fmt\"\nimport \"strconv\"\nn := 0", result: "<no result>"},
			{code: "if true { a, b := strconv.Atoi(\"3\"); fmt.Println(a, b) }", out: "3 <nil>\n"},
			{code: "if a, err := strconv.Atoi(\"4\"); err == nil { fmt.Println(a) }", out: "4\n"},
			{code: "if true { if true { a, err := strconv.Atoi(\"5\"); fmt.Println(a, err) } }", out: "5 <nil>\n"},
			{code: "{ var a, err = strconv.Atoi(\"6\"); fmt.Println(a, err) }", out: "6 <nil>\n"},
			{code: "for i := 0; i < 2; i++ { a, _ := strconv.Atoi(\"7\"); n += a }\nn", result: "14"},
			{code: "for _, s := range []string{\"1\", \"2\"} { a, _ := strconv.Atoi(s); n += a }\nn", result: "17"},
			{code: "m := map[string]int{\"k\": 8}\nswitch { case true: v, ok := m[\"k\"]; fmt.Println(v, ok) }", out: "8 true\n"},
			{code: "ch := make(chan int, 1)\nch <- 9\nselect { case v, ok := <-ch: fmt.Println(v, ok) }", out: "9 true\n"},
			{code: "var x any = 10\nif true { v, ok := x.(int); fmt.Println(v, ok) }", out: "10 true\n"},
			{code: "f := func() int { a, _ := strconv.Atoi(\"11\"); return a }\nif true { g := func() { a, b := strconv.Atoi(\"12\"); fmt.Println(a+f(), b) }; g() }", out: "23 <nil>\n"},
			{code: "if true { a, b := strconv.Atoi(\"x\"); fmt.Println(a, b != nil) }\nn", out: "0 true\n", result: "17"},
			{code: "if true {\n\ta, b := strconv.Atoi(\"1\")\n\tfmt.Println(a, b, undefinedName)\n}", errText: "cell [13] line 3:20: undefined: undefinedName"},
		}},
		{"definitions that reuse a name of an earlier cell", []step{
			{code: "a := 1\nfunc two() (int, int) { return 2, 5 }", result: "<no result>"},
			{code: "b := a + 1\na, c := b, 5\nfmt.Sprint(a, b, c)", result: `"2 2 5"`},
			{code: "a = 1\nfmt.Println(a)\na, d := two()\nfmt.Sprint(a, d)", out: "1\n", result: `"2 5"`},
			{code: "a = 1\nif true { a := 2; _ = a }\nfmt.Sprint(a)", result: `"1"`},
			{code: "for _, v := range []int{7} { a := v; _ = a }\nfmt.Sprint(a)", result: `"1"`},
			{code: "if true { var a = 3; _ = a }\nfor i := 0; i < 1; i++ { a, e := 4, 5; _, _ = a, e }\nfmt.Sprint(a)", result: `"1"`},
			{code: "fmt.Sprint(b, c, d)", result: `"2 5 5"`},
		}},
		{"the blank identifier is never kept", []step{
			{code: "import \"errors\"\nimport \"strconv\"\n_, errParse := strconv.Atoi(\"x\")", result: "<no result>"},
			{code: "_ = errors.New(\"dropped\")", result: "<no result>"},
			{code: "_, errParse = 1, errors.New(\"again\")\nerrParse.Error()", result: `"again"`},
			{code: "if true { _ = errors.New(\"in a block\") }", result: "<no result>"},
			{code: "var _ = errors.New(\"declared\")\nvar _ error = nil", result: "<no result>"},
			{code: "_", errText: "_"},
		}},
		{"display.Check fails the cell with its message", []step{
			{code: "display.Check(1+1 == 2, \"arithmetic\")", result: "<no result>"},
			{code: "display.Check(len(\"abc\") == 2, \"three letters\")", errText: "check failed: three letters"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			for i, st := range c.steps {
				ts.out.Reset()
				ts.errOut.Reset()
				res := ts.run(st.code)
				if st.errText != "" {
					if res.Err == nil {
						t.Fatalf("step %d %q: want error %q, got success", i+1, st.code, st.errText)
					}
					if !strings.Contains(res.Err.Value, st.errText) {
						t.Fatalf("step %d %q: error %q does not contain %q", i+1, st.code, res.Err.Value, st.errText)
					}
					continue
				}
				if res.Err != nil {
					t.Fatalf("step %d %q: %v\n%s", i+1, st.code, res.Err.Value, strings.Join(res.Err.Traceback, "\n"))
				}
				if st.result != "" && text(res) != st.result {
					t.Errorf("step %d %q: result %q, want %q", i+1, st.code, text(res), st.result)
				}
				if !strings.Contains(ts.out.String(), st.out) {
					t.Errorf("step %d %q: output %q does not contain %q", i+1, st.code, ts.out.String(), st.out)
				}
				if st.notOut != "" && strings.Contains(ts.out.String(), st.notOut) {
					t.Errorf("step %d %q: output %q contains %q", i+1, st.code, ts.out.String(), st.notOut)
				}
				if !strings.Contains(ts.errOut.String(), st.errOut) {
					t.Errorf("step %d %q: stderr %q does not contain %q", i+1, st.code, ts.errOut.String(), st.errOut)
				}
			}
		})
	}
}

func TestPanicShowsUserFrames(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "func inner() {\n\tpanic(\"boom\")\n}\nfunc outer() { inner() }")
	res := ts.run("x := 1\nouter()")
	if res.Err == nil {
		t.Fatal("want a panic")
	}
	tb := strings.Join(res.Err.Traceback, "\n")
	for _, want := range []string{"panic: boom", "in inner, cell [1] line 2", "in outer, cell [1] line 4", "at cell [2] line 2"} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback lacks %q:\n%s", want, tb)
		}
	}
	if strings.Contains(tb, "yaegi") || strings.Contains(tb, "reflect.") {
		t.Errorf("traceback shows interpreter internals:\n%s", tb)
	}
	if strings.Contains(ts.errOut.String(), "panic") {
		t.Errorf("the interpreter's own panic lines reached stderr: %q", ts.errOut.String())
	}
}

// TestPanicCallerLines checks the lines of the callers in panic traces: the call that is
// running, not the first statement of the calling function.
func TestPanicCallerLines(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "func inner() {\n\tpanic(\"boom\")\n}\n\nfunc outer() {\n\tx := 1\n\t_ = x\n\n\tinner()\n}")
	ts.mustRun(t, "type T struct{}\n\nfunc (T) M() {\n\ty := 2\n\t_ = y\n\touter()\n}")
	res := ts.run("x := 1\n_ = x\n\nT{}.M()")
	if res.Err == nil {
		t.Fatal("want a panic")
	}
	tb := strings.Join(res.Err.Traceback, "\n")
	for _, want := range []string{"in inner, cell [1] line 2", "in outer, cell [1] line 9", "in M, cell [2] line 6", "at cell [3] line 4"} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback lacks %q:\n%s", want, tb)
		}
	}
}

func TestInterruptStopsLoop(t *testing.T) {
	ts := newTestSession(t)
	go func() {
		time.Sleep(100 * time.Millisecond)
		ts.Interrupt()
	}()
	start := time.Now()
	res := ts.run("n := 0\nfor {\n\tn++\n}")
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("interrupt took %v", d)
	}
	ts.mustRun(t, "ok := 1")

	if res = ts.mustRun(t, "ok + 1"); text(res) != "2" {
		t.Errorf("after interrupting a loop: %q", text(res))
	}
}

// TestInterruptKeepsRedefinedVariable interrupts a cell whose redefinition of a session
// variable has not finished: the variable keeps its old value, and one the cell would have
// defined does not exist.
func TestInterruptKeepsRedefinedVariable(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "model := 7\nfunc train() int {\n\tfmt.Println(\"training\")\n\tfor {\n\t}\n}")
	go func() {
		// interrupt once the cell runs: an interrupt before it starts would be lost
		for !strings.Contains(ts.out.String(), "training") {
			time.Sleep(10 * time.Millisecond)
		}
		ts.Interrupt()
	}()
	res := ts.run("model := train()")
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	if got := text(ts.mustRun(t, "model")); got != "7" {
		t.Errorf("model = %s after an interrupted redefinition, want 7", got)
	}
	ts.out.Reset()
	go func() {
		for !strings.Contains(ts.out.String(), "training") {
			time.Sleep(10 * time.Millisecond)
		}
		ts.Interrupt()
	}()
	if res := ts.run("fresh := train()"); res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	if res := ts.run("fresh"); res.Err == nil || !strings.Contains(res.Err.Value, "undefined: fresh") {
		t.Errorf("fresh after its interrupted definition: got %+v, want undefined", res)
	}
}

// TestInterruptCompiledCall interrupts a cell inside a call into compiled code: the cell
// reports the interrupt only once the call has returned, and the rest of the cell never
// runs, not even after later cells have run.
func TestInterruptCompiledCall(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "counter := 1")
	const sleep = 1500 * time.Millisecond
	go func() {
		time.Sleep(100 * time.Millisecond)
		ts.Interrupt()
	}()
	start := time.Now()
	res := ts.run("time.Sleep(1500 * time.Millisecond)\ncounter = 99")
	took := time.Since(start)
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	if took < sleep-50*time.Millisecond {
		t.Errorf("the interrupt was reported after %v, while the compiled call was still running (it takes %v)", took, sleep)
	}
	// Later cells run while the abandoned call would still be sleeping had the session not
	// waited, and after it would have ended.
	for i := 0; i < 3; i++ {
		if got := text(ts.mustRun(t, "counter")); got != "1" {
			t.Fatalf("counter = %s after the interrupt (check %d), want 1: the rest of the interrupted cell ran", got, i)
		}
		time.Sleep(sleep / 2)
	}
}

// bundled is used by TestRichValues through the interpreter.
func TestRichValues(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "type Card struct{ Title string }\nfunc (c Card) MIMEBundle() map[string]any { return map[string]any{\"text/html\": \"<b>\" + c.Title + \"</b>\"} }")
	res := ts.mustRun(t, "Card{\"hi\"}")
	if res.Data["text/html"] != "<b>hi</b>" {
		t.Errorf("interpreted MIMEBundle: got %v", res.Data)
	}
	ts.mustRun(t, "display.ShowBundle(Card{\"shown\"})")
	if len(ts.displays) != 1 || ts.displays[0].Data["text/html"] != "<b>shown</b>" {
		t.Errorf("display.ShowBundle of an interpreted value: %+v", ts.displays)
	}
	ts.displays = nil
	res = ts.mustRun(t, "mat.NewDense(2, 2, []float64{1, 2, 3, 4})")
	if h, _ := res.Data["text/html"].(string); !strings.Contains(h, "<table>") || !strings.Contains(text(res), "2×2 matrix") {
		t.Errorf("matrix display: %v", res.Data)
	}
	res = ts.mustRun(t, "errors.New(\"bad input\")")
	if text(res) != "error: bad input" {
		t.Errorf("error display: %q", text(res))
	}
	ts.mustRun(t, "display.HTML(\"<i>x</i>\")\nd := display.New()\nd.Text(\"1\")\nd.Text(\"2\")")
	if len(ts.displays) != 3 || ts.displays[0].Data["text/html"] != "<i>x</i>" || ts.displays[1].Update || !ts.displays[2].Update ||
		ts.displays[1].DisplayID == "" || ts.displays[1].DisplayID != ts.displays[2].DisplayID {
		t.Errorf("displays: %+v", ts.displays)
	}
}

// TestInterruptReachesLibrary checks that a compiled call that polls sbi.Canceled stops when
// the cell is interrupted.
func TestInterruptReachesLibrary(t *testing.T) {
	stopped := make(chan error, 1)
	longCall := func() error {
		for {
			if err := sbi.Canceled("long call"); err != nil {
				stopped <- err
				return err
			}
			time.Sleep(time.Millisecond)
		}
	}
	out := &syncbuf.Buffer{}
	s, err := NewSession(Config{Stdout: out, Stderr: out, Symbols: map[string]map[string]reflect.Value{
		"libtest/libtest": {"Long": reflect.ValueOf(longCall)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		s.Interrupt()
	}()
	res := s.Execute(t.Context(), "import \"libtest\"\nerr := libtest.Long()", 1)
	if res.Err == nil || res.Err.Name != "Interrupted" {
		t.Fatalf("want Interrupted, got %+v", res.Err)
	}
	select {
	case err := <-stopped:
		if !strings.Contains(err.Error(), "long call interrupted") {
			t.Errorf("library error %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the library call did not see the cancellation")
	}
}

// TestBlankNotRegistered checks that the session's registry never records the blank
// identifier, whether from a definition or a declaration.
func TestBlankNotRegistered(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"strconv\"\n_, errParse := strconv.Atoi(\"x\")\nvar _ = errParse")
	if d, ok := ts.decls["_"]; ok {
		t.Errorf("the registry keeps the blank identifier from cell [%d]: %q", d.cell, d.text)
	}
	if _, ok := ts.decls["errParse"]; !ok {
		t.Error("the registry lost errParse")
	}
}

// TestManyCells runs cells with execution counts past what line numbers could encode one per
// cell (Go's scanner stops at line 1<<30): errors and panics still name the right cell and line,
// also for a function of an earlier cell.
func TestManyCells(t *testing.T) {
	ts := newTestSession(t)
	ts.count = 1071 // run counts from ts.count+1
	ts.mustRun(t, "func boom() {\n\tpanic(\"boom\")\n}")
	for _, count := range []int{1073, 1074, 20000, 20000 + cellSlots, 3 * cellSlots} {
		ts.count = count - 2
		ts.mustRun(t, "k := 1\n_ = k")
		res := ts.run("x := 1\nundefinedName")
		if res.Err == nil || !strings.Contains(res.Err.Value, fmt.Sprintf("cell [%d] line 2:1: undefined: undefinedName", count)) {
			t.Errorf("cell %d: error %+v", count, res.Err)
		}
		res = ts.run("\nboom()")
		tb := ""
		if res.Err != nil {
			tb = strings.Join(res.Err.Traceback, "\n")
		}
		if !strings.Contains(tb, "in boom, cell [1072] line 2") || !strings.Contains(tb, fmt.Sprintf("at cell [%d] line 2", count+1)) {
			t.Errorf("cell %d: traceback\n%s", count+1, tb)
		}
	}
}

// TestCellPosLeavesOtherNumbers: only the interpreter's positions become cell positions; long
// runs of digits inside versions and paths stay as they are.
func TestCellPosLeavesOtherNumbers(t *testing.T) {
	ts := newTestSession(t)
	res := ts.run("x := 1\nundefinedName")
	if res.Err == nil || !strings.Contains(res.Err.Value, "cell [1] line 2") {
		t.Fatalf("the error of cell 1 does not name its line 2: %v", res.Err)
	}
	for _, msg := range []string{
		"go: downloading github.com/gosbi/gosbi v0.0.0-20261125091747-a8276b04c371",
		"reading /tmp/TestRun1234567890/001/x.go",
		"module@v1.2.3-0.20261125091747-abcdef",
	} {
		if got := ts.cellPos(msg); got != msg {
			t.Errorf("cellPos(%q) = %q, want it unchanged", msg, got)
		}
	}
}

// TestDiagnosticsBadInputKeepsSession: a coverage diagnostic given test pairs of the wrong
// width, or with NaN rows (SIR and Lotka–Volterra make them), fails its cell or counts the
// rows, and the session keeps its variables. A panic in one of the library's worker goroutines
// used to kill the whole process.
func TestDiagnosticsBadInputKeepsSession(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "keep := 42")
	ts.mustRun(t, `tk := task.TwoMoons()
rng := rand.New(rand.NewPCG(1, 2))
th := tk.Prior().Sample(rng, 256)
x := tk.Simulate(rng, th)
npe := sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Flow: "maf", Transforms: 1, Hidden: 8})
_, err := npe.Train(th, x, sbi.TrainConfig{Epochs: 1, Seed: 1})
if err != nil {
	panic(err)
}`)
	res := ts.run("diag.ExpectedCoverage(npe, th, mat.NewDense(256, 3, nil), diag.Levels(4))")
	if res.Err == nil || !strings.Contains(res.Err.Value, "3") {
		t.Fatalf("x of width 3 for a width-2 model: want a cell error naming the width, got %+v", res.Err)
	}
	ts.mustRun(t, "xs := mat.DenseCopyOf(x)\nxs.Set(0, 0, math.NaN())\nxs.Set(5, 1, math.Inf(1))")
	ts.mustRun(t, "cov := diag.ExpectedCoverage(npe, th, xs, diag.Levels(4))")
	ts.mustRun(t, "if cov.Dropped != 2 { panic(cov.Dropped) }")
	if got := ts.mustRun(t, "keep").Data["text/plain"]; got != "42" {
		t.Errorf("keep = %v after the failed diagnostic, want 42", got)
	}
}

// judgeCell checks the result of running code: with wantErr empty, that the cell ran and its
// result prints as want (text); otherwise, that it failed with an error containing wantErr.
func judgeCell(t *testing.T, code string, res Result, want, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && res.Err != nil:
		t.Fatalf("%q: %s", code, res.Err.Value)
	case wantErr == "":
		if got := text(res); got != want {
			t.Errorf("%q: got %s, want %s", code, got, want)
		}
	case res.Err == nil:
		t.Errorf("%q: got %s, want the cell to fail with %q", code, text(res), wantErr)
	case !strings.Contains(res.Err.Value, wantErr):
		t.Errorf("%q: error %q, want it to contain %q", code, res.Err.Value, wantErr)
	}
}
