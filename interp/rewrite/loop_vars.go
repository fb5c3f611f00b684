package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// loopVars works around the interpreter's per-iteration variables of a for loop with an init
// statement that declares them (for i := 0; cond; post { body }). Where the loop has a
// condition and a post statement, the interpreter gives the body a copy of the first variable,
// made at the start of each iteration from a variable that only the init, the condition and the
// post statement use, and never copies the body's value back: a change that the body makes to i
// (i++, i += 3, i = 7, through &i or a closure) is lost, so that the loop runs a different
// number of times (for i := 0; i < 10; i++ { if i%3 == 0 { i++ }; n++ } counts 10 where Go
// counts 7; for i := 0; i < 3; k++ { i++ } never ends), and a body that declares i again
// (i := i + 10) fails to compile. The other variables of the init statement, and every
// variable of a loop without a condition or a post statement, are one variable for the whole
// loop, so a closure that captures one of them sees its last value.
//
// Where no function literal of the loop refers to a variable of the init statement and none
// has its address taken, a per-iteration variable cannot be told from one variable for the
// whole loop, and the pass declares the variables in a block around the loop instead:
//
//	L: for i := 0; cond; post { body }
//
// runs as
//
//	{ i := 0; L: for ; cond; post { body } }
//
// which has Go's meaning: the label stays on the for statement (continue L and break L are
// unchanged), a declaration of i in the body shadows it as before, and i is not seen after
// the loop. Where a function literal or an address captures a variable, the body also gives
// each iteration variables of its own, declared from the block's and copied back to them at
// the end of the body and before each continue that goes on with the loop (see
// perIterationBody): the condition and the post statement then see what the iteration left,
// and a closure keeps its iteration's variable, as in Go.
//
// The pass rewrites only a loop that the interpreter gets wrong: a loop whose body changes the
// first variable (an assignment, ++ or -- of it, its field or element, &i, a method call on
// it, a closure that does so) or declares it again at the body's top, and a loop whose body
// captures a variable that the interpreter does not copy. It fails the cell, saying how to
// write the loop, where it cannot keep Go's meaning in such a loop: a function literal or an
// address in the condition or the post statement that captures a variable (Go gives it the
// next iteration's variable), and a goto to the loop's label (a goto cannot jump into the
// block). Left as the interpreter runs them: a method with a pointer receiver that keeps its
// receiver (k.Keep() with k a loop variable), or a method value of one (gs = append(gs,
// c.Get)), is not taken for a capture, so such a loop gets one variable for the whole loop and
// what kept it sees its last value; and in a loop that is otherwise right, a closure made in
// the condition or the post statement that outlives it sees the variable of the whole loop.
//
// Upstream: no upstream issue found.
var loopVars = Pass{
	Name:  "loop-vars",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || !strings.Contains(u.Text, "for") {
			return u.Text, nil
		}
		var err error
		text, rerr := repeat(u, func(p *parsed) (string, bool) {
			text, ok, e := p.loopVarStep()
			if e != nil {
				err = e
			}
			return text, ok
		})
		if err == nil {
			err = rerr
		}
		return text, err
	},
}

// loopVarStep returns the unit's text with its first loop that needs it rewritten, false when
// none does, and the error for a loop that the interpreter gets wrong and that the pass cannot
// rewrite.
func (p *parsed) loopVarStep() (string, bool, error) {
	var found *ast.ForStmt
	var stmt ast.Stmt // the loop, or the labeled statement of it
	var perIteration bool
	var err error
	labels := map[*ast.ForStmt]*ast.LabeledStmt{}
	inspectUnit(p, func(n ast.Node) bool {
		if found != nil || err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.LabeledStmt:
			if f, ok := n.Stmt.(*ast.ForStmt); ok {
				labels[f] = n
			}
		case *ast.ForStmt:
			var wrong bool
			wrong, perIteration, err = p.loopIsWrong(n, labels[n])
			if wrong && err == nil {
				found, stmt = n, n
				if l := labels[n]; l != nil {
					stmt = l
				}
			}
		}
		return true
	})
	if err != nil || found == nil {
		return "", false, err
	}
	init := found.Init
	body := p.Text[p.offset(init.End()):p.offset(stmt.End())]
	if perIteration {
		body = p.Text[p.offset(init.End()):p.offset(found.Body.Lbrace)] + p.perIterationBody(found, labels[found])
	}
	var b strings.Builder
	b.WriteString(p.Text[:p.offset(stmt.Pos())])
	b.WriteString("{ " + p.position(init.Pos()) + p.src(init) + "; ")
	b.WriteString(p.position(stmt.Pos()) + p.Text[p.offset(stmt.Pos()):p.offset(init.Pos())])
	b.WriteString(p.position(init.End()) + body)
	b.WriteString(" }" + p.position(stmt.End()))
	b.WriteString(p.Text[p.offset(stmt.End()):])
	return b.String(), true, nil
}

