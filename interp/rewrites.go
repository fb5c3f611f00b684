package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/interp/rewrite"
	"github.com/gosbi/gosbi/stdlib"
)

// rewrite runs the passes of package rewrite, which work around faults of the interpreter,
// on the items of a cell. It changes the items' text, which the interpreter runs, and keeps
// their syntax trees, which say what the cell's own source imports, defines and uses.
func (s *Session) rewrite(items []item, cell int) error {
	units := make([]rewrite.Unit, len(items))
	for i, it := range items {
		kind := rewrite.Stmt
		switch it.kind {
		case importItem:
			kind = rewrite.Import
		case declItem:
			kind = rewrite.Decl
		}
		units[i] = rewrite.Unit{Kind: kind, Text: it.text, Line: lineBase(cell) + it.line, Col: it.col}
	}
	paths := s.packagePaths(items)
	reach := sync.OnceValue(func() func(string) bool { return s.reachable(items, paths) })
	env := rewrite.Env{
		IsPackage: func(name string) bool { _, ok := paths(name); return ok },
		Compiled:  s.compiledSymbols(paths),
		PackagePath: func(name string) string {
			path, _ := paths(name)
			return path
		},
		PrintMethods: sync.OnceValues(func() (bool, bool) { return s.printMethods(items) }),
		ErrorMethods: sync.OnceValues(func() (bool, bool) { return s.errorMethods(items) }),
		IsVar: func(name string) bool {
			d := s.decls[name]
			return d != nil && d.kind == varDecl
		},
		TypeDecls: s.typeDecls,
		HasMethods: func(typeName string) bool {
			for name, d := range s.decls {
				if d.kind == methodDecl && strings.HasPrefix(name, typeName+".") {
					return true
				}
			}
			return false
		},
		CompiledOfUnderlying: func(key string) string {
			if name := compiledUnderlying()[key].first(reach()); name != "" {
				return name
			}
			return s.extraUnderlying()[key].first(reach())
		},
		Cell: cell,
	}
	if err := rewrite.Run(env, units); err != nil {
		return err
	}
	for i, u := range units {
		items[i].text = u.Text
	}
	return nil
}

// printMethods reports whether the session's types or those of the cell's items have a
// method String or Error, and whether one of them has it on a pointer receiver.
func (s *Session) printMethods(items []item) (value, pointer bool) {
	note := func(fd *ast.FuncDecl) {
		if fd.Recv == nil || len(fd.Recv.List) != 1 || (fd.Name.Name != "String" && fd.Name.Name != "Error") {
			return
		}
		value = true
		if _, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			pointer = true
		}
	}
	for _, d := range s.decls {
		if d.kind == methodDecl && (strings.HasSuffix(d.name, ".String") || strings.HasSuffix(d.name, ".Error")) {
			if f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+d.signature+"{}", 0); err == nil && len(f.Decls) == 1 {
				if fd, ok := f.Decls[0].(*ast.FuncDecl); ok {
					note(fd)
				}
			}
		}
	}
	for _, it := range items {
		if fd, ok := it.decl.(*ast.FuncDecl); ok {
			note(fd)
		}
	}
	return value, pointer
}

// errorMethods reports whether the session's types or those of the cell's items have a
// method Error, and whether they have a method Unwrap, Is or As.
func (s *Session) errorMethods(items []item) (errorType, chain bool) {
	note := func(name string) {
		switch name {
		case "Error":
			errorType = true
		case "Unwrap", "Is", "As":
			chain = true
		}
	}
	for _, d := range s.decls {
		if d.kind == methodDecl {
			note(d.name[strings.LastIndexByte(d.name, '.')+1:])
		}
	}
	for _, it := range items {
		if fd, ok := it.decl.(*ast.FuncDecl); ok && fd.Recv != nil {
			note(fd.Name.Name)
		}
	}
	return errorType, chain
}

// typeDecls returns the sources of the session's type declarations, in the order they were
// made, each once (the types of a group share theirs).
func (s *Session) typeDecls() []string {
	var ds []*decl
	for _, d := range s.decls {
		if d.kind == typeDecl {
			ds = append(ds, d)
		}
	}
	slices.SortFunc(ds, func(a, b *decl) int { return a.seq - b.seq })
	var texts []string
	seen := map[string]bool{}
	for _, d := range ds {
		if !seen[d.text] {
			seen[d.text] = true
			texts = append(texts, d.text)
		}
	}
	return texts
}

// compiledUnderlying indexes the compiled defined struct types of the program's symbol tables
// by their rewrite.UnderlyingKey, for check-type-identity: the interpreter takes a value of
// one for a value of a cell's struct type of the same fields, and the reverse. Empty structs
// are left (debug.CrashOptions is one): they would make every cell's empty struct type
// ambiguous, and compiled code hardly hands out values of them.
var compiledUnderlying = sync.OnceValue(func() map[string]compiledStructs { return underlyingIndex(stdlib.Symbols) })

