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
	src := `package demo

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
	docs, err := packageDocs(listedPackage{ImportPath: "example.com/demo", Name: "demo", Dir: dir, GoFiles: []string{"demo.go"}})
	if err != nil {
		t.Fatal(err)
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
