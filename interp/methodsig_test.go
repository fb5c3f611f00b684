package interp

import (
	"fmt"
	"testing"
	"time"
)

// TestInterfaceAssertionsBySignature runs type assertions to interfaces in sessions whose types
// have methods named like the interface's but of other signatures. check-interface-assertions
// counted the methods' names, so it refused these cells (x.(fmt.Formatter) after type Ev
// struct{ time.Time; N int }, whose Format(layout string) string is no Formatter's) although
// Go and the interpreter both answer no; it counts a method only where its name and signature
// are the interface's. The rows below the relaxed ones stay refused, as the interpreter would
// answer them wrongly: among them methods spread over two types, which one value's type may
// combine (struct{ S; E }, a local type), methods declared through an alias or got through a
// generic instance, and compiled types embedded in a local or an unnamed struct type, which it
// answered no (Go: yes) when it counted one type at a time and only the declared types. A
// method whose signature it cannot resolve (a parameter of an interface of the session, a
// generic receiver) still counts.
func TestInterfaceAssertionsBySignature(t *testing.T) {
	const refused = "may answer wrongly: the interpreter does not see the methods"
	for _, c := range []struct{ name, setup, code, want, err string }{
		// Go's answers, which the interpreter gives
		{"Time's Format is no Formatter", "type Ev struct {\n\ttime.Time\n\tN int\n}",
			"var x any = Ev{N: 1}\n_, ok := x.(fmt.Formatter)\nok", "false", ""},
		{"String of another signature", "type T struct{ a int }\nfunc (T) String(n int) string { return \"t\" }",
			"v := any(T{1})\n_, ok := v.(fmt.Stringer)\nok", "false", ""},
		{"String of a result of a session type", "type Name string\ntype T struct{ a int }\nfunc (T) String() Name { return \"t\" }",
			"v := any(T{1})\n_, ok := v.(fmt.Stringer)\nok", "false", ""},
		{"Read of another signature", "type R struct{ n int }\nfunc (R) Read() int { return 0 }",
			"v := any(R{1})\n_, ok := v.(io.Reader)\nok", "false", ""},
		{"pointer methods of other signatures", "type B struct {\n\tbytes.Buffer\n\tn int\n}",
			"var x any = &B{}\n_, ok := x.(interface{ Write(s string) })\nok", "false", ""},
		{"embedded interface of the session, other signature", "type Shape interface{ Area() int }\ntype Sq struct {\n\tShape\n\tn int\n}",
			"var x any = Sq{}\n_, ok := x.(interface{ Area() float64 })\nok", "false", ""},
		{"switch case of another signature", "type T struct{ a int }\nfunc (T) String(n int) string { return \"t\" }",
			"s := \"none\"\nswitch any(T{1}).(type) {\ncase fmt.Stringer:\n\ts = \"Stringer\"\n}\ns", `"none"`, ""},
		// answered wrongly by the interpreter: refused
		{"String() string", "type T struct{ a int }\nfunc (T) String() string { return \"t\" }",
			"v := any(T{1})\n_, ok := v.(fmt.Stringer)\nok", "", refused},
		{"pointer receiver", "type P struct{ a int }\nfunc (*P) String() string { return \"p\" }",
			"v := any(&P{1})\n_, ok := v.(fmt.Stringer)\nok", "", refused},
		{"embedded compiled Stringer", "type Dur struct {\n\ttime.Duration\n\tn int\n}",
			"var x any = Dur{time.Second, 2}\n_, ok := x.(fmt.Stringer)\nok", "", refused},
		{"Time's String", "type Ev struct {\n\ttime.Time\n\tN int\n}",
			"var x any = Ev{N: 1}\n_, ok := x.(fmt.Stringer)\nok", "", refused},
		{"pointer methods of *bytes.Buffer", "type B struct {\n\tbytes.Buffer\n\tn int\n}",
			"var x any = &B{}\n_, ok := x.(io.Writer)\nok", "", refused},
		{"interface embedded in an interface of the session", "type Rd interface{ io.Reader }\ntype S struct {\n\tRd\n\tn int\n}",
			"var x any = S{}\n_, ok := x.(io.Reader)\nok", "", refused},
		{"parameter of an interface of the session", "type H interface{ M() }\ntype T struct{ a int }\nfunc (T) Do(h H) {}",
			"v := any(T{1})\n_, ok := v.(interface{ Do(H) })\nok", "", refused},
		{"methods spread over two types", twoTypes,
			"v := any(S{1})\n_, ok := v.(interface {\n\tString() string\n\tError() string\n})\nok", "", refused},
		{"unnamed struct of two types", twoTypes,
			"var x any = struct {\n\tS\n\tE\n}{}\n_, ok := x.(interface {\n\tString() string\n\tError() string\n})\nok", "", refused},
		{"local type of two types", twoTypes,
			"func f() bool {\n\ttype L struct {\n\t\tS\n\t\tE\n\t}\n\tvar x any = L{}\n\t_, ok := x.(interface {\n\t\tString() string\n\t\tError() string\n\t})\n\treturn ok\n}\nf()", "", refused},
		{"method declared through an alias", twoTypes + "\ntype T struct{ a int }\ntype A = T\nfunc (A) Name() string { return \"a\" }\ntype U struct {\n\tT\n\tE\n}",
			"var x any = U{}\n_, ok := x.(interface {\n\tName() string\n\tError() string\n})\nok", "", refused},
		{"alias of a generic instance", twoTypes + "\ntype G[V any] struct{ v V }\nfunc (g G[V]) Name() string { return \"g\" }\ntype GI = G[int]\ntype U struct {\n\tGI\n\tE\n}",
			"var x any = U{}\n_, ok := x.(interface {\n\tName() string\n\tError() string\n})\nok", "", refused},
		{"type of a generic instance", twoTypes + "\ntype G[V any] struct {\n\ttime.Duration\n\tv V\n}\ntype T3 G[int]\ntype U struct {\n\tT3\n\tE\n}",
			"var x any = U{}\n_, ok := x.(interface {\n\tString() string\n\tError() string\n})\nok", "", refused},
		{"local type embedding a compiled type", "type P struct{ a int }",
			"func f() bool {\n\ttype L struct {\n\t\ttime.Duration\n\t\tn int\n\t}\n\tvar x any = L{}\n\t_, ok := x.(fmt.Stringer)\n\treturn ok\n}\nf()", "", refused},
		{"unnamed struct embedding a compiled type", "type P struct{ a int }",
			"var x any = struct {\n\ttime.Duration\n\tn int\n}{}\n_, ok := x.(fmt.Stringer)\nok", "", refused},
		{"field of an unnamed struct type embedding a compiled type", "type P struct {\n\tf struct {\n\t\ttime.Duration\n\t\tn int\n\t}\n}",
			"var x any = P{}.f\n_, ok := x.(fmt.Stringer)\nok", "", refused},
		{"generic receiver", "type G[V any] struct{ v V }\nfunc (g G[V]) String() V { return g.v }",
			"v := any(G[string]{\"g\"})\n_, ok := v.(fmt.Stringer)\nok", "", refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup)
			ts.mustRun(t, c.setup)
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// twoTypes declares a type with a method String and another with a method Error.
const twoTypes = "type S struct{ a int }\nfunc (S) String() string { return \"s\" }\ntype E struct{ b int }\nfunc (E) Error() string { return \"e\" }"

// sigEv is the compiled counterpart of the cell's type of TestPromotedPrintDeclaredSignature.
type sigEv struct {
	time.Time
	N int
}

func (sigEv) Format(layout string) string { return "own" }

// TestPromotedPrintDeclaredSignature prints a value whose type declares a method named like
// one of fmt's with another signature: it is none that fmt calls, and it hides the method of
// the name deeper down, so fmt calls the String promoted from the embedded time.Time.
// wrap-fmt-args knew the declared methods by name only, so the declared Format kept it from
// passing fmt the embedded field, and the interpreter printed the fields.
func TestPromotedPrintDeclaredSignature(t *testing.T) {
	ev := sigEv{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}
	verbs := "%v|%s|%d\n" // a variable, as vet rejects %d of a struct of a Stringer
	ts := newTestSession(t)
	ts.mustRun(t, promotedSetup)
	ts.mustRun(t, "type Ev struct {\n\ttime.Time\n\tN int\n}\nfunc (Ev) Format(layout string) string { return \"own\" }")
	ts.out.Reset()
	code := "e := Ev{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}\nfmt.Printf(\"%v|%s|%d\\n\", e, e, e)"
	ts.mustRun(t, code)
	if got, want := ts.out.String(), fmt.Sprintf(verbs, ev, ev, ev); got != want {
		t.Errorf("%q: printed %q, want %q", code, got, want)
	}
}

// TestInterfaceAssertionErrorNamesTypes reads the error of check-interface-assertions: it
// names, for each of the interface's methods, a type that may have it, that of a method
// declared in the cell on a parenthesized receiver (func (s (S)) String() string) or through
// an alias included, where it named the type "" or the alias.
func TestInterfaceAssertionErrorNamesTypes(t *testing.T) {
	for _, c := range []struct{ name, setup, code, want string }{
		{"parenthesized receiver of the cell", "type S struct{ a int }",
			"func (s (S)) String() string { return \"s\" }\nv := any(S{1})\n_, ok := v.(fmt.Stringer)\nok", "its methods String (S), so"},
		{"two types", twoTypes,
			"v := any(S{1})\n_, ok := v.(interface {\n\tString() string\n\tError() string\n})\nok", "its methods String (S), Error (E), so"},
		{"alias receiver", "type T struct{ a int }\ntype A = T\nfunc (A) String() string { return \"a\" }",
			"v := any(T{1})\n_, ok := v.(fmt.Stringer)\nok", "its methods String (T), so"},
		{"unnamed struct embedding a compiled type", "type P struct{ a int }",
			"var x any = struct {\n\ttime.Duration\n\tn int\n}{}\n_, ok := x.(fmt.Stringer)\nok", "its methods String (struct{time.Duration; n int}), so"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup)
			ts.mustRun(t, c.setup)
			judgeCell(t, c.code, ts.run(c.code), "", c.want)
		})
	}
}

