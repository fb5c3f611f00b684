package rewrite

import (
	"strings"
	"testing"
)

// TestCopyStores checks which assignments copy-stores moves into a block with a temporary and
// which it leaves: those of a value it does not move, those into a variable, those whose left
// side calls, those of several values and those where no block may stand.
func TestCopyStores(t *testing.T) {
	env := Env{
		HasMethods:  func(name string) bool { return name == "P" },
		IsPackage:   func(name string) bool { return name == "math" },
		MethodDecls: func() []string { return []string{"func (p P) M() int"} },
	}
	for _, c := range []struct{ in, want string }{
		{"xs[i] = P{i}", "{ _gosbiT := P{i}; xs[i] = _gosbiT }"},
		{"for i := range xs {\n\tw.A = (P{i})\n}", "for i := range xs {\n\t{ _gosbiT := (P{i}); w.A = _gosbiT }\n}"},
		{"for i := range xs {\n\t*p = mk(i)\n}", "for i := range xs {\n\t{ _gosbiT := mk(i); *p = _gosbiT }\n}"},
		{"for i := range xs {\n\tm[k].f = g.Make(i)\n}", "for i := range xs {\n\t{ _gosbiT := g.Make(i); m[k].f = _gosbiT }\n}"},
		// left as written
		{"for i := range xs {\n\txs[i] = R{i}\n}", ""},
		{"for i := range xs {\n\tv = P{i}\n}", ""},
		{"for i := range xs {\n\txs[f()] = P{i}\n}", ""},
		{"for i := range xs {\n\txs[i], ys[i] = P{i}, P{i}\n}", ""},
		{"for i := 0; i < 3; xs[i] = (P{i}) {\n\ti++\n}", ""},
		{"if xs[0] = (P{0}); true {\n}", ""},
		{"for i := range xs {\n\txs[i] = math.Sqrt(2)\n}", ""},
		{"for i := range xs {\n\txs[i] = complex(1, 2)\n}", ""},
		{"for i := range xs {\n\txs[i] = float32(2)\n}", ""},
		{"for i := range xs {\n\txs[i] += P{i}.M()\n}", ""},
	} {
		checkRewrite(t, copyStores, env, c.in, c.want)
	}
}

// checkRewrite runs the pass p with env on the unit in (a declaration where it starts with
// func, else a statement) and checks that it gives want, or in itself where want is empty.
func checkRewrite(t *testing.T, p Pass, env Env, in, want string) {
	t.Helper()
	u := Unit{Kind: Stmt, Text: in, Line: 1, Col: 1}
	if strings.HasPrefix(in, "func") {
		u.Kind = Decl
	}
	env.types = func() *typeTable { return newTypeTable(env, []Unit{u}) }
	out, err := p.Rewrite(env, u)
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if want == "" {
		want = in
	}
	if got := StripPositions(out); got != want {
		t.Errorf("%q rewritten as\n%q, want\n%q", in, got, want)
	}
}
