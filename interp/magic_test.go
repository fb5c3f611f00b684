package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMagics(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "model.txt")
	cases := []struct {
		name    string
		setup   string
		code    string
		out     []string // substrings of the standard output
		result  string
		errText string
		check   func(t *testing.T, ts *testSession)
	}{
		{name: "help lists every magic in the pager", code: "%help",
			check: func(t *testing.T, ts *testSession) {
				res := ts.run("x := 1\n%help")
				page, _ := res.Page["text/plain"].(string)
				for _, m := range []string{"%time", "%%time", "%reset", "%who", "%env", "!COMMAND", "%%writefile", "?NAME"} {
					if !strings.Contains(page, m) {
						t.Errorf("help page %q lacks %s", page, m)
					}
				}
				if ts.out.String() != "" {
					t.Errorf("help printed %q in the cell instead of the pager", ts.out.String())
				}
			}},
		{name: "time a statement", setup: "func work() int { return 7 }", code: "%time r := work()\nr", out: []string{"time: "}, result: "7"},
		{name: "time a cell", code: "%%time\nx := 0\nfor i := range 1000 { x += i }\nx", out: []string{"time: "}, result: "499500"},
		{name: "reset forgets everything", setup: "gone := 1", code: "%reset\ngone",
			out: []string{"session reset"}, errText: "undefined: gone"},
		{name: "who lists the session", setup: "n := 3\ntype Box struct{}\nfunc area() int { return 0 }\nimport \"strings\"\n_ = strings.ToUpper",
			code: "%who", out: []string{"vars:", "n int", "funcs:", "area", "types:", "Box", "imports: strings"}},
		{name: "env sets and shows a variable", code: "%env GOSBI_TEST_VAR=hello\n%env GOSBI_TEST_VAR\nos.Getenv(\"GOSBI_TEST_VAR\")",
			out: []string{"env: GOSBI_TEST_VAR=hello", "hello\n"}, result: `"hello"`},
		{name: "shell command output", code: "!echo from the shell\n!echo second", out: []string{"from the shell\nsecond\n"}},
		{name: "writefile", code: "%%writefile " + file + "\nline one\nline two",
			out: []string{"Writing " + file},
			check: func(t *testing.T, ts *testSession) {
				b, err := os.ReadFile(file)
				if err != nil || string(b) != "line one\nline two\n" {
					t.Errorf("file %q, %v", b, err)
				}
				if res := ts.run("%%writefile -a " + file + "\nline three"); res.Err != nil {
					t.Fatal(res.Err.Value)
				}
				if b, _ = os.ReadFile(file); string(b) != "line one\nline two\nline three\n" {
					t.Errorf("after append: %q", b)
				}
			}},
		{name: "unknown magic", code: "%nosuch", errText: "unknown magic %nosuch"},
		{name: "?name pages the documentation", setup: "// area is the area of the unit square.\nfunc area() int { return 1 }",
			check: func(t *testing.T, ts *testSession) {
				for _, code := range []string{"?strings.Split", "strings.Split?", "?area"} {
					res := ts.run(code)
					page, _ := res.Page["text/plain"].(string)
					name := strings.Trim(code, "?")
					name = name[strings.LastIndexByte(name, '.')+1:]
					if res.Err != nil || !strings.Contains(page, "func "+name) {
						t.Errorf("%s: page %q, err %v", code, page, res.Err)
					}
				}
				if res := ts.run("x := 1 > 0\nx"); res.Page != nil || res.Err != nil {
					t.Errorf("ordinary cell: %+v", res)
				}
			}},
		{name: "magics and Go mix in order", code: "a := 2\n!echo middle\na * 21", out: []string{"middle"}, result: "42"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			if c.setup != "" {
				ts.mustRun(t, c.setup)
			}
			ts.out.Reset()
			res := ts.run(c.code)
			if c.errText != "" {
				if res.Err == nil || !strings.Contains(res.Err.Value, c.errText) {
					t.Fatalf("want error %q, got %+v", c.errText, res.Err)
				}
			} else if res.Err != nil {
				t.Fatalf("%s\n%s", res.Err.Value, strings.Join(res.Err.Traceback, "\n"))
			}
			for _, o := range c.out {
				if !strings.Contains(ts.out.String(), o) {
					t.Errorf("output %q lacks %q", ts.out.String(), o)
				}
			}
			if c.result != "" && text(res) != c.result {
				t.Errorf("result %q, want %q", text(res), c.result)
			}
			if c.check != nil {
				c.check(t, ts)
			}
		})
	}
}

