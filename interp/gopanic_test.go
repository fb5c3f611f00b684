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
