package rewrite

import (
	"fmt"
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

// reorderDefines works around the interpreter's assignment of a short variable declaration of
// several values: it assigns them one after the other, and reads a value that is a bare
// variable name only when it assigns it, so "x, z := f(x), x" that redeclares x gives z the
// new x. The pairs of such a statement are reordered so that those names are read before they
// are assigned:
//
//	x, z := f(x), x   →   z, x := x, f(x)
//
// Reordering keeps Go's semantics: only bare names move ahead of the other values, and reading
// them has no effect. A statement whose names depend on each other in a cycle ("x, y, z :=
// y, x, 7" that redeclares x and y), which no order fixes, is refused with an error that says
// how to write it instead.
//
// Upstream: no upstream issue found (https://github.com/traefik/yaegi/issues/1181, closed, was
// the same fault in assignments "a, b = b, -a").
var reorderDefines = Pass{
	Name:  "reorder-defines",
	Issue: "no upstream issue found (the assignment form was https://github.com/traefik/yaegi/issues/1181, closed)",
	Rewrite: func(_ Env, u Unit) (string, error) {
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		if err := p.cyclicDefine(); err != nil {
			return "", err
		}
		cur := u
		for range maxSteps {
			text, ok := p.reorderOne()
			if !ok {
				break
			}
			cur.Text = text
			if p, err = parse(cur); err != nil {
				return u.Text, nil // a rewrite that does not parse: none of them
			}
		}
		return cur.Text, nil
	},
}

// reorderOne returns the unit's text with the pairs of the first short variable declaration
// that needs it reordered, and false when none does (or one needs it but its names depend on
// each other in a cycle). Each moved part keeps its position with a position comment.
func (p *parsed) reorderOne() (string, bool) {
	var found *ast.AssignStmt
	var order []int
	ast.Inspect(p.root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			if o, _ := defineOrder(as); o != nil {
				found, order = as, o
				return false
			}
		}
		return true
	})
	if found == nil {
		return p.Text, false
	}
	part := func(b *strings.Builder, es []ast.Expr) {
		for k, i := range order {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.position(es[i].Pos()))
			b.WriteString(p.src(es[i]))
		}
		b.WriteString(p.position(es[len(es)-1].End()))
	}
	lhs, rhs := found.Lhs, found.Rhs
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(lhs[0].Pos())])
	part(&b, lhs)
	b.WriteString(p.Text[p.offset(lhs[len(lhs)-1].End()):p.offset(rhs[0].Pos())])
	part(&b, rhs)
	b.WriteString(p.Text[p.offset(rhs[len(rhs)-1].End()):])
	return b.String(), true
}

// defineOrder returns the order in which the pairs of a short variable declaration must be
// assigned so that no value that is a bare name is read after that name is assigned: the
// pairs with such values first, each before the pair that assigns the name it reads, then
// the others in their order. It returns nil when the statement's order is already right, and
// nil with the names involved when they depend on each other in a cycle.
func defineOrder(as *ast.AssignStmt) (order []int, cycle []string) {
	n := len(as.Lhs)
	if n < 2 || len(as.Rhs) != n {
		return nil, nil
	}
	assigns := map[string]int{} // name → its pair
	for i, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
			assigns[id.Name] = i
		}
	}
	reads := make([]int, n) // pair → the pair whose name its value is, or -1
	late := false
	for j, r := range as.Rhs {
		reads[j] = -1
		if id, ok := ast.Unparen(r).(*ast.Ident); ok {
			if i, ok := assigns[id.Name]; ok && i != j {
				reads[j] = i
				late = late || i < j
			}
		}
	}
	if !late {
		return nil, nil
	}
	// Pairs whose value is a name go first, in an order where each comes before the pair
	// assigning the name it reads: depth-first, placing a pair after the ones that read its
	// name.
	placed := make([]int, n) // 0 not yet, 1 in progress, 2 placed
	var place func(i int) bool
	place = func(i int) bool {
		switch placed[i] {
		case 1:
			return false
		case 2:
			return true
		}
		placed[i] = 1
		for j := range n {
			if reads[j] == i && !place(j) {
				return false
			}
		}
		placed[i] = 2
		order = append(order, i)
		return true
	}
	for j := range n {
		if reads[j] >= 0 && !place(j) {
			for i := range n {
				if placed[i] == 1 {
					cycle = append(cycle, as.Lhs[i].(*ast.Ident).Name)
				}
			}
			return nil, cycle
		}
	}
	for i := range n {
		if placed[i] == 0 {
			order = append(order, i)
		}
	}
	return order, nil
}

// cyclicDefine returns an error for the first short variable declaration of the unit whose
// values are names it assigns in a cycle.
func (p *parsed) cyclicDefine() error {
	var err error
	ast.Inspect(p.root, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			if _, cycle := defineOrder(as); cycle != nil {
				q := p.fset.Position(as.Pos())
				err = fmt.Errorf("_.go:%d:%d: the interpreter would assign this declaration wrongly: its values read %s while it assigns them, "+
					"and it assigns in order (a swap fails); copy the values into new names on a line before and use the copies",
					q.Line, q.Column, strings.Join(cycle, ", "))
			}
		}
		return true
	})
	return err
}
