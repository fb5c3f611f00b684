// Command gen writes the yaegi symbol tables and the documentation tables of package stdlib
// and of package stdlib/gosbi (gosbi's own packages, which change with its API): one file per
// package, named after its import path, in the directory of its set (packages.go). The file
// of a package of this module also records the packages of this module it imports
// (stdlib.ModuleDeps), which `gen -check` thus verifies with the tables. It is run
// by `go generate ./stdlib` (all sets) or `go generate ./stdlib/gosbi` (-set gosbi), in the
// directory of package stdlib; the output depends only on the Go version and the sources, so
// a second run changes nothing.
//
// It also writes each set's inputs.sum: for each package, a hash of everything its file is
// made from (the Go version, yaegi's version, this generator's source, the name of the package
// of tables, and the package's source with that of the packages of this module it imports, or
// the version of the module it belongs to) and a hash of the file. `gen -check` uses it to tell
// in seconds whether the tables are up to date: a table whose inputs or file differ from the
// record is generated again, in memory, and compared with its file; the others are what
// generating them gives. The check thus regenerates only what changed.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/yaegi/extract"
)

const filePrefix = "z_"

func main() {
	log.SetFlags(0)
	log.SetPrefix("stdlib/gen: ")
	only := flag.String("only", "", "comma-separated import paths: regenerate just these (while developing them)")
	set := flag.String("set", "", "regenerate or check only the tables of this set (std or gosbi)")
	check := flag.Bool("check", false, "report whether the tables are up to date (exit status 1 if not) instead of writing them")
	flag.Parse()
	chosen, err := selectSets(*set, *only)
	if err != nil {
		log.Fatal(err)
	}
	var stale, commands []string
	for _, ts := range chosen {
		s, err := runSet(ts, *check, *only != "")
		if err != nil {
			log.Fatalf("%s: %v", ts.dir, err)
		}
		if len(s) > 0 {
			stale = append(stale, s...)
			commands = append(commands, "go generate "+ts.generateDir())
		}
	}
	if len(stale) > 0 {
		log.Fatalf("the tables are stale: run '%s' and commit the result:\n\t%s", strings.Join(commands, "; "), strings.Join(stale, "\n\t"))
	}
}

// generateDir is the argument of go generate that regenerates the set, from the module root.
func (ts tableSet) generateDir() string {
	return "./" + filepath.ToSlash(filepath.Join("stdlib", ts.dir))
}

// selectSets returns the table sets that name (all when empty) selects, each with its list
// of import paths (the standard library's included); with only, just the paths it names.
func selectSets(name, only string) ([]tableSet, error) {
	var res []tableSet
	for _, ts := range sets {
		if name != "" && ts.name != name {
			continue
		}
		if ts.std {
			std, err := stdPackages()
			if err != nil {
				return nil, err
			}
			ts.pkgs = append(std, ts.pkgs...)
		}
		res = append(res, ts)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("-set %s: no such set of tables", name)
	}
	if only == "" {
		return res, nil
	}
	want := strings.Split(only, ",")
	found := map[string]bool{}
	for i := range res {
		var keep []string
		for _, p := range res[i].pkgs {
			if slices.Contains(want, p) {
				keep = append(keep, p)
				found[p] = true
			}
		}
		res[i].pkgs = keep
	}
	for _, p := range want {
		if !found[p] {
			return nil, fmt.Errorf("-only %s: not a package of the tables (add it to a set in internal/gen/packages.go)", p)
		}
	}
	return slices.DeleteFunc(res, func(ts tableSet) bool { return len(ts.pkgs) == 0 }), nil
}

