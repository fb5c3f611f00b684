package interp

import "testing"

// TestSyntaxErrorAtItemEnd checks the errors of a statement that ends too soon: the session
// parses a statement inside a function it wraps around it, and the error names what follows
// the statement in the cell (its end, an explicit semicolon), not the wrapper's closing brace,
// at the position right after the statement.
func TestSyntaxErrorAtItemEnd(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"y := 1 +", "cell [1] line 1:9: expected operand, found 'EOF'"},
		{"import \"fmt\"\nfmt.Println(", "cell [1] line 2:13: expected operand, found 'EOF'"},
		{"x := 1; y := 1 +", "cell [1] line 1:17: expected operand, found 'EOF'"},
		{"y := 1 +; z := 2", "cell [1] line 1:9: expected operand, found ';'"},
		{"var v = 1 +; z := 2", "cell [1] line 1:12: expected operand, found ';'"},
		{"if true {\n\tw := 1 +\n}", "cell [1] line 3:1: expected operand, found '}'"},
	} {
		ts := newTestSession(t)
		res := ts.run(c.code)
		if res.Err == nil || res.Err.Value != c.want {
			t.Errorf("%q: got %v, want %q", c.code, res.Err, c.want)
		}
	}
}
