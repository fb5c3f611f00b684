package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// The interpreter runs a cell's top-level statements in its global scope, where a short
// variable declaration of several names that redeclares a variable of an earlier cell
// ("a, c := 2, 5" or "a, err := f()" after a cell defined a) creates a new variable for the
// redeclared name before the statements run: reads of that name earlier in the cell see its
// zero value instead of the earlier cell's value. redeclareViaTemps rewrites such a statement
// so that it declares only new names and assigns the redeclared ones afterwards,
//
//	a, c := 2, 5   →   _gosbi_r3_1, c := 2, 5; a = _gosbi_r3_1
//
// which has the same effect in Go: the values are evaluated once, in the same order.

// redeclaredPrefix starts the names of the temporaries; names with it are not kept as session
// variables.
const redeclaredPrefix = "_gosbi_r"

// redeclareViaTemps returns the statement's text rewritten as above, and false when the
// statement needs no rewrite.
func (s *Session) redeclareViaTemps(it item) (string, bool) {
	as, ok := it.stmt.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) < 2 {
		return "", false
	}
	var redeclared []int
	fresh := false
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if d := s.decls[id.Name]; d != nil && d.kind == varDecl {
			redeclared = append(redeclared, i)
		} else {
			fresh = true
		}
	}
	if len(redeclared) == 0 || !fresh {
		return "", false // nothing redeclared, or no new name (an error the interpreter reports)
	}
	var b, assign strings.Builder
	last := 0
	for k, i := range redeclared {
		id := as.Lhs[i].(*ast.Ident)
		tmp := fmt.Sprintf("%s%d_%d", redeclaredPrefix, s.cell, k+1)
		b.WriteString(it.text[last:it.offset(id.Pos())])
		b.WriteString(tmp)
		b.WriteString(it.lineComment(id.End()))
		last = it.offset(id.End())
		fmt.Fprintf(&assign, "; %s = %s", id.Name, tmp)
	}
	b.WriteString(it.text[last:it.offset(as.End())])
	b.WriteString(assign.String())
	b.WriteString(it.text[it.offset(as.End()):])
	return b.String(), true
}
