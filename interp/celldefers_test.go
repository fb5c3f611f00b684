package interp

import (
	"strings"
	"testing"
)

// TestCellDefers runs defer statements of cells' top level, in order. Each cell's output is
// what go run prints for the same statements in the body of func main (a panic's message
// aside); before cell-defers the interpreter ran a top-level deferred call when its own
// statement ended, again at the end of the cell and once more at the end of every later cell
// (a cell `defer rec("top")` + `rec("cell1")` printed "top\ncell1\ntop\n", and a later
// cell `rec("cell2")` printed "cell2\ntop\n"; with the pass off, this test did not end).
func TestCellDefers(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deferPrelude)
	for _, c := range []struct{ name, code, want, panic string }{
		{"operands where the statement stands", "x := 1\ndefer showi(x)\nx = 2\nrec(\"cell1\", x)", "cell1 2\ni 1\n", ""},
		{"a later cell runs none", "rec(\"cell2\")", "cell2\n", ""},
		{"loop, the last first", "for i := 0; i < 3; i++ { defer showi(i * 10) }\nrec(\"loop\")", "loop\ni 20\ni 10\ni 0\n", ""},
		{"in a block", "if true { defer rec(\"block\") }\nrec(\"after\")", "after\nblock\n", ""},
		{"after a panic", "defer rec(\"d1\")\npanic(\"boom\")", "d1\n", "boom"},
		{"a deferred call panics, the earlier one runs", "defer rec(\"first\")\ndefer func() { panic(\"second\") }()\nrec(\"c\")", "c\nfirst\n", "second"},
		{"after the trailing expression", "defer rec(\"d\")\n1 + 1", "d\n", ""},
		{"a function's defer is its own", "func f() { defer rec(\"in f\") }\nf()\ndefer rec(\"top\")\nrec(\"c\")", "in f\nc\ntop\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			res := ts.run(c.code)
			switch {
			case c.panic == "" && res.Err != nil:
				t.Fatalf("%q failed: %v", c.code, res.Err.Value)
			case c.panic != "" && (res.Err == nil || !strings.Contains(res.Err.Value, c.panic)):
				t.Errorf("%q: error %v, want a panic %q", c.code, res.Err, c.panic)
			}
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q printed\n%s\nwant\n%s", c.code, got, c.want)
			}
		})
	}
}

// TestCellDefersInterrupted checks that an interrupted cell runs none of its deferred calls,
// says so, and leaves none to a later cell.
func TestCellDefersInterrupted(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deferPrelude)
	ts.errOut.Reset()
	ts.interruptSpinCell(t, "defer rec(\"deferred\")\n")
	if got := ts.out.String(); strings.Contains(got, "deferred") {
		t.Errorf("the interrupted cell printed %q, want no deferred call run", got)
	}
	if got := ts.errOut.String(); !strings.Contains(got, "1 deferred call(s) of the top level did not run") {
		t.Errorf("standard error %q, want a note that the deferred call did not run", got)
	}
	ts.out.Reset()
	ts.mustRun(t, "rec(\"next\")")
	if got := ts.out.String(); got != "next\n" {
		t.Errorf("the next cell printed %q, want %q", got, "next\n")
	}
}
