package interp

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The compiled counterparts of the cells' types of TestFmtPrintsByMethods: the same methods,
// so that fmt on them gives Go's output for the cells.
type (
	fmtT struct{ a int }
	fmtE struct{}
	fmtI int
	fmtP struct{}
)

func (fmtT) String() string  { return "hi" }
func (fmtE) Error() string   { return "boom" }
func (fmtI) String() string  { return "eye" }
func (*fmtP) String() string { return "ptr" }

// TestFmtPrintsByMethods runs cells that print values of the cell's types with fmt's print
// functions and compares their output with fmt's on compiled types with the same methods:
// fmt calls String and Error, and prints values without them as before.
func TestFmtPrintsByMethods(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"fmt\"\n\t\"strings\"\n)\ntype T struct{ a int }\nfunc (T) String() string { return \"hi\" }\n"+
		"type E struct{}\nfunc (E) Error() string { return \"boom\" }\ntype I int\nfunc (I) String() string { return \"eye\" }\n"+
		"type plain struct{ a int }")
	var nilErr error
	for _, c := range []struct{ name, code, want string }{
		{"Println of a Stringer", "fmt.Println(T{})", fmt.Sprintln(fmtT{})},
		{"Println of an error", "fmt.Println(E{})", fmt.Sprintln(fmtE{})},
		{"Print of several", `fmt.Print(T{}, E{}, 1, "s", I(2))`, fmt.Sprint(fmtT{}, fmtE{}, 1, "s", fmtI(2))},
		{"Sprint", "fmt.Println(fmt.Sprint(E{}))", fmt.Sprintln(fmt.Sprint(fmtE{}))},
		{"Sprintln of a variable", "x := T{}\nfmt.Print(fmt.Sprintln(x, I(3)))", fmt.Sprintln(fmtT{}, fmtI(3))},
		{"Fprintln", "var sb strings.Builder\nfmt.Fprintln(&sb, T{}, E{})\nfmt.Print(sb.String())", fmt.Sprintln(fmtT{}, fmtE{})},
		{"in a function body", "func show(t T) { fmt.Println(\"t:\", t) }\nshow(T{})", fmt.Sprintln("t:", fmtT{})},
		{"in a function literal", "func() { e := E{}; fmt.Println(e) }()", fmt.Sprintln(fmtE{})},
		{"plain values", "fmt.Println(plain{1}, 2.5, \"x\", nil, []int{1}, map[string]int{\"a\": 1}, struct{ b bool }{true})",
			fmt.Sprintln(struct{ a int }{1}, 2.5, "x", nil, []int{1}, map[string]int{"a": 1}, struct{ b bool }{true})},
		{"nil error", "var err error\nfmt.Println(err)", fmt.Sprintln(nilErr)},
		{"compiled error", "fmt.Println(fmt.Errorf(\"x%d\", 1))", fmt.Sprintln(errors.New("x1"))},
		{"lone call", "func two() (T, int) { return T{}, 1 }\nfmt.Println(two())", "{0} 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}

// TestFmtPointerMethodsLeftAlone checks that a session whose type has String on a pointer
// receiver prints a value of that type by its fields, as Go does (the interpreter counts
// the method as one of the value's).
func TestFmtPointerMethodsLeftAlone(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype P struct{}\nfunc (*P) String() string { return \"ptr\" }\nfmt.Println(P{})")
	if got, want := ts.out.String(), fmt.Sprintln(fmtP{}); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestFmtUserVariableNamedFmt checks that a variable named fmt is not taken for the package.
func TestFmtUserVariableNamedFmt(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "type T struct{}\nfunc (T) String() string { return \"hi\" }\ntype printer struct{}\n"+
		"func (printer) Println(a ...any) string { return \"mine\" }\nfmt := printer{}\nfmt.Println(T{})")
	res := ts.mustRun(t, "fmt.Println(T{})")
	if got := text(res); !strings.Contains(got, "mine") {
		t.Errorf("result %s, want the user's Println", got)
	}
}

// TestFmtArgsKeepPositions checks that an error in a rewritten print call names the cell's
// own line and column.
func TestFmtArgsKeepPositions(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype T struct{}\nfunc (T) String() string { return \"hi\" }")
	res := ts.run("x := 1\nfmt.Println(T{}, x, nope)")
	if res.Err == nil || !strings.Contains(res.Err.Value, "line 2:21: undefined: nope") || strings.Contains(res.Err.Value, "_gosbi") {
		t.Errorf("error %v, want it at line 2:21 without the rewrite's names", res.Err)
	}
}

// TestFmtPointerOperands prints pointers &v with fmt's print functions and compares the output
// with fmt's on compiled types with the same methods: fmt calls the String or Error method of
// a cell's value through the pointer, as Go does, and prints other pointers as before. Before
// wrap-fmt-args passed &v through _gosbiFmtPtr, fmt.Println(&T{}) printed &{0}.
func TestFmtPointerOperands(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype T struct{ a int }\nfunc (T) String() string { return \"hi\" }\n"+
		"type E struct{}\nfunc (E) Error() string { return \"boom\" }\ntype plain struct{ a int }")
	for _, c := range []struct{ name, code, want string }{
		{"Println of &T{}", "fmt.Println(&T{})", fmt.Sprintln(&fmtT{})},
		{"Print of &E{}", "fmt.Print(&E{}, \"\\n\")", fmt.Sprint(&fmtE{}, "\n")},
		{"address of a variable", "t := T{2}\nfmt.Println(&t, t)", fmt.Sprintln(&fmtT{2}, fmtT{2})},
		{"pointer variable", "p := &T{3}\nfmt.Println(p, 1)", fmt.Sprintln(&fmtT{3}, 1)},
		{"pointer parameter", "func showT(p *T) string { return fmt.Sprint(p) }\nfmt.Print(showT(&T{}))", fmt.Sprint(&fmtT{})},
		{"Printf %v %s", "fmt.Printf(\"%v|%s\\n\", &T{}, &E{})", fmt.Sprintf("%v|%s\n", &fmtT{}, &fmtE{})},
		{"Sprintf %q", "fmt.Print(fmt.Sprintf(\"%q\", &T{}))", fmt.Sprintf("%q", &fmtT{})},
		{"pointer to a plain value", "fmt.Println(&plain{1})", fmt.Sprintln(&struct{ a int }{1})},
		{"pointer to an int", "n := 4\nfmt.Println(fmt.Sprint(&n) == fmt.Sprintf(\"%p\", &n))", "true\n"},
		{"pointer to an error variable", "var err error = fmt.Errorf(\"x\")\nfmt.Println(fmt.Sprint(&err) == fmt.Sprintf(\"%p\", &err))", "true\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}