// runSet checks the tables of one set (returning what is stale) or writes them; partial
// says that ts holds only some of the set's packages.
func runSet(ts tableSet, check, partial bool) ([]string, error) {
	pkgs, err := listPackages(ts.pkgs)
	if err != nil {
		return nil, err
	}
	inputs, err := inputHashes(ts, pkgs)
	if err != nil {
		return nil, err
	}
	if check {
		return checkTables(ts, pkgs, inputs, !partial)
	}
	files, err := generateAll(ts, pkgs)
	if err != nil {
		return nil, err
	}
	// replace the old tables only once all new ones are ready
	if !partial {
		old, _ := filepath.Glob(filepath.Join(ts.dir, filePrefix+"*.go"))
		for _, f := range old {
			if _, keep := files[filepath.Base(f)]; !keep {
				if err := os.Remove(f); err != nil {
					return nil, err
				}
			}
		}
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(ts.dir, name), src, 0o644); err != nil {
			return nil, err
		}
	}
	sums := map[string]sum{}
	if partial {
		if sums, err = readSums(ts.dir); err != nil {
			return nil, err
		}
	}
	for _, p := range pkgs {
		sums[p.ImportPath] = sum{inputs[p.ImportPath], hashBytes(files[fileName(p.ImportPath)])}
	}
	return nil, writeSums(ts.dir, sums)
}

// generateAll generates the tables of pkgs, two at a time, by file name.
func generateAll(ts tableSet, pkgs []listedPackage) (map[string][]byte, error) {
	work := make(chan listedPackage)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	files := map[string][]byte{}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				src, err := generate(ts.pkg, p)
				mu.Lock()
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", p.ImportPath, err))
				}
				files[fileName(p.ImportPath)] = src
				mu.Unlock()
			}
		}()
	}
	for _, p := range pkgs {
		work <- p
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		sort.Strings(failed)
		return nil, fmt.Errorf("cannot generate:\n%s", strings.Join(failed, "\n"))
	}
	return files, nil
}

// stdPackages lists the standard library packages offered to cells.
func stdPackages() ([]string, error) {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		return nil, fmt.Errorf("go list std: %w", err)
	}
	var res []string
	for _, p := range strings.Fields(string(out)) {
		if !stdOmitted(p) {
			res = append(res, p)
		}
	}
	return res, nil
}

type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Standard   bool
	Deps       []string
	Module     *struct {
		Path, Version string
		Main          bool
	}
	Error *struct{ Err string }

	deps map[string]listedPackage // the dependencies of the packages listed, by import path
}

// listPackages runs `go list` once for all paths; packages that do not exist are skipped.
// Each package returned carries the listing of all dependencies in its deps field.
func listPackages(paths []string) ([]listedPackage, error) {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	cmd := exec.Command("go", append([]string{"list", "-e", "-deps", "-json"}, paths...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var res []listedPackage
	all := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		all[p.ImportPath] = p
		p.deps = all
		if !want[p.ImportPath] {
			continue
		}
		if p.Error != nil || len(p.GoFiles) == 0 {
			log.Printf("skipping %s (not in this tree)", p.ImportPath)
			continue
		}
		res = append(res, p)
	}
	return res, nil
}

func fileName(importPath string) string {
	r := strings.NewReplacer("/", "_", ".", "_", "-", "_")
	return filePrefix + r.Replace(importPath) + ".go"
}

// generate returns the file (of package pkgName) holding the symbol table and the documentation of one package.
func generate(pkgName string, p listedPackage) ([]byte, error) {
	var buf bytes.Buffer
	ext := extract.Extractor{Dest: pkgName}
	if _, err := ext.Extract(p.ImportPath, "", &buf); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	docs, opening, err := packageDocs(p)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	fmt.Fprintf(&buf, "\nfunc init() {\n")
	if opening != "" {
		fmt.Fprintf(&buf, "\tPackageDocs[%q] = %s\n", p.ImportPath, strconv.Quote(opening))
	}
	if deps := moduleDeps(p); p.Module != nil && p.Module.Main {
		fmt.Fprintf(&buf, "\tModuleDeps[%q] = %#v\n", p.ImportPath, deps)
	}
	fmt.Fprintf(&buf, "\tDocs[%q] = map[string]string{\n", p.ImportPath)
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&buf, "\t\t%q: %s,\n", n, strconv.Quote(docs[n]))
	}
	buf.WriteString("\t}\n}\n")
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	return src, nil
}

