package rewrite

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/stdlib"
)

// The canary tests run the construct each pass works around through the interpreter, without
// the pass, and check that the interpreter still gets it wrong: a canary that fails means
// upstream fixed the fault, and the pass (and its canary) can go. Each also checks that the
// construct, rewritten by the pass, gives Go's result.

// multiplier is a compiled type whose method values the interpreter mistypes.
type multiplier struct{ k int }

func (m *multiplier) Mul(x int) int { return m.k * x }

func newMultiplier(k int) *multiplier { return &multiplier{k} }

// newInterp returns an interpreter with package "example.com/m" (m.New, m.T) compiled in.
func newInterp(t *testing.T) *yaegi.Interpreter {
	t.Helper()
	i := yaegi.New(yaegi.Options{Stderr: io.Discard})
	err := i.Use(yaegi.Exports{"example.com/m/m": {
		"New": reflect.ValueOf(newMultiplier),
		"T":   reflect.ValueOf((*multiplier)(nil)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// evalInt evaluates cells in order and returns the int value of the last, or the first error.
func evalInt(t *testing.T, i *yaegi.Interpreter, cells ...string) (v int64, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			err = yaegi.Panic{Value: r}
		}
	}()
	var res reflect.Value
	for _, c := range cells {
		if res, err = i.Eval(c); err != nil {
			return 0, err
		}
	}
	if res.Kind() == reflect.Interface {
		res = res.Elem()
	}
	return res.Int(), nil
}

// rewritten returns a declaration rewritten by a pass.
func rewritten(t *testing.T, p Pass, env Env, kind Kind, text string) string {
	t.Helper()
	out, err := p.Rewrite(env, Unit{Kind: kind, Text: text, Line: 1, Col: 1})
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	if out == text {
		t.Fatalf("%s left %q unchanged", p.Name, text)
	}
	return out
}

func TestCanaryParenthesizeTuples(t *testing.T) {
	const f = "func f() int { return 3 }"
	const g = "func g() int {\n\tx, y := 0, 0\n\tx, y = f(), 5\n\t_ = x\n\treturn y\n}"
	got, err := evalInt(t, newInterp(t), f, g, "g()")
	if err == nil && got == 5 {
		t.Errorf("yaegi now assigns every value of \"x, y = f(), 5\": drop pass %s (%s)", parenthesizeTuples.Name, parenthesizeTuples.Issue)
	}
	got, err = evalInt(t, newInterp(t), f, rewritten(t, parenthesizeTuples, Env{}, Decl, g), "g()")
	if err != nil || got != 5 {
		t.Errorf("rewritten: y = %d, %v; want 5", got, err)
	}
}

func TestCanaryReorderDefines(t *testing.T) {
	const g = "func g() int {\n\tx := 1\n\tx, z := 5, x\n\t_ = x\n\treturn z\n}"
	got, err := evalInt(t, newInterp(t), g, "g()")
	if err == nil && got == 1 {
		t.Errorf("yaegi now reads x before it redeclares it in \"x, z := 5, x\": drop pass %s (%s)", reorderDefines.Name, reorderDefines.Issue)
	}
	got, err = evalInt(t, newInterp(t), rewritten(t, reorderDefines, Env{}, Decl, g), "g()")
	if err != nil || got != 1 {
		t.Errorf("rewritten: z = %d, %v; want 1", got, err)
	}

	// a cycle, which no order fixes, is refused
	const swap = "func h() int {\n\ta, b := 1, 2\n\ta, b, c := b, a, 3\n\t_ = c\n\treturn 10*a + b\n}"
	got, err = evalInt(t, newInterp(t), swap, "h()")
	if err == nil && got == 21 {
		t.Errorf("yaegi now swaps in \"a, b, c := b, a, 3\": drop the refusal of cycles in pass %s", reorderDefines.Name)
	}
	if _, err := reorderDefines.Rewrite(Env{}, Unit{Kind: Decl, Text: swap, Line: 1, Col: 1}); err == nil {
		t.Errorf("%s accepted %q", reorderDefines.Name, swap)
	}
}

func TestCanaryHoistMethodValues(t *testing.T) {
	const g = "func g() int {\n\tt := m.New(3)\n\tvar f func(int) int\n\tvar n int\n\tf, n = t.Mul, 2\n\treturn f(n)\n}"
	got, err := evalInt(t, newInterp(t), `import "example.com/m"`, g, "g()")
	if err == nil && got == 6 {
		t.Errorf("yaegi now types the method value t.Mul of a compiled type in \"f, n = t.Mul, 2\": drop pass %s (%s)", hoistMethodValues.Name, hoistMethodValues.Issue)
	} else if err != nil && !strings.Contains(err.Error(), "not assignable") {
		t.Logf("yaegi fails differently now: %v", err)
	}
	env := Env{IsPackage: func(name string) bool { return name == "m" }}
	got, err = evalInt(t, newInterp(t), `import "example.com/m"`, rewritten(t, hoistMethodValues, env, Decl, g), "g()")
	if err != nil || got != 6 {
		t.Errorf("rewritten: f(2) = %d, %v; want 6", got, err)
	}
}

func TestCanaryRedeclareViaTemps(t *testing.T) {
	// the second cell redeclares a, which the first defined, and reads it before
	const cell = "b := a\na, c := 2, 5"
	got, err := evalInt(t, newInterp(t), "a := 1", cell+"\n_ = c", "b")
	if err == nil && got == 1 {
		t.Errorf("yaegi now keeps a's value until \"a, c := 2, 5\" redeclares it in a later evaluation: drop pass %s (%s)",
			redeclareViaTemps.Name, redeclareViaTemps.Issue)
	}
	env := Env{Cell: 2, IsVar: func(name string) bool { return name == "a" }}
	second := rewritten(t, redeclareViaTemps, env, Stmt, "a, c := 2, 5")
	got, err = evalInt(t, newInterp(t), "a := 1", "b := a\n"+second+"\n_ = c", "b")
	if err != nil || got != 1 {
		t.Errorf("rewritten: b = %d, %v; want 1", got, err)
	}
	if a, err := evalInt(t, newInterp(t), "a := 1", "b := a\n"+second, "a"); err != nil || a != 2 {
		t.Errorf("rewritten: a = %d, %v; want 2", a, err)
	}
}

func TestCanaryFuncScope(t *testing.T) {
	cases := []struct {
		name  string
		cells []string // the last is the statement the pass rewrites, then the value checked
		check string
		want  int64
	}{
		{"type switch with a binding", []string{"var x any = 4", "n := 0", "switch v := x.(type) {\ncase int:\n\tn = v\n}"}, "n", 4},
		{"definition in a block", []string{"a := 1", "if true {\n\ta := 2\n\t_ = a\n}"}, "a", 1},
		{"blank after a blank definition", []string{"func g() (int, string) { return 1, \"s\" }", "_, x := g()", "_ = x + \"t\""}, "len(x)", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			last := len(c.cells) - 1
			got, err := evalInt(t, newInterp(t), append(c.cells, c.check)...)
			if err == nil && got == c.want {
				t.Errorf("yaegi now runs %q in its global scope: drop this case of pass %s", c.cells[last], funcScope.Name)
			}
			cells := append([]string(nil), c.cells...)
			cells[last] = rewritten(t, funcScope, Env{}, Stmt, cells[last])
			if got, err = evalInt(t, newInterp(t), append(cells, c.check)...); err != nil || got != c.want {
				t.Errorf("rewritten: %s = %d, %v; want %d", c.check, got, err, c.want)
			}
		})
	}
}

func TestCanaryRenameMain(t *testing.T) {
	const main = "func main() { n++ }"
	got, err := evalInt(t, newInterp(t), "var n int", main, "n = n + 0", "n")
	if err == nil && got == 0 {
		t.Errorf("yaegi no longer runs a declared main after each evaluation: drop pass %s", renameMain.Name)
	}
	got, err = evalInt(t, newInterp(t), "var n int", rewritten(t, renameMain, Env{}, Decl, main), "n = n + 0", "n")
	if err != nil || got != 0 {
		t.Errorf("rewritten: n = %d, %v; want 0", got, err)
	}
	if _, err := evalInt(t, newInterp(t), "var n int", rewritten(t, renameMain, Env{}, Decl, main), MainName+"()", "n"); err != nil {
		t.Errorf("rewritten: %s() fails: %v", MainName, err)
	}
}

func TestCanaryZeroNamedResults(t *testing.T) {
	const gain = "func gain(x int) (g, se int) {\n\tg += x\n\treturn g, 0\n}"
	const loop = "func last() int {\n\tn := 0\n\tfor _, x := range []int{1, 2, 3} {\n\t\tg, _ := gain(x)\n\t\tn = g\n\t}\n\treturn n\n}"
	got, err := evalInt(t, newInterp(t), gain, loop, "last()")
	if err == nil && got == 3 {
		t.Errorf("yaegi now starts every call with zero named results: drop pass %s (%s)", zeroNamedResults.Name, zeroNamedResults.Issue)
	}
	got, err = evalInt(t, newInterp(t), rewritten(t, zeroNamedResults, Env{}, Decl, gain), loop, "last()")
	if err != nil || got != 3 {
		t.Errorf("rewritten: last() = %d, %v; want 3", got, err)
	}
	// a function literal on one line, with a blank result and a result of a composite type
	const lit = "f := func(x int) (g int, _ string, xs []int) { g += x; xs = append(xs, x); return }"
	out := rewritten(t, zeroNamedResults, Env{}, Stmt, lit)
	want := "func(x int) (g int, _ string, xs []int) { g, xs = func() (_gosbi_z1 int, _gosbi_z2 []int) { return }(); /*line _.go:1:47*/ g += x;"
	if !strings.Contains(out, want) {
		t.Errorf("rewritten literal %q, want it to contain %q", out, want)
	}
	got, err = evalInt(t, newInterp(t), out, "func run() (s int) {\n\tfor _, x := range []int{1, 2, 3} {\n\t\tg, _, xs := f(x)\n\t\ts = 10*g + len(xs)\n\t}\n\treturn s\n}", "run()")
	if err != nil || got != 31 {
		t.Errorf("rewritten literal in a loop: s = %d, %v; want 31", got, err)
	}
	// one named result, or none, is left alone
	for _, text := range []string{"func h(x int) (g int) { g += x; return }", "func k(x int) (int, int) { return x, x }"} {
		if out, _ := zeroNamedResults.Rewrite(Env{}, Unit{Kind: Decl, Text: text, Line: 1, Col: 1}); out != text {
			t.Errorf("%q rewritten to %q, want it unchanged", text, out)
		}
	}
}

// TestZeroNamedResultsWithoutNew checks that the zero values zero-named-results assigns do
// not depend on the name new, which a result, a parameter or a variable of the session may
// take ("func update(x int) (old, new int)").
func TestZeroNamedResultsWithoutNew(t *testing.T) {
	cases := []struct {
		name        string
		before, fn  string
		check, want string
	}{
		{"a result named new", "", "func update(x int) (old, new int) {\n\told = x\n\tnew = 2 * x\n\treturn\n}",
			"func g() int { o, n := update(3); return 10*o + n }", "36"},
		{"a parameter named new", "", "func swap(old, new int) (a, b int) { a, b = new, old; return }",
			"func g() int { a, b := swap(1, 2); return 10*a + b }", "21"},
		{"a variable of the session named new", "var new = 5", "func h() (a, b int) { b = 1; return }",
			"func g() int { _, b := h(); return b + new }", "6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := newInterp(t)
			cells := []string{rewritten(t, zeroNamedResults, Env{}, Decl, c.fn), c.check, "g()"}
			if c.before != "" {
				cells = append([]string{c.before}, cells...)
			}
			got, err := evalInt(t, i, cells...)
			if err != nil || strconv.FormatInt(got, 10) != c.want {
				t.Errorf("rewritten %q: g() = %d, %v; want %s", cells, got, err, c.want)
			}
		})
	}
}

func TestCanaryCommaOK(t *testing.T) {
	const setup = `m := map[string]int{"a": 4}`
	for _, def := range []string{`n, ok := m["a"]`, `var n, ok = m["a"]`} {
		got, err := evalInt(t, newInterp(t), setup, def, "n")
		if err == nil && got == 4 {
			t.Errorf("yaegi now runs %q at the top level: drop pass %s (%s)", def, commaOK.Name, commaOK.Issue)
		}
	}
	env := Env{Cell: 2}
	got, err := evalInt(t, newInterp(t), setup, rewritten(t, commaOK, env, Stmt, `n, ok := m["a"]`), "if !ok { n = -1 }; n")
	if err != nil || got != 4 {
		t.Errorf("rewritten: n = %d, %v; want 4", got, err)
	}
}

func TestCanaryWrapInterfaces(t *testing.T) {
	env := Env{
		IsPackage: func(name string) bool { return name == "mat" },
		Compiled: func(pkg, name string) reflect.Type {
			v := stdlib.Symbols["gonum.org/v1/gonum/mat/mat"][name]
			if pkg != "mat" || !v.IsValid() || v.Kind() != reflect.Pointer || !v.IsNil() {
				return nil
			}
			return v.Type().Elem()
		},
	}
	const decl = "type sq struct{}\nfunc (sq) Dims() (int, int) { return 1, 1 }\nfunc (sq) At(i, j int) float64 { return 3 }\nfunc (s sq) T() mat.Matrix { return s }"
	for _, expr := range []string{"mat.Transpose{Matrix: sq{}}", "mat.Transpose{sq{}}", "mat.Matrix(sq{})"} {
		run := func(text string) (int64, error) {
			i := yaegi.New(yaegi.Options{Stderr: io.Discard})
			if err := i.Use(stdlib.Symbols); err != nil {
				t.Fatal(err)
			}
			return evalInt(t, i, `import "gonum.org/v1/gonum/mat"`, decl, "s := int(mat.Sum("+text+"))", "s")
		}
		if got, err := run(expr); err == nil && got == 3 {
			t.Errorf("yaegi now wraps the value of %s: drop pass %s (%s)", expr, wrapInterfaces.Name, wrapInterfaces.Issue)
		}
		got, err := run(rewritten(t, wrapInterfaces, env, Stmt, expr))
		if err != nil || got != 3 {
			t.Errorf("%s rewritten: %d, %v; want 3", expr, got, err)
		}
	}
}

func TestCanaryWrapFmtArgs(t *testing.T) {
	env := Env{
		PackagePath:  func(name string) string { return map[string]string{"fmt": "fmt"}[name] },
		PrintMethods: func() (bool, bool) { return true, false },
	}
	const helper = "func " + FmtArgName + "[X any](x X) any {\n\tswitch any(&x).(type) {\n\tcase *error, *any:\n\t\treturn x\n\t}\n" +
		"\tvar v any = x\n\tif v == nil {\n\t\treturn nil\n\t}\n\tif e, ok := v.(error); ok {\n\t\treturn e\n\t}\n" +
		"\tif s, ok := v.(fmt.Stringer); ok {\n\t\treturn s\n\t}\n\treturn x\n}"
	run := func(stmt string) (int64, error) {
		i := yaegi.New(yaegi.Options{Stderr: io.Discard})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		return evalInt(t, i, `import "fmt"`, "type t struct{ a int }\nfunc (t) String() string { return \"hello\" }", helper,
			"n := 0", stmt, "n")
	}
	const stmt = "n = len(fmt.Sprint(t{}))"
	if got, err := run(stmt); err == nil && got == 5 {
		t.Errorf("yaegi now passes the methods of a cell's value to fmt: drop pass %s (%s)", wrapFmtArgs.Name, wrapFmtArgs.Issue)
	}
	if got, err := run(rewritten(t, wrapFmtArgs, env, Stmt, stmt)); err != nil || got != 5 {
		t.Errorf("%s rewritten: %d, %v; want 5", stmt, got, err)
	}
}

func TestCanaryBindTypeSwitch(t *testing.T) {
	const decl = "type T struct{ A int }"
	const f = "func f(x any) int {\n\tswitch x.(type) {\n\tcase T:\n\t\treturn 1\n\t}\n\treturn 0\n}"
	got, err := evalInt(t, newInterp(t), decl, f, "f(T{})")
	if err == nil && got == 1 {
		t.Errorf("yaegi now matches a case of a cell's type in a type switch without a variable: drop pass %s (%s)", bindTypeSwitch.Name, bindTypeSwitch.Issue)
	}
	got, err = evalInt(t, newInterp(t), decl, rewritten(t, bindTypeSwitch, Env{}, Decl, f), "f(T{})")
	if err != nil || got != 1 {
		t.Errorf("rewritten: f(T{}) = %d, %v; want 1", got, err)
	}
}

func TestCanaryBindSwitchTag(t *testing.T) {
	const f = "func f(x any) int {\n\tswitch x {\n\tcase 2:\n\t\treturn 0\n\tcase 1:\n\t\treturn 1\n\t}\n\treturn 2\n}"
	got, err := evalInt(t, newInterp(t), f, "f(1)")
	if err == nil && got == 1 {
		t.Errorf("yaegi now runs a switch with case values on a tag of type any: drop pass %s (%s)", bindSwitchTag.Name, bindSwitchTag.Issue)
	}
	units := []Unit{{Kind: Decl, Text: f, Line: 1, Col: 1}}
	if err := Run(Env{}, units); err != nil || units[0].Text == f {
		t.Fatalf("%s: %v, text %q", bindSwitchTag.Name, err, units[0].Text)
	}
	got, err = evalInt(t, newInterp(t), units[0].Text, "f(1)")
	if err != nil || got != 1 {
		t.Errorf("rewritten: f(1) = %d, %v; want 1", got, err)
	}
}

func TestCanaryCheckTypeIdentity(t *testing.T) {
	const decls = "type T1 struct{ A int }\ntype T2 struct{ A int }"
	const g = "func g(x any) int {\n\tif _, ok := x.(T2); ok {\n\t\treturn 1\n\t}\n\treturn 0\n}"
	got, err := evalInt(t, newInterp(t), decls, g, "g(T1{})")
	if err == nil && got == 0 {
		t.Errorf("yaegi now tells T1 from T2 declared alike: drop pass %s (%s)", checkTypeIdentity.Name, checkTypeIdentity.Issue)
	}
	units := []Unit{{Kind: Decl, Text: decls, Line: 1, Col: 1}, {Kind: Decl, Text: g, Line: 3, Col: 1}}
	if err := Run(Env{}, units); err == nil || !strings.Contains(err.Error(), "cannot tell T2 from T1") {
		t.Errorf("Run: %v, want the error of %s", err, checkTypeIdentity.Name)
	}
}

func TestCanaryGuardAssertions(t *testing.T) {
	const decls = "type E struct{ code int }\nfunc (E) Error() string { return \"e\" }\nfunc mk() error { return E{1} }"
	const g = "func g() int {\n\tif _, ok := mk().(E); ok {\n\t\treturn 1\n\t}\n\treturn 0\n}"
	got, err := evalInt(t, newInterp(t), decls, g, "g()")
	if err != nil || got != 0 {
		t.Errorf("yaegi now finds a cell's struct type in a value an error held (g() = %d, %v): drop pass %s (%s)", got, err, guardAssertions.Name, guardAssertions.Issue)
	}
	units := []Unit{{Kind: Decl, Text: decls, Line: 1, Col: 1}, {Kind: Decl, Text: g, Line: 4, Col: 1}}
	if err := Run(Env{HasMethods: func(string) bool { return false }}, units); err != nil {
		t.Fatal(err)
	}
	if want := AssertableName + "(mk(), \"E\").(E)"; !strings.Contains(StripPositions(units[1].Text), want) {
		t.Errorf("rewritten: %q, want it to contain %q", units[1].Text, want)
	}
}

func TestCanaryCheckInterfaceAssertions(t *testing.T) {
	const decls = "type S struct{ r float64 }\nfunc (S) String() string { return \"s\" }\ntype Str interface{ String() string }"
	const g = "func g(x any) int {\n\tswitch x.(type) {\n\tcase Str:\n\t\treturn 1\n\t}\n\treturn 0\n}"
	got, err := evalInt(t, newInterp(t), decls, g, "g(S{1})")
	if err == nil && got == 1 {
		t.Errorf("yaegi now sees a cell type's methods in a type switch to an interface: drop pass %s (%s)", checkInterfaceAssertions.Name, checkInterfaceAssertions.Issue)
	}
	env := Env{} // the units declare S and its method String
	units := []Unit{{Kind: Decl, Text: decls, Line: 1, Col: 1}, {Kind: Decl, Text: g, Line: 4, Col: 1}}
	if err := Run(env, units); err == nil || !strings.Contains(err.Error(), "case Str may answer wrongly") {
		t.Errorf("Run: %v, want the error of %s", err, checkInterfaceAssertions.Name)
	}
}

func TestCanaryAssertAny(t *testing.T) {
	const okForm = "func g(x any) int {\n\tif _, ok := x.(any); ok {\n\t\treturn 1\n\t}\n\treturn 0\n}"
	const mustForm = "func h(x any) int { return x.(any).(int) }"
	got, err := evalInt(t, newInterp(t), okForm, "g(3)")
	if err == nil && got == 1 {
		t.Errorf("yaegi now answers ok for x.(any) of a value: drop the comma-ok form of pass %s (%s)", assertAny.Name, assertAny.Issue)
	}
	got, err = evalInt(t, newInterp(t), mustForm, "h(3)")
	if err == nil && got == 3 {
		t.Errorf("yaegi now answers x.(any) of a value without a panic: drop the panicking form of pass %s (%s)", assertAny.Name, assertAny.Issue)
	} else if err != nil && !strings.Contains(err.Error(), "nil is not any") {
		t.Logf("yaegi fails differently now: %v", err)
	}
	// the session's functions, as the rewritten code calls them
	const helpers = "func " + AnyOKName + "(x any) (any, bool) { return x, x != nil }\n" +
		"func " + AnyMustName + "(x any) any {\n\tif x == nil {\n\t\tpanic(\"interface conversion: interface is nil, not interface {}\")\n\t}\n\treturn x\n}"
	for _, c := range []struct{ decl, call string }{{okForm, "g(3)"}, {mustForm, "h(3)"}} {
		want := map[string]int64{"g(3)": 1, "h(3)": 3}[c.call]
		got, err := evalInt(t, newInterp(t), helpers, rewritten(t, assertAny, Env{}, Decl, c.decl), c.call)
		if err != nil || got != want {
			t.Errorf("rewritten: %s = %d, %v; want %d", c.call, got, err, want)
		}
	}
}

// embeddedProbeEnv names the environment variable under which TestCanaryCheckEmbeddedCompiled,
// run again in a process of its own, runs its probe: a fatal error of the Go runtime, which
// no recover stops, ends the process that meets the fault.
const embeddedProbeEnv = "GOSBI_CANARY_EMBEDDED_PROBE"

// embeddedProbeOut is what the probe prints when the interpreter prints the value as Go does.
const embeddedProbeOut = "probe: 1970-01-01 00:00:00 +0000 UTC"

func TestCanaryCheckEmbeddedCompiled(t *testing.T) {
	const decl = "type Ev struct{ time.Time }"
	if os.Getenv(embeddedProbeEnv) == "1" {
		i := yaegi.New(yaegi.Options{Stderr: io.Discard})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{`import "fmt"`, `import "time"`, decl} {
			if _, err := i.Eval(c); err != nil {
				t.Fatal(err)
			}
		}
		v, err := i.Eval("fmt.Sprint(Ev{time.Unix(0, 0).UTC()})")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("probe:", v.Interface())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCanaryCheckEmbeddedCompiled$", "-test.count=1")
	cmd.Env = append(os.Environ(), embeddedProbeEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), embeddedProbeOut) {
		t.Errorf("yaegi now prints a value of %q: drop pass %s (%s)", decl, checkEmbeddedCompiled.Name, checkEmbeddedCompiled.Issue)
	} else if !strings.Contains(string(out), "type offset base pointer out of range") {
		t.Logf("yaegi fails differently now: %v\n%s", err, out)
	}
	env := Env{
		IsPackage: func(name string) bool { return name == "time" },
		Compiled: func(pkg, name string) reflect.Type {
			v := stdlib.Symbols["time/time"][name]
			if pkg != "time" || !v.IsValid() || v.Kind() != reflect.Pointer || !v.IsNil() {
				return nil
			}
			return v.Type().Elem()
		},
	}
	units := []Unit{{Kind: Decl, Text: decl, Line: 1, Col: 1}}
	if err := Run(env, units); err == nil || !strings.Contains(err.Error(), "name the field") {
		t.Errorf("Run: %v, want the error of %s", err, checkEmbeddedCompiled.Name)
	}
}

func TestCanaryCopyStores(t *testing.T) {
	const decl = "type P struct{ X int }\nfunc (p P) M() int { return p.X }"
	const fill = "func fill() int {\n\txs := make([]any, 3)\n\tfor i := range xs {\n\t\txs[i] = P{i}\n\t}\n\treturn xs[0].(P).X*10 + xs[2].(P).X\n}"
	got, err := evalInt(t, newInterp(t), decl, fill, "fill()")
	if err == nil && got == 2 {
		t.Errorf("yaegi now stores a copy of each literal: drop pass %s (%s)", copyStores.Name, copyStores.Issue)
	} else if err != nil || got != 22 {
		t.Logf("yaegi fails differently now: %d, %v", got, err)
	}
	env := Env{HasMethods: func(name string) bool { return name == "P" }}
	got, err = evalInt(t, newInterp(t), decl, rewritten(t, copyStores, env, Decl, fill), "fill()")
	if err != nil || got != 2 {
		t.Errorf("rewritten: fill() = %d, %v; want 2", got, err)
	}
}

func TestCanaryFreshWrappers(t *testing.T) {
	const decl = "type E struct{ i int }\nfunc (e E) Error() string { return string(rune('0' + e.i)) }"
	const fill = "func fill() int {\n\tvar es []error\n\tfor i := 0; i < 3; i++ {\n\t\tes = append(es, E{i})\n\t}\n\treturn int(es[0].Error()[0]-'0')*10 + int(es[2].Error()[0]-'0')\n}"
	got, err := evalInt(t, newInterp(t), decl, fill, "fill()")
	if err == nil && got == 2 {
		t.Errorf("yaegi now gives each stored error a wrapper of its own value: drop pass %s (%s)", freshWrappers.Name, freshWrappers.Issue)
	} else if err != nil || got != 22 {
		t.Logf("yaegi fails differently now: %d, %v", got, err)
	}
	env := Env{
		HasMethods:  func(name string) bool { return name == "E" },
		TypeDecls:   func() []string { return []string{"type E struct{ i int }"} },
		MethodDecls: func() []string { return []string{"func (e E) Error() string"} },
	}
	u := Unit{Kind: Decl, Text: fill, Line: 1, Col: 1}
	env.types = func() *typeTable { return newTypeTable(env, []Unit{u}) }
	got, err = evalInt(t, newInterp(t), decl, rewritten(t, freshWrappers, env, Decl, fill), "fill()")
	if err != nil || got != 2 {
		t.Errorf("rewritten: fill() = %d, %v; want 2", got, err)
	}
}

func TestCanaryCompareInterfaces(t *testing.T) {
	const decl = "type E struct{ i int }\nfunc (e E) Error() string { return \"E\" }"
	const cmp = "func cmp() int {\n\tvar a error = func(v E) error { return v }(E{1})\n\tif a == (E{1}) {\n\t\treturn 1\n\t}\n\treturn 0\n}"
	got, err := evalInt(t, newInterp(t), decl, cmp, "cmp()")
	if err == nil && got == 1 {
		t.Errorf("yaegi now compares a stored error with a value of its type as Go does: drop pass %s (%s)", compareInterfaces.Name, compareInterfaces.Issue)
	} else if err != nil || got != 0 {
		t.Logf("yaegi fails differently now: %d, %v", got, err)
	}
}