// TestHelpNotFound checks that asking help for a name without documentation prints "no
// documentation found" in the cell, as IPython prints "Object `x` not found.", and the cell
// succeeds: a notebook run goes on. A cell that mixes the help line with Go fails when its Go
// fails, and only then.
func TestHelpNotFound(t *testing.T) {
	for _, c := range []struct {
		code    string
		out     string // what the cell prints
		result  string // the value of its last expression, if any
		errText string // "" when the cell succeeds
	}{
		{code: "?nosuchname", out: "no documentation found for nosuchname: is it defined or imported?"},
		{code: "nosuchname?", out: "no documentation found for nosuchname"},
		{code: "%help nosuchname", out: "no documentation found for nosuchname"},
		{code: "?sbi.NRE.NoSuchMethod", out: "no documentation found for sbi.NRE.NoSuchMethod"},
		{code: "?NoSuchType.Area", out: "no documentation found for NoSuchType.Area"},
		{code: "%help nosuchname\nx := 6\nx * 7", out: "no documentation found for nosuchname", result: "42"},
		{code: "%help nosuchname\nundefinedVar", out: "no documentation found for nosuchname", errText: "undefined: undefinedVar"},
		{code: "%help two names", errText: "%help two names: want one name"},
	} {
		ts := newTestSession(t)
		res := ts.run(c.code)
		switch {
		case c.errText == "" && res.Err != nil:
			t.Errorf("%q: the cell failed: %s", c.code, res.Err.Value)
		case c.errText != "" && (res.Err == nil || !strings.Contains(res.Err.Value, c.errText)):
			t.Errorf("%q: error %+v, want %q", c.code, res.Err, c.errText)
		}
		if !strings.Contains(ts.out.String(), c.out) {
			t.Errorf("%q: printed %q, want %q", c.code, ts.out.String(), c.out)
		}
		if strings.Contains(ts.out.String(), "Python sbi") {
			t.Errorf("%q: printed %q, which names a Python counterpart", c.code, ts.out.String())
		}
		if c.result != "" && text(res) != c.result {
			t.Errorf("%q: result %q, want %q", c.code, text(res), c.result)
		}
		if res.Page != nil {
			t.Errorf("%q: pages %v, want nothing in the pager", c.code, res.Page)
		}
	}
	ts := newTestSession(t)
	if text, found := ts.Inspect("nosuchname", len("nosuchname")); found || text != "" {
		t.Errorf("inspection of nosuchname: %q, found %v; want nothing", text, found)
	}
}

// TestMagicLinesInsideLiterals: a line of a raw string or of a block comment that starts with %
// or ! is Go, not a magic; a magic after the literal has closed is still one.
func TestMagicLinesInsideLiterals(t *testing.T) {
	cases := []struct {
		name, code string
		result     string
		out        string // a substring of the output ("" for none)
		notOut     string // what the output must not hold
	}{
		{name: "format verbs in a raw string", code: "s := `\n%d items\n%s`\nlen(s)", result: "12"},
		{name: "a ! line in a raw string", code: "s := `\n!echo ran\n`\nlen(s)", result: "11", notOut: "ran"},
		{name: "a % line in a block comment", code: "/*\n% not a magic\n*/\n1 + 1", result: "2"},
		{name: "a magic after the raw string", code: "s := `a\n%b`\n!echo after\nlen(s)", result: "4", out: "after"},
		{name: "a backquote in a string or a comment opens nothing", code: "q := \"`\" // `\n!echo yes\nq", result: "\"`\"", out: "yes"},
		{name: "a backquote in a rune opens nothing", code: "r := '`'\n!echo rune\nr", result: "96", out: "rune"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			res := ts.run(c.code)
			if res.Err != nil {
				t.Fatalf("%s\n%s", res.Err.Value, strings.Join(res.Err.Traceback, "\n"))
			}
			if text(res) != c.result {
				t.Errorf("result %q, want %q", text(res), c.result)
			}
			if c.out != "" && !strings.Contains(ts.out.String(), c.out) {
				t.Errorf("output %q lacks %q", ts.out.String(), c.out)
			}
			if c.notOut != "" && strings.Contains(ts.out.String(), c.notOut) {
				t.Errorf("output %q: a line of the literal ran as a shell command", ts.out.String())
			}
		})
	}
}