// perIterationBody returns the body of the loop f (labeled by l, nil when it has none) that
// gives each iteration variables of its own:
//
//	{ P0 := &i; i := i; Q0 := &i; { body }; *P0 = *Q0 }
//
// with each continue statement of the loop run as { *P0 = *Q0; continue }, so that the post
// statement and the condition see what the iteration left in its variables, and a function
// literal or an address keeps the variable of its iteration, as in Go. P and Q are named by
// the loop's position, so that the names of nested loops differ.
func (p *parsed) perIterationBody(f *ast.ForStmt, l *ast.LabeledStmt) string {
	at := p.fset.Position(f.Pos())
	var names, ps, qs, targets, sources []string
	for k, v := range loopVariables(f) {
		if noLoopVariable(v) {
			continue
		}
		pk, qk := fmt.Sprintf("%sP%d_%d_%d", loopVarPrefix, at.Line, at.Column, k), fmt.Sprintf("%sQ%d_%d_%d", loopVarPrefix, at.Line, at.Column, k)
		names, ps, qs = append(names, v.Name), append(ps, pk), append(qs, qk)
		targets, sources = append(targets, "*"+pk), append(sources, "*"+qk)
	}
	addrs := func(vs []string) string { return "&" + strings.Join(vs, ", &") }
	back := strings.Join(targets, ", ") + " = " + strings.Join(sources, ", ")
	var b strings.Builder
	b.WriteString("{ " + strings.Join(ps, ", ") + " := " + addrs(names) + "; ")
	b.WriteString(strings.Join(names, ", ") + " := " + strings.Join(names, ", ") + "; ")
	b.WriteString(strings.Join(qs, ", ") + " := " + addrs(names) + "; {" + p.position(f.Body.Lbrace+1))
	from := p.offset(f.Body.Lbrace + 1)
	for _, c := range continues(f, l) {
		b.WriteString(p.Text[from:p.offset(c.Pos())])
		b.WriteString("{ " + back + "; " + p.position(c.Pos()) + p.src(c) + " }" + p.position(c.End()))
		from = p.offset(c.End())
	}
	b.WriteString(p.Text[from:p.offset(f.Body.Rbrace)])
	b.WriteString("}; " + back + " " + p.position(f.Body.Rbrace) + "}")
	return b.String()
}

// loopVarPrefix starts the names of the pointers that loop-vars declares.
const loopVarPrefix = "_gosbiLV"

// continues returns the continue statements of the body of the loop f (labeled by l, nil when
// it has none) that go on with f, in the order of the source.
func continues(f *ast.ForStmt, l *ast.LabeledStmt) []*ast.BranchStmt {
	var out []*ast.BranchStmt
	var walk func(n ast.Node, inner bool)
	walk = func(n ast.Node, inner bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				walk(m.Body, true)
				return false
			case *ast.RangeStmt:
				walk(m.Body, true)
				return false
			case *ast.BranchStmt:
				if m.Tok == token.CONTINUE && (m.Label == nil && !inner || m.Label != nil && l != nil && m.Label.Name == l.Label.Name) {
					out = append(out, m)
				}
			}
			return true
		})
	}
	walk(f.Body, false)
	return out
}

// loopIsWrong reports whether the interpreter runs the loop f (labeled by l, nil when it has
// no label) otherwise than Go and whether the loop needs variables of each iteration (a
// function literal or an address captures one of them), and returns the error for such a loop
// that the pass cannot rewrite.
func (p *parsed) loopIsWrong(f *ast.ForStmt, l *ast.LabeledStmt) (wrong, perIteration bool, err error) {
	vars := loopVariables(f)
	copied := f.Cond != nil && f.Post != nil // the interpreter copies vars[0] into the body
	for k, v := range vars {
		if noLoopVariable(v) {
			continue
		}
		how := captured(f.Body, v)
		perIteration = perIteration || how != ""
		if copied && k == 0 && (changed(f.Body, v) || redeclared(f.Body, v)) || (!copied || k > 0) && how != "" {
			wrong = true
		}
	}
	if !wrong {
		return false, false, nil
	}
	for _, v := range vars {
		how := captured(f.Cond, v)
		if how == "" {
			how = captured(f.Post, v)
		}
		if !noLoopVariable(v) && how != "" {
			return false, false, fmt.Errorf("%s: the interpreter cannot run this loop as Go does: %s in its "+
				"condition or post statement captures the loop variable %s, which the interpreter keeps as one "+
				"variable for the whole loop where Go makes one for each iteration: declare %s before the loop and "+
				"capture a copy of it made in the body", p.fset.Position(f.Pos()), how, v.Name, v.Name)
		}
	}
	if l != nil && p.gotoTargets(l) {
		names := make([]string, len(vars))
		for k, v := range vars {
			names[k] = v.Name
		}
		assign := strings.Replace(StripPositions(p.src(f.Init)), ":=", "=", 1)
		return false, false, fmt.Errorf("%s: the interpreter cannot run this loop as Go does, and the session "+
			"cannot mend it because a goto jumps to its label %s: declare %s before the label and assign in the "+
			"init statement (%s: for %s; …)", p.fset.Position(f.Pos()), l.Label.Name, strings.Join(names, ", "),
			l.Label.Name, assign)
	}
	return true, perIteration, nil
}