// aliasEvP is the compiled counterpart of a cell's type of TestPromotedPrintAliasReceiver.
type aliasEvP struct {
	time.Time
	N int
}

func (*aliasEvP) String() string { return "own" }

// TestPromotedPrintAliasReceiver prints a value of a type that embeds a time.Time and has a
// method String declared through an alias of it (type A = Ev; func (A) String() string), which
// is the type's own: fmt calls it, or, declared on a pointer, calls neither it nor the
// time.Time's, which it hides. wrap-fmt-args looked for the type's methods under its own name
// only, so it passed fmt the embedded time.Time, which printed the time.
func TestPromotedPrintAliasReceiver(t *testing.T) {
	ev := aliasEvP{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}
	verbs := "%v|%s\n" // a variable, as vet rejects %s of an int field
	for _, c := range []struct{ name, method, want string }{
		{"String", "func (A) String() string { return \"own\" }", "own|own\n"},
		{"pointer String", "func (a *A) String() string { return \"own\" }", fmt.Sprintf(verbs, ev, ev)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup)
			ts.mustRun(t, "type Ev struct {\n\ttime.Time\n\tN int\n}\ntype A = Ev\n"+c.method)
			ts.out.Reset()
			code := "e := Ev{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}\nfmt.Printf(\"%v|%s\\n\", e, e)"
			ts.mustRun(t, code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q: printed %q, want %q", code, got, c.want)
			}
		})
	}
}
