package rewrite

import (
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// parenthesizeTuples works around the interpreter's compilation of an assignment of several
// values ("x, y = f(), 5", "a, b := T{1}, 2", "var p, q = <-ch, 0") when one of the values is
// a call, a receive or a composite literal: it lets that value be stored directly into its
// variable and then skips the statement's own assignment, which drops every other value of
// the tuple (y stays unchanged). The same value in parentheses is evaluated and assigned like
// the others, so such values are put in parentheses:
//
//	x, y = f(), 5   →   x, y = (f()), 5
//
// Upstream: no upstream issue found for this form; the closest report,
// https://github.com/traefik/yaegi/issues/1640 (open), is a multi-value short variable
// declaration with a call that loses a value.
var parenthesizeTuples = Pass{
	Name:  "parenthesize-tuples",
	Issue: "no upstream issue found (closest: https://github.com/traefik/yaegi/issues/1640, open)",
	Rewrite: func(_ Env, u Unit) (string, error) {
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		return p.parenthesized(), nil
	},
}

// parenthesized returns the unit's text with the values of multi-value assignments and
// declarations that the interpreter assigns wrongly in parentheses.
func (p *parsed) parenthesized() string {
	spans := p.tupleValueSpans()
	if len(spans) == 0 {
		return p.Text
	}
	type insertion struct {
		pos  token.Pos
		open bool
	}
	var ins []insertion
	for _, sp := range spans {
		ins = append(ins, insertion{sp[0], true}, insertion{sp[1], false})
	}
	// closing before opening at the same place, so that adjacent spans stay balanced
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].pos != ins[j].pos {
			return ins[i].pos < ins[j].pos
		}
		return !ins[i].open && ins[j].open
	})
	var b strings.Builder
	last := 0
	for _, in := range ins {
		off := p.offset(in.pos)
		b.WriteString(p.Text[last:off])
		if in.open {
			b.WriteString("(")
		} else {
			b.WriteString(")")
		}
		b.WriteString(p.position(in.pos))
		last = off
	}
	b.WriteString(p.Text[last:])
	return b.String()
}

// tupleValueSpans returns the positions of the values of multi-value assignments and
// declarations that the interpreter assigns wrongly, in function bodies and function literals
// too.
func (p *parsed) tupleValueSpans() [][2]token.Pos {
	var spans [][2]token.Pos
	add := func(values []ast.Expr) {
		if len(values) < 2 {
			return
		}
		for _, v := range values {
			if assignedDirectly(v) {
				spans = append(spans, [2]token.Pos{v.Pos(), v.End()})
			}
		}
	}
	ast.Inspect(p.root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN || n.Tok == token.DEFINE {
				add(n.Rhs)
			}
		case *ast.ValueSpec:
			add(n.Values)
		}
		return true
	})
	return spans
}

// assignedDirectly reports whether the interpreter would store the value straight into its
// variable: a call (including conversions and builtins), a receive or a composite literal.
func assignedDirectly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.CallExpr, *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}
