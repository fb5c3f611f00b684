package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPackageDocs(t *testing.T) {
	dir := t.TempDir()
	src := `// Package demo simulates.
//
// It is a demonstration.
package demo

// Scale multiplies every element of x by a.
// It works in place.
func Scale(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

// Model is a simulator.
type Model struct{ Dim int }

// Run simulates once.
func (m *Model) Run() []float64 { return nil }

func hidden() {}
`
	if err := os.WriteFile(filepath.Join(dir, "demo.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, opening, err := packageDocs(listedPackage{ImportPath: "example.com/demo", Name: "demo", Dir: dir, GoFiles: []string{"demo.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if opening != "Package demo simulates.\n\nIt is a demonstration." {
		t.Errorf("package doc %q", opening)
	}
	want := map[string]string{
		"Scale":     "func Scale(a float64, x []float64)\n\nScale multiplies every element of x by a.\nIt works in place.",
		"Model":     "type Model struct{ Dim int }\n\nModel is a simulator.",
		"Model.Run": "func (m *Model) Run() []float64\n\nRun simulates once.",
	}
	for name, w := range want {
		if docs[name] != w {
			t.Errorf("docs[%s] = %q, want %q", name, docs[name], w)
		}
	}
	if _, ok := docs["hidden"]; ok {
		t.Error("unexported name documented")
	}
	if len(docs) != len(want) {
		t.Errorf("docs %v", docs)
	}
}

func TestTrimDoc(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	got := trimDoc(long)
	if len(got) > maxDoc+10 || !strings.HasSuffix(got, " …") {
		t.Errorf("trimDoc kept %d bytes: …%q", len(got), got[len(got)-20:])
	}
	if trimDoc("  short doc\n") != "short doc" {
		t.Errorf("trimDoc(short) = %q", trimDoc("  short doc\n"))
	}
}

// TestPackageOpening: the opening of a package doc is its whole paragraphs within
// maxPkgDocLines lines, the first at least, marked " …" when the doc goes on.
func TestPackageOpening(t *testing.T) {
	lines := func(n int, w string) string { return strings.TrimSuffix(strings.Repeat(w+"\n", n), "\n") }
	cases := []struct{ name, doc, want string }{
		{"empty", "", ""},
		{"short", "Package p does x.\n", "Package p does x."},
		{"all paragraphs fit", "A.\n\nB.\nC.", "A.\n\nB.\nC."},
		{"paragraphs that fill the lines exactly",
			"A.\n\n" + lines(maxPkgDocLines-2, "b") + "\n\n" + lines(2, "c"),
			"A.\n\n" + lines(maxPkgDocLines-2, "b") + " …"},
		{"stops before the paragraph that does not fit",
			"A.\n\n" + lines(maxPkgDocLines-1, "b"), "A. …"},
		{"a long first paragraph is cut", lines(maxPkgDocLines+5, "a") + "\n\nB.", lines(maxPkgDocLines, "a") + " …"},
	}
	for _, c := range cases {
		if got := packageOpening(c.doc); got != c.want {
			t.Errorf("%s: packageOpening = %q, want %q", c.name, got, c.want)
		}
	}
	long := packageOpening(lines(maxPkgDocLines, strings.Repeat("word ", 40)))
	if len(long) > maxDoc+10 || !strings.HasSuffix(long, " …") {
		t.Errorf("long lines: kept %d bytes", len(long))
	}
}

func TestFileName(t *testing.T) {
	if got := fileName("gonum.org/v1/plot/vg/vgsvg"); got != "z_gonum_org_v1_plot_vg_vgsvg.go" {
		t.Errorf("fileName = %q", got)
	}
}

// TestSelectSets checks that gosbi's packages are generated apart from the standard library
// and gonum, and that -only finds the set of each path.
func TestSelectSets(t *testing.T) {
	all, err := selectSets("", "")
	if err != nil {
		t.Fatal(err)
	}
	byDir := map[string][]string{}
	for _, ts := range all {
		byDir[ts.dir] = ts.pkgs
	}
	for dir, pkgs := range byDir {
		for _, p := range pkgs {
			if own := strings.HasPrefix(p, "github.com/gosbi/gosbi/"); own != (dir == "gosbi") {
				t.Errorf("%s is in the set of directory %q", p, dir)
			}
		}
	}
	if !slices.Contains(byDir["."], "fmt") || !slices.Contains(byDir["gosbi"], "github.com/gosbi/gosbi/sbi") {
		t.Errorf("sets %v", byDir)
	}
	only, err := selectSets("", "fmt,github.com/gosbi/gosbi/viz")
	if err != nil || len(only) != 2 || !slices.Equal(only[0].pkgs, []string{"fmt"}) || !slices.Equal(only[1].pkgs, []string{"github.com/gosbi/gosbi/viz"}) {
		t.Errorf("-only: %v, %v", only, err)
	}
	if _, err := selectSets("gosbi", "fmt"); err == nil {
		t.Error("-set gosbi -only fmt: no error")
	}
	if _, err := selectSets("nosuch", ""); err == nil {
		t.Error("-set nosuch: no error")
	}
}

func TestModuleDeps(t *testing.T) {
	mod := &struct {
		Path, Version string
		Main          bool
	}{Path: "example.com/m", Main: true}
	other := &struct {
		Path, Version string
		Main          bool
	}{Path: "gonum.org/v1/gonum", Version: "v0.1.0"}
	all := map[string]listedPackage{
		"fmt":                  {ImportPath: "fmt", Standard: true},
		"example.com/m/a":      {ImportPath: "example.com/m/a", Module: mod},
		"example.com/m/b":      {ImportPath: "example.com/m/b", Module: mod},
		"gonum.org/v1/gonum/f": {ImportPath: "gonum.org/v1/gonum/f", Module: other},
	}
	for _, c := range []struct {
		name string
		deps []string
		want []string
	}{
		{"none", nil, []string{}},
		{"standard library and other modules", []string{"fmt", "gonum.org/v1/gonum/f"}, []string{}},
		{"the module's", []string{"example.com/m/a", "example.com/m/b", "fmt", "gonum.org/v1/gonum/f"}, []string{"example.com/m/a", "example.com/m/b"}},
	} {
		p := listedPackage{ImportPath: "example.com/m/c", Module: mod, Deps: c.deps, deps: all}
		if got := moduleDeps(p); !slices.Equal(got, c.want) || got == nil {
			t.Errorf("%s: moduleDeps = %#v, want %#v", c.name, got, c.want)
		}
	}
}
