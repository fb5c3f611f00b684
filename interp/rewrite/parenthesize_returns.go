package rewrite

import (
	"fmt"
	"go/ast"
	"slices"
	"strings"
)

// parenthesizeReturns works around the interpreter's compilation of a return statement whose
// operand is a call of a function value taken from a struct field: the field's function type
// reaches the call as a reflect function type, and such a call in a return statement stores
// its results straight into the function's results, at the operand's place, while the return
// statement itself, compiled for a call that stores them in a temporary of the frame, copies
// that untouched temporary over them. The call's results come back as zero values, without a
// word:
//
//	type S struct{ n func() int }
//	func r(s S) (int, int) { return 1, s.n() }   // 1 0, Go: 1 7
//
// The same holds for a variable whose type the interpreter took from such a field (fv := s.f),
// for a field through a pointer, of a nested struct or of a slice's element, for a function with
// one result whose type is not the call's (an interface: func r(s S) any { return s.n() }),
// and for one call that gives all the results when one of them is converted (func r(s S) (any,
// int) { return s.two() }). A call in parentheses is evaluated into its temporary and copied
// like any other operand, so the pass puts in parentheses each operand of a return statement
// that is such a call:
//
//	return 1, s.n()   →   return 1, (s.n())
//
// The interpreter does not accept a call of several results in parentheses, so a return
// statement whose one operand is a call of a function with several results defines
// temporaries first, in a block:
//
//	return s.two()   →   { _gosbiR1r0, _gosbiR1r1 := s.two(); return _gosbiR1r0, _gosbiR1r1 }
//
// Both have the same effect in Go: the values, their order of evaluation and the conversions
// to the result types are the return statement's own. Without types the pass cannot tell a
// field from a method, so it rewrites every call but those that cannot hold such a value: the
// call of a name that is no variable (a function, a builtin, a conversion to a named type), of
// a package's function and of a function literal.
//
// Upstream: no upstream issue found.
var parenthesizeReturns = Pass{
	Name:  "parenthesize-returns",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, "return") {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.returnsStep(env) })
	},
}

// returnTempPrefix starts the names of the temporaries that parenthesize-returns defines.
const returnTempPrefix = "_gosbiR"

// returnSite is a return statement that parenthesize-returns rewrites, with the number of
// results of its function.
type returnSite struct {
	ret     *ast.ReturnStmt
	results int
	calls   []*ast.CallExpr // the operands to rewrite
}

// returnsStep returns the unit's text with the return statements that need it rewritten,
// those that hold no other such return statement (one in a function literal of an operand),
// and false when none needs it.
func (p *parsed) returnsStep(env Env) (string, bool) {
	var sites []returnSite
	var inFunc func(typ *ast.FuncType, body *ast.BlockStmt)
	inFunc = func(typ *ast.FuncType, body *ast.BlockStmt) {
		results := typ.Results.NumFields()
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				inFunc(n.Type, n.Body)
				return false
			case *ast.ReturnStmt:
				if calls := returnOperands(env, n); len(calls) > 0 {
					sites = append(sites, returnSite{n, results, calls})
				}
			}
			return true
		})
	}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				inFunc(n.Type, n.Body)
			}
			return false
		case *ast.FuncLit:
			inFunc(n.Type, n.Body)
			return false
		}
		return true
	}
	for _, st := range p.body {
		ast.Inspect(st, visit)
	}
	for _, d := range p.decls {
		ast.Inspect(d, visit)
	}
	if len(sites) == 0 {
		return "", false
	}
	// Innermost sites only: they do not overlap, and the text of one that holds another
	// changes with it. The next step takes the one that held them.
	sites = slices.DeleteFunc(sites, func(s returnSite) bool {
		return slices.ContainsFunc(sites, func(o returnSite) bool {
			return o.ret != s.ret && s.ret.Pos() <= o.ret.Pos() && o.ret.End() <= s.ret.End()
		})
	})
	slices.SortFunc(sites, func(a, b returnSite) int { return int(b.ret.Pos() - a.ret.Pos()) })
	text := p.Text
	for i, s := range sites {
		repl := p.rewrittenReturn(s, fmt.Sprintf("%s%d", returnTempPrefix, p.returnTempNumber(len(sites)-i)))
		text = text[:p.offset(s.ret.Pos())] + repl + text[p.offset(s.ret.End()):]
	}
	return text, true
}

// returnTempNumber returns the k-th number (from 1) that names no temporary of the unit yet.
func (p *parsed) returnTempNumber(k int) int {
	n := 0
	for k > 0 {
		n++
		if !strings.Contains(p.Text, fmt.Sprintf("%s%dr", returnTempPrefix, n)) {
			k--
		}
	}
	return n
}

// returnOperands returns the operands of a return statement that parenthesize-returns
// rewrites: calls that may call a function value of a struct field.
func returnOperands(env Env, ret *ast.ReturnStmt) []*ast.CallExpr {
	var calls []*ast.CallExpr
	for _, e := range ret.Results {
		if call, ok := e.(*ast.CallExpr); ok && mayCallField(env, call) {
			calls = append(calls, call)
		}
	}
	return calls
}

// mayCallField reports whether a call may call a function value taken from a struct field:
// whether its function is other than a name that is no variable, a package's function or a
// function literal.
func mayCallField(env Env, call *ast.CallExpr) bool {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		return false
	case *ast.Ident, *ast.SelectorExpr:
		return !evaluatedLate(env, f, true)
	}
	return true
}

// rewrittenReturn returns the text of a return statement that needs it, rewritten: its
// operands that may call a field's function in parentheses, or its one call of several
// results evaluated first into temporaries whose names start with prefix.
func (p *parsed) rewrittenReturn(s returnSite, prefix string) string {
	ret := s.ret
	if len(ret.Results) == 1 && s.results > 1 {
		names := make([]string, s.results)
		for i := range names {
			names[i] = fmt.Sprintf("%sr%d", prefix, i)
		}
		list := strings.Join(names, ", ")
		call := ret.Results[0]
		return "{ " + list + " := " + p.position(call.Pos()) + p.src(call) + "; " +
			p.position(ret.Pos()) + "return " + list + " }" + p.position(ret.End())
	}
	var b strings.Builder
	last := p.offset(ret.Pos())
	for _, call := range s.calls {
		b.WriteString(p.Text[last:p.offset(call.Pos())])
		b.WriteString("(" + p.position(call.Pos()) + p.src(call) + ")" + p.position(call.End()))
		last = p.offset(call.End())
	}
	b.WriteString(p.Text[last:p.offset(ret.End())])
	return b.String()
}
