package rewrite

import "testing"

// TestEmptySwitch checks that empty-switch runs a switch without clauses as a block of its
// init statement and tag, and leaves a switch with clauses and a type switch that declares a
// variable.
func TestEmptySwitch(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"switch x = 5; {\n}", "{ x = 5; }"},
		{"switch x = 5; f(x) {\n}", "{ x = 5; _ = f(x) }"},
		{"switch f() {}", "{ _ = f() }"},
		{"switch {}", "{ }"},
		{"switch x = 5; a.(type) {\n}", "{ x = 5; _ = a }"},
		{"if ok {\n\tswitch x = 5; {\n\t}\n}", "if ok {\n\t{ x = 5; }\n}"},
		// left as written
		{"switch x = 5; {\ndefault:\n}", ""},
		{"switch v := a.(type) {\n}", ""},
	} {
		checkRewrite(t, emptySwitch, Env{}, c.in, c.want)
	}
}

// TestCanaryEmptySwitch checks that the interpreter still skips the init statement of a switch
// without clauses, and that the switch rewritten by empty-switch runs it.
func TestCanaryEmptySwitch(t *testing.T) {
	const sw = "func five() int {\n\tx := 0\n\tswitch x = 5; {\n\t}\n\treturn x\n}"
	got, err := evalInt(t, newInterp(t), sw, "five()")
	if err == nil && got == 5 {
		t.Errorf("yaegi now runs the init statement of a switch without clauses: drop pass %s (%s)", emptySwitch.Name, emptySwitch.Issue)
	}
	got, err = evalInt(t, newInterp(t), rewritten(t, emptySwitch, Env{}, Decl, sw), "five()")
	if err != nil || got != 5 {
		t.Errorf("rewritten: five() = %d, %v; want 5", got, err)
	}
}