// extraUnderlying is compiledUnderlying for the session's extra packages (Config.Symbols).
func (s *Session) extraUnderlying() map[string]compiledStructs {
	s.extraUnderOnce.Do(func() { s.extraUnder = underlyingIndex(s.opts.Symbols) })
	return s.extraUnder
}

// compiledStructs are compiled struct types of one underlying type, by name (as reflect
// writes it), each with its package's import path.
type compiledStructs []struct{ path, name string }

// first returns the name of the first type whose package reach holds, "" when there is none.
func (cs compiledStructs) first(reach func(path string) bool) string {
	for _, c := range cs {
		if reach(c.path) {
			return c.name
		}
	}
	return ""
}

// underlyingIndex returns the index of compiledUnderlying for the symbol tables syms, whose
// keys are "path/name".
func underlyingIndex(syms map[string]map[string]reflect.Value) map[string]compiledStructs {
	index := map[string]compiledStructs{}
	for k, pkg := range syms {
		path := k[:max(strings.LastIndexByte(k, '/'), 0)]
		for name := range pkg {
			t, ok := symbolType(pkg, name)
			if !ok || t.Name() == "" {
				continue
			}
			if t.Kind() != reflect.Struct || t.NumField() == 0 {
				continue
			}
			key := rewrite.UnderlyingKey(t)
			index[key] = append(index[key], struct{ path, name string }{path, t.String()})
		}
	}
	for _, cs := range index {
		slices.SortFunc(cs, func(a, b struct{ path, name string }) int { return strings.Compare(a.name, b.name) }) // the same name for every run
	}
	return index
}

// libraryPrefix is the import path prefix of gosbi's own packages.
const libraryPrefix = "github.com/gosbi/gosbi/"

// reachable returns whether a cell can hold a value of a compiled struct type of the package
// path, for check-type-identity: a package the session imports, one the cell imports or
// names (paths resolves its names), or, once one of those is of gosbi's library, any package
// of the library, whose functions return values of their sibling packages' types through
// interfaces and fields of type any that the cell need not import. A value of another package
// reaches a cell only when a package that the session imports hands it out in an interface
// (a gonum function's result holding a type of a package gonum imports); package interp
// documents that gap.
func (s *Session) reachable(items []item, paths func(string) (string, bool)) func(path string) bool {
	named := map[string]bool{}
	for _, path := range s.imports {
		named[path] = true
	}
	for _, it := range items {
		ast.Inspect(node(it), func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				named[strings.Trim(n.Path.Value, `"`)] = true
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok {
					if path, ok := paths(id.Name); ok {
						named[path] = true
					}
				}
			}
			return true
		})
	}
	library := false
	for path := range named {
		library = library || strings.HasPrefix(path, libraryPrefix)
	}
	return func(path string) bool { return named[path] || library && strings.HasPrefix(path, libraryPrefix) }
}

// sameSource reports whether two declaration texts are the same source, ignoring the
// position comments of the rewrites (which name the cell they were written in).
func sameSource(a, b string) bool {
	return a == b || rewrite.StripPositions(a) == rewrite.StripPositions(b)
}

// packagePaths returns the import path of the package a name in the cell's code names: one
// the session or the cell imports, or one the session would import on its use, that the cell
// does not define otherwise; false when the name names no package.
func (s *Session) packagePaths(items []item) func(string) (string, bool) {
	defined := map[string]bool{}
	imported := map[string]string{}
	for _, it := range items {
		if it.kind != importItem {
			definedNames(node(it), defined)
			continue
		}
		gd, ok := it.decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			path := strings.Trim(is.Path.Value, `"`)
			if is.Name != nil {
				imported[is.Name.Name] = path
			} else {
				imported[packageName(path)] = path
			}
		}
	}
	return func(name string) (string, bool) {
		if defined[name] || s.decls[name] != nil {
			return "", false
		}
		if path, ok := imported[name]; ok {
			return path, true
		}
		if path := s.imports[name]; path != "" {
			return path, true
		}
		indexPackages()
		path, ok := pkgIndex.byName[name]
		return path, ok
	}
}

// compiledSymbols returns Env.Compiled for a cell whose package names have the import paths
// that paths gives: the type that pkg.name names in the session's symbol tables, nil when it
// names no type.
func (s *Session) compiledSymbols(paths func(string) (string, bool)) func(pkg, name string) reflect.Type {
	return func(pkg, name string) reflect.Type {
		path, ok := paths(pkg)
		if !ok {
			return nil
		}
		t, _ := symbolType(s.symbolsOf(path), name)
		return t
	}
}

// symbolsOf returns the symbol table of the compiled package path, nil when the session has
// none.
func (s *Session) symbolsOf(path string) map[string]reflect.Value {
	if m := packageSymbols(path); m != nil {
		return m
	}
	for k, m := range s.opts.Symbols {
		if k[:strings.LastIndexByte(k, '/')] == path {
			return m
		}
	}
	return nil
}
