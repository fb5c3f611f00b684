package interp

import (
	"fmt"
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/gosbi/gosbi/stdlib"
)

// This file answers ?TYPE and ?TYPE.METHOD for the types of compiled packages: the
// documentation tables of package stdlib hold a type's declaration and its own methods
// ("T.M"); the methods a type gets from an embedded field, and their documentation, are found
// through reflection on the symbol tables.

// typeSymbol returns the type that a package's symbol table exports as name, if it is a type:
// the tables hold a type T as a nil *T.
func typeSymbol(path, name string) (reflect.Type, bool) {
	return symbolType(packageSymbols(path), name)
}

// symbolType returns the type that the symbol table syms exports as name, if it is a type:
// the tables hold a type T as a nil *T, and a name that starts with "_" is none of the
// package's own.
func symbolType(syms map[string]reflect.Value, name string) (reflect.Type, bool) {
	if strings.HasPrefix(name, "_") {
		return nil, false
	}
	v, ok := syms[name]
	if !ok || v.Kind() != reflect.Pointer || !v.IsNil() {
		return nil, false
	}
	return v.Type().Elem(), true
}

// typeDoc returns the documentation of type typ of the package path (imported as pkg),
// followed by the list of its methods.
func typeDoc(path, pkg, typ string) (string, bool) {
	doc, ok := stdlib.Docs[path][typ]
	t, isType := typeSymbol(path, typ)
	if !ok {
		if !isType {
			return "", false
		}
		doc = fmt.Sprintf("type %s.%s %s", pkg, typ, t.Kind())
	}
	if isType {
		doc += methodList(path, pkg, typ, t)
	}
	return doc, true
}

// methodList lists the exported methods of *T (those of T among them) by their signatures.
func methodList(path, pkg, typ string, t reflect.Type) string {
	if t.Kind() == reflect.Interface {
		return "" // the declaration lists them
	}
	pt := reflect.PointerTo(t)
	if pt.NumMethod() == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nMethods of *%s.%s (?%s.%s.NAME shows one):\n", pkg, typ, pkg, typ)
	for i := range pt.NumMethod() {
		doc, _ := methodDoc(path, pkg, typ, pt.Method(i).Name)
		sig, _, _ := strings.Cut(doc, "\n")
		fmt.Fprintf(&b, "  %s\n", sig)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// methodDoc returns the documentation of method name of type typ of the package path
// (imported as pkg): its own, that of the embedded field's method it promotes, or its
// signature.
func methodDoc(path, pkg, typ, name string) (string, bool) {
	if doc, ok := stdlib.Docs[path][typ+"."+name]; ok {
		return doc, true
	}
	t, ok := typeSymbol(path, typ)
	if !ok {
		return "", false
	}
	m, ok := reflect.PointerTo(t).MethodByName(name)
	if !ok {
		if t.Kind() != reflect.Interface {
			return "", false
		}
		if m, ok = t.MethodByName(name); !ok {
			return "", false
		}
		return fmt.Sprintf("func (%s.%s) %s%s", pkg, typ, name, funcSignature(m.Type, 0)), true
	}
	if doc, field, ok := promotedDoc(t, name, 0); ok {
		return fmt.Sprintf("%s\n\n(promoted from the embedded field %s of %s.%s)", strings.TrimSpace(doc), field, pkg, typ), true
	}
	return fmt.Sprintf("func (*%s.%s) %s%s", pkg, typ, name, funcSignature(m.Type, 1)), true
}

// promotedDoc finds the embedded field of struct t through which t has method name, and that
// method's documentation.
func promotedDoc(t reflect.Type, name string, depth int) (doc, field string, ok bool) {
	if t.Kind() != reflect.Struct || depth > 4 {
		return "", "", false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		base := f.Type
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		if _, has := reflect.PointerTo(base).MethodByName(name); !has {
			if _, has = base.MethodByName(name); !has {
				continue
			}
		}
		if doc, ok := stdlib.Docs[base.PkgPath()][base.Name()+"."+name]; ok {
			return doc, f.Name, true
		}
		if doc, _, ok := promotedDoc(base, name, depth+1); ok {
			return doc, f.Name, true
		}
		if base.Kind() == reflect.Interface {
			m, _ := base.MethodByName(name)
			return fmt.Sprintf("func (%s) %s%s", base, name, funcSignature(m.Type, 0)), f.Name, true
		}
	}
	return "", "", false
}

// funcSignature formats the parameters and results of a function type, leaving out the first
// skip parameters (a method's receiver).
func funcSignature(ft reflect.Type, skip int) string {
	var in, out []string
	for i := skip; i < ft.NumIn(); i++ {
		p := ft.In(i).String()
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			p = "..." + ft.In(i).Elem().String()
		}
		in = append(in, p)
	}
	for i := range ft.NumOut() {
		out = append(out, ft.Out(i).String())
	}
	s := "(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		s += " " + out[0]
	default:
		s += " (" + strings.Join(out, ", ") + ")"
	}
	return s
}

