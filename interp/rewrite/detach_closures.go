package rewrite

import (
	"go/ast"
	"slices"
	"strings"
)

// detachClosures works around a deadlock of the interpreter's deferred calls. When a function
// returns, the interpreter runs its deferred calls holding the lock of the function's frame,
// and every call of a function literal that was made in a frame takes that frame's lock when
// it returns. So a deferred call that calls such a literal, directly or through another
// function, waits for itself and the cell never ends (an interrupt does not end it either):
//
//	func f() { fn := func() { … }; defer fn() }
//	func g() { fn := func() { … }; defer func() { fn() }() }
//	func h() { defer run(func() { … }) }
//
// The pass makes each function literal of a function with a defer statement in another frame:
// it returns the literal from a function literal called at once,
//
//	fn := func() { … }   →   fn := func() func() { return func() { … } }()
//
// which has the same effect in Go (the literal sees the same variables; the call adds none),
// and the lock that the literal's calls take is then the frame of that call, which nothing
// holds. A function literal made directly in the function's frame is one in its body outside
// any other function literal. Literals that are called where they stand (func() { … }(), the
// deferred function literal defer func() { … }() and a go statement's literal among them) are
// left as written: their call is the only one, and a deferred literal must stay the deferred
// function for recover to work in it. A literal that recover is called in and that is
// deferred through a variable (fn := func() { recover() }; defer fn()) recovers nothing after
// the pass, as it did not before it (it never returned).
//
// Upstream: no upstream issue found.
var detachClosures = Pass{
	Name:  "detach-closures",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, "defer") || !strings.Contains(u.Text, "func") {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil // the interpreter reports what does not parse
		}
		return p.detachClosures(), nil
	},
}

// detachClosures returns the unit's text with every function literal that detach-closures
// moves returned from a function literal called at once.
func (p *parsed) detachClosures() string {
	var lits []*ast.FuncLit
	ast.Inspect(p.unitNode(), func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil && defersDirectly(body) {
			lits = append(lits, literalsOf(body)...)
		}
		return true
	})
	if len(lits) == 0 {
		return p.Text
	}
	// Insert from the end of the text, so that the offsets of the syntax tree stay valid; a
	// literal may hold another one of a function of its own.
	type insertion struct {
		at   int
		text string
	}
	var ins []insertion
	for _, l := range lits {
		typ := p.src(l.Type)
		ins = append(ins,
			insertion{p.offset(l.Pos()), "func() " + typ + " { return " + p.position(l.Pos())},
			insertion{p.offset(l.End()), " }()" + p.position(l.End())})
	}
	slices.SortStableFunc(ins, func(a, b insertion) int { return b.at - a.at })
	text := p.Text
	for _, in := range ins {
		text = text[:in.at] + in.text + text[in.at:]
	}
	return text
}

// unitNode returns the syntax tree of the whole unit: the body of a statement unit, the
// declarations of a declaration unit.
func (p *parsed) unitNode() ast.Node {
	if p.Kind == Stmt {
		return &ast.BlockStmt{List: p.body}
	}
	return &ast.File{Decls: p.decls}
}

// defersDirectly reports whether a function body holds a defer statement outside the function
// literals in it.
func defersDirectly(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.DeferStmt:
			found = true
		case *ast.FuncLit:
			return false
		}
		return !found
	})
	return found
}

// literalsOf returns the function literals made directly in a function body (outside any
// other function literal) that are not called where they stand.
func literalsOf(body *ast.BlockStmt) []*ast.FuncLit {
	var lits []*ast.FuncLit
	called := map[*ast.FuncLit]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if l, ok := n.Fun.(*ast.FuncLit); ok {
				called[l] = true
			}
		case *ast.FuncLit:
			if !called[n] {
				lits = append(lits, n)
			}
			return false
		}
		return true
	})
	return lits
}
