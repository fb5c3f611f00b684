package rewrite

import (
	"strings"
	"testing"
)

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

// TestRepeatPastMaxSteps checks that a pass that rewrites one statement at a time fails a unit
// that holds more such statements than maxSteps, rather than leaving the rest as the
// interpreter would run them, and rewrites every one up to it.
func TestRepeatPastMaxSteps(t *testing.T) {
	defer func(n int) { maxSteps = n }(maxSteps)
	maxSteps = 10
	switches := func(n int) string {
		return "func f() {\n" + strings.Repeat("\tswitch x = 5; {\n\t}\n", n) + "}"
	}
	text, err := emptySwitch.Rewrite(Env{}, Unit{Kind: Decl, Text: switches(maxSteps), Line: 1, Col: 1})
	if err != nil || strings.Contains(text, "switch") {
		t.Errorf("%d switches: error %v, text %q; want every switch rewritten", maxSteps, err, text)
	}
	if _, err := emptySwitch.Rewrite(Env{}, Unit{Kind: Decl, Text: switches(maxSteps + 1), Line: 1, Col: 1}); err == nil || !strings.Contains(err.Error(), "more than 10 statements") {
		t.Errorf("%d switches: error %v, want one saying the part has more than %d statements to rewrite", maxSteps+1, err, maxSteps)
	}
}
