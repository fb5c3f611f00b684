// Command symgen writes the yaegi symbol tables of packages for an extended gosbi worker:
// one file z_PATH.go per package, in package main, into the -o directory. It runs in the
// worker's build module so that packages resolve through its go.work. It prints a JSON object
// on standard output: the exported identifiers cells cannot use and why, and the packages
// that do not build.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"github.com/traefik/yaegi/extract"
)

type unavailable struct{ Package, Name, Why string }

type pkgError struct{ Package, Err string }

type result struct {
	Unavailable []unavailable
	Errors      []pkgError
}

func main() {
	out := flag.String("o", ".", "output `directory`")
	flag.Parse()
	var res result
	for _, p := range flag.Args() {
		u, err := one(p, *out)
		if err != nil {
			res.Errors = append(res.Errors, pkgError{p, err.Error()})
			continue
		}
		res.Unavailable = append(res.Unavailable, u...)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "symgen:", err)
		os.Exit(1)
	}
}

// one type-checks package path, lists what yaegi cannot export, and writes its table.
func one(path, dir string) ([]unavailable, error) {
	pkg, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import(path)
	if err != nil {
		return nil, err
	}
	un := generics(pkg)
	var buf bytes.Buffer
	ext := extract.Extractor{Dest: "main"}
	if _, err := ext.Extract(path, "", &buf); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	name := "z_" + strings.NewReplacer("/", "_", ".", "_", "-", "_", "~", "_").Replace(path) + ".go"
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return un, nil
}

const (
	whyFunc  = "generic function: yaegi links compiled functions as values, and a generic one has no value until it is instantiated; wrap an instantiation in a non-generic function"
	whyType  = "generic type: yaegi cannot instantiate a compiled generic type; declare a non-generic type (type T = pkg.G[float64]) in a compiled package"
	whyConst = "type constraint: constraints exist only for generic code, which yaegi cannot link"
)

// generics lists the exported generic functions, types and constraints of pkg.
func generics(pkg *types.Package) []unavailable {
	var res []unavailable
	sc := pkg.Scope()
	for _, name := range sc.Names() {
		o := sc.Lookup(name)
		if !o.Exported() {
			continue
		}
		switch o := o.(type) {
		case *types.Func:
			if o.Type().(*types.Signature).TypeParams().Len() > 0 {
				res = append(res, unavailable{pkg.Path(), name, whyFunc})
			}
		case *types.TypeName:
			if t, ok := o.Type().(*types.Named); ok && t.TypeParams().Len() > 0 {
				res = append(res, unavailable{pkg.Path(), name, whyType})
			} else if it, ok := o.Type().Underlying().(*types.Interface); ok && !it.IsMethodSet() {
				res = append(res, unavailable{pkg.Path(), name, whyConst})
			}
		}
	}
	return res
}
