package rewrite

import (
	"regexp"
	"testing"
)

// lineDirective matches the line directives that keep a rewritten unit's positions.
var lineDirective = regexp.MustCompile(`/\*line [^*]*\*/`)

// TestWrapFmtFormatOperands checks which operands of fmt's functions with a format
// wrap-fmt-args wraps: those of the verbs for which fmt calls String or Error, after
// following flags, widths, precisions, * and %%, and none of a call whose format is no string
// literal or has an explicit argument index.
func TestWrapFmtFormatOperands(t *testing.T) {
	env := Env{
		PackagePath:  func(name string) string { return map[string]string{"fmt": "fmt"}[name] },
		PrintMethods: func() (bool, bool) { return true, false },
	}
	const w = FmtArgName
	for _, c := range []struct{ in, want string }{
		{`fmt.Printf("%v %s %q %x %X %+v", a, b, c, d, e, f)`,
			`fmt.Printf("%v %s %q %x %X %+v", ` + w + `(a), ` + w + `(b), ` + w + `(c), ` + w + `(d), ` + w + `(e), ` + w + `(f))`},
		{`fmt.Printf("%d %t %f %T %p %c %U %b %o %e %g %z", a, b, c, d, e, f, g, h, i, j, k, l)`,
			`fmt.Printf("%d %t %f %T %p %c %U %b %o %e %g %z", a, b, c, d, e, f, g, h, i, j, k, l)`},
		{`fmt.Printf("%#v %#s %#x %#q", a, b, c, d)`, `fmt.Printf("%#v %#s %#x %#q", a, ` + w + `(b), ` + w + `(c), ` + w + `(d))`},
		{`fmt.Printf("%-8s|%08.3v|% x", a, b, c)`, `fmt.Printf("%-8s|%08.3v|% x", ` + w + `(a), ` + w + `(b), ` + w + `(c))`},
		{`fmt.Printf("%*s %.*v %-*.*q", n, a, p, b, n, p, c)`,
			`fmt.Printf("%*s %.*v %-*.*q", n, ` + w + `(a), p, ` + w + `(b), n, p, ` + w + `(c))`},
		{`fmt.Printf("%% %-5% %v", a)`, `fmt.Printf("%% %-5% %v", ` + w + `(a))`},
		{`fmt.Printf("%v", a, b, c)`, `fmt.Printf("%v", ` + w + `(a), b, c)`},
		{`fmt.Printf("%v %s %d", a)`, `fmt.Printf("%v %s %d", ` + w + `(a))`},
		{`fmt.Printf("%v %", a, b)`, `fmt.Printf("%v %", ` + w + `(a), b)`},
		{`fmt.Printf("%v %.", a, b)`, `fmt.Printf("%v %.", ` + w + `(a), b)`},
		{"fmt.Printf(`%v|%d`, a, b)", "fmt.Printf(`%v|%d`, " + w + "(a), b)"},
		{`fmt.Printf("%v\u00e9%s", a, b)`, `fmt.Printf("%v\u00e9%s", ` + w + `(a), ` + w + `(b))`},
		{`fmt.Printf("%é%v", a, b)`, `fmt.Printf("%é%v", a, ` + w + `(b))`},
		{`s := fmt.Sprintf("%v", f())`, `s := fmt.Sprintf("%v", ` + w + `(f()))`},
		{`fmt.Fprintf(w, "%v", a)`, `fmt.Fprintf(w, "%v", ` + w + `(a))`},
		{`err := fmt.Errorf("%w: %v", a, b)`, `err := fmt.Errorf("%w: %v", ` + w + `(a), ` + w + `(b))`},
		{`fmt.Printf("%w %#w", a, b)`, `fmt.Printf("%w %#w", a, b)`},
		{`err := fmt.Errorf("%#w", a)`, `err := fmt.Errorf("%#w", a)`},
		{`fmt.Printf(format, a)`, `fmt.Printf(format, a)`},
		{`fmt.Printf("%v"+"%v", a, b)`, `fmt.Printf("%v"+"%v", a, b)`},
		{`fmt.Printf("%[1]v %v", a)`, `fmt.Printf("%[1]v %v", a)`},
		{`fmt.Printf("%v %*[2]v", a, b)`, `fmt.Printf("%v %*[2]v", a, b)`},
		{`fmt.Printf("%v %.[2]*v", a, b)`, `fmt.Printf("%v %.[2]*v", a, b)`},
		{`fmt.Printf("%v %3[1]v", a)`, `fmt.Printf("%v %3[1]v", a)`},
		{`fmt.Printf("%v [1] %%[1]", a)`, `fmt.Printf("%v [1] %%[1]", ` + w + `(a))`},
		{`fmt.Printf("%v %v", a, nil)`, `fmt.Printf("%v %v", ` + w + `(a), nil)`},
		{`fmt.Printf("%s", "x")`, `fmt.Printf("%s", "x")`},
		{`fmt.Printf("%v", a...)`, `fmt.Printf("%v", a...)`},
	} {
		got, err := wrapFmtArgs.Rewrite(env, Unit{Kind: Stmt, Text: c.in, Line: 1, Col: 1})
		got = lineDirective.ReplaceAllString(got, "")
		if err != nil || got != c.want {
			t.Errorf("%s: rewritten %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestWrapFmtLocalShadow: a parameter or local variable named fmt shadows the package inside
// its function; the pass knew only the cell's top-level names and wrapped the operands of the
// user's own Println there.
func TestWrapFmtLocalShadow(t *testing.T) {
	env := Env{
		PackagePath:  func(name string) string { return map[string]string{"fmt": "fmt"}[name] },
		PrintMethods: func() (bool, bool) { return true, false },
	}
	const w = FmtArgName
	for _, c := range []struct {
		kind     Kind
		in, want string
	}{
		{Decl, "func f(fmt printer, t T) { fmt.Println(t) }", "func f(fmt printer, t T) { fmt.Println(t) }"},
		{Decl, "func f(t T) { fmt := printer{}; fmt.Println(t) }", "func f(t T) { fmt := printer{}; fmt.Println(t) }"},
		{Stmt, "g := func(fmt printer) { fmt.Println(t) }", "g := func(fmt printer) { fmt.Println(t) }"},
		{Decl, "func f(t T) { fmt.Println(t) }", "func f(t T) { fmt.Println(" + w + "(t)) }"},
		{Decl, "func f(t T) { { fmt := 1; _ = fmt }; fmt.Println(t) }", "func f(t T) { { fmt := 1; _ = fmt }; fmt.Println(" + w + "(t)) }"},
	} {
		got, err := wrapFmtArgs.Rewrite(env, Unit{Kind: c.kind, Text: c.in, Line: 1, Col: 1})
		got = lineDirective.ReplaceAllString(got, "")
		if err != nil || got != c.want {
			t.Errorf("%s: rewritten %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