// TestEnvUnset: %env NAME of a variable that is not set says so, instead of printing the empty
// line that a variable set to "" prints too.
func TestEnvUnset(t *testing.T) {
	t.Setenv("GOSBI_TEST_EMPTY", "")
	ts := newTestSession(t)
	if res := ts.run("%env GOSBI_TEST_EMPTY"); res.Err != nil || ts.out.String() != "\n" {
		t.Errorf("a variable set to \"\": output %q, error %+v", ts.out.String(), res.Err)
	}
	ts.out.Reset()
	res := ts.run("%env GOSBI_TEST_NOT_SET_ANYWHERE")
	if res.Err == nil || !strings.Contains(res.Err.Value, "GOSBI_TEST_NOT_SET_ANYWHERE is not set") {
		t.Errorf("an unset variable: output %q, error %+v, want an error saying it is not set", ts.out.String(), res.Err)
	}
}

// TestBangGoOrShell: a line !EXPR is Go when the line above leaves an expression open, or when
// EXPR is a Go expression whose ! applies to a bool of the session, of the cell above or of a
// package, and whose other names are known; any other line starting with ! is a shell command,
// even one named like a variable of another type.
func TestBangGoOrShell(t *testing.T) {
	cases := []struct {
		name, setup, code string
		result            string // "" for none
		out               string // a substring of the output ("" for none)
		notOut            string // what the output must not hold ("" for nothing)
	}{
		{name: "negation of a session variable", setup: "done := false", code: "!done", result: "true"},
		{name: "negation after Go lines", setup: "done := false", code: "n := 2\n!done", result: "true"},
		{name: "variable defined above in the cell", code: "ready := true\n!ready", result: "false"},
		{name: "a var declaration above in the cell", code: "var ok bool\n!ok", result: "true"},
		{name: "a line that continues a Go expression", setup: "done := false", code: "ok := true &&\n\t!done\nok", result: "true"},
		{name: "parenthesised expression", setup: "a, b := true, false", code: "!(a && b)", result: "true"},
		{name: "call of a session function", setup: "func idle() bool { return false }", code: "!idle()", result: "true"},
		{name: "session constant", setup: "const debug = true", code: "!debug", result: "false"},
		{name: "with a predeclared name", setup: "var p *int", code: "!(p == nil)", result: "false"},
		{name: "with an imported package", setup: "x := 1.5", code: "!math.IsNaN(x)", result: "true"},
		{name: "a command with arguments", code: "!echo hi", out: "hi\n"},
		{name: "a command with arguments named like a variable", setup: "echo := true", code: "!echo hi", out: "hi\n"},
		{name: "a command that is no variable", code: "!ls", out: "magic.go"},
		{name: "a command with a flag", setup: "ls := 3", code: "!ls -a", out: "magic.go"},
		{name: "only predeclared names", code: "!true", notOut: "true"},
		{name: "a parenthesised predeclared name", code: "!(true)"},
		{name: "a predeclared name in two parentheses", code: "!((false))", notOut: "true"},
		{name: "a command with a path", setup: "x := 1", code: "!./x.sh", notOut: "x.sh"},
		{name: "a name of the session and one that is not", setup: "done := false", code: "!done || later", notOut: "true"},
		{name: "a command named like a variable of type time.Time", setup: "date := time.Now()", code: "!date", out: ":"},
		{name: "a command named like an int variable", setup: "nproc := runtime.NumCPU()", code: "!nproc", out: "\n"},
		{name: "a command named like an int constant", setup: "const id = 3", code: "!id", out: "uid="},
		{name: "a command and a flag named like int variables", setup: "ls, l := 1, 2", code: "!ls -l", out: "magic.go"},
		{name: "a command named like an int variable above in the cell", code: "ls := 3\n!ls", out: "magic.go"},
		{name: "a bool comparison above in the cell", code: "n := 3\nbig := n > 2\n!big", result: "false"},
		{name: "a bool function above in the cell", code: "func idle() bool { return false }\n!idle()", result: "true"},
		{name: "a bool function of a package", code: "!strings.HasPrefix(\"ab\", \"a\")", result: "false"},
		{name: "a bool field of a session variable", setup: "type job struct{ Done bool }\nj := job{}", code: "!j.Done", result: "true"},
		{name: "a bool method of a session variable", setup: "type set struct{ n int }\nfunc (s set) empty() bool { return s.n == 0 }\nv := set{}", code: "!v.empty()", result: "false"},
		{name: "a bool element of a session map", setup: "seen := map[string]bool{\"a\": true}", code: "!seen[\"a\"]", result: "false"},
		{name: "a name the cell above redeclares as an int", setup: "ls := true", code: "ls := 3\n!ls", out: "magic.go"},
		{name: "an interface variable holding a bool", setup: "var x any = true", code: "!x", notOut: "x"},
		{name: "a line that continues an expression of the cell", code: "b := true\nok := b &&\n!b\nok", result: "false"},
		{name: "a line that continues a call", code: "b := true\nok := strings.EqualFold(fmt.Sprint(\n!b), \"false\")\nok", result: "true"},
		{name: "a line that continues after a comment", code: "b := true\nok := b || // either\n!b\nok", result: "true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			if c.setup != "" {
				ts.mustRun(t, c.setup)
			}
			ts.out.Reset()
			res := ts.run(c.code)
			if res.Err != nil {
				t.Fatalf("%s\n%s", res.Err.Value, strings.Join(res.Err.Traceback, "\n"))
			}
			want := c.result
			if want == "" {
				want = "<no result>"
			}
			if got := text(res); got != want {
				t.Errorf("result %q, want %q", got, want)
			}
			if c.out != "" && !strings.Contains(ts.out.String(), c.out) {
				t.Errorf("output %q lacks %q", ts.out.String(), c.out)
			}
			if c.notOut != "" && strings.Contains(ts.out.String(), c.notOut) {
				t.Errorf("output %q holds %q", ts.out.String(), c.notOut)
			}
		})
	}
}

