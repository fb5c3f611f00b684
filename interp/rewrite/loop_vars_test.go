package rewrite

import (
	"strings"
	"testing"
)

// TestLoopVars checks which loops loop-vars rewrites and how: a loop whose body changes its
// first variable gets the declaration in a block around it, a loop whose variables a closure
// or an address also captures gets variables of each iteration, and loops the interpreter runs
// as Go (no change in the body, no init declaration, a range loop, a captured variable that
// the interpreter copies and the body does not change) are left.
func TestLoopVars(t *testing.T) {
	const each = "{ _gosbiLVP1_1_0 := &i; i := i; _gosbiLVQ1_1_0 := &i; {"
	const back = "}; *_gosbiLVP1_1_0 = *_gosbiLVQ1_1_0 }"
	for _, c := range []struct{ in, want string }{
		{"for i := 0; i < 10; i++ {\n\ti++\n}", "{ i := 0; for ; i < 10; i++ {\n\ti++\n} }"},
		{"for i := 0; i < 10; i++ {\n\ti += 2\n}", "{ i := 0; for ; i < 10; i++ {\n\ti += 2\n} }"},
		{"for i := 0; i < 10; i++ {\n\ti, x = 1, 2\n}", "{ i := 0; for ; i < 10; i++ {\n\ti, x = 1, 2\n} }"},
		{"for p := (P{}); p.n < 3; p.n++ {\n\tp.n++\n}", "{ p := (P{}); for ; p.n < 3; p.n++ {\n\tp.n++\n} }"},
		{"for k := (C{}); k.n < 3; k.n++ {\n\tk.Inc()\n}", "{ k := (C{}); for ; k.n < 3; k.n++ {\n\tk.Inc()\n} }"},
		{"for i := 0; i < 10; i++ {\n\ti := 5\n\t_ = i\n}", "{ i := 0; for ; i < 10; i++ {\n\ti := 5\n\t_ = i\n} }"},
		{"L:\n\tfor i := 0; i < 10; i++ {\n\t\ti++\n\t\tcontinue L\n\t}", "{ i := 0; L:\n\tfor ; i < 10; i++ {\n\t\ti++\n\t\tcontinue L\n\t} }"},
		{"for i := 0; i < 3; i++ {\n\tfor j := 0; j < 3; j++ {\n\t\ti++\n\t}\n}", "{ i := 0; for ; i < 3; i++ {\n\tfor j := 0; j < 3; j++ {\n\t\ti++\n\t}\n} }"},
		{"func f() {\n\tfor i := 0; i < 3; i++ {\n\t\ti++\n\t}\n}", "func f() {\n\t{ i := 0; for ; i < 3; i++ {\n\t\ti++\n\t} }\n}"},
		// captured: variables of each iteration, continue writes them back
		{"for i := 0; i < 6; i++ {\n\tf(func() int { return i })\n\ti++\n}",
			"{ i := 0; for ; i < 6; i++ " + each + "\n\tf(func() int { return i })\n\ti++\n" + back + " }"},
		{"for i := 0; i < 6; i++ {\n\tp := &i\n\tif *p > 2 {\n\t\tcontinue\n\t}\n\tfor {\n\t\tcontinue\n\t}\n}",
			"{ i := 0; for ; i < 6; i++ " + each + "\n\tp := &i\n\tif *p > 2 {\n\t\t{ *_gosbiLVP1_1_0 = *_gosbiLVQ1_1_0; continue }\n\t}\n\tfor {\n\t\tcontinue\n\t}\n" + back + " }"},
		{"for i := 0; i < 3; {\n\tf(func() int { return i })\n\ti++\n}",
			"{ i := 0; for ; i < 3; " + each + "\n\tf(func() int { return i })\n\ti++\n" + back + " }"},
		// left as written
		{"for i := 0; i < 10; i++ {\n\tn += i\n}", ""},
		{"for i := 0; i < 10; i++ {\n\tf(func() int { return i })\n}", ""},
		{"for i := 0; i < 10; i++ {\n\tgo func() { use(i) }()\n}", ""},
		{"for i = 0; i < 10; i++ {\n\ti++\n}", ""},
		{"for i := 0; i < 10; {\n\ti++\n}", ""},
		{"for i := 0; ; i++ {\n\ti++\n}", ""},
		{"for i := range 10 {\n\ti++\n}", ""},
		{"for i, j := 0, 10; i < j; i, j = i+1, j-1 {\n\tj--\n}", ""},
		{"for i := 0; i < 10; i++ {\n\tfor i := 0; i < 3; i++ {\n\t}\n\tx := i\n\tx++\n}", ""},
		{"for i := 0; i < 10; i++ {\n\ts[i]++\n\t*p = i\n}", ""},
		{"for i := 0; i < 3 && ok(func() bool { return i > 0 }); i++ {\n\tn++\n}", ""},
	} {
		checkRewrite(t, loopVars, Env{}, c.in, c.want)
	}
}

