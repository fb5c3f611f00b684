package extend

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCell(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		want       []Decl
		err        string
	}{
		{name: "declarations", code: "import \"math\"\n\nfunc f(x float64) float64 { return math.Sqrt(x) }\n\ntype T struct{}\n\nfunc (T) M() {}\n\nvar a, b = 1, 2\n\nconst c = 3\n\nfunc G[E any](e E) E { return e }",
			want: []Decl{{"f", "func", false}, {"T", "type", false}, {"a", "var", false}, {"b", "var", false}, {"c", "const", false}, {"G", "func", true}}},
		{name: "statement", code: "func f() {}\nx := 3", err: "cell [4] line 3:1: a %%compile cell holds only imports and declarations"},
		{name: "call", code: "\nfmt.Println(1)", err: "cell [4] line 3:1:"},
		{name: "nothing", code: "import \"math\"", err: "declares nothing"},
		{name: "syntax", code: "func f( {", err: "cell [4] line 2:"},
		{name: "import cycle", code: "import \"math\"\nimport \"gosbi.local/worker/compiled\"\n\nfunc f() {}", err: "cell [4] line 3:8: import cycle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCell(Cell{Code: tc.code, Count: 4})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("declarations %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("declaration %d: %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestMergeCells(t *testing.T) {
	a := Cell{Code: "import \"math\"\n\nfunc twice(x float64) float64 { return 2 * math.Abs(x) }\n\ntype point struct{ X, Y float64 }", Count: 2}
	b := Cell{Code: "func helper() int { return 1 }", Count: 3}
	cells, err := MergeCells(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	cells, err = MergeCells(cells, b)
	if err != nil {
		t.Fatal(err)
	}
	if !SameCells(cells, []Cell{a, b}) {
		t.Fatalf("two new cells: %v", cells)
	}
	// running a cell again with the same code changes nothing
	again, err := MergeCells(cells, Cell{Code: a.Code, Count: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !SameCells(again, cells) {
		t.Errorf("re-running a cell changed the cells: %v", again)
	}
	// a later cell redefining twice: a keeps point, and its import of math, now unused, goes
	redef := Cell{Code: "func twice(x float64) float64 { return 3 * x }", Count: 6}
	got, err := MergeCells(cells, redef)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Code != redef.Code {
		t.Fatalf("after a redefinition: %+v", got)
	}
	decls, err := ParseCell(got[0])
	if err != nil {
		t.Fatalf("the cell left after the redefinition does not parse: %v\n%s", err, got[0].Code)
	}
	if len(decls) != 1 || decls[0].Name != "point" || strings.Contains(got[0].Code, "math") {
		t.Errorf("cell left after the redefinition: %q (declares %v)", got[0].Code, decls)
	}
	if strings.Count(got[0].Code, "\n") != strings.Count(a.Code, "\n") {
		t.Errorf("the redefinition moved the lines of the earlier cell: %q", got[0].Code)
	}
	// a cell whose every declaration is redefined is replaced in place
	edit := Cell{Code: "import \"math\"\n\nfunc twice(x float64) float64 { return math.Abs(x) }\n\ntype point struct{ X, Y, Z float64 }", Count: 7}
	got, err = MergeCells(cells, edit)
	if err != nil {
		t.Fatal(err)
	}
	if !SameCells(got, []Cell{edit, b}) {
		t.Errorf("an edited cell: %+v", got)
	}
}

func TestBinding(t *testing.T) {
	src, notes, err := Binding(Cell{Code: "func f() {}\n\ntype T int\n\nvar v = 1.5\n\nconst c = 2\n\nfunc G[E any](e E) E { return e }", Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`import _gosbicompiled "gosbi.local/worker/compiled"`,
		"var f = _gosbicompiled.Gosbi_f", "type T = _gosbicompiled.Gosbi_T",
		"var v = *_gosbicompiled.Gosbi_v", "const c = _gosbicompiled.Gosbi_c",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("binding %q lacks %q", src, want)
		}
	}
	if strings.Contains(src, "Gosbi_G") {
		t.Errorf("binding %q binds the generic G", src)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "func G is generic") {
		t.Errorf("notes %q, want one on G", notes)
	}
}

// TestCellPositions: the positions of the generated file of %%compile cells become the cells'
// lines, as go build gives them and as the symbol table generator's type checker gives them
// (with the directory of the generated files, which may hold spaces), also indented.
func TestCellPositions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache dir", "compiled")
	for _, c := range []struct{ in, want string }{
		{"# gosbi.local/worker/compiled\ncell [7]:2:25: cannot use \"s\"\ncell [7]:3: other",
			"# gosbi.local/worker/compiled\ncell [7] line 2:25: cannot use \"s\"\ncell [7] line 3: other"},
		{"cell [1]:4:6: dup redeclared in this block\n\tcell [1]:2:6: other declaration of dup",
			"cell [1] line 4:6: dup redeclared in this block\n\tcell [1] line 2:6: other declaration of dup"},
		{`type-checking package "gosbi.local/worker/compiled" failed (` + dir + `/cell [1]:4:6: dup redeclared in this block)`,
			`type-checking package "gosbi.local/worker/compiled" failed (cell [1] line 4:6: dup redeclared in this block)`},
		{"compiled/cell [2]:3:1: x", "cell [2] line 3:1: x"},
	} {
		if got := cellPositions(c.in, dir); got != c.want {
			t.Errorf("cellPositions(%q):\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
}