// TestPackageHelpPage: ?PKG and %help PKG show what go doc shows a newcomer, the opening of
// the package doc and its exported names by kind, for gosbi's packages and the standard
// library's, imported or not.
func TestPackageHelpPage(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, `import "github.com/gosbi/gosbi/sbi/simstore"`)
	cases := []struct {
		code string
		want []string
	}{
		{"?npy", []string{`package npy // import "github.com/gosbi/gosbi/sbi/npy"`,
			"Package npy reads and writes NumPy's .npy and .npz files",
			"Types:", "NPZ", "Functions:", "ReadFile", "OpenNPZ", "Constants:", "MaxHeader", "Variables:", "ErrFormat",
			"go doc github.com/gosbi/gosbi/sbi/npy"}},
		{"%help npy", []string{"Package npy reads and writes", "OpenNPZ"}},
		{"?simstore", []string{"Package simstore keeps simulations on disk", "Open", "Store"}},
		{"?study", []string{"Package study runs sweeps", "Spec"}},
		{"?sbi", []string{"Package sbi is gosbi's library", "NewNPE", "TrainConfig"}},
		{"?viz", []string{"Package viz draws the figures"}},
		{"?strings", []string{`package strings // import "strings"`, "Package strings implements", "Split", "Builder"}},
	}
	for _, c := range cases {
		res := ts.run(c.code)
		if res.Err != nil {
			t.Errorf("%s: %s", c.code, res.Err.Value)
			continue
		}
		page, _ := res.Page["text/plain"].(string)
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page %q lacks %q", c.code, page, w)
			}
		}
	}
	if res := ts.run("%help two names"); res.Err == nil || !strings.Contains(res.Err.Value, "want one name") {
		t.Errorf("%%help two names: %+v, want an error asking for one name", res.Err)
	}
}

// TestExprOpen: a Go line leaves an expression open when it ends with a binary operator, an
// assignment, "<-", "(", "[" or ",", outside strings and comments; other lines do not, and a
// line without tokens says so.
func TestExprOpen(t *testing.T) {
	for _, c := range []struct {
		line              string
		open              literal
		continues, tokens bool
	}{
		{line: "ok := a &&", continues: true, tokens: true},
		{line: "ok := a || // either", continues: true, tokens: true},
		{line: "f(", continues: true, tokens: true},
		{line: "xs := []bool{a,", continues: true, tokens: true},
		{line: "x :=", continues: true, tokens: true},
		{line: "n +=", continues: true, tokens: true},
		{line: "v := <-", continues: true, tokens: true},
		{line: "n++", tokens: true},
		{line: "ok := a", tokens: true},
		{line: `s := "a &&"`, tokens: true},
		{line: "f() /* && */", tokens: true},
		{line: "if ok {", tokens: true},
		{line: "   "},
		{line: "// a comment &&"},
		{line: "end` +", open: rawString, continues: true, tokens: true},
		{line: "end */ x", open: blockComment, tokens: true},
	} {
		continues, tokens := exprOpen(c.line, c.open)
		if continues != c.continues || tokens != c.tokens {
			t.Errorf("exprOpen(%q, %v) = %v, %v, want %v, %v", c.line, c.open, continues, tokens, c.continues, c.tokens)
		}
	}
}
