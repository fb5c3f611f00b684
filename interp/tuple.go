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
// source that follows it, so errors and panics keep the cell's own lines and columns.

// tupleLineComment matches the position comments added by parenthesizeTuples.
var tupleLineComment = regexp.MustCompile(`/\*line _\.go:\d+:\d+\*/`)

// parenthesizeTuples rewrites the text of the items of a cell so that no value of a
// multi-value assignment or declaration is a bare call, receive or composite literal.
func parenthesizeTuples(items []item, cell int) {
	for i := range items {
		items[i].text = items[i].parenthesizeTuples(cell)
	}
}

// parenthesizeTuples returns the item's text with the values that need it in parentheses.
func (it item) parenthesizeTuples(cell int) string {
	spans := it.tupleValueSpans()
	if len(spans) == 0 {
		return it.text
	}
	type insertion struct {
		off  int
		open bool
	}
	var ins []insertion
	for _, sp := range spans {
		ins = append(ins, insertion{sp[0], true}, insertion{sp[1], false})
	}
	// closing before opening at the same offset, so that adjacent spans stay balanced
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].off != ins[j].off {
			return ins[i].off < ins[j].off
		}
		return !ins[i].open && ins[j].open
	})
	var b strings.Builder
	last := 0
	for _, in := range ins {
		b.WriteString(it.text[last:in.off])
		if in.open {
			b.WriteString("(")
		} else {
			b.WriteString(")")
		}
		line, col := it.cellPosition(in.off)
		fmt.Fprintf(&b, "/*line _.go:%d:%d*/", (cell+1)*cellLines+line, col)
		last = in.off
	}
	b.WriteString(it.text[last:])
	return b.String()
}

// tupleValueSpans returns the byte ranges in the item's text of the values of multi-value
// assignments and declarations that the interpreter assigns wrongly, in function bodies and
// function literals too.
func (it item) tupleValueSpans() [][2]int {
	root := node(it)
	if it.fset == nil {
		return nil
	}
	var spans [][2]int
	add := func(values []ast.Expr) {
		if len(values) < 2 {
			return
		}
		for _, v := range values {
			if assignedDirectly(v) {
				spans = append(spans, [2]int{it.offset(v.Pos()), it.offset(v.End())})
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

// cellPosition returns the line and column in the cell of a byte offset in the item's text.
func (it item) cellPosition(off int) (line, col int) {
	before := it.text[:off]
	nl := strings.LastIndexByte(before, '\n')
	if nl < 0 {
		return it.line, it.col + off
	}
	return it.line + strings.Count(before, "\n"), off - nl
}

// sameSource reports whether two declaration texts are the same source, ignoring the
// position comments of parenthesizeTuples (which name the cell they were written in).
func sameSource(a, b string) bool {
	return a == b || tupleLineComment.ReplaceAllString(a, "") == tupleLineComment.ReplaceAllString(b, "")
}
