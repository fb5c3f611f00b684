package interp

import (
	"testing"
)

// TestErrorsFunctionValues uses errors.Is, errors.As and errors.Unwrap as function values (held
// in a variable, passed to a function) in a session with error types: each gives Go's answer
// or fails the cell with an explanation, as their calls do. Before wrap-errors rewrote such
// values they reached package errors directly, so f(e, e) of f := errors.Is answered false
// and errors.Unwrap as a value returned nil for a cell's error with an Unwrap method.
func TestErrorsFunctionValues(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, errorsSetup)
	const fails = "the interpreter hands such a value to compiled code"
	for _, c := range []struct{ name, code, want, err string }{
		{"Is in a variable", "f := errors.Is\ne := E{\"x\"}\nf(e, e)", "", fails},
		{"Is passed to a function", "apply := func(is func(error, error) bool) bool { return is(ErrBad, ErrBad) }\napply(errors.Is)", "", fails},
		{"Is in a declared variable", "var isFn func(error, error) bool = errors.Is\nisFn(W{io.EOF}, io.EOF)", "", fails},
		{"Is in a function", "func check(err error) bool {\n\tis := errors.Is\n\treturn is(err, ErrBad)\n}\ncheck(ErrBad)", "", fails},
		{"Unwrap in a variable", "u := errors.Unwrap\nu(W{io.EOF}) == io.EOF", "", fails},
		{"As in a variable", "as := errors.As\nvar ev E\nas(fmt.Errorf(\"x: %w\", ErrBad), &ev)", "", fails},
		// Go's answers where the helpers give them
		{"Is of compiled errors", "g := errors.Is\ng(fmt.Errorf(\"x: %w\", io.EOF), io.EOF)", "true", ""},
		{"Is, not found", "h := errors.Is\nh(io.EOF, sbi.ErrUntrained)", "false", ""},
		{"Unwrap of a compiled wrapper", "u2 := errors.Unwrap\nu2(fmt.Errorf(\"x: %w\", io.EOF)) == io.EOF", "true", ""},
		{"As into error", "as2 := errors.As\nvar ae error\nok := as2(fmt.Errorf(\"x: %w\", io.EOF), &ae)\nfmt.Sprint(ok, ae)", `"true x: EOF"`, ""},
		{"a slice of them", "fs := []func(error, error) bool{errors.Is}\nfs[0](io.EOF, io.EOF)", "true", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// TestErrorsFunctionValuesWithoutErrorTypes checks that a session without error types keeps
// errors.Is as a value of package errors (wrap-errors does not apply there).
func TestErrorsFunctionValuesWithoutErrorTypes(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n)\nvar _ = fmt.Sprint")
	res := ts.mustRun(t, "f := errors.Is\nfmt.Sprint(f(fmt.Errorf(\"x: %w\", io.EOF), io.EOF), f(io.EOF, errors.ErrUnsupported))")
	if got := text(res); got != `"true false"` {
		t.Errorf("got %s, want \"true false\"", got)
	}
}
