package interp

import (
	"strings"
	"testing"
)

// TestPartRanBeforeCompileError runs cells whose later part fails to compile after earlier
// parts ran: the error says which lines ran and that what they did stays, and the session
// holds what they did. A cell whose first part fails says nothing more: nothing of it ran.
func TestPartRanBeforeCompileError(t *testing.T) {
	const setup = "x := 41\nn := 0\nempty := []int{}\nfunc bump() int { n++; return n }"
	ranNote := func(lines string) string {
		did := "what they did stays"
		if strings.HasPrefix(lines, "line ") {
			did = "what it did stays"
		}
		return "(" + lines + " ran before this error was found, and " + did + ": " +
			"a cell runs in parts, each compiled when its turn comes)"
	}
	cases := []struct {
		name    string
		code    string
		errText string            // substring of the error
		note    string            // the note the error ends with; "" when it must have none
		after   map[string]string // expression → its result after the cell
	}{
		{"statements, then a trailing expression that does not compile",
			"fmt.Println(\"ran\")\nx = bump()\nx + \"s\"", "cell [2] line 3:1: invalid operation: mismatched types",
			ranNote("lines 1–2 of this cell"), map[string]string{"x": "1", "n": "1"}},
		{"a statement that defines a variable anew, then a declaration that does not compile",
			"x := \"s\" + fmt.Sprint(bump())\nvar q int = \"no\"", "cell [2] line 2:13: cannot convert",
			ranNote("line 1 of this cell"), map[string]string{"x": `"s1"`, "n": "1"}},
		{"the first part does not compile: nothing ran",
			"x = bump()\nundefinedThing(x)\nn = 10", "cell [2] line 2:1: undefined: undefinedThing",
			"", map[string]string{"x": "41", "n": "0"}},
		{"a trailing expression alone that does not compile",
			"undefinedThing()", "cell [2] line 1:1: undefined: undefinedThing", "", nil},
		{"declarations, then statements that do not compile",
			"func twice(v int) int { return 2 * v }\ntype pair struct{ a, b int }\ny := twice(undefinedThing)",
			"cell [2] line 3:12: undefined: undefinedThing", ranNote("lines 1–2 of this cell"), map[string]string{"twice(2)": "4"}},
		{"declarations the session has already, unchanged, run nothing",
			"func bump() int { n++; return n }\nx = bump() + undefinedThing", "undefined: undefinedThing", "",
			map[string]string{"x": "41", "n": "0"}},
		{"declarations that do not compile run nothing",
			"func twice(v int) int { return undefinedThing }\nn = 10", "undefined: undefinedThing",
			"", map[string]string{"n": "0"}},
		{"a declaration that reads a session variable runs apart from the next, which does not compile",
			"var y = x + 1\nvar z int = \"no\"", "cell [2] line 2:13: cannot convert", ranNote("line 1 of this cell"),
			map[string]string{"y": "42"}},
		{"a statement over several lines, then an error",
			"for i := 0; i < 3; i++ {\n\tn++\n}\nfmt.Println(n + \"s\")", "cell [2] line 4:13: invalid operation: mismatched types",
			ranNote("lines 1–3 of this cell"), map[string]string{"n": "3"}},
		{"an import, which runs nothing, then statements, then an error",
			"import \"strings\"\nx = len(strings.Repeat(\"a\", 5))\nstrings.ToUpper(x)", "cell [2] line 3:17: cannot use type int as type string",
			ranNote("line 2 of this cell"), map[string]string{"x": "5"}},
		{"an import, then a first part that does not compile",
			"import \"strings\"\nx = len(strings.Repeat(\"a\", undefinedThing))", "undefined: undefinedThing", "",
			map[string]string{"x": "41"}},
		{"a panic after earlier parts ran says what a panic says",
			"n = 5\nx := empty[n]", "index out of range", "", map[string]string{"n": "5"}},
		{"Go, a magic, then Go that does not compile",
			"x = bump()\n%who\nundefinedThing()", "cell [2] line 3:1: undefined: undefinedThing",
			ranNote("lines 1–2 of this cell"), map[string]string{"x": "1"}},
		{"Go, a magic, then Go that does not parse",
			"x = bump()\n%who\nx := (", "cell [2] line 3:7: expected operand", ranNote("lines 1–2 of this cell"),
			map[string]string{"x": "1"}},
		{"a magic, then Go that does not compile",
			"%who\nundefinedThing()", "cell [2] line 2:1: undefined: undefinedThing", ranNote("line 1 of this cell"), nil},
		{"a magic whose Go does not compile at its first part",
			"%time undefinedThing(); x = bump()", "undefined: undefinedThing", "", map[string]string{"x": "41"}},
		{"a statement, then an error on the same line",
			"x = bump(); x + \"s\"", "cell [2] line 1:13: invalid operation: mismatched types",
			ranNote("line 1 of this cell, up to column 10,"), map[string]string{"x": "1"}},
		{"statements over lines, then an error on the last line that ran",
			"n = 7\nx = bump(); x + \"s\"", "cell [2] line 2:13: invalid operation: mismatched types",
			ranNote("lines 1–2 of this cell, line 2 up to column 10,"), map[string]string{"x": "8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts, e := runFailing(t, setup, c.code)
			got := e.Value
			if !strings.Contains(got, c.errText) {
				t.Errorf("error %q does not contain %q", got, c.errText)
			}
			switch {
			case c.note != "" && !strings.HasSuffix(got, "\n"+c.note):
				t.Errorf("error %q does not end with the note %q", got, c.note)
			case c.note == "" && strings.Contains(got, "ran before this error was found"):
				t.Errorf("error %q says that part of the cell ran", got)
			}
			if tb := e.Traceback; c.note != "" && (len(tb) == 0 || tb[len(tb)-1] != c.note) {
				t.Errorf("traceback %q does not end with the note", tb)
			}
			checkValues(t, ts, c.after)
		})
	}
}