// TestLoopVarsRefused checks the loops that loop-vars fails: a closure in the post statement
// that captures the variable the body changes, and a goto to the label of a loop it would
// rewrite.
func TestLoopVarsRefused(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"for i := 0; i < 3; f = func() int { return i } {\n\ti++\n}", "_.go:1:1: the interpreter cannot run this loop as Go does: a function literal in its condition or post statement captures the loop variable i"},
		{"func g() {\nL:\n\tfor i := 0; i < 3; i++ {\n\t\ti++\n\t}\n\tgoto L\n}", "_.go:3:2: the interpreter cannot run this loop as Go does, and the session cannot mend it because a goto jumps to its label L"},
	} {
		kind := Stmt
		if strings.HasPrefix(c.in, "func") {
			kind = Decl
		}
		_, err := loopVars.Rewrite(Env{}, Unit{Kind: kind, Text: c.in, Line: 1, Col: 1})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one starting %q", c.in, err, c.want)
		}
	}
}

// TestCanaryLoopVars checks that the interpreter still loses what the body of a three-clause
// loop does to its variable, and that the loop rewritten by loop-vars counts as Go does.
func TestCanaryLoopVars(t *testing.T) {
	const loop = "func count() int {\n\tn := 0\n\tfor i := 0; i < 10; i++ {\n\t\tif i%3 == 0 {\n\t\t\ti++\n\t\t}\n\t\tn++\n\t}\n\treturn n\n}"
	got, err := evalInt(t, newInterp(t), loop, "count()")
	if err == nil && got == 7 {
		t.Errorf("yaegi now keeps the body's changes of a loop variable: drop pass %s (%s)", loopVars.Name, loopVars.Issue)
	}
	got, err = evalInt(t, newInterp(t), rewritten(t, loopVars, Env{}, Decl, loop), "count()")
	if err != nil || got != 7 {
		t.Errorf("rewritten: count() = %d, %v; want 7", got, err)
	}
	const captured = "func caps() int {\n\tvar gs []func() int\n\tfor i := 0; i < 6; i++ {\n\t\tgs = append(gs, func() int { return i })\n\t\ti++\n\t}\n\treturn 100*gs[0]() + 10*gs[2]() + len(gs)\n}"
	got, err = evalInt(t, newInterp(t), rewritten(t, loopVars, Env{}, Decl, captured), "caps()")
	if err != nil || got != 153 {
		t.Errorf("rewritten: caps() = %d, %v; want 153 (1 3 5 3 in Go)", got, err)
	}
}

// TestLoopVarsMany checks that loop-vars mends every loop of a unit up to maxSteps and fails
// the unit past them rather than leaving a loop as the interpreter would run it.
func TestLoopVarsMany(t *testing.T) {
	defer func(n int) { maxSteps = n }(maxSteps)
	maxSteps = 20
	loops := func(n int) string {
		var b strings.Builder
		b.WriteString("func many() {\n")
		for range n {
			b.WriteString("\tfor i := 0; i < 3; i++ {\n\t\ti++\n\t}\n")
		}
		b.WriteString("}")
		return b.String()
	}
	text, err := loopVars.Rewrite(Env{}, Unit{Kind: Decl, Text: loops(maxSteps), Line: 1, Col: 1})
	if err != nil || strings.Count(text, "*/i := 0;") != maxSteps {
		t.Errorf("%d loops: %d rewritten, error %v; want all, no error", maxSteps, strings.Count(text, "*/i := 0;"), err)
	}
	if _, err := loopVars.Rewrite(Env{}, Unit{Kind: Decl, Text: loops(maxSteps + 1), Line: 1, Col: 1}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d loops: error %v, want one saying the cell has more statements than the session rewrites", maxSteps+1, err)
	}
}