// loopVariables returns the identifiers that the init statement of f declares, none when it
// declares none. The blank identifier is among them: skip it with noLoopVariable.
func loopVariables(f *ast.ForStmt) []*ast.Ident {
	as, ok := f.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil
	}
	vars := make([]*ast.Ident, 0, len(as.Lhs))
	for _, e := range as.Lhs {
		id, ok := e.(*ast.Ident)
		if !ok {
			return nil
		}
		vars = append(vars, id)
	}
	return vars
}

// noLoopVariable reports whether v, a loop variable, is no variable to keep: the blank identifier
// (which go/parser gives an object in a :=, out of every scope) or one without an object.
func noLoopVariable(v *ast.Ident) bool { return v.Obj == nil || blank(v) }

// refersTo reports whether the identifier e is the variable v.
func refersTo(e ast.Expr, v *ast.Ident) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Obj != nil && id.Obj == v.Obj
}

// root returns the variable whose storage the expression e is part of (i of i, i.f, i[k],
// (i)), nil when e is none.
func root(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// captured returns how a function literal or an address in n (a loop's body, condition or
// post statement; nil) may keep the variable v beyond its iteration ("a function literal",
// "&v"), "" when nothing does.
func captured(n ast.Node, v *ast.Ident) string {
	how := ""
	if n == nil {
		return ""
	}
	ast.Inspect(n, func(n ast.Node) bool {
		if how != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if e, ok := m.(ast.Expr); ok && refersTo(e, v) {
					how = "a function literal"
				}
				return how == ""
			})
		case *ast.UnaryExpr:
			if n.Op == token.AND && refersTo(root(n.X), v) {
				how = "&" + v.Name
			}
		}
		return how == ""
	})
	return how
}

// changed reports whether body may change the variable v: it assigns to v, its field or its
// element, increments or decrements them, ranges with them as key or value, takes their
// address or calls a method on them (which may take it).
func changed(body *ast.BlockStmt, v *ast.Ident) bool {
	is := func(e ast.Expr) bool { return refersTo(root(e), v) }
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || n.Tok != token.DEFINE && is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.RangeStmt:
			found = found || n.Tok == token.ASSIGN && (n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value))
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		case *ast.CallExpr:
			if s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				found = found || is(s.X)
			}
		}
		return !found
	})
	return found
}

// redeclared reports whether a statement at the top of body declares a variable named as v,
// which the interpreter takes for v.
func redeclared(body *ast.BlockStmt, v *ast.Ident) bool {
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == v.Name {
						return true
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						if id.Name == v.Name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// gotoTargets reports whether a goto statement jumps to the label of l: one in the function
// whose body holds l (the unit's statements where none does), not in a function literal inside
// it, whose labels are its own.
func (p *parsed) gotoTargets(l *ast.LabeledStmt) bool {
	scope := p.labelScope(l)
	found := false
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.FuncDecl:
			return n.Body == scope
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil && n.Label.Name == l.Label.Name {
				found = true
			}
		}
		return !found
	}
	if scope != nil {
		ast.Inspect(scope, func(n ast.Node) bool { return n == scope || visit(n) })
	} else {
		inspectUnit(p, visit)
	}
	return found
}

// labelScope returns the body of the innermost function declaration or literal around l, nil
// when l is among the unit's statements.
func (p *parsed) labelScope(l *ast.LabeledStmt) *ast.BlockStmt {
	var funcs []*ast.BlockStmt // the bodies around the node inspected, innermost last
	var scope *ast.BlockStmt
	var stack []ast.Node
	found := false
	inspectUnit(p, func(n ast.Node) bool {
		if found {
			return false
		}
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(funcs) > 0 && (isFuncWithBody(top, funcs[len(funcs)-1])) {
				funcs = funcs[:len(funcs)-1]
			}
			return true
		}
		if n == l {
			found = true
			if len(funcs) > 0 {
				scope = funcs[len(funcs)-1]
			}
			return false
		}
		stack = append(stack, n)
		switch f := n.(type) {
		case *ast.FuncLit:
			funcs = append(funcs, f.Body)
		case *ast.FuncDecl:
			if f.Body != nil {
				funcs = append(funcs, f.Body)
			}
		}
		return true
	})
	return scope
}

// isFuncWithBody reports whether n is a function declaration or literal whose body is body.
func isFuncWithBody(n ast.Node, body *ast.BlockStmt) bool {
	switch f := n.(type) {
	case *ast.FuncLit:
		return f.Body == body
	case *ast.FuncDecl:
		return f.Body == body
	}
	return false
}
