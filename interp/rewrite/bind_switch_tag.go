package rewrite

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// bindSwitchTag works around the interpreter's switch with case values on a tag of an
// interface type (switch v { case 1: } with v of type any, or a function's result of type
// any): it converts the tag to the type of the case value and fails the cell with an error of
// reflect ("value of type interface {} cannot be converted to type int"), a value of the
// case's type included. (A tag of type error with cases io.EOF and nil runs right; the pass
// rewrites it too, to the same effect.) Comparisons of an interface value with == work, so the pass
// makes such a switch one without a tag whose cases compare the tag with each value in turn:
//
//	switch f() {
//	case 1, 2:
//
// runs as
//
//	switch _gosbi_tag := f(); {
//	case _gosbi_tag == 1 || _gosbi_tag == 2:
//
// which has the same effect in Go: the tag is evaluated once, the cases in order until one
// matches, and break, fallthrough and labels keep their meaning. A switch with an init
// statement keeps it and compares its tag where that is a variable (switch v := g(); v): the
// variable is read for each value compared, not once, so a case value that assigns to it (a
// function literal called in the case) may change what the values are compared with,
// where Go compares the value it had. One with an init statement and another tag is left, as
// is a tag whose type the unit does not show (the interpreter's error then says what failed).
// Running before check-type-identity, the comparisons are checked as the ones a cell writes;
// both operands of each stand at the case value's position, which tells that check's error
// that it is a switch's case.
//
// Upstream: no upstream issue found.
var bindSwitchTag = Pass{
	Name:  "bind-switch-tag",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.types == nil || !strings.Contains(u.Text, "switch") {
			return u.Text, nil
		}
		tt := env.types()
		return repeat(u, func(p *parsed) (string, bool) { return p.bindSwitchTag(tt.with(env, p)) })
	},
}

// SwitchTagName is the variable that bind-switch-tag binds the tag to.
const SwitchTagName = "_gosbi_tag"

// bindSwitchTag returns the unit's text with the first switch on a tag of an interface type
// made one without a tag, and false when there is none.
func (p *parsed) bindSwitchTag(tt *typeTable) (string, bool) {
	var sw *ast.SwitchStmt
	ast.Inspect(p.root, func(n ast.Node) bool {
		if s, ok := n.(*ast.SwitchStmt); ok && sw == nil && s.Tag != nil && tt.isInterface(tt.staticType(s.Tag, 0)) {
			if _, ident := ast.Unparen(s.Tag).(*ast.Ident); s.Init == nil || ident {
				sw = s
			}
		}
		return sw == nil
	})
	if sw == nil {
		return "", false
	}
	type edit struct {
		from, to token.Pos
		text     string
	}
	tag := SwitchTagName
	edits := []edit{{sw.Tag.Pos(), sw.Tag.End(), SwitchTagName + " := " + p.position(sw.Tag.Pos()) + p.src(sw.Tag) + "; " + p.position(sw.Tag.End())}}
	if sw.Init != nil {
		tag = p.src(ast.Unparen(sw.Tag))
		edits[0].text = p.position(sw.Tag.End())
	}
	for _, st := range sw.Body.List {
		cl := st.(*ast.CaseClause)
		if len(cl.List) == 0 {
			continue
		}
		var b strings.Builder
		for i, e := range cl.List {
			if i > 0 {
				b.WriteString(" || ")
			}
			// Both operands at the case value's position, which no comparison of a cell has,
			// tell comparisonError that this is a switch's case.
			b.WriteString(p.position(e.Pos()) + tag + " == " + p.position(e.Pos()) + caseOperand(p, e))
		}
		b.WriteString(p.position(cl.List[len(cl.List)-1].End()))
		edits = append(edits, edit{cl.List[0].Pos(), cl.List[len(cl.List)-1].End(), b.String()})
	}
	text := p.Text
	for _, e := range slices.Backward(edits) {
		text = text[:p.offset(e.from)] + e.text + text[p.offset(e.to):]
	}
	return text, true
}

// caseOperand returns the source of a case value as the right operand of ==, without
// parentheses (the interpreter fails v == ("a") with an error of reflect) unless it needs
// them: a comparison or a logical operation (case a == b), which the interpreter may then
// fail that way, saying so.
func caseOperand(p *parsed, e ast.Expr) string {
	u := ast.Unparen(e)
	if b, ok := u.(*ast.BinaryExpr); ok && b.Op.Precedence() <= token.EQL.Precedence() {
		return "(" + p.src(u) + ")"
	}
	return p.src(u)
}