// moduleDeps returns the packages of the main module that p imports, directly or not, sorted
// (go list gives Deps sorted), for stdlib.ModuleDeps.
func moduleDeps(p listedPackage) []string {
	deps := []string{}
	for _, path := range p.Deps {
		if q, ok := p.deps[path]; ok && q.Module != nil && q.Module.Main {
			deps = append(deps, path)
		}
	}
	return deps
}

// maxDoc bounds the doc comment kept per name; inspection shows a summary, not a manual.
const maxDoc = 1500

// maxPkgDocLines bounds the opening of a package doc that packageOpening keeps.
const maxPkgDocLines = 20

// packageDocs returns "signature\n\ndoc" for every exported name of the package, and the
// opening of the package doc (packageOpening).
func packageDocs(p listedPackage) (map[string]string, string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, "", err
		}
		files = append(files, f)
	}
	d, err := doc.NewFromFiles(fset, files, p.ImportPath)
	if err != nil {
		return nil, "", err
	}
	res := map[string]string{}
	add := func(name string, decl ast.Node, text string) {
		if !token.IsExported(name[strings.LastIndex(name, ".")+1:]) {
			return
		}
		res[name] = signature(fset, decl) + "\n\n" + trimDoc(text)
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				add(n, v.Decl, v.Doc)
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	for _, f := range d.Funcs {
		add(f.Name, f.Decl, f.Doc)
	}
	for _, t := range d.Types {
		add(t.Name, t.Decl, t.Doc)
		values(t.Consts)
		values(t.Vars)
		for _, f := range t.Funcs {
			add(f.Name, f.Decl, f.Doc)
		}
		for _, m := range t.Methods {
			add(t.Name+"."+m.Name, m.Decl, m.Doc)
		}
	}
	return res, packageOpening(d.Doc), nil
}

// signature prints a declaration without its body, at most maxSigLines lines.
func signature(fset *token.FileSet, decl ast.Node) string {
	if fd, ok := decl.(*ast.FuncDecl); ok {
		c := *fd
		c.Body, c.Doc = nil, nil
		decl = &c
	}
	if gd, ok := decl.(*ast.GenDecl); ok {
		c := *gd
		c.Doc = nil
		decl = &c
	}
	var b strings.Builder
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, fset, decl); err != nil {
		return ""
	}
	lines := strings.Split(b.String(), "\n")
	const maxSigLines = 30
	if len(lines) > maxSigLines {
		lines = append(lines[:maxSigLines], "\t…")
	}
	return strings.Join(lines, "\n")
}

func trimDoc(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxDoc {
		return s
	}
	cut := strings.LastIndex(s[:maxDoc], "\n\n")
	if cut < maxDoc/3 {
		cut = strings.LastIndexByte(s[:maxDoc], ' ')
	}
	return s[:cut] + " …"
}

// packageOpening returns the opening of a package doc, what ?PKG shows before the list of
// the package's names: its whole paragraphs while they fit in maxPkgDocLines lines (the first
// paragraph at least, cut at that many lines), within maxDoc bytes, and " …" when the doc
// goes on.
func packageOpening(text string) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	var kept []string
	lines := 0
	for _, p := range paras {
		pl := strings.Split(p, "\n")
		if len(pl) > maxPkgDocLines {
			pl = pl[:maxPkgDocLines]
		}
		add := len(pl)
		if len(kept) > 0 {
			add++ // the blank line between paragraphs
			if lines+add > maxPkgDocLines {
				break
			}
		}
		kept = append(kept, strings.Join(pl, "\n"))
		lines += add
	}
	s := strings.Join(kept, "\n\n")
	if len(s) > maxDoc {
		return trimDoc(s)
	}
	if len(s) < len(strings.TrimSpace(text)) {
		s += " …"
	}
	return s
}
