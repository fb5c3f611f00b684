package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/interp/explain"
	"github.com/gosbi/gosbi/interp/extend"
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
		units[i] = rewrite.Unit{Kind: kind, Text: it.text, Line: lineBase(cell) + it.line, Col: it.col,
			Result: i == len(items)-1 && it.kind == stmtItem && isExprStmt(it.stmt)}
	}
	paths := s.packagePaths(items)
	reach := sync.OnceValue(func() func(string) bool { return s.reachable(items, paths) })
	compiled := s.compiledSymbols(paths)
	methods := sync.OnceValue(func() *methodSet { return s.methodSet(items, compiled) })
	env := rewrite.Env{
		IsPackage: func(name string) bool { _, ok := paths(name); return ok },
		Compiled:  compiled,
		CompiledFunc: func(pkg, name string) reflect.Type {
			path, ok := paths(pkg)
			if v := s.symbolsOf(path)[name]; ok && !strings.HasPrefix(name, "_") && v.Kind() == reflect.Func {
				return v.Type()
			}
			return nil
		},
		PackagePath: func(name string) string {
			path, _ := paths(name)
			return path
		},
		PrintMethods: func() (bool, bool) { ms := methods(); return ms.print, ms.printPointer },
		ErrorMethods: func() (bool, bool) { ms := methods(); return ms.errorType, ms.chain },
		ErrorType:    func(typeName string) bool { return methods().errorTypes[typeName] },
		IsVar: func(name string) bool {
			d := s.decls[name]
			return d != nil && d.kind == varDecl
		},
		IsConst: func(name string) bool {
			d := s.decls[name]
			return d != nil && d.kind == constDecl
		},
		TypeDecls:   s.typeDecls,
		Definition:  s.definition,
		HasMethods:  func(typeName string) bool { return methods().types[typeName] },
		MethodDecls: s.methodDecls,
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

// methodSet is what the rewrites ask of the methods of the session's types and the cell's.
type methodSet struct {
	types               map[string]bool // types with methods, declared or promoted from an embedded field
	print, printPointer bool            // a method String or Error, and one on a pointer receiver
	errorType, chain    bool            // a method Error, and a method Unwrap, Is or As
	errorTypes          map[string]bool // the types that declare a method Error
}

// methodSet scans the method and type declarations of the session and of the cell's items
// once. A struct type with an embedded field of type error, of a compiled interface type with
// methods or of a type with methods has methods too: yaegi hands a value of struct{ error } to
// compiled code in its wrapper as it does one with a declared Error. Embedding turns on no
// wrapping of fmt's operands (print): fmt prints a value of a type that embeds an interface
// with yaegi's panic about reflect.StructOf whether wrapped or not (wrap-fmt-args gives fmt the
// result of the interface's Error or String instead, where the unit shows the operand's
// type). An embedded compiled type
// that is no interface (time.Time, *bytes.Buffer) gives the type the methods that Go promotes
// from it (types), those of its pointer type included (which *S has), for the rewrites that
// ask whether a type has methods (guard-assertions). They turn on neither the wrapping of
// fmt's operands nor the errors helpers (print, errorType, chain), which work through those
// interfaces: wrap-fmt-args passes such a value's embedded field to fmt instead. The passes
// learn the methods' names and signatures from Env.MethodDecls and the type declarations.
func (s *Session) methodSet(items []item, compiled func(pkg, name string) reflect.Type) *methodSet {
	ms := &methodSet{types: map[string]bool{}, errorTypes: map[string]bool{}}
	var specs []*ast.TypeSpec
	for _, d := range s.decls {
		switch d.kind {
		case methodDecl:
			if f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+d.signature+"{}", 0); err == nil && len(f.Decls) == 1 {
				if fd, ok := f.Decls[0].(*ast.FuncDecl); ok {
					ms.noteMethod(fd)
				}
			}
		case typeDecl:
			if f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+d.text, 0); err == nil {
				specs = append(specs, typeSpecs(f.Decls)...)
			}
		}
	}
	for _, it := range items {
		if it.decl != nil {
			if fd, ok := it.decl.(*ast.FuncDecl); ok {
				ms.noteMethod(fd)
			}
			specs = append(specs, typeSpecs([]ast.Decl{it.decl})...)
		}
	}
	ms.noteEmbeddedInterfaces(specs)
	for changed := true; changed; { // promoted through several embeddings
		changed = false
		for _, ts := range specs {
			if !ms.types[ts.Name.Name] && ms.embedsMethods(ts, compiled) {
				ms.types[ts.Name.Name], changed = true, true
			}
		}
	}
	return ms
}

// noteMethod records a method declaration.
func (ms *methodSet) noteMethod(fd *ast.FuncDecl) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return
	}
	_, pointer := fd.Recv.List[0].Type.(*ast.StarExpr)
	name := explain.RecvTypeName(fd.Recv.List[0].Type)
	if name != "" {
		ms.types[name] = true
		ms.errorTypes[name] = ms.errorTypes[name] || fd.Name.Name == "Error"
	}
	switch fd.Name.Name {
	case "String", "Error":
		ms.print = true
		ms.printPointer = ms.printPointer || pointer
		ms.errorType = ms.errorType || fd.Name.Name == "Error"
	case "Unwrap", "Is", "As":
		ms.chain = true
	}
}

