package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// The interpreter gives each top-level variable of a cell the type of its value before it
// compiles the cell, and it cannot infer the type of an index expression on a string, or on a
// slice, array or map of a compiled package's type ("q := strings.Fields(s)", then
// "p := q[1]"): https://github.com/traefik/yaegi/issues/1437, whose type inference handles the
// index of the interpreter's own slices, arrays and maps only. The definition alone fails with
// "constant definition loop"; inside a larger value ("p := q[1] + 1", "n := q[0].Len()") the
// compiler panics on the missing type. No rewrite of the source avoids it without knowing the
// type, but the user does: the messages below say to give it, which the interpreter accepts,
// as it does the same definition inside a function.

// indexDefineHint explains the interpreter's "constant definition loop" at a top-level
// definition whose value indexes. It returns "" when msg is not at such a definition of the
// current cell.
func (s *Session) indexDefineHint(msg string) string {
	m := posRE.FindStringSubmatch(msg)
	if m == nil || !strings.Contains(msg, "constant definition loop") {
		return ""
	}
	line, err := strconv.Atoi(m[1])
	if err != nil {
		return ""
	}
	for _, it := range s.items {
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
func (s *Session) indexPanicNote(panicMsg string) string {
	if !strings.Contains(panicMsg, "nil pointer dereference") {
		return ""
	}
	for _, it := range s.items {
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
}

// remedy says how to write the definition so that the interpreter compiles it.
func (d indexDef) remedy() string {
	return fmt.Sprintf("give the type, as in var %s T = %s, or convert, as in %s := T(%s)", d.name, d.value, d.name, d.value)
}

// indexDefinition finds the top-level definition of an item (x := v or var x = v) that covers
// the interpreter's line (any line for 0) and has a value with an index expression.
func indexDefinition(it item, line int) (indexDef, bool) {
	covers := func(n ast.Node) bool {
		return line == 0 || it.fset.Position(n.Pos()).Line <= line && line <= it.fset.Position(n.End()).Line
	}
	switch n := node(it).(type) {
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) || !covers(n) {
			break
		}
		for i, v := range n.Rhs {
			if id, ok := n.Lhs[i].(*ast.Ident); ok && hasIndex(v) {
				return indexDef{it.fset.Position(n.Pos()), printNode(n), id.Name, printNode(v)}, true
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
					return indexDef{it.fset.Position(vs.Pos()), "var " + printNode(vs), vs.Names[i].Name, printNode(v)}, true
				}
			}
		}
	}
	return indexDef{}, false
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
