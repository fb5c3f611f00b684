package extend

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// CompiledPackage is the package of a notebook's worker module that holds its %%compile
// cells: all of them, one file each, so that they can use each other's declarations in any
// order and cannot form an import cycle among themselves.
const CompiledPackage = "gosbi.local/worker/compiled"

// CompiledCells are the %%compile cells this program links (in CompiledPackage): empty in
// gosbi itself, set by the main package of an extended worker.
var CompiledCells []Cell

// exportPrefix prefixes the exported alias of every name a %%compile cell declares, so that
// cells reach unexported names too.
const exportPrefix = "Gosbi_"

// Cell is a %%compile cell: Code is the cell without its first line (the magic), Count its
// execution count, which names it in positions ("cell [3] line 4:2").
type Cell struct {
	Code  string
	Count int
}

// Decl is a name declared by a %%compile cell.
type Decl struct {
	Name    string
	Kind    string // "func", "type", "var" or "const"; methods are not listed
	Generic bool
}

// source is the file that holds the cell in CompiledPackage: positions in it are the cell's.
func (c Cell) source() string {
	return fmt.Sprintf("package compiled\n\n//line cell [%d]:2:1\n%s\n", c.Count, c.Code)
}

// ParseCell checks that a %%compile cell holds imports and declarations only and returns the
// names it declares.
func ParseCell(c Cell) ([]Decl, error) {
	decls, _, _, err := parseCell(c)
	return decls, err
}

func parseCell(c Cell) ([]Decl, *ast.File, *token.FileSet, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", c.source(), parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		var el scanner.ErrorList
		if as, ok := err.(scanner.ErrorList); ok {
			el = as
		}
		if len(el) > 0 {
			e := el[0]
			msg := e.Msg
			if strings.HasPrefix(msg, "expected declaration") {
				msg = "a %%compile cell holds only imports and declarations (func, type, var, const); " +
					"run statements in an ordinary cell: " + msg
			}
			return nil, nil, nil, fmt.Errorf("cell [%d] line %d:%d: %s", c.Count, e.Pos.Line, e.Pos.Column, msg)
		}
		return nil, nil, nil, fmt.Errorf("cell [%d]: %v", c.Count, err)
	}
	for _, is := range f.Imports {
		if strings.Trim(is.Path.Value, "\"`") == CompiledPackage {
			p := fset.Position(is.Pos())
			return nil, nil, nil, fmt.Errorf("cell [%d] line %d:%d: import cycle: a %%%%compile cell cannot import %s, the package of all %%%%compile cells; "+
				"the declarations of earlier %%%%compile cells are in scope already, unqualified", c.Count, p.Line, p.Column, CompiledPackage)
		}
	}
	var res []Decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" && d.Name.Name != "_" {
				res = append(res, Decl{d.Name.Name, "func", d.Type.TypeParams != nil})
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					res = append(res, Decl{sp.Name.Name, "type", sp.TypeParams != nil})
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.Name != "_" {
							res = append(res, Decl{n.Name, d.Tok.String(), false})
						}
					}
				}
			}
		}
	}
	if len(res) == 0 && !slices.ContainsFunc(f.Decls, func(d ast.Decl) bool { fd, ok := d.(*ast.FuncDecl); return ok && fd.Recv != nil }) {
		return nil, nil, nil, fmt.Errorf("cell [%d]: a %%%%compile cell declares nothing: write functions, types, variables or constants", c.Count)
	}
	return res, f, fset, nil
}

// MergeCells returns the compiled cells after running c. Declarations of earlier cells that c
// declares again (a cell run again after an edit, or a later cell that redefines a name) are
// removed from them; c takes the place of the first cell left without declarations, or is
// added at the end.
func MergeCells(cells []Cell, c Cell) ([]Cell, error) {
	_, f, _, err := parseCell(c)
	if err != nil {
		return nil, err
	}
	keys := declKeys(f)
	var res []Cell
	placed := false
	for _, old := range cells {
		kept, n, err := dropDecls(old, keys)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if !placed {
				res, placed = append(res, c), true
			}
			continue
		}
		res = append(res, kept)
	}
	if !placed {
		res = append(res, c)
	}
	return res, nil
}

// declKeys lists the keys of a file's declarations: "f", "T", "v", and "T.M" for methods.
func declKeys(f *ast.File) map[string]bool {
	keys := map[string]bool{}
	for _, d := range f.Decls {
		for _, k := range keysOf(d) {
			keys[k] = true
		}
	}
	return keys
}

func keysOf(d ast.Decl) []string {
	var res []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			return []string{recvName(d.Recv.List[0].Type) + "." + d.Name.Name}
		}
		if d.Name.Name != "init" && d.Name.Name != "_" {
			res = append(res, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, sp := range d.Specs {
			res = append(res, specKeys(sp)...)
		}
	}
	return res
}

