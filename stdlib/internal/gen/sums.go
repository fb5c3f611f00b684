package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// sumsFile records, per package, the hash of the inputs of its table and the hash of the file.
const sumsFile = "inputs.sum"

// sum is one line of inputs.sum.
type sum struct{ inputs, file string }

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// inputHashes returns, by import path, the hash of everything the table of each package of
// set ts is made from: the Go version, yaegi's version, this generator's source and the name
// of the package of tables, then for the package and each package it imports: nothing more
// for the standard library (the Go version fixes it), the module and version for another
// module, the file contents for this module.
func inputHashes(ts tableSet, pkgs []listedPackage) (map[string]string, error) {
	common := sha256.New()
	fmt.Fprintf(common, "go %s\nyaegi %s\npackage %s\n", runtime.Version(), yaegiVersion(), ts.pkg)
	if err := hashGenerator(common); err != nil {
		return nil, err
	}
	base := common.Sum(nil)
	fileHashes := map[string]string{} // per package of this module, computed once
	res := map[string]string{}
	for _, p := range pkgs {
		h := sha256.New()
		h.Write(base)
		for _, path := range append([]string{p.ImportPath}, p.Deps...) {
			q, ok := p.deps[path]
			if !ok {
				q = p
			}
			line, err := packageInput(q, fileHashes)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(h, "%s %s\n", path, line)
		}
		res[p.ImportPath] = hex.EncodeToString(h.Sum(nil))
	}
	return res, nil
}

// packageInput is the line that stands for one package in an input hash.
func packageInput(q listedPackage, fileHashes map[string]string) (string, error) {
	switch {
	case q.Standard:
		return "std", nil
	case q.Module == nil:
		return "", fmt.Errorf("%s: neither in the standard library nor in a module", q.ImportPath)
	case !q.Module.Main:
		return q.Module.Path + "@" + q.Module.Version, nil
	}
	if h, ok := fileHashes[q.ImportPath]; ok {
		return h, nil
	}
	h := sha256.New()
	for _, name := range q.GoFiles {
		b, err := os.ReadFile(filepath.Join(q.Dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	fileHashes[q.ImportPath] = hex.EncodeToString(h.Sum(nil))
	return fileHashes[q.ImportPath], nil
}

// yaegiVersion is the version of yaegi this generator was built with.
func yaegiVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/traefik/yaegi" {
				if m.Replace != nil {
					m = m.Replace
				}
				return m.Version + " " + m.Sum
			}
		}
	}
	return "unknown"
}

// hashGenerator hashes the source of this generator (the Go files of internal/gen, which is
// the working directory's internal/gen when run by go generate). The lists of packages
// (packages.go) choose which tables exist, not what a table holds, so they are left out: a
// package added or dropped does not invalidate the records of the others, and checkTables
// reports a missing or extra table by itself. What of packages.go a table depends on, the
// name of its package, is hashed by inputHashes.
func hashGenerator(w io.Writer) error {
	files, err := filepath.Glob(filepath.Join("internal", "gen", "*.go"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no generator source in internal/gen: run in the directory of package stdlib")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == "packages.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %d\n", filepath.Base(f), len(b))
		w.Write(b)
	}
	return nil
}

// readSums reads dir's inputs.sum; a missing file reads as empty.
func readSums(dir string) (map[string]sum, error) {
	res := map[string]sum{}
	f, err := os.Open(filepath.Join(dir, sumsFile))
	if os.IsNotExist(err) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d: expected IMPORTPATH INPUTS FILE, got %q", sumsFile, n, line)
		}
		res[fs[0]] = sum{fs[1], fs[2]}
	}
	return res, sc.Err()
}

// writeSums writes dir's inputs.sum through a temporary file, sorted by import path.
func writeSums(dir string, sums map[string]sum) error {
	paths := make([]string, 0, len(sums))
	for p := range sums {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("# Written by `go generate ./stdlib`: import path, hash of the table's inputs, hash of its file.\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %s %s\n", p, sums[p].inputs, sums[p].file)
	}
	tmp, err := os.CreateTemp(dir, "."+sumsFile+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, sumsFile))
}

// checkTables returns what is stale among the tables of pkgs in the directory of set ts: a
// missing file, a table that, generated again, differs from its file, and (when all is true,
// that is pkgs is the whole set) a table file of no listed package. Only the tables whose
// inputs or file differ from what inputs.sum recorded are generated again.
func checkTables(ts tableSet, pkgs []listedPackage, inputs map[string]string, all bool) ([]string, error) {
	sums, err := readSums(ts.dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	regenerated, same := 0, 0
	for _, p := range pkgs {
		name := filepath.Join(ts.dir, fileName(p.ImportPath))
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			stale = append(stale, fmt.Sprintf("%s: no %s", p.ImportPath, name))
			continue
		}
		if err != nil {
			return nil, err
		}
		// inputs.sum only saves work: a table whose inputs and file are those recorded is
		// what generating it gives; any other is generated again and compared.
		if s, ok := sums[p.ImportPath]; ok && s.inputs == inputs[p.ImportPath] && s.file == hashBytes(b) {
			same++
			continue
		}
		regenerated++
		src, err := generate(ts.pkg, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		if string(src) != string(b) {
			stale = append(stale, fmt.Sprintf("%s: %s differs from what its sources give", p.ImportPath, name))
		}
	}
	if all {
		want := map[string]bool{}
		for _, p := range pkgs {
			want[filepath.Join(ts.dir, fileName(p.ImportPath))] = true
		}
		old, _ := filepath.Glob(filepath.Join(ts.dir, filePrefix+"*.go"))
		for _, f := range old {
			if !want[f] {
				stale = append(stale, fmt.Sprintf("%s: the table of no listed package", f))
			}
		}
	}
	fmt.Printf("tables of package %s: %d packages as recorded in %s, %d generated again and compared, %d stale\n", ts.pkg, same, filepath.Join(ts.dir, sumsFile), regenerated, len(stale))
	return stale, nil
}
