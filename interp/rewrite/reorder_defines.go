package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

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
		if _, ok := p.reorderOne(); ok {
			return "", tooManySteps()
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