// embedsMethods reports whether the struct type ts has an embedded field that gives it
// methods in the interpreter, and records an Error, Unwrap, Is or As that an embedded
// interface gives it.
func (ms *methodSet) embedsMethods(ts *ast.TypeSpec, compiled func(pkg, name string) reflect.Type) bool {
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return false
	}
	has := false
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		e := f.Type
		if star, ok := e.(*ast.StarExpr); ok {
			e = star.X
		}
		switch e := e.(type) {
		case *ast.Ident:
			if e.Name == "error" {
				ms.errorType, has = true, true
			}
			has = has || ms.types[e.Name]
		case *ast.SelectorExpr:
			pkg, ok := e.X.(*ast.Ident)
			if !ok {
				continue
			}
			switch t := compiled(pkg.Name, e.Sel.Name); {
			case t == nil:
			case t.Kind() == reflect.Interface:
				has = ms.noteInterface(t) || has
			default:
				has = ms.notePromoted(t) || has
			}
		}
	}
	return has
}

// noteInterface records the methods Error, Unwrap, Is and As of an embedded compiled
// interface, of the signatures by which fmt and package errors call them, and reports whether
// it has methods: a method Error(args ...any) (testing.TB's) makes no error.
func (ms *methodSet) noteInterface(t reflect.Type) bool {
	if m, ok := t.MethodByName("Error"); ok && m.Type == reflect.TypeFor[func() string]() {
		ms.errorType = true
	}
	for name, sigs := range chainMethods {
		if m, ok := t.MethodByName(name); ok && slices.Contains(sigs, m.Type) {
			ms.chain = true
		}
	}
	return t.NumMethod() > 0
}

// chainMethods are the signatures of the methods by which package errors walks a chain.
var chainMethods = map[string][]reflect.Type{
	"Unwrap": {reflect.TypeFor[func() error](), reflect.TypeFor[func() []error]()},
	"Is":     {reflect.TypeFor[func(error) bool]()},
	"As":     {reflect.TypeFor[func(any) bool]()},
}

// notePromoted reports whether an embedded compiled type t (or *t) that is no interface gives
// a struct type or a pointer to it methods.
func (ms *methodSet) notePromoted(t reflect.Type) bool {
	return reflect.PointerTo(t).NumMethod() > 0
}

// noteEmbeddedInterfaces records the struct types that get methods from an embedded field of
// an interface type of the session.
func (ms *methodSet) noteEmbeddedInterfaces(specs []*ast.TypeSpec) {
	ifaces := map[string]*ast.InterfaceType{}
	for _, ts := range specs {
		if it, ok := ts.Type.(*ast.InterfaceType); ok {
			ifaces[ts.Name.Name] = it
		}
	}
	for _, ts := range specs {
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			id, ok := f.Type.(*ast.Ident)
			if len(f.Names) > 0 || !ok || ifaces[id.Name] == nil {
				continue
			}
			ms.types[ts.Name.Name] = true
		}
	}
}

// typeSpecs returns the type specifications of declarations.
func typeSpecs(decls []ast.Decl) []*ast.TypeSpec {
	var specs []*ast.TypeSpec
	for _, d := range decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, sp := range gd.Specs {
				specs = append(specs, sp.(*ast.TypeSpec))
			}
		}
	}
	return specs
}

// methodDecls is rewrite.Env.MethodDecls: the signatures of the session's method declarations.
func (s *Session) methodDecls() []string {
	var sigs []string
	for _, d := range s.decls {
		if d.kind == methodDecl {
			sigs = append(sigs, d.signature)
		}
	}
	return sigs
}

// definition is rewrite.Env.Definition: the declared type of the session's variable or the type
// of its function name, and the source of the value that defines a variable without a type.
func (s *Session) definition(name string) (typ, value string) {
	d := s.decls[name]
	if d == nil {
		return "", ""
	}
	switch {
	case d.kind == funcDecl:
		if f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+d.signature+"{}", 0); err == nil && len(f.Decls) == 1 {
			if fd, ok := f.Decls[0].(*ast.FuncDecl); ok {
				return printNode(fd.Type), ""
			}
		}
	case d.kind == varDecl:
		return d.typeExpr, definingValue(d.src, name)
	}
	return "", ""
}

// definingValue returns the source of the value that the statement or declaration src
// ("x := …", "var x = …") gives the variable name, "" when there is none.
func definingValue(src, name string) string {
	const prefix = "package p; func _() {\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", 0)
	if err != nil {
		return ""
	}
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		if r := valueOf(st, name); r != nil {
			return (prefix + src)[fset.Position(r.Pos()).Offset:fset.Position(r.End()).Offset]
		}
	}
	return ""
}

// valueOf returns the expression that the statement st, a definition (x := …) or a declaration
// of variables (var x = …), gives the variable name, nil when it gives none, or several values
// by one call.
func valueOf(st ast.Stmt, name string) ast.Expr {
	var names, values []ast.Expr
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			names, values = st.Lhs, st.Rhs
		}
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return nil
		}
		for _, sp := range gd.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for i, n := range vs.Names {
					if n.Name == name && len(vs.Names) == len(vs.Values) {
						return vs.Values[i]
					}
				}
			}
		}
	}
	if len(names) != len(values) {
		return nil
	}
	for i, l := range names {
		if id, ok := l.(*ast.Ident); ok && id.Name == name {
			return values[i]
		}
	}
	return nil
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

// reachable returns whether a cell can hold a value of a compiled struct type of the package
// path, for check-type-identity: a package the session imports, one the cell imports or
// names (paths resolves its names), or a package of gosbi's module that one of those imports,
// directly or not (stdlib.ModuleDeps): gosbi's functions return values of the types of the
// packages they import through interfaces and fields of type any, which the cell need not
// import. A value of another package reaches a cell only when a package that the session
// imports hands it out in an interface (a gonum function's result holding a type of a package
// gonum imports); package interp documents that gap.
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
	for path := range maps.Clone(named) {
		if strings.HasPrefix(path, extend.GosbiModule+"/") {
			for _, dep := range stdlib.ModuleDeps[path] {
				named[dep] = true
			}
		}
	}
	return func(path string) bool { return named[path] }
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
