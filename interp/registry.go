package interp

import (
	"go/ast"
	"go/printer"
	"go/token"
	"strings"

	"github.com/gosbi/gosbi/interp/explain"
)

// declKind is the kind of a session declaration.
type declKind string

const (
	funcDecl   declKind = "func"
	methodDecl declKind = "method"
	typeDecl   declKind = "type"
	varDecl    declKind = "var"
	constDecl  declKind = "const"
)

// decl is a declaration made by a cell, kept to re-evaluate dependants when a function or a
// variable is redefined, to detect type and method redefinitions, and for completion, inspection and %who.
type decl struct {
	kind      declKind
	name      string // "f", "T", or "T.M" for a method
	text      string // the source of the declaration, as the rewrites leave it
	src       string // the source of the declaration, as written in the cell
	cell      int
	line, col int
	stmt      bool            // text is a statement (a variable defined by "x := …"), not a declaration
	seq       int             // order of definition in the session
	uses      map[string]bool // names of the session the body may use (functions and methods; freeIdents)
	results   int             // number of results (functions)
	signature string          // the declaration without body
	doc       string          // its doc comment
	typeExpr  string          // for variables: the type or the value's type when known
}

// key returns the registry key of a declaration node and its kind; "" when it declares no
// single name the registry tracks (a var or const group has several, see valueNames).
func declNames(d ast.Decl) []struct {
	name string
	kind declKind
} {
	type nk = struct {
		name string
		kind declKind
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			return []nk{{explain.RecvTypeName(d.Recv.List[0].Type) + "." + d.Name.Name, methodDecl}}
		}
		return []nk{{d.Name.Name, funcDecl}}
	case *ast.GenDecl:
		var res []nk
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				if sp.Name.Name != "_" {
					res = append(res, nk{sp.Name.Name, typeDecl})
				}
			case *ast.ValueSpec:
				k := varDecl
				if d.Tok == token.CONST {
					k = constDecl
				}
				for _, n := range sp.Names {
					if n.Name != "_" { // the blank identifier names nothing to keep
						res = append(res, nk{n.Name, k})
					}
				}
			}
		}
		return res
	}
	return nil
}

// freeIdents returns the identifiers that the function fd uses (usedIdents of its body) and does
// not declare itself: its receiver, parameters and results, and the names defined anywhere
// inside it (:=, var, const, type, range, and the parameters of its function literals). These
// are the names of the session it may use. A name used before a declaration inside fd that
// shadows it is left out.
func freeIdents(fd *ast.FuncDecl) map[string]bool {
	used := usedIdents(fd.Body)
	declare := func(fields ...*ast.FieldList) {
		for _, fl := range fields {
			if fl == nil {
				continue
			}
			for _, f := range fl.List {
				for _, id := range f.Names {
					delete(used, id.Name)
				}
			}
		}
	}
	declare(fd.Recv, fd.Type.Params, fd.Type.Results)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncType:
			declare(n.Params, n.Results)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						delete(used, id.Name)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						delete(used, id.Name)
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				delete(used, id.Name)
			}
		case *ast.TypeSpec:
			delete(used, n.Name.Name)
		}
		return true
	})
	return used
}

// usedIdents lists the identifiers a node refers to (selectors only by their package or value).
func usedIdents(n ast.Node) map[string]bool {
	res := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					res[id.Name] = true
				}
				return true
			})
			return false
		case *ast.Ident:
			res[n.Name] = true
		}
		return true
	})
	return res
}

// signatureOf prints a declaration without its body and doc comment.
func signatureOf(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		c := *d
		c.Body, c.Doc = nil, nil
		d = &c
		return printNode(d)
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		return printNode(&c)
	}
	return ""
}

func printNode(n ast.Node) string {
	var b strings.Builder
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 4}
	if err := cfg.Fprint(&b, token.NewFileSet(), n); err != nil {
		return ""
	}
	return b.String()
}

func docOf(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc.Text()
	case *ast.GenDecl:
		return d.Doc.Text()
	}
	return ""
}

// definedNames lists every name a node declares anywhere inside it (functions, parameters,
// variables, types, labels, fields): names the cell itself provides.
func definedNames(n ast.Node, into map[string]bool) {
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, nm := range f.Names {
				into[nm.Name] = true
			}
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			into[n.Name.Name] = true
			fields(n.Recv)
		case *ast.FuncType:
			fields(n.TypeParams)
			fields(n.Params)
			fields(n.Results)
		case *ast.TypeSpec:
			into[n.Name.Name] = true
			fields(n.TypeParams)
		case *ast.ValueSpec:
			for _, nm := range n.Names {
				into[nm.Name] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						into[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						into[id.Name] = true
					}
				}
			}
		case *ast.LabeledStmt:
			into[n.Label.Name] = true
		case *ast.StructType:
			fields(n.Fields)
		case *ast.InterfaceType:
			fields(n.Methods)
		case *ast.TypeSwitchStmt:
			if a, ok := n.Assign.(*ast.AssignStmt); ok {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						into[id.Name] = true
					}
				}
			}
		}
		return true
	})
}
