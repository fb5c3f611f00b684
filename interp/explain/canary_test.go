package explain

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/stdlib"
)

// The canary tests run the construct each explainer covers through the bare interpreter and
// check that the interpreter still behaves as the explainer expects: a canary that fails
// means upstream changed, and the explainer must follow or go.

// canaries holds the canary of each explainer of Pipeline, by name.
var canaries = map[string]func(t *testing.T){
	"compiler-panic":     canaryCompilerPanic,
	"undefined-name":     canaryUndefinedName,
	"index-define":       canaryIndexDefine,
	"missing-generic":    canaryMissingGeneric,
	"undefined-selector": canaryUndefinedSelector,
	"call-arity":         canaryCallArity,
	"closure-frame":      canaryClosureFrame,
	"reflect-index":      canaryReflectIndex,
	"reflect-slice":      canaryReflectSlice,
	"reflect-nil":        canaryReflectNil,
	"bare-value":         canaryBareValue,
	"method-value":       canaryMethodValue,
	"call-site":          canaryCallSite,
	"panic-site":         canaryPanicSite,
}

func TestCanaries(t *testing.T) {
	for _, e := range Pipeline {
		if e.Upstream == "" {
			t.Errorf("explainer %s names no upstream behaviour", e.Name)
		}
		c, ok := canaries[e.Name]
		if !ok {
			t.Errorf("explainer %s has no canary", e.Name)
			continue
		}
		t.Run(e.Name, c)
	}
	if len(canaries) != len(Pipeline) {
		t.Errorf("%d canaries for %d explainers", len(canaries), len(Pipeline))
	}
}

// iface and impl are a compiled interface and its implementation, as m.I and m.New.
type iface interface{ M(x int) int }
type impl struct{}

func (impl) M(x int) int { return x }

