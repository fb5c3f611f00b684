package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// indexDefineHint explains the interpreter's "constant definition loop" at a top-level
// definition whose value indexes a string or a slice, array or map of a compiled package's
// type ("q := strings.Fields(s)", then "p := q[1]"). Before it compiles a cell, the
// interpreter gives each top-level variable the type of its value, and it cannot infer the
// type of such an index expression (https://github.com/traefik/yaegi/issues/1437; its type
// inference handles the index of the interpreter's own slices, arrays and maps only). No
// rewrite of the source avoids it without knowing the type, but the user does: the message
// says to give it, which the interpreter accepts, as it does the same definition inside a
// function. It returns "" when msg is not at such a definition of the current cell.
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
		if def, name, value := indexDefinition(it, line); def != "" {
			return fmt.Sprintf("_.go:%s:%s: %s: the interpreter cannot infer the type of a top-level variable "+
				"whose value indexes a string, or a slice, array or map of a compiled package's type "+
				"(https://github.com/traefik/yaegi/issues/1437): give the type, as in var %s T = %s, or convert, as in %s := T(%s)",
				m[1], m[2], def, name, value, name, value)
		}
	}
	return ""
}

// indexDefinition finds the top-level definition of an item (x := v or var x = v) that covers
// the interpreter's line and has a value with an index expression. It returns the definition's
// source, and the name and value of its first pair with an index expression; "" when there is
// none.
func indexDefinition(it item, line int) (def, name, value string) {
	covers := func(n ast.Node) bool {
		return it.fset.Position(n.Pos()).Line <= line && line <= it.fset.Position(n.End()).Line
	}
	switch n := node(it).(type) {
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) || !covers(n) {
			return "", "", ""
		}
		for i, v := range n.Rhs {
			if id, ok := n.Lhs[i].(*ast.Ident); ok && hasIndex(v) {
				return printNode(n), id.Name, printNode(v)
			}
		}
	case *ast.GenDecl:
		if n.Tok != token.VAR {
			return "", "", ""
		}
		for _, sp := range n.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok || vs.Type != nil || len(vs.Names) != len(vs.Values) || !covers(vs) {
				continue
			}
			for i, v := range vs.Values {
				if hasIndex(v) {
					return "var " + printNode(vs), vs.Names[i].Name, printNode(v)
				}
			}
		}
	}
	return "", "", ""
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
