package interp

import (
	"fmt"
	"testing"
	"time"
)

// TestInterfaceAssertionsBySignature runs type assertions to interfaces in sessions whose types
// have methods named like the interface's but of other signatures, or spread over several
// types. check-interface-assertions counted the methods' names over all the session's types,
// so it refused these cells (x.(fmt.Formatter) after type Ev struct{ time.Time; N int }, whose
// Format(layout string) string is no Formatter's) although Go and the interpreter both answer
// no; it now counts a type only when the methods of a pointer to it (a value's are among them)
// have the interface's names and signatures. A method whose signature it cannot resolve (a
// parameter of an interface of the session, a generic receiver) still counts, and the rows
// below the relaxed ones stay refused, as the interpreter would answer them wrongly.
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
		{"methods spread over two types",
			"type S struct{ a int }\nfunc (S) String() string { return \"s\" }\ntype E struct{ b int }\nfunc (E) Error() string { return \"e\" }",
			"v := any(S{1})\n_, ok := v.(interface {\n\tString() string\n\tError() string\n})\nok", "false", ""},
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
