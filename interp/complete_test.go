package interp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gosbi/gosbi/internal/syncbuf"
)

func TestComplete(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"strings\"\ntype Point struct{ X, Y float64; label string }\nfunc (p Point) Norm() float64 { return p.X*p.X + p.Y*p.Y }\nvar origin = Point{}\nsamples := []float64{1, 2}\nfunc simulate(n int) []float64 { return nil }\nrng := rand.New(rand.NewPCG(1, 2))\n"+
		"pt, k := Point{X: 1}, 3\nvar vp, vk = Point{}, 2")
	cases := []struct {
		code       string
		want       []string // must be among the matches
		notWant    []string
		start, end int // in code points; -1 to skip
	}{
		{code: "sim", want: []string{"simulate"}, start: 0, end: 3},
		{code: "x := sam", want: []string{"samples"}, start: 5, end: 8},
		{code: "strings.Spl", want: []string{"Split", "SplitN"}, notWant: []string{"Join"}, start: 8, end: 11},
		{code: "mat.NewD", want: []string{"NewDense"}, start: 4, end: 8}, // auto-importable package
		{code: "origin.", want: []string{"X", "Y", "Norm", "label"}, notWant: []string{"Xlabel"}, start: 7, end: 7},
		{code: "rng.Flo", want: []string{"Float64"}, start: 4, end: 7},
		// variables of multi-value definitions, whose values the session rewrites
		{code: "pt.", want: []string{"X", "Norm"}, start: 3, end: 3},
		{code: "vp.", want: []string{"X", "Norm"}, start: 3, end: 3},
		{code: "fo", want: []string{"for"}, start: 0, end: 2},
		{code: "str", want: []string{"strings", "string", "strconv"}, start: 0, end: 3},
		{code: "π := 3.0\nsim", want: []string{"simulate"}, start: 9, end: 12}, // code points, not bytes
		// magics at the start of a line
		{code: "%he", want: []string{"help"}, notWant: []string{"heap", "hex"}, start: 1, end: 3},
		{code: "x := 1\n%%wr", want: []string{"writefile"}, notWant: []string{"time"}, start: 9, end: 11},
		{code: "%", want: []string{"help", "time", "who"}, notWant: []string{"fmt", "writefile"}, start: 1, end: 1},
		// names the cell itself declares above the cursor, before it has run
		{code: "myLocal := 5\nmyL", want: []string{"myLocal"}, start: 13, end: 16},
		{code: "var total, count int\ncou", want: []string{"count"}, start: 21, end: 24},
		{code: "func helper() int { return 1 }\nx := hel", want: []string{"helper"}, start: 36, end: 39},
		{code: "for idx, val := range samples {\n\tfmt.Println(va", want: []string{"val"}, start: 45, end: 47},
		{code: "type Model struct{}\nvar m Mo", want: []string{"Model"}, start: 26, end: 28},
		{code: "fmt.Println(unknownWord)\nunk", notWant: []string{"unknownWord"}, start: 25, end: 28},
		{code: "var zeta undefinedType\nund", notWant: []string{"undefinedType"}, start: 23, end: 26},
	}
	for _, c := range cases {
		m, start, end := ts.Complete(c.code, utf8.RuneCountInString(c.code))
		checkMatches(t, c.code, m, c.want, c.notWant)
		if start != c.start || end != c.end {
			t.Errorf("Complete(%q): range [%d,%d), want [%d,%d)", c.code, start, end, c.start, c.end)
		}
	}
}

// checkMatches reports the names of want that the matches m of Complete(code) lack and those
// of notWant that they hold.
func checkMatches(t *testing.T, code string, m, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(m, w) {
			t.Errorf("Complete(%q) = %v, lacks %q", code, m, w)
		}
	}
	for _, w := range notWant {
		if slices.Contains(m, w) {
			t.Errorf("Complete(%q) = %v, should not offer %q", code, m, w)
		}
	}
}

func TestInspect(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "// simulate draws n values of the model.\nfunc simulate(n int) []float64 { return make([]float64, n) }\nx := 42\nrng := rand.New(rand.NewPCG(1, 2))")
	cases := []struct {
		code   string
		cursor int
		want   []string
	}{
		{"strings.Split(a, b)", 10, []string{"func Split(s, sep string) []string", "Split slices s"}},
		{"mat.NewDense", 6, []string{"func NewDense(r, c int, data []float64) *Dense"}},
		{"simulate(3)", 3, []string{"func simulate(n int) []float64", "simulate draws n values", "cell [1]"}},
		{"simulate(", 9, []string{"func simulate(n int) []float64"}},
		{"x", 1, []string{"var x int", "value: 42"}},
		{"strings", 3, []string{`package strings // import "strings"`}},
		{"rng.Float64()", 6, []string{"func (r *Rand) Float64() float64"}},
		// Shift-Tab among a call's arguments shows the called function, as in IPython
		{"strings.Split(strings.ToLower(\"A\"), ", 36, []string{"func Split(s, sep string) []string"}},
		{"simulate(x + ", 13, []string{"func simulate(n int) []float64"}},
		{"f := strings.Split(\n\t\"a,b\", ", 28, []string{"func Split(s, sep string) []string"}},
		{"strings.Split(\"(\", ", 19, []string{"func Split(s, sep string) []string"}},
	}
	for _, c := range cases {
		text, found := ts.Inspect(c.code, c.cursor)
		if !found {
			t.Errorf("Inspect(%q, %d): not found", c.code, c.cursor)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("Inspect(%q, %d) = %q, lacks %q", c.code, c.cursor, text, w)
			}
		}
	}
	if _, found := ts.Inspect("nosuchname", 3); found {
		t.Error("Inspect found an undefined name")
	}
}

