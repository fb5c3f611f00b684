package interp

import (
	"go/ast"
	"strings"

	"github.com/gosbi/gosbi/interp/rewrite"
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
	env := rewrite.Env{
		IsPackage: s.packageNames(items),
		IsVar: func(name string) bool {
			d := s.decls[name]
			return d != nil && d.kind == varDecl
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

// sameSource reports whether two declaration texts are the same source, ignoring the
// position comments of the rewrites (which name the cell they were written in).
func sameSource(a, b string) bool {
	return a == b || rewrite.StripPositions(a) == rewrite.StripPositions(b)
}

// packageNames returns a test of whether a name in the cell's code names a package: one the
// session or the cell imports, or one the session would import on its use, that the cell does
// not define otherwise.
func (s *Session) packageNames(items []item) func(string) bool {
	defined := map[string]bool{}
	imported := map[string]bool{}
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
			if is.Name != nil {
				imported[is.Name.Name] = true
			} else {
				imported[packageName(strings.Trim(is.Path.Value, `"`))] = true
			}
		}
	}
	return func(name string) bool {
		if defined[name] || s.decls[name] != nil {
			return false
		}
		if imported[name] || s.imports[name] != "" {
			return true
		}
		indexPackages()
		_, ok := pkgIndex.byName[name]
		return ok
	}
}
