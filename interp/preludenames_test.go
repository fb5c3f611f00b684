package interp

import (
	"fmt"
	"testing"
)

// TestPreludeTypeParamNames declares types named as the type parameters of the session's
// generic helpers once were (X, T): before they were renamed, every fmt.Println of a session
// with a type X that has a String method failed with "undefined type for X", and min and max
// after a type T failed the same way.
func TestPreludeTypeParamNames(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\ntype X struct{ a int }\nfunc (X) String() string { return \"hi\" }\ntype T struct{ b int }\n"+
		"type E struct{}\nfunc (E) Error() string { return \"boom\" }")
	for _, c := range []struct{ code, want string }{
		{"fmt.Println(X{}, &X{}, E{})", fmt.Sprintln(fmtT{}, &fmtT{}, fmtE{})},
		{"a, b, x, y := 3, 2, 2.5, 1.0\nfmt.Println(min(a, b), max(x, y))", fmt.Sprintln(2, 2.5)},
	} {
		ts.out.Reset()
		ts.mustRun(t, c.code)
		if got := ts.out.String(); got != c.want {
			t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
		}
	}
}