func TestIsComplete(t *testing.T) {
	cases := []struct{ code, status, indent string }{
		{"x := 1", "complete", ""},
		{"func f() {", "incomplete", "    "},
		{"for i := range 3 {\n\tif i > 1 {", "incomplete", "        "},
		{"x := []int{1,\n2,", "incomplete", "    "},
		{"s := `raw", "incomplete", ""},
		{"x := 1 +", "incomplete", ""},
		{"x := )", "invalid", ""},
		{"func f() {}\n}", "invalid", ""},
		{"%time f()", "complete", ""},
		{"%%writefile a.txt\nfunc {", "complete", ""},
		{"", "complete", ""},
		// A help request runs as it is; the body of %%compile and %%time is Go.
		{"?strings.Split", "complete", ""},
		{"mat.Dense.Mul?", "complete", ""},
		{"%%compile\nfunc f() {", "incomplete", "    "},
		{"%%time\nx := 1 +", "incomplete", ""},
		{"%%compile\nfunc f() {}", "complete", ""},
	}
	for _, c := range cases {
		st, ind := IsComplete(c.code)
		if st != c.status || ind != c.indent {
			t.Errorf("IsComplete(%q) = %q, %q; want %q, %q", c.code, st, ind, c.status, c.indent)
		}
	}
}

// BenchmarkCompleteLargeSession measures completion in a session of 100 cells (target: well
// under 50 ms per request).
func BenchmarkCompleteLargeSession(b *testing.B) {
	s, err := NewSession(Config{Stdout: &syncbuf.Buffer{}, Stderr: &syncbuf.Buffer{}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		code := fmt.Sprintf("type T%d struct{ A, B int }\nfunc (t T%d) Sum() int { return t.A + t.B }\nfunc f%d(x float64) float64 { return x * %d }\nv%d := T%d{%d, 2}", i, i, i, i, i, i, i)
		if res := s.Execute(b.Context(), code, i+1); res.Err != nil {
			b.Fatal(res.Err.Value)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		s.Complete("v5", 2)
		s.Complete("v5.", 3)
		s.Complete("math.Sq", 7)
	}
}

// TestHelpTypesAndMethods: ?pkg.TYPE lists the type's methods, and ?pkg.TYPE.METHOD,
// ?TYPE.METHOD (a type name that one package has) and a promoted method show the method's
// documentation; a type of the session lists its methods too.
func TestHelpTypesAndMethods(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "type Box struct{ W, H int }\n\n// Area is the area of the box.\nfunc (b Box) Area() int { return b.W * b.H }")
	for _, c := range []struct {
		code string
		want []string
	}{
		{"?sbi.NRE", []string{"type NRE struct", "Methods of *sbi.NRE",
			"func (e *NRE) Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)",
			"func (e *NRE) LogRatio(theta, x *mat.Dense) []float64", "func (e *NRE) Config() NREConfig"}},
		{"?sbi.NPE.PosteriorAt", []string{"func (e *NPE) PosteriorAt(x []float64) *NPEPosterior"}},
		{"sbi.NPE.PosteriorAt?", []string{"func (e *NPE) PosteriorAt(x []float64) *NPEPosterior"}},
		{"?NPE.PosteriorAt", []string{"func (e *NPE) PosteriorAt(x []float64) *NPEPosterior", "sbi.NPE"}},
		{"?mat.Dense.Mul", []string{"func (m *Dense) Mul(a, b Matrix)"}},
		{"?plotter.Line.Len", []string{"func (xys XYs) Len() int", "promoted from the embedded field XYs of plotter.Line"}},
		{"?Box", []string{"type Box struct", "Methods of Box", "func (b Box) Area() int"}},
		{"?Box.Area", []string{"func (b Box) Area() int", "Area is the area of the box"}},
	} {
		res := ts.run(c.code)
		if res.Err != nil {
			t.Errorf("%s: %s", c.code, res.Err.Value)
			continue
		}
		page, _ := res.Page["text/plain"].(string)
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page %q lacks %q", c.code, page, w)
			}
		}
	}
	// the inspection of a notebook's front end (Shift-Tab) at the end of a chain
	if text, found := ts.Inspect("p := sbi.NPE.PosteriorAt", len("p := sbi.NPE.PosteriorAt")); !found || !strings.Contains(text, "PosteriorAt(x []float64)") {
		t.Errorf("Inspect of sbi.NPE.PosteriorAt: %q, %v", text, found)
	}
}

// TestMagicNamesMatchRunMagic keeps the magics that completion offers (magicNames) the same as
// those runMagic's switch runs, but for the alias %? of %help.
func TestMagicNamesMatchRunMagic(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "magic.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "runMagic" {
			return true
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if id, isID := tagIdent(sw); !ok || !isID || id != "name" {
				return true
			}
			for _, cl := range sw.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					if lit, ok := e.(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						ran[s] = true
					}
				}
			}
			return false
		})
		return false
	})
	delete(ran, "%?")
	offered := map[string]bool{}
	for prefix, names := range magicNames {
		for _, n := range names {
			offered[prefix+n] = true
		}
	}
	if len(ran) == 0 || !maps.Equal(ran, offered) {
		t.Errorf("runMagic runs %v, completion offers %v", slices.Sorted(maps.Keys(ran)), slices.Sorted(maps.Keys(offered)))
	}
}

// tagIdent returns the name of a switch's tag when it is an identifier.
func tagIdent(sw *ast.SwitchStmt) (string, bool) {
	if sw == nil {
		return "", false
	}
	id, ok := sw.Tag.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}
