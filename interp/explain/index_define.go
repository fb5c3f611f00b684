package explain

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// indexDefine: the interpreter gives each top-level variable of a cell the type of its value
// before it compiles the cell, and it cannot infer the type of an index expression on a
// string, or on a slice, array or map of a compiled package's type ("q := strings.Fields(s)",
// then "p := q[1]"), as its type inference handles the index of the interpreter's own slices,
// arrays and maps only. The definition alone fails with "constant definition loop"; inside a
// larger value ("p := q[1] + 1") the compiler panics on the missing type ("nil pointer
// dereference") without a position. No rewrite of the source avoids it without knowing the
// type, but the user does: the explainer says to give it, which the interpreter accepts, as
// it does the same definition inside a function.
var indexDefine = Explainer{
	Name:     "index-define",
	Upstream: "https://github.com/traefik/yaegi/issues/1437: yaegi cannot infer the type of a top-level variable whose value indexes a string or a compiled package's slice, array or map",
	Explain: func(env Env, f *Failure) {
		if !f.Compile {
			return
		}
		if h := indexDefineHint(env, f.Msg); h != "" {
			f.Msg = h
		} else if f.CompilerPanic {
			f.Note += indexPanicNote(env, f.Msg)
		}
	},
}

// indexDefineHint explains the interpreter's "constant definition loop" at a top-level
// definition whose value indexes. It returns "" when msg is not at such a definition of the
// cell.
func indexDefineHint(env Env, msg string) string {
	m := posRE.FindStringSubmatch(msg)
	if m == nil || !strings.Contains(msg, "constant definition loop") {
		return ""
	}
	line, err := strconv.Atoi(m[1])
	if err != nil {
		return ""
	}
	for _, it := range env.Items {
		if d, ok := indexDefinition(it, line); ok {
			return fmt.Sprintf("_.go:%s:%s: %s: the interpreter cannot infer the type of a top-level variable "+
				"whose value indexes a string, or a slice, array or map of a compiled package's type "+
				"(https://github.com/traefik/yaegi/issues/1437): %s", m[1], m[2], d.src, d.remedy())
		}
	}
	return ""
}

// indexPanicNote returns a note for a panic of the interpreter's compiler ("nil pointer
// dereference") in a cell that defines a top-level variable whose value indexes: the likely
// cause, which the panic does not locate. It returns "" when the cell has no such definition.
func indexPanicNote(env Env, panicMsg string) string {
	if !strings.Contains(panicMsg, "nil pointer dereference") {
		return ""
	}
	for _, it := range env.Items {
		if d, ok := indexDefinition(it, 0); ok {
			return fmt.Sprintf(". If the index in _.go:%d:%d (%s) is on a string, or a slice, array or map of a compiled "+
				"package's type, the interpreter cannot infer the type of that top-level variable "+
				"(https://github.com/traefik/yaegi/issues/1437): %s", d.pos.Line, d.pos.Column, d.src, d.remedy())
		}
	}
	return ""
}

// indexDef is a top-level definition whose value indexes.
type indexDef struct {
	pos         token.Position // of the definition, in the interpreter's lines
	src         string         // the definition's source
	name, value string         // its first pair whose value indexes
	status      string         // the status of a comma-ok definition (v, ok := m[k])
}

// remedy says how to write the definition so that the interpreter compiles it.
func (d indexDef) remedy() string {
	if d.status != "" {
		return fmt.Sprintf("declare the variables with their types and assign them, as in var %s T; var %s bool; then %s, %s = %s",
			d.name, d.status, d.name, d.status, d.value)
	}
	return fmt.Sprintf("give the type, as in var %s T = %s, or convert, as in %s := T(%s)", d.name, d.value, d.name, d.value)
}

// indexDefinition finds the top-level definition of an item (x := v or var x = v) that covers
// the interpreter's line (any line for 0) and has a value with an index expression.
func indexDefinition(it Item, line int) (indexDef, bool) {
	covers := func(n ast.Node) bool {
		return line == 0 || it.Fset.Position(n.Pos()).Line <= line && line <= it.Fset.Position(n.End()).Line
	}
	switch n := it.Node.(type) {
	case *ast.AssignStmt:
		if d, ok := commaOKIndex(it, n); ok && covers(n) {
			return d, true
		}
		if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) || !covers(n) {
			break
		}
		for i, v := range n.Rhs {
			if id, ok := n.Lhs[i].(*ast.Ident); ok && hasIndex(v) {
				return indexDef{it.Fset.Position(n.Pos()), printNode(n), id.Name, printNode(v), ""}, true
			}
		}
	case *ast.GenDecl:
		if n.Tok != token.VAR {
			break
		}
		for _, sp := range n.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok || vs.Type != nil || len(vs.Names) != len(vs.Values) || !covers(vs) {
				continue
			}
			for i, v := range vs.Values {
				if hasIndex(v) {
					return indexDef{it.Fset.Position(vs.Pos()), "var " + printNode(vs), vs.Names[i].Name, printNode(v), ""}, true
				}
			}
		}
	}
	return indexDef{}, false
}

// commaOKIndex returns the comma-ok definition of a map index (v, ok := m[k]), which the
// session runs much as v, ok := m[k], false and then v, ok = m[k] (see the rewrite pass
// comma-ok).
func commaOKIndex(it Item, n *ast.AssignStmt) (indexDef, bool) {
	if n.Tok != token.DEFINE || len(n.Lhs) != 2 || len(n.Rhs) != 1 {
		return indexDef{}, false
	}
	v, ok1 := n.Lhs[0].(*ast.Ident)
	status, ok2 := n.Lhs[1].(*ast.Ident)
	_, isIndex := ast.Unparen(n.Rhs[0]).(*ast.IndexExpr)
	if !ok1 || !ok2 || !isIndex || v.Name == "_" || status.Name == "_" {
		return indexDef{}, false
	}
	return indexDef{it.Fset.Position(n.Pos()), printNode(n), v.Name, printNode(n.Rhs[0]), status.Name}, true
}

// hasIndex reports whether an expression indexes, outside the function literals it holds
// (whose bodies the interpreter types as it compiles them).
func hasIndex(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr:
			found = true
		}
		return !found
	})
	return found
}