// typeNamed returns the packages that export a type named name: the session's imports when
// one of them does, otherwise every importable package that does. Each is "path" with its
// package name.
func (s *Session) typeNamed(name string) (paths, pkgs []string) {
	var local []string
	for pkg, path := range s.imports {
		if _, ok := typeSymbol(path, name); ok {
			local = append(local, pkg+" "+path)
		}
	}
	if len(local) == 0 {
		indexPackages()
		for path, pkg := range pkgIndex.name {
			if _, ok := typeSymbol(path, name); ok {
				local = append(local, pkg+" "+path)
			}
		}
	}
	sort.Strings(local)
	for _, l := range local {
		pkg, path, _ := strings.Cut(l, " ")
		pkgs, paths = append(pkgs, pkg), append(paths, path)
	}
	return paths, pkgs
}

// inspectTypeMember documents member name of typ, a type of a compiled package named without
// its package (?NPE.PosteriorAt): the package is the one that has such a type.
func (s *Session) inspectTypeMember(typ, name string) (string, bool) {
	paths, pkgs := s.typeNamed(typ)
	switch len(paths) {
	case 0:
		return "", false
	case 1:
		doc, ok := methodDoc(paths[0], pkgs[0], typ, name)
		if !ok {
			return "", false
		}
		return doc + fmt.Sprintf("\n\n(a method of %s.%s)", pkgs[0], typ), true
	}
	var names []string
	for i, p := range paths {
		if _, ok := methodDoc(p, pkgs[i], typ, name); ok {
			names = append(names, pkgs[i]+"."+typ)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	return fmt.Sprintf("%s.%s: several packages have a type %s with this method (%s): name the package, e.g. ?%s.%s",
		typ, name, typ, strings.Join(names, ", "), names[0], name), true
}

// sessionMethods lists the methods that cells declared on the session type typ.
func (s *Session) sessionMethods(typ string) string {
	var ms []*decl
	for n, d := range s.decls {
		if d.kind == methodDecl && strings.HasPrefix(n, typ+".") {
			ms = append(ms, d)
		}
	}
	if len(ms) == 0 {
		return ""
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })
	var b strings.Builder
	fmt.Fprintf(&b, "\nMethods of %s:\n", typ)
	for _, m := range ms {
		fmt.Fprintf(&b, "  %s\n", m.signature)
	}
	return b.String()
}

// packageDoc documents the package at path, imported as name, the way go doc introduces a
// package: its import line (with note after it), the opening of its package doc
// (stdlib.PackageDocs bounds it), its exported names by kind, and where the rest is.
func packageDoc(name, path, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s // import %q%s", name, path, note)
	if d := stdlib.PackageDocs[path]; d != "" {
		b.WriteString("\n\n" + d)
	}
	kinds := exportedByKind(path)
	if len(kinds) == 0 {
		return b.String()
	}
	b.WriteString("\n")
	for _, k := range []string{"Types", "Functions", "Constants", "Variables"} {
		if len(kinds[k]) > 0 {
			b.WriteString("\n" + wrapNames(k+":", kinds[k], 90))
		}
	}
	fmt.Fprintf(&b, "\n\n?%s.NAME shows the documentation of one name;\ngo doc %s shows the whole package's.", name, path)
	return b.String()
}

// exportedByKind sorts the names of the symbol table of package path into Types, Functions,
// Constants and Variables, each list sorted. The tables hold a type T as a nil *T, a variable
// as an addressable value, a function as a func value and a constant as its value.
func exportedByKind(path string) map[string][]string {
	res := map[string][]string{}
	for n, v := range packageSymbols(path) {
		var k string
		switch {
		case !token.IsExported(n):
			continue // yaegi's wrappers of interfaces, _T
		case v.CanAddr():
			k = "Variables"
		case v.Kind() == reflect.Pointer && v.IsNil():
			k = "Types"
		case v.Kind() == reflect.Func:
			k = "Functions"
		default:
			k = "Constants"
		}
		res[k] = append(res[k], n)
	}
	for _, names := range res {
		sort.Strings(names)
	}
	return res
}

// wrapNames formats label and the comma-separated names in lines of at most width columns
// (a longer name has a line of its own), the lines after the first indented under the first
// name.
func wrapNames(label string, names []string, width int) string {
	const indent = 11 // the width of "Functions: "
	var b strings.Builder
	b.WriteString(fmt.Sprintf("%-*s", indent-1, label))
	col := indent - 1
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if col > indent-1 && col+1+len(n) > width {
			b.WriteString("\n" + strings.Repeat(" ", indent-1))
			col = indent - 1
		}
		b.WriteString(" " + n)
		col += 1 + len(n)
	}
	return b.String()
}