func specKeys(sp ast.Spec) []string {
	var res []string
	switch sp := sp.(type) {
	case *ast.TypeSpec:
		res = append(res, sp.Name.Name)
	case *ast.ValueSpec:
		for _, n := range sp.Names {
			if n.Name != "_" {
				res = append(res, n.Name)
			}
		}
	}
	return res
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// dropDecls blanks out the declarations of c whose keys are in keys (keeping every other
// character's line and column, so that positions stay the cell's), then the imports left
// unused, and returns the cell and how many declarations it still has.
func dropDecls(c Cell, keys map[string]bool) (Cell, int, error) {
	_, f, fset, err := parseCell(c)
	if err != nil {
		return c, 0, err
	}
	src := []byte(c.source())
	blank := func(n ast.Node) { blankNode(src, fset, n) }
	left := 0
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok != token.IMPORT {
			for _, sp := range gd.Specs {
				ks := specKeys(sp)
				if slices.ContainsFunc(ks, func(k string) bool { return keys[k] }) {
					blank(sp)
				} else if len(ks) > 0 {
					left++
				}
			}
			continue
		}
		if fd, ok := d.(*ast.FuncDecl); ok {
			ks := keysOf(fd)
			if slices.ContainsFunc(ks, func(k string) bool { return keys[k] }) {
				if fd.Doc != nil {
					blank(fd.Doc)
				}
				blank(fd)
			} else if len(ks) > 0 {
				left++
			}
		}
	}
	header := len(Cell{Count: c.Count}.source()) - 1 // the source without the code and its final newline
	kept := Cell{Code: string(src[header : len(src)-1]), Count: c.Count}
	if left == 0 {
		return kept, 0, nil
	}
	kept, err = dropUnusedImports(kept)
	return kept, left, err
}

// dropUnusedImports blanks the imports whose package name the cell no longer uses.
func dropUnusedImports(c Cell) (Cell, error) {
	_, f, fset, err := parseCell(c)
	if err != nil {
		return c, err
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	src := []byte(c.source())
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			name := guessName(strings.Trim(is.Path.Value, "\"`"))
			if is.Name != nil {
				name = is.Name.Name
			}
			if name == "_" || name == "." || used[name] {
				continue
			}
			if gd.Lparen.IsValid() {
				blankNode(src, fset, is)
			} else {
				blankNode(src, fset, gd)
			}
		}
	}
	header := len(Cell{Count: c.Count}.source()) - 1
	return Cell{Code: string(src[header : len(src)-1]), Count: c.Count}, nil
}

// blankNode replaces the characters of n in src by spaces, keeping newlines.
func blankNode(src []byte, fset *token.FileSet, n ast.Node) {
	for i := fset.Position(n.Pos()).Offset; i < fset.Position(n.End()).Offset; i++ {
		if src[i] != '\n' {
			src[i] = ' '
		}
	}
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// guessName is the usual package name of an import path: its last element without a major
// version ("/v2", ".v3") or a "go-" prefix.
func guessName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && majorVersion.MatchString(name) {
		name = parts[len(parts)-2]
	}
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	return strings.TrimPrefix(name, "go-")
}

// SameCells reports whether two lists of compiled cells have the same code.
func SameCells(a, b []Cell) bool {
	return slices.EqualFunc(a, b, func(x, y Cell) bool { return x.Code == y.Code })
}

// exportsSource is the file of CompiledPackage that exports an alias of every non-generic
// name the cells declare.
func exportsSource(cells []Cell) (string, error) {
	var b strings.Builder
	b.WriteString("// Code generated by gosbi (package interp/extend). DO NOT EDIT.\n\npackage compiled\n\n")
	for _, c := range cells {
		decls, err := ParseCell(c)
		if err != nil {
			return "", err
		}
		for _, d := range decls {
			if d.Generic {
				continue
			}
			a := exportPrefix + d.Name
			switch d.Kind {
			case "func":
				fmt.Fprintf(&b, "var %s = %s\n", a, d.Name)
			case "type":
				fmt.Fprintf(&b, "type %s = %s\n", a, d.Name)
			case "var":
				fmt.Fprintf(&b, "var %s = &%s\n", a, d.Name)
			case "const":
				fmt.Fprintf(&b, "const %s = %s\n", a, d.Name)
			}
		}
	}
	return b.String(), nil
}

// BindingAlias is the name under which a cell's binding imports CompiledPackage.
const BindingAlias = "_gosbicompiled"

// Binding returns the Go declarations that make the names of c usable in ordinary cells, as
// if c had declared them there, and notes on the names that cannot be (generic ones).
// Variables are copied: compiled code keeps its own.
func Binding(c Cell) (src string, notes []string, err error) {
	decls, err := ParseCell(c)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "import %s %q\n", BindingAlias, CompiledPackage)
	for _, d := range decls {
		a := BindingAlias + "." + exportPrefix + d.Name
		if d.Generic {
			notes = append(notes, fmt.Sprintf("%s %s is generic: it is compiled, but cells cannot use it (yaegi cannot instantiate compiled generics); "+
				"use it from other %%%%compile declarations, or declare a non-generic wrapper", d.Kind, d.Name))
			continue
		}
		switch d.Kind {
		case "func":
			fmt.Fprintf(&b, "var %s = %s\n", d.Name, a)
		case "type":
			fmt.Fprintf(&b, "type %s = %s\n", d.Name, a)
		case "var":
			fmt.Fprintf(&b, "var %s = *%s\n", d.Name, a)
		case "const":
			fmt.Fprintf(&b, "const %s = %s\n", d.Name, a)
		}
	}
	return b.String(), notes, nil
}

var compiledPos = regexp.MustCompile(`(?m)(^|[\s(])(?:[^\s()]*/)?cell \[(\d+)\]:(\d+)(:\d+)?:`)

// cellPositions rewrites compiler positions in compiled cells ("cell [3]:4:2:") in the form
// of the notebook's errors ("cell [3] line 4:2:"), wherever they stand in a line (a second
// position of an error is indented). The type checker of the symbol table generator joins the
// file name of a line directive with the directory of the file: that directory, dir, and any
// other directory before such a position are dropped.
func cellPositions(out, dir string) string {
	if dir != "" {
		out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
	}
	return compiledPos.ReplaceAllString(out, "${1}cell [$2] line $3$4:")
}
