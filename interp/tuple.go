package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// The interpreter compiles an assignment of several values ("x, y = f(), 5", "a, b := T{1}, 2",
// "var p, q = <-ch, 0") wrongly when one of the values is a call, a receive or a composite
// literal: it lets that value be stored directly into its variable and then skips the
// statement's own assignment, which drops every other value of the tuple (y stays unchanged).
// The same value in parentheses is evaluated and assigned like the others, so the cell's
// source is rewritten to put such values in parentheses before it runs. Each inserted
// parenthesis is followed by a line comment (/*line _.go:L:C*/) giving the position of the
// source that follows it, so errors and panics keep the cell's own lines and columns. A second
// fault, of short variable declarations that redeclare a name, is described at reorderDefine.

// tupleLineComment matches the position comments added by the rewrites of this file.
var tupleLineComment = regexp.MustCompile(`/\*line _\.go:\d+:\d+\*/`)

// rewriteTuples rewrites the text of the items of a cell for the interpreter's handling of
// multi-value assignments (see parenthesizeTuples and reorderDefine).
func rewriteTuples(items []item, cell int) {
	for i := range items {
		items[i].text = items[i].rewriteTuples(cell)
	}
}

// rewriteTuples returns the item's text rewritten by reorderDefine, one statement at a time,
// then by parenthesizeTuples. A text that no longer parses is left as it was.
func (it item) rewriteTuples(cell int) string {
	cur := it
	for range maxReorders {
		text, ok := cur.reorderDefine()
		if !ok {
			break
		}
		next := cur
		next.text = text
		if next.parse(cell) != nil {
			return it.parenthesizeTuples()
		}
		cur = next
	}
	return cur.parenthesizeTuples()
}

// maxReorders bounds the statements of one item that reorderDefine rewrites.
const maxReorders = 100

// parenthesizeTuples returns the item's text with the values of multi-value assignments and
// declarations that the interpreter assigns wrongly in parentheses.
func (it item) parenthesizeTuples() string {
	spans := it.tupleValueSpans()
	if len(spans) == 0 {
		return it.text
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
		off := it.offset(in.pos)
		b.WriteString(it.text[last:off])
		if in.open {
			b.WriteString("(")
		} else {
			b.WriteString(")")
		}
		b.WriteString(it.lineComment(in.pos))
		last = off
	}
	b.WriteString(it.text[last:])
	return b.String()
}

// tupleValueSpans returns the byte ranges in the item's text of the values of multi-value
// assignments and declarations that the interpreter assigns wrongly, in function bodies and
// function literals too.
func (it item) tupleValueSpans() [][2]token.Pos {
	root := node(it)
	if it.fset == nil {
		return nil
	}
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
	ast.Inspect(root, func(n ast.Node) bool {
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

// offset returns the byte offset in the item's text of a position of its syntax tree.
func (it item) offset(pos token.Pos) int {
	return it.fset.File(pos).Offset(pos) - it.base
}

// lineComment returns the comment that gives the source following it the cell position of pos.
// The position is the parser's, so it follows the comments of an earlier rewrite too.
func (it item) lineComment(pos token.Pos) string {
	p := it.fset.Position(pos)
	return fmt.Sprintf("/*line _.go:%d:%d*/", p.Line, p.Column)
}

// sameSource reports whether two declaration texts are the same source, ignoring the
// position comments of the rewrites (which name the cell they were written in).
func sameSource(a, b string) bool {
	return a == b || tupleLineComment.ReplaceAllString(a, "") == tupleLineComment.ReplaceAllString(b, "")
}

// reorderDefine works around a second fault of the interpreter: a short variable declaration
// of several values assigns them one after the other, and reads a value that is a bare
// variable name only when it assigns it, so "x, z := f(x), x" that redeclares x gives z the
// new x. It returns the item's text with the pairs of the first such statement reordered so
// that those names are read before they are assigned ("z, x := x, f(x)"), and false when no
// statement needs it (or one needs it but its names depend on each other in a cycle, which
// no order fixes). Reordering keeps Go's semantics: only bare names move ahead of the other
// values, and reading them has no effect; each moved part keeps its position with a line
// comment.
func (it item) reorderDefine() (string, bool) {
	var found *ast.AssignStmt
	var order []int
	ast.Inspect(node(it), func(n ast.Node) bool {
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
		return it.text, false
	}
	part := func(b *strings.Builder, es []ast.Expr) {
		for k, i := range order {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(it.lineComment(es[i].Pos()))
			b.WriteString(it.text[it.offset(es[i].Pos()):it.offset(es[i].End())])
		}
		end := es[len(es)-1].End()
		b.WriteString(it.lineComment(end))
	}
	lhs, rhs := found.Lhs, found.Rhs
	var b strings.Builder
	b.WriteString(it.text[:it.offset(lhs[0].Pos())])
	part(&b, lhs)
	b.WriteString(it.text[it.offset(lhs[len(lhs)-1].End()):it.offset(rhs[0].Pos())])
	part(&b, rhs)
	b.WriteString(it.text[it.offset(rhs[len(rhs)-1].End()):])
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

// cyclicDefines reports the first short variable declaration of the items whose values are
// names it assigns in a cycle ("x, y, z := y, x, 7" that redeclares x and y): the interpreter
// assigns such a statement in order, which no reordering fixes, so it would give a wrong
// result; the error says how to write it instead.
func cyclicDefines(items []item) error {
	for _, it := range items {
		var err error
		ast.Inspect(node(it), func(n ast.Node) bool {
			if err != nil {
				return false
			}
			if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				if _, cycle := defineOrder(as); cycle != nil {
					p := it.fset.Position(as.Pos())
					names := strings.Join(cycle, ", ")
					err = fmt.Errorf("_.go:%d:%d: the interpreter would assign this declaration wrongly: its values read %s while it assigns them, "+
						"and it assigns in order (a swap fails); copy the values into new names on a line before and use the copies", p.Line, p.Column, names)
				}
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}
