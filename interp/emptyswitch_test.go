package interp

import "testing"

// TestEmptySwitch runs switch statements without clauses, whose init statement and tag Go
// runs. Each want is what compiled Go printed; before empty-switch the interpreter ran neither
// and every row up to "a clause" gave 0.
func TestEmptySwitch(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "x := 0\nvar a any = 1\nset := func() int { x = 7; return 1 }")
	for _, c := range []struct{ name, code, want string }{
		{"init", "x = 0\nswitch x = 5; {\n}\nx", "5"},
		{"init and tag", "x = 0\nswitch x = 5; x {\n}\nx", "5"},
		{"tag", "x = 0\nswitch set() {\n}\nx", "7"},
		{"type switch", "x = 0\nswitch x = 5; a.(type) {\n}\nx", "5"},
		{"in a function", "x = 0\nfunc() {\n\tswitch x = 5; {\n\t}\n}()\nx", "5"},
		// the interpreter ran it as Go already
		{"a clause", "x = 0\nswitch x = 5; {\ndefault:\n}\nx", "5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := text(ts.mustRun(t, c.code)); got != c.want {
				t.Errorf("%q = %s, want %s", c.code, got, c.want)
			}
		})
	}
}
