package explain

import (
	"strings"
	"testing"
)

// TestBareValueAdvice checks that the note on a cell's value that reached a compiled
// interface bare advises only what works for its form: a variable declared with the interface
// type works for an interface other than error, and is itself what fails for error (the
// interpreter holds a cell's value bare in a variable of type error); a variadic parameter
// takes a slice literal.
func TestBareValueAdvice(t *testing.T) {
	for _, c := range []struct {
		msg          string
		want, forbid []string
	}{
		{"reflect.Set: value of type struct { Xn int } is not assignable to type sbi.Embedding",
			[]string{"declare it first, var v sbi.Embedding = value", "cfg.Field = value"}, nil},
		{"reflect: cannot use struct {} as type error in Call",
			[]string{"pass a slice literal, f([]error{value}...)", "e := T{…}"}, []string{"var v error = value"}},
		{"reflect: Call using struct {} as type error",
			[]string{"not var e error = value", "e := T{…}"}, []string{"var v error = value"}},
		{"reflect.Set: value of type struct {} is not assignable to type error",
			[]string{"not var e error = value"}, []string{"var v error = value"}},
		{"reflect: cannot use *struct { Xn int } as type sbi.Embedding in Call",
			[]string{"variadic parameter", "pass a slice literal, f([]sbi.Embedding{value}...)"}, []string{"var v sbi.Embedding = value"}},
	} {
		f := &Failure{Msg: c.msg}
		bareValue.Explain(Env{}, f)
		for _, w := range c.want {
			if !strings.Contains(f.Note, w) {
				t.Errorf("%s: note %q does not say %q", c.msg, f.Note, w)
			}
		}
		for _, w := range c.forbid {
			if strings.Contains(f.Note, w) {
				t.Errorf("%s: note %q advises %q, which fails for this form", c.msg, f.Note, w)
			}
		}
	}
}
