package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTables runs the check on a fake package in a set of tables in a subdirectory of a
// temporary directory (as gosbi's own tables are): a table whose
// inputs and file are those recorded passes without being generated again (the fake package
// cannot be generated, so an attempt would fail the check); a missing table, an extra table
// and a table whose record does not match are reported or generated again.
func TestCheckTables(t *testing.T) {
	t.Chdir(t.TempDir())
	ts := tableSet{name: "fake", dir: "sub", pkg: "fake"}
	if err := os.Mkdir(ts.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := listedPackage{ImportPath: "example.com/fake", Name: "fake"}
	name := filepath.Join(ts.dir, fileName(p.ImportPath))
	table := []byte("package stdlib\n")
	inputs := map[string]string{p.ImportPath: "in1"}

	stale, err := checkTables(ts, []listedPackage{p}, inputs, true)
	if err != nil || len(stale) != 1 || !strings.Contains(stale[0], "no "+name) {
		t.Errorf("missing table: stale %q, %v", stale, err)
	}

	if err := os.WriteFile(name, table, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeSums(ts.dir, map[string]sum{p.ImportPath: {"in1", hashBytes(table)}}); err != nil {
		t.Fatal(err)
	}
	if stale, err := checkTables(ts, []listedPackage{p}, inputs, true); err != nil || len(stale) != 0 {
		t.Errorf("recorded table: stale %q, %v", stale, err)
	}

	if err := os.WriteFile(filepath.Join(ts.dir, "z_gone.go"), table, 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err = checkTables(ts, []listedPackage{p}, inputs, true)
	if err != nil || len(stale) != 1 || !strings.Contains(stale[0], filepath.Join(ts.dir, "z_gone.go")) {
		t.Errorf("table of no package: stale %q, %v", stale, err)
	}
	os.Remove(filepath.Join(ts.dir, "z_gone.go"))

	// A table edited by hand, or inputs that changed, send the package to the generator.
	if err := os.WriteFile(name, []byte("package stdlib // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkTables(ts, []listedPackage{p}, inputs, true); err == nil || !strings.Contains(err.Error(), p.ImportPath) {
		t.Errorf("edited table: %v, expected the package to be generated again", err)
	}
	if err := os.WriteFile(name, table, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkTables(ts, []listedPackage{p}, map[string]string{p.ImportPath: "in2"}, true); err == nil {
		t.Error("changed inputs: the package was not generated again")
	}
}

func TestSumsRoundTrip(t *testing.T) {
	t.Chdir(t.TempDir())
	want := map[string]sum{"fmt": {"a", "b"}, "example.com/x": {"c", "d"}}
	if err := writeSums(".", want); err != nil {
		t.Fatal(err)
	}
	got, err := readSums(".")
	if err != nil || len(got) != 2 || got["fmt"] != want["fmt"] || got["example.com/x"] != want["example.com/x"] {
		t.Errorf("read back %v, %v", got, err)
	}
	if err := os.WriteFile(sumsFile, []byte("fmt onlyone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readSums("."); err == nil {
		t.Error("malformed line: no error")
	}
}

// TestGeneratorHashLeavesOutTheLists checks that the lists of packages, which choose which
// tables exist and not what a table holds, do not enter the inputs of every table, while the
// rest of the generator's source does.
func TestGeneratorHashLeavesOutTheLists(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("internal", "gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	hash := func(files map[string]string) string {
		for name, src := range files {
			if err := os.WriteFile(filepath.Join("internal", "gen", name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h := sha256.New()
		if err := hashGenerator(h); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	base := hash(map[string]string{"main.go": "package main\n", "packages.go": "package main\n\nvar sets = 1\n", "x_test.go": "package main\n"})
	for _, c := range []struct {
		file    string
		changes bool
	}{{"packages.go", false}, {"x_test.go", false}, {"main.go", true}} {
		h := hash(map[string]string{c.file: "package main // edited\n"})
		if h != base != c.changes {
			t.Errorf("an edit of %s: hash changed %v, want %v", c.file, h != base, c.changes)
		}
		base = h
	}
}