// TestTrailingUndefinedRunsNothing runs cells whose trailing expression uses a name that
// nothing defines, after statements: the session finds it before they run, so the cell runs
// nothing and the error is the interpreter's. Cells whose trailing expression only looks so
// (the name is defined by the cell, the session, an import or the interpreter, or is no use
// of a name) run as before.
func TestTrailingUndefinedRunsNothing(t *testing.T) {
	const setup = "x := 41\nn := 0\nfunc bump() int { n++; return n }\nfunc main() { n = 100 }\ntype pair struct{ A, B int }"
	fails := []struct {
		name, code, errText string
	}{
		{"a call of an undefined function", "fmt.Println(\"ran\")\nx = bump()\nundefinedThing()",
			"cell [2] line 3:1: undefined: undefinedThing"},
		{"an argument", "x = bump()\nfmt.Println(x, reslt)", "cell [2] line 2:16: undefined: reslt"},
		{"after declarations", "func twice(v int) int { return 2 * v }\nx = twice(bump())\ntwice(nope)",
			"cell [2] line 3:7: undefined: nope"},
		{"in a composite literal's value", "x = bump()\npair{A: x, B: nope}", "cell [2] line 2:15: undefined: nope"},
		{"the operand of a selector", "x = bump()\nnope.Field", "cell [2] line 2:1: undefined: nope"},
	}
	for _, c := range fails {
		t.Run(c.name, func(t *testing.T) {
			ts, e := runFailing(t, setup, c.code)
			if e.Value != c.errText {
				t.Errorf("error %q, want %q", e.Value, c.errText)
			}
			if out := ts.out.String(); out != "" {
				t.Errorf("the cell printed %q", out)
			}
			checkValues(t, ts, map[string]string{"x": "41", "n": "0"})
		})
	}
	runs := []struct {
		name, code, result string
	}{
		{"a name the cell defines", "y := bump()\ny * 2", "2"},
		{"a name a block of the cell defines", "if z := bump(); z > 0 {\n\tx = z\n}\nx", "1"},
		{"a function declared in the cell", "x = bump()\nfunc three() int { return 3 }\nthree() + x", "4"},
		{"a function literal with a label", "x = bump()\nfmt.Sprint(func() int { L: for { break L }; return x }())", `"1"`},
		{"the keys of a struct literal", "x = bump()\npair{A: x, B: 2}", "{A:1 B:2}"},
		{"a package imported automatically", "x = bump()\nstrings.Repeat(\"a\", x)", `"a"`},
		{"an imported package", "import \"strconv\"\nx = bump()\nstrconv.Itoa(x)", `"1"`},
		{"a builtin and a prelude function", "x = bump()\nmax(len(\"ab\"), x)", "2"},
		{"func main as kept by the session", "x = bump()\n_main()", "<no result>"},
	}
	for _, c := range runs {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, setup)
			if got := text(ts.mustRun(t, c.code)); got != c.result {
				t.Errorf("cell %q = %s, want %s", c.code, got, c.result)
			}
		})
	}
}

// runFailing runs setup, then code, in a new session and returns the session and the error
// of code, which must fail.
func runFailing(t *testing.T, setup, code string) (*testSession, *Error) {
	t.Helper()
	ts := newTestSession(t)
	ts.mustRun(t, setup)
	res := ts.run(code)
	if res.Err == nil {
		t.Fatalf("cell %q succeeded", code)
	}
	return ts, res.Err
}

// checkValues checks the results of expressions in the session: want maps each to its text.
func checkValues(t *testing.T, ts *testSession, want map[string]string) {
	t.Helper()
	for expr, w := range want {
		if got := text(ts.mustRun(t, expr)); got != w {
			t.Errorf("after the cell, %s = %s, want %s", expr, got, w)
		}
	}
}