// bare returns an interpreter with gosbi's standard library tables and package "m" (m.New,
// m.I, m.Fields), whose standard error goes to stderr.
func bare(t *testing.T, stderr io.Writer) *yaegi.Interpreter {
	t.Helper()
	i := yaegi.New(yaegi.Options{Stdout: io.Discard, Stderr: stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	err := i.Use(yaegi.Exports{"m/m": {
		"I":      reflect.ValueOf((*iface)(nil)),
		"New":    reflect.ValueOf(func() iface { return impl{} }),
		"Fields": reflect.ValueOf(strings.Fields),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// evalAll evaluates cells in order and returns the first error; a panic of the interpreter
// (its compiler's, or the cell's) is returned as panicked.
func evalAll(i *yaegi.Interpreter, cells ...string) (err error, panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	for _, c := range cells {
		if _, err = i.Eval(c); err != nil {
			var p yaegi.Panic
			if ok := asPanic(err, &p); ok {
				return nil, p.Value
			}
			return err, nil
		}
	}
	return nil, nil
}

func asPanic(err error, p *yaegi.Panic) bool {
	if q, ok := err.(yaegi.Panic); ok {
		*p = q
		return true
	}
	return false
}

func canaryCompilerPanic(t *testing.T) {
	var stderr bytes.Buffer
	err, p := evalAll(bare(t, &stderr), "func seq(yield func(int) bool) {}", "n := 0\nfor i := range seq { n += i }")
	if p == nil {
		t.Errorf("range over a function: yaegi now gives %v instead of a panic of its compiler: "+
			"check the message of %s (%s)", err, compilerPanic.Name, compilerPanic.Upstream)
	}
	if strings.Contains(stderr.String(), ": panic: ") {
		t.Errorf("the compiler's panic now has frames, which Panic takes for a run-time panic: %q", stderr.String())
	}
}

func canaryUndefinedName(t *testing.T) {
	err, p := evalAll(bare(t, io.Discard), "x := nope + 1")
	if err == nil || !strings.Contains(err.Error(), "constant definition loop") {
		t.Errorf("x := nope + 1: yaegi now gives %v (panic %v), not \"constant definition loop\": drop %s if it says undefined: nope",
			err, p, undefinedName.Name)
	}
}

// canaryUndefinedSelector: the interpreter names neither the value nor its type of a missing
// field or method.
func canaryUndefinedSelector(t *testing.T) {
	for _, c := range []struct {
		cells []string
		want  string
	}{
		{[]string{"import \"strings\"", "var b strings.Builder", "b.Foo()"}, ": undefined method: Foo"},
		{[]string{"type T struct{ A int }", "var v T", "v.Foo"}, ": undefined selector: Foo"},
		{[]string{"import \"strings\"", "strings.Foo"}, `: package strings "strings" has no symbol Foo`},
	} {
		err, p := evalAll(bare(t, io.Discard), c.cells...)
		if p != nil || err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%q: yaegi now gives %v (panic %v), not %q: drop %s if it says Go's message", c.cells, err, p, c.want, undefinedSelector.Name)
		}
	}
}

// canaryIndexDefine runs the fault of https://github.com/traefik/yaegi/issues/1437: when it
// fails, upstream has fixed it for these values, and the explainer can go.
func canaryIndexDefine(t *testing.T) {
	for _, c := range []struct {
		cells []string
		want  string // in the error of the last cell
	}{
		{[]string{`import "m"`, `q := m.Fields("a b")`, `p := q[1]`}, "constant definition loop"},
		{[]string{`s := "abc"`, `c := s[0]`}, "constant definition loop"},
		{[]string{`import "m"`, `q := m.Fields("a b")`, `p := q[1] + "x"`}, "nil pointer dereference"},
	} {
		err, p := evalAll(bare(t, io.Discard), c.cells...)
		if p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: the interpreter now gives %v, not %q: drop %s if the cells run",
				c.cells, err, c.want, indexDefine.Name)
		}
	}
}

func canaryMissingGeneric(t *testing.T) {
	for missing := range missingHints {
		pkg, name, _ := strings.Cut(missing, ".")
		if _, ok := stdlib.Symbols[pkg+"/"+pkg][name]; ok {
			t.Errorf("the symbol tables now hold %s: drop its hint from %s", missing, missingGeneric.Name)
			continue
		}
		for _, use := range []string{missing + "()", "f := " + missing + "\n_ = f"} {
			err, p := evalAll(bare(t, io.Discard), fmt.Sprintf("import %q", pkg), use)
			if err == nil || missingMember(err.Error()) != missing {
				t.Errorf("%s: yaegi now gives %v (panic %v), which does not name %s as missing: check %s", use, err, p, missing, missingGeneric.Name)
			}
		}
	}
}

func canaryCallArity(t *testing.T) {
	for _, c := range []struct {
		cells []string
		want  string // the whole message after the position
	}{
		{[]string{"func f(x int) int { return x }", "f()"}, "not enough arguments in call to f"},
		{[]string{"func f(x int) int { return x }", "f(1, 2)"}, "too many arguments"},
		{[]string{`import "strings"`, `a, b := strings.Split("a", "b")`}, "assignment mismatch: 2 variables but  returns 1 values"},
	} {
		err, p := evalAll(bare(t, io.Discard), c.cells...)
		msg := ""
		if err != nil {
			_, msg, _ = strings.Cut(err.Error(), ": ")
		}
		if msg != c.want {
			t.Errorf("%q: yaegi now says %q (panic %v), not %q: check whether %s still adds what it lacks",
				c.cells, msg, p, c.want, callArity.Name)
		}
	}
}

// canaryClosureFrame checks that yaegi names a literal's frame "func" at a position inside its
// body, and the frame of a function whose first node is a literal after that literal, at its
// "func".
func canaryClosureFrame(t *testing.T) {
	for _, c := range []struct {
		src, call string
		fn        string
		line, col int
	}{
		{"f := func() {\n\ts := []int{1}\n\t_ = s[3]\n}", "f()", "func", 2, 7},
		{"func h() {\n\tg := func() {}\n\tvar p *int\n\t*p = 1\n\tg()\n}", "h()", "h.func", 2, 7},
	} {
		s := NewStderr(io.Discard)
		i := bare(t, s)
		if err, p := evalAll(i, "\n//line _.go:1300001:1\n"+c.src, "\n//line _.go:1400001:1\n"+c.call); p == nil {
			t.Fatalf("%s did not panic: %v", c.call, err)
		}
		frames := parseFrames(s.Frames())
		if len(frames) == 0 || frames[0].Func != c.fn || frames[0].Line%100000 != c.line || frames[0].Col != c.col {
			t.Errorf("%q: frames %+v: yaegi now names the innermost frame otherwise than %s at line %d:%d: "+
				"%s must follow", c.src, frames, c.fn, c.line, c.col, closureFrame.Name)
		}
	}
}

func canaryReflectIndex(t *testing.T) {
	for _, c := range []string{"s := []int{1}", "s := [1]int{1}", "s := \"a\""} {
		err, p := evalAll(bare(t, io.Discard), "func g(i int) int {\n\t"+c+"\n\treturn int(s[i])\n}", "g(3)")
		if msg := fmt.Sprint(p); !reflectIndexRE.MatchString(msg) {
			t.Errorf("%s; s[3]: yaegi now panics with %q (error %v), not reflect's message: drop %s",
				c, msg, err, reflectIndex.Name)
		}
	}
}

func canaryReflectSlice(t *testing.T) {
	canaryReflectMessage(t, reflectSlice.Name, reflectSliceRE, "func g(n int) {\n", "g(5)", []string{
		"s := []int{1, 2, 3}\n_ = s[1:n]",
		"a := [3]int{1, 2, 3}\n_ = a[1:n]",
		"s := \"abc\"\n_ = s[1:n]",
		"s := []int{1, 2, 3}\n_ = s[0:1:n]",
	})
}

func canaryReflectNil(t *testing.T) {
	canaryReflectMessage(t, reflectNil.Name, reflectNilRE, "func g() {\n", "g()", []string{
		"var p *int\nx := *p\n_ = x",
		"var p *int\n*p = 1",
		"type T struct{ A int }\nvar pt *T\npt.A = 1",
		"var e error\n_ = e.Error()",
		"var fn func()\nfn()",
	})
}

// canaryReflectMessage checks that bare yaegi still panics with a message re matches when it
// runs each body inside the function that head opens and call calls: the explainer name
// translates that message.
func canaryReflectMessage(t *testing.T, name string, re *regexp.Regexp, head, call string, bodies []string) {
	for _, c := range bodies {
		err, p := evalAll(bare(t, io.Discard), head+c+"\n}", call)
		if msg := fmt.Sprint(p); !re.MatchString(msg) {
			t.Errorf("%q: yaegi now panics with %q (error %v), not reflect's message: drop %s or follow",
				c, msg, err, name)
		}
	}
}

func canaryMethodValue(t *testing.T) {
	err, p := evalAll(bare(t, io.Discard), `import "m"`, "d := m.New()", "f := d.M", "var g func(int) int = f\n_ = g")
	msg := fmt.Sprint(p)
	if err != nil {
		msg = err.Error()
	}
	if err == nil && p == nil || !funcMismatchRE.MatchString(msg) {
		t.Errorf("a method value of an interface value: yaegi now gives %q, which %s does not match: drop it if the cell runs",
			msg, methodValue.Name)
	}
}

func canaryCallSite(t *testing.T) {
	const src = "func h() {\n\tx := 1\n\t_ = x\n\tpanic(\"boom\")\n}\n\nfunc k() {\n\ty := 2\n\t_ = y\n\th()\n}"
	s := NewStderr(io.Discard)
	i := bare(t, s)
	if err, p := evalAll(i, "\n//line _.go:1300001:1\n"+src, "\n//line _.go:1400001:1\nk()"); p == nil {
		t.Fatalf("k() did not panic: %v", err)
	}
	frames := parseFrames(s.Frames())
	var lines []int
	for _, f := range frames {
		lines = append(lines, f.Line%100000)
	}
	// h at line 2 and k at line 8: their first statements, not the panic at line 4 and the
	// call at line 10
	if len(frames) != 3 || frames[0].Func != "h" || frames[1].Func != "k" || frames[2].Func != "main" || lines[0] != 2 || lines[1] != 8 {
		t.Errorf("frames %+v (lines %v): yaegi now names other lines than the first statements (2 and 8): "+
			"drop %s if k's frame names its call of h, line 10", frames, lines, callSite.Name)
	}
}

func canaryPanicSite(t *testing.T) {
	s := NewStderr(io.Discard)
	i := bare(t, s)
	if err, p := evalAll(i, "\n//line _.go:1300001:1\nfunc h(i int) int {\n\tx := []int{1}\n\treturn x[i]\n}", "\n//line _.go:1400001:1\nh(3)"); p == nil {
		t.Fatalf("h(3) did not panic: %v", err)
	}
	frames := parseFrames(s.Frames())
	// h at line 2, its first statement, not the index at line 3
	if len(frames) == 0 || frames[0].Func != "h" || frames[0].Line%100000 != 2 {
		t.Errorf("frames %+v: yaegi now names another line than h's first statement (2): "+
			"drop %s if it names the index, line 3", frames, panicSite.Name)
	}
}

// TestCanaryCompiledUndefined checks the go command's message that CompiledUndefined
// completes: go/types gives the compiler's wording.
func TestCanaryCompiledUndefined(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", "package p\n\nfunc sum() float64 { return xs[0] }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	conf := types.Config{Importer: importer.Default(), Error: func(err error) { msgs = append(msgs, err.Error()) }}
	_, _ = conf.Check("p", fset, []*ast.File{f}, nil)
	if len(msgs) != 1 || !undefinedRE.MatchString(msgs[0]) || undefinedRE.FindStringSubmatch(msgs[0])[1] != "xs" {
		t.Errorf("the type checker now says %q for an undefined xs: update CompiledUndefined", msgs)
	}
}

func canaryBareValue(t *testing.T) {
	const decl = "type myErr struct{}\nfunc (myErr) Error() string { return \"mine\" }"
	for _, c := range []string{"_ = errors.Join(myErr{})", "e := error(myErr{})\n_ = errors.Join(e)"} {
		err, p := evalAll(bare(t, io.Discard), `import "errors"`, decl, c)
		if msg := fmt.Sprint(p); !bareValueRE.MatchString(msg) {
			t.Errorf("%q: yaegi now gives %q (error %v), which %s does not match: drop it if the cell runs", c, msg, err, bareValue.Name)
		}
	}
}
