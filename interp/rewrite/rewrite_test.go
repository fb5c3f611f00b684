package rewrite

import (
	"strings"
	"testing"
)

// TestPipelineNamed checks that every pass says what it is and what it works around.
func TestPipelineNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Pipeline {
		if p.Name == "" || p.Issue == "" || p.Rewrite == nil || seen[p.Name] {
			t.Errorf("pass %q: want a unique name, an issue and a rewrite", p.Name)
		}
		seen[p.Name] = true
	}
}

// TestRun checks that Run applies the passes in order to every unit: a method value hoisted
// into a block, whose call value is then parenthesized and which then runs in a function
// literal (it defines a variable); and that it stops at the first error.
func TestRun(t *testing.T) {
	units := []Unit{
		{Kind: Stmt, Text: "f, n = t.Mul, g()", Line: 1100001, Col: 1},
		{Kind: Decl, Text: "var a, b = g(), 1", Line: 1100002, Col: 1},
		{Kind: Stmt, Text: "fmt.Println(n)", Line: 1100003, Col: 1},
	}
	if err := Run(Env{}, units); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"func() {\n//line _.go:1100001:1\n{ _gosbi_v1 := t.Mul; f, n = _gosbi_v1, (g()) }\n}()",
		"var a, b = (g()), 1",
		"fmt.Println(n)",
	}
	for i, u := range units {
		if got := StripPositions(u.Text); got != want[i] {
			t.Errorf("unit %d: %q, want %q", i, got, want[i])
		}
	}

	// a variable of an earlier unit, or of the session, is redeclared through a temporary
	units = []Unit{
		{Kind: Stmt, Text: "a := 1", Line: 1100001, Col: 1},
		{Kind: Decl, Text: "func s() {}", Line: 1100002, Col: 1},
		{Kind: Stmt, Text: "a, c := f(), 2", Line: 1100003, Col: 1},
		{Kind: Stmt, Text: "v, d := 3, 4", Line: 1100004, Col: 1},
		{Kind: Stmt, Text: "s, e := 5, 6", Line: 1100005, Col: 1},
	}
	env := Env{Cell: 7, IsVar: func(name string) bool { return name == "v" || name == "s" }}
	if err := Run(env, units); err != nil {
		t.Fatal(err)
	}
	want = []string{"a := 1", "func s() {}", "_gosbi_r7_1, c := (f()), 2; a = _gosbi_r7_1", "_gosbi_r7_1, d := 3, 4; v = _gosbi_r7_1",
		"s, e := 5, 6"}
	for i, u := range units {
		if got := StripPositions(u.Text); got != want[i] {
			t.Errorf("unit %d: %q, want %q", i, got, want[i])
		}
	}

	units = []Unit{
		{Kind: Stmt, Text: "x, y = f(), 1", Line: 1100001, Col: 1},
		{Kind: Stmt, Text: "x, y, z := y, x, 7", Line: 1100002, Col: 3},
		{Kind: Stmt, Text: "a, b = g(), 2", Line: 1100003, Col: 1},
	}
	err := Run(Env{}, units)
	if err == nil || !strings.HasPrefix(err.Error(), "_.go:1100002:3: ") {
		t.Fatalf("error %v, want one at _.go:1100002:3", err)
	}
	if units[2].Text != "a, b = g(), 2" {
		t.Errorf("a unit after the error was rewritten: %q", units[2].Text)
	}
}
