package interp

import (
	"io"
	"strings"
	"testing"
)

// errorsSetup declares error types of a session: E (value receiver) with the sentinel ErrBad,
// P (pointer receiver), W, which wraps an error with Unwrap, M, which wraps several, and C,
// with its own Is method.
const errorsSetup = "import (\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n\n\t\"github.com/gosbi/gosbi/sbi\"\n)\n" +
	"type E struct{ msg string }\nfunc (e E) Error() string { return e.msg }\n" +
	"var ErrBad = E{\"bad\"}\n" +
	"type P struct{ code int }\nfunc (p *P) Error() string { return fmt.Sprint(\"code \", p.code) }\n" +
	"type W struct{ err error }\nfunc (w W) Error() string { return \"w: \" + w.err.Error() }\nfunc (w W) Unwrap() error { return w.err }\n" +
	"type M struct{ errs []error }\nfunc (m M) Error() string { return \"m\" }\nfunc (m M) Unwrap() []error { return m.errs }\n" +
	"type C struct{}\nfunc (C) Error() string { return \"c\" }\nfunc (C) Is(t error) bool { return t == io.EOF }\n" +
	"var _ = sbi.NPEConfig{}"

// TestErrorsOfCellTypes runs errors.Is, errors.As and errors.Unwrap on values of a cell's error
// types in every form: each either gives Go's answer or fails the cell with an explanation,
// and none gives a wrong answer. Before the rewrite wrap-errors, errors.Is(e, e) was false and
// errors.Is on a chain with a cell's Unwrap or Is method did not follow it.
func TestErrorsOfCellTypes(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, errorsSetup)
	const fails = "the interpreter hands such a value to compiled code"
	for _, c := range []struct{ name, code, want, err string }{
		// Go's answer through compiled values
		{"compiled sentinel wrapped by fmt", "errors.Is(fmt.Errorf(\"x: %w\", io.EOF), io.EOF)", "true", ""},
		{"compiled sentinel, cell error in the chain", "errors.Is(errors.Join([]error{E{\"a\"}, io.EOF}...), io.EOF)", "true", ""},
		{"cell sentinel, compiled chain", "errors.Is(fmt.Errorf(\"x: %w\", io.EOF), ErrBad)", "false", ""},
		{"library error, cell sentinel", "errors.Is(sbi.ErrUntrained, ErrBad)", "false", ""},
		{"nil error", "var ne error\nerrors.Is(ne, ErrBad)", "false", ""},
		{"As into error", "var ae error\nok := errors.As(fmt.Errorf(\"x: %w\", io.EOF), &ae)\nfmt.Sprint(ok, ae)", `"true x: EOF"`, ""},
		{"Unwrap of a compiled wrapper", "errors.Unwrap(fmt.Errorf(\"x: %w\", io.EOF)) == io.EOF", "true", ""},
		// the forms the interpreter cannot answer: the cell fails
		{"sentinel value", "errors.Is(ErrBad, ErrBad)", "", fails},
		{"same variable", "e := E{\"x\"}\nerrors.Is(e, e)", "", fails},
		{"pointer error", "p := &P{1}\nerrors.Is(p, p)", "", fails},
		{"wrapped once", "errors.Is(fmt.Errorf(\"x: %w\", ErrBad), ErrBad)", "", fails},
		{"wrapped twice", "errors.Is(fmt.Errorf(\"y: %w\", fmt.Errorf(\"x: %w\", ErrBad)), ErrBad)", "", fails},
		{"joined", "errors.Is(errors.Join([]error{io.EOF, ErrBad}...), ErrBad)", "", fails},
		{"cell Unwrap", "errors.Is(W{io.EOF}, io.EOF)", "", fails},
		{"cell Unwrap of several", "errors.Is(M{[]error{io.EOF}}, io.EOF)", "", fails},
		{"cell Is method", "errors.Is(C{}, io.EOF)", "", fails},
		{"library error wrapped by a cell's error", "errors.Is(W{sbi.ErrUntrained}, sbi.ErrUntrained)", "", fails},
		{"As into a value type", "var ev E\nerrors.As(fmt.Errorf(\"x: %w\", ErrBad), &ev)", "", fails},
		{"As into a pointer type", "var pv *P\nerrors.As(fmt.Errorf(\"x: %w\", &P{2}), &pv)", "", fails},
		{"As through a cell Unwrap", "var ae2 error\nerrors.As(W{io.EOF}, &ae2)", "true", ""},
		{"Unwrap of a cell error", "errors.Unwrap(W{io.EOF}) == io.EOF", "", fails},
		{"As into an int", "var n int\nerrors.As(io.EOF, &n)", "", "errors: *target must be interface or implement error"},
		{"As into a string", "var str string\nerrors.As(ErrBad, &str)", "", "errors: *target must be interface or implement error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// TestErrorsOfCellTypesErrorfLeft checks that a chain whose fmt.Errorf got a cell's value bare
// (a format that is no string literal, which wrap-fmt-args leaves) fails the cell instead of
// answering false.
func TestErrorsOfCellTypesErrorfLeft(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, errorsSetup)
	res := ts.run("format := \"x: %w\"\nerrors.Is(fmt.Errorf(format, ErrBad), ErrBad)")
	if res.Err == nil || !strings.Contains(res.Err.Value, "fmt.Errorf got without its methods") {
		t.Errorf("result %s, error %v: want the cell to fail with an explanation", text(res), res.Err)
	}
}

// TestErrorsOfEmbeddingTypes runs errors.Is, errors.Unwrap, type assertions and switches on a
// cell's error type that gets its method Error by embedding an error, in a session with no
// method Error declared: each gives Go's answer or fails the cell. Before such types counted
// as error types, errors.Is(e, e) was false and a switch on a returned error took no case.
// The helpers of wrap-errors fail every call on such a value, with yaegi's message.
func TestErrorsOfEmbeddingTypes(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n)\ntype MyErr struct{ error }\n"+
		"func mk() error { return MyErr{io.EOF} }\nvar _ = errors.New\nvar _ = fmt.Sprint")
	// The session's helpers get the value as an error, which yaegi cannot make of a struct
	// with an embedded interface: the cell fails where errors.Is answered false.
	const embedded = "StructOf does not support methods of embedded interfaces"
	for _, c := range []struct{ name, code, want, err string }{
		{"Is of itself", "e := MyErr{io.EOF}\nerrors.Is(e, e)", "", embedded},
		{"Is of the embedded error", "errors.Is(MyErr{io.EOF}, io.EOF)", "", embedded},
		{"Is of a compiled chain", "errors.Is(fmt.Errorf(\"x: %w\", io.EOF), io.EOF)", "true", ""},
		{"Unwrap", "errors.Unwrap(MyErr{io.EOF}) == nil", "", embedded},
		{"switch on a returned error", "s := \"none\"\nswitch mk().(type) {\ncase MyErr:\n\ts = \"MyErr\"\n}\ns", "", "cannot tell the type of this value"},
		{"kept in any", "var a any = MyErr{io.EOF}\n_, ok := a.(MyErr)\nok", "true", ""},
		// wrap-fmt-args gives fmt the embedded error's text where the cell shows the operand's
		// type; a value held in an any prints with yaegi's panic (the limit that package interp
		// documents); its Error, called in the cell, gives Go's text.
		{"Sprint", "fmt.Sprint(MyErr{io.EOF})", `"EOF"`, ""},
		{"Sprintf %v of a variable", "e := MyErr{io.EOF}\nfmt.Sprintf(\"%v\", e)", `"EOF"`, ""},
		{"Sprint of an any", "var a any = MyErr{io.EOF}\nfmt.Sprint(a)", `"` + structOfPanic + `"`, ""},
		{"Sprint of Error", "fmt.Sprint(MyErr{io.EOF}.Error())", `"EOF"`, ""},
		{"Sprint of other values", "fmt.Sprint(1, \"x\", io.EOF)", `"1xEOF"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// structOfPanic is how fmt prints a value of a cell's type that embeds an interface.
const structOfPanic = "%!v(PANIC=Error method: reflect: StructOf does not support methods of embedded interfaces)"

// countedError looks to errorsIs like the interpreter's wrapper of a cell's error (a struct
// whose name starts with _ and whose first field is IValue), and counts the calls of Error.
type _countedError struct {
	IValue any
	calls  *int
}

func (e _countedError) Error() string { *e.calls++; return "counted" }

// TestErrorsIsDescribesTargetOnAHit: errorsIs calls the target's Error (an interpreted call
// for a cell's error) only when the chain of err holds a cell's error, not on every miss.
func TestErrorsIsDescribesTargetOnAHit(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		chain bool
	}{
		{"nil error", nil, false},
		{"nil error, chain", nil, true},
		{"compiled error", io.EOF, false},
		{"compiled error, chain", io.ErrUnexpectedEOF, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			if errorsIs(c.err, _countedError{calls: &calls}, c.chain) {
				t.Errorf("errorsIs(%v) = true, want false", c.err)
			}
			if calls != 0 {
				t.Errorf("errorsIs(%v) called the target's Error %d times, want none", c.err, calls)
			}
		})
	}
}

// TestErrorsAsOfNonStructCellTypes runs errors.As with a target of a type that does not
// implement error to the interpreter: an int, or a cell's error type declared as a
// predeclared type, which the interpreter knows as that type. Where the session declares an
// error type as the target's type, the message explains that first; otherwise it is Go's.
// Before wrap-errors passed those types, every message began with Go's wording about a pointer
// to int, false for a cell's type whose Error makes Go accept it, and a plain int named a cell's
// type.
func TestErrorsAsOfNonStructCellTypes(t *testing.T) {
	const goWording = "errors: *target must be interface or implement error"
	const codes = "import (\n\t\"errors\"\n\t\"io\"\n)\nvar _, _ = errors.New, io.EOF\n" +
		"type Code int\nfunc (c Code) Error() string { return \"code\" }\n" +
		"type (\n\tName string\n\tSub Code\n)\nfunc (Name) Error() string { return \"name\" }\nfunc (Sub) Error() string { return \"sub\" }"
	for _, c := range []struct {
		name, setup, code string
		prefix            string // what the message starts with
		notWant           string // what it must not say
	}{
		{"Code int", codes, "var c Code\nerrors.As(io.EOF, &c)", "errors.As cannot find a value of Code or Sub, ", ""},
		{"Name string", codes, "var s Name\nerrors.As(io.EOF, &s)", "errors.As cannot find a value of Name, ", ""},
		{"declared as a cell's type", codes, "var x Sub\nerrors.As(io.EOF, &x)", "errors.As cannot find a value of Code or Sub, ", ""},
		{"int beside Code", codes, "var n int\nerrors.As(io.EOF, &n)", "errors.As cannot find a value of Code or Sub, ", ""},
		{"float64 beside Code", codes, "var f float64\nerrors.As(io.EOF, &f)", goWording, "cell"},
		{"int", errorsSetup, "var n int\nerrors.As(io.EOF, &n)", goWording, "cell"},
		{"string", errorsSetup, "var str string\nerrors.As(ErrBad, &str)", goWording, "cell"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, c.setup)
			res := ts.run(c.code)
			if res.Err == nil {
				t.Fatalf("%q: got %s, want the cell to fail", c.code, text(res))
			}
			msg := res.Err.Value
			if !strings.HasPrefix(msg, c.prefix) || !strings.Contains(msg, goWording) {
				t.Errorf("%q: error %q, want it to start with %q and contain %q", c.code, msg, c.prefix, goWording)
			}
			if c.notWant != "" && strings.Contains(msg, c.notWant) {
				t.Errorf("%q: error %q says %q", c.code, msg, c.notWant)
			}
		})
	}
}
