package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// redeclareViaTemps works around the interpreter's handling of a top-level short variable
// declaration of several names that redeclares a variable of an earlier evaluation ("a, c :=
// 2, 5" or "a, err := f()" after a cell defined a): it runs a cell's top-level statements in
// its global scope, where such a statement creates a new variable for the redeclared name
// before the statements run, so reads of that name earlier in the cell see its zero value
// instead of the earlier cell's value. The statement is rewritten to declare only new names
// and assign the redeclared ones afterwards,
//
//	a, c := 2, 5   →   _gosbi_r3_1, c := 2, 5; a = _gosbi_r3_1
//
// which has the same effect in Go: the values are evaluated once, in the same order.
//
// A name is redeclared when Env.IsVar says it is a variable of the session or an earlier unit
// of the cell defines it as one (see Run).
//
// Upstream: no upstream issue found (https://github.com/traefik/yaegi/issues/1640, open, is a
// different fault of redeclaring short variable declarations).
var redeclareViaTemps = Pass{
	Name:  "redeclare-via-temps",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		p, err := parse(u)
		if err != nil || u.Kind != Stmt || env.IsVar == nil {
			return u.Text, nil
		}
		return p.redeclared(env), nil
	},
}

// redeclaredPrefix starts the names of the temporaries of redeclare-via-temps.
const redeclaredPrefix = "_gosbi_r"

// redeclared returns the statement's text rewritten as redeclareViaTemps describes, or the
// text unchanged when it needs no rewrite.
func (p *parsed) redeclared(env Env) string {
	as, ok := p.root.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) < 2 {
		return p.Text
	}
	var redeclared []int
	fresh := false
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if env.IsVar(id.Name) {
			redeclared = append(redeclared, i)
		} else {
			fresh = true
		}
	}
	if len(redeclared) == 0 || !fresh {
		return p.Text // nothing redeclared, or no new name (an error the interpreter reports)
	}
	var b, assign strings.Builder
	last := 0
	for k, i := range redeclared {
		id := as.Lhs[i].(*ast.Ident)
		tmp := fmt.Sprintf("%s%d_%d", redeclaredPrefix, env.Cell, k+1)
		b.WriteString(p.Text[last:p.offset(id.Pos())])
		b.WriteString(tmp)
		b.WriteString(p.position(id.End()))
		last = p.offset(id.End())
		fmt.Fprintf(&assign, "; %s = %s", id.Name, tmp)
	}
	b.WriteString(p.Text[last:p.offset(as.End())])
	b.WriteString(assign.String())
	b.WriteString(p.Text[p.offset(as.End()):])
	return b.String()
}
