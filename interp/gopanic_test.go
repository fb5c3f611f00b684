package interp

import (
	"strings"
	"testing"
	"time"
)

// waitFor waits up to a few seconds for the session's standard error to contain want.
func (ts *testSession) waitFor(want string) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(ts.errOut.String(), want) {
			return true
		}
	}
	return false
}

// TestGoroutinePanicKeepsSession panics in goroutines that cells start, in the forms a go
// statement takes: each panic is reported with the cell and line of its go statement, and the
// session keeps its variables.
func TestGoroutinePanicKeepsSession(t *testing.T) {
	for _, c := range []struct{ name, code, want string }{
		{"literal", "y := 1\ngo func() { panic(\"boom\") }()", "cell [2] line 2: boom"},
		{"literal with arguments", "go func(s string, n int) {\n\tpanic(s)\n}(\"lit args\", 3)", "cell [2] line 1: lit args"},
		{"function", "func explode(msg string) { panic(msg) }\n\ngo explode(\"named\")", "cell [2] line 3: named"},
		{"runtime error", "go func() {\n\tvar s []int\n\t_ = s[3]\n}()", "cell [2] line 1: reflect: slice index out of range"},
		{"in a function", "func start() {\n\tgo func() { panic(\"deep\") }()\n}\nstart()", "cell [2] line 2: deep"},
		{"error value", "go func() { panic(errors.New(\"as error\")) }()", "cell [2] line 1: as error"},
		{"method value", "type bomb struct{ msg string }\nfunc (b *bomb) fire() { panic(b.msg) }\nb := &bomb{\"method\"}\ngo b.fire()", "cell [2] line 4: method"},
		{"panic in a deferred call", "go func() {\n\tdefer func() { panic(\"in defer\") }()\n}()", "cell [2] line 1: in defer"},
		{"recovered and panicked again", "go func(s string) {\n\tdefer func() { panic(fmt.Sprint(\"again \", recover())) }()\n\tpanic(s)\n}(\"first\")", "cell [2] line 1: again first"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, "x := 41")
			ts.mustRun(t, c.code)
			if !ts.waitFor("panic in a goroutine started by " + c.want) {
				t.Fatalf("no report %q; stderr:\n%s", c.want, ts.errOut.String())
			}
			res := ts.mustRun(t, "x + 1")
			if got := res.Data["text/plain"]; got != "42" {
				t.Errorf("after the panic, x + 1 gave %v, want 42", got)
			}
		})
	}
}

// TestGoStatementEvaluatesInPlace checks that a go statement's function value and arguments
// are evaluated where it stands, as in Go, also under the rewrite that recovers its panics:
// a variable changed after the go statement is seen with its value before, constants take
// the parameter's type, and a variadic call keeps its slice. (A method value of a value
// receiver is not tested: the interpreter binds it to the variable, not to a copy, in any
// statement.)
func TestGoStatementEvaluatesInPlace(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "func send(ch chan string, n int, f float64, xs ...int) { ch <- fmt.Sprint(n, \" \", f, \" \", xs) }")
	res := ts.mustRun(t, "ch := make(chan string)\nn := 1\nxs := []int{7, 8}\ngo send(ch, n, 2, xs...)\nn = 5\nxs = nil\n<-ch")
	if got := res.Data["text/plain"]; got != `"1 2 [7 8]"` {
		t.Errorf("go send(ch, n, 2, xs...) then n = 5 gave %v, want \"1 2 [7 8]\"", got)
	}
	res = ts.mustRun(t, "const k = 4\nfunc half(ch chan string, x float64) { ch <- fmt.Sprint(x / 8) }\ngo half(ch, k)\n<-ch")
	if got := res.Data["text/plain"]; got != `"0.5"` {
		t.Errorf("go half(ch, k) with an untyped constant gave %v, want \"0.5\"", got)
	}
}

// TestGoStatementEvaluatesInPlaceCases runs go statements whose operands Go evaluates where
// the statement stands, before the cell changes what they read: each cell's result is what
// compiled Go prints for the same code.
func TestGoStatementEvaluatesInPlaceCases(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "var got = make(chan int, 1)\nvar counter int\nfunc report(v int) { got <- v }\nfunc next() int { counter++; return counter }")
	ts.mustRun(t, "const n = 3\ntype C struct{ v int }\nfunc (c C) getv(ch chan int) { ch <- c.v }\nfunc (c *C) getp(ch chan int) { ch <- c.v * 2 }")
	ts.mustRun(t, "type Q struct{ n int }\nfunc (q *Q) next() int { q.n++; return q.n }\nfunc pair() (int, int) { counter++; return counter, 10 }\nfunc report2(a, b int) { got <- a + b }")
	for _, c := range []struct{ name, code, want string }{
		{"session function as the sole argument", "counter = 0\ngo report(next())\nc0 := counter\nfmt.Sprint(c0, \" \", <-got)", `"1 1"`},
		{"conversion as the sole argument", "x := 1\ngo report(int(x))\nx = 2\n<-got", "1"},
		{"builtin as the sole argument", "s := []int{1}\ngo report(len(s))\ns = nil\n<-got", "1"},
		{"compiled function as the sole argument", "s := \"abc\"\ngo report(strings.Index(s, \"c\"))\ns = \"c\"\n<-got", "2"},
		{"constant call as the sole argument", "go report(max(1, n))\n<-got", "3"},
		{"parameter named like a session constant", "func spawnN(n int) {\n\tgo report(n)\n\tn = 0\n}\nspawnN(7)\n<-got", "7"},
		{"constant of a function named like a variable", "func g() { const m = 100; _ = m }\nm := 5\ngo report(m)\nm = 6\n<-got", "5"},
		{"function variable of a function", "func h() {\n\tf := report\n\tgo f(1)\n\tf = func(v int) { got <- 10 * v }\n}\nh()\n<-got", "1"},
		{"method expression", "ch := make(chan int)\ngo C.getv(C{7}, ch)\n<-ch", "7"},
		{"method expression of a pointer", "ch := make(chan int)\ngo (*C).getp(&C{7}, ch)\n<-ch", "14"},
		{"method call as the sole argument", "q := &Q{}\ngo report(q.next())\nq0 := q.n\nfmt.Sprint(q0, \" \", <-got)", `"1 1"`},
		{"call of two results as the arguments", "counter = 0\ngo report2(pair())\nc0 := counter\nfmt.Sprint(c0, \" \", <-got)", `"1 11"`},
		{"literal with arguments", "x := 1\ngo func(v int) { got <- v }(int(x))\nx = 2\n<-got", "1"},
		{"literal that recovers its own panic", "go func() {\n\tdefer func() { got <- len(fmt.Sprint(recover())) }()\n\tpanic(\"abc\")\n}()\n<-got", "3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan Result, 1)
			go func() { done <- ts.run(c.code) }()
			select {
			case res := <-done:
				if res.Err != nil {
					t.Fatalf("%q failed: %v", c.code, res.Err.Value)
				}
				if got := res.Data["text/plain"]; got != c.want {
					t.Errorf("%q gave %v, want %s", c.code, got, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%q did not end", c.code)
			}
		})
	}
	if strings.Contains(ts.errOut.String(), "panic in a goroutine") {
		t.Errorf("a recovered panic was reported:\n%s", ts.errOut.String())
	}
}
