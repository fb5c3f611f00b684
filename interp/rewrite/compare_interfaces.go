package rewrite

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// compareInterfaces works around the interpreter's comparison of a compiled interface with
// methods (error, fmt.Stringer) that holds a value of a cell's type. The interpreter keeps
// such a value in a wrapper of its own (see fresh-wrappers), and == compares the wrapper: with
// a value of the cell's type it answers false where Go answers true (var a error = E{2}; a ==
// E{2}), and with another wrapper it panics "comparing uncomparable type". The pass sends
// each == and != whose operand has such an interface type, and neither operand is the
// identifier nil, to the session's helper:
//
//	err == ErrNotFound
//
// runs as
//
//	_gosbiEqual(err, ErrNotFound)
//
// and a != b as !_gosbiEqual(a, b). The helper gives Go's answer where the operands show it
// (no wrapper, pointers, a wrapper against a compiled value) and otherwise fails the cell with
// an explanation, never a silent false. A switch's cases on such a tag are comparisons once
// bind-switch-tag has run, and are sent to the helper too. Comparisons with nil are left as
// they are, as are comparisons with a variable of a compiled package (err == io.EOF: such a
// variable holds no wrapper, so the interpreter's own == answers as Go, and a read loop keeps
// its speed), and a comparison whose operands' types the unit does not show.
//
// Upstream: no upstream issue found.
var compareInterfaces = Pass{
	Name:  "compare-interfaces",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.HasMethods == nil || env.types == nil || len(env.types().methods) == 0 {
			return u.Text, nil
		}
		tt := env.types()
		return rewriteAll(u, func(p *parsed) (string, bool) { return p.interfaceComparisons(tt.with(env, p)) })
	},
}

// EqualName is the session's helper that compare-interfaces sends comparisons to.
const EqualName = "_gosbiEqual"

// interfaceComparisons returns the unit's text with each outermost comparison with an operand
// of a compiled interface type with methods sent to the session's helper, and false when
// there is none.
func (p *parsed) interfaceComparisons(tt *typeTable) (string, bool) {
	var edits []span
	inspectUnit(p, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.EQL && b.Op != token.NEQ || isNil(b.X) || isNil(b.Y) {
			return true
		}
		if tt.compiledValue(b.X) || tt.compiledValue(b.Y) {
			return true // io.EOF holds no wrapper: the interpreter's == answers as Go, and fast
		}
		if !tt.compiledIface(b.X) && !tt.compiledIface(b.Y) {
			return true
		}
		text := EqualName + "(" + p.position(b.X.Pos()) + p.src(b.X) + ", " + p.position(b.Y.Pos()) + p.src(b.Y) + ")" + p.position(b.End())
		if b.Op == token.NEQ {
			text = "!" + text
		}
		edits = append(edits, span{b.Pos(), b.End(), p.position(b.Pos()) + text})
		return false // an inner comparison is found again in the next round
	})
	if len(edits) == 0 {
		return "", false
	}
	return p.replaceSpans(edits), true
}

// compiledIface reports whether the static type of x is a compiled interface with methods.
func (tt *typeTable) compiledIface(x ast.Expr) bool {
	_, _, ok := tt.compiledInterface(tt.staticType(x, 0))
	return ok
}

// span replaces the unit's text from from to to by text.
type span struct {
	from, to token.Pos
	text     string
}

// replaceSpans returns the unit's text with the spans, which do not overlap, replaced.
func (p *parsed) replaceSpans(spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return int(a.from - b.from) })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(p.Text[last:p.offset(s.from)])
		b.WriteString(s.text)
		last = p.offset(s.to)
	}
	b.WriteString(p.Text[last:])
	return b.String()
}

// rewriteAll applies step to the unit until it finds nothing more to do, and returns the
// last text. Each step rewrites every site it finds that lies in no other (one inside
// another is found again in the next step), so the steps are as many as the sites are deep.
// Unlike repeat it leaves no site silently where a step's text does not parse: it fails.
func rewriteAll(u Unit, step func(p *parsed) (string, bool)) (string, error) {
	return stepUntilDone(u, step, true)
}
