package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// commaOK works around the interpreter's handling of a comma-ok definition in its global
// scope, where it runs a cell's top-level statements: "v, ok := m[k]", "v, ok := x.(T)" and
// "v, ok := <-ch" (and their var forms) panic with "nil type", because the interpreter types
// the variables before it has typed the expression. The comma-ok assignment to variables that
// exist works, so a map index or a type assertion defines its variables from single values,
// which type them as Go does, and then assigns them:
//
//	v, ok := m[k]    →   v, ok := m[k], false; v, ok = m[k]
//	v, ok := x.(T)   →   v, ok := *new(T), false; v, ok = x.(T)
//
// A map or key that is not a plain operand (a call, a composite literal, a receive) is first
// held in a temporary, so that it is evaluated once; reading a map has no effect. A definition
// that keeps only one of the values needs no comma-ok at the top: "v, _ := e" becomes
// "v := e" for a map index or a receive, whose single-value forms cannot fail, and
// "v := *new(T); v, _ = x.(T)" for an assertion, whose single-value form panics where the
// comma-ok form gives the zero value; "_, ok := e" computes ok in a function literal. A
// temporary stays a variable of the session, holding what it held (a map from a call stays
// reachable) until a later cell's temporary of the same name replaces it. A receive that keeps its value
// cannot be rewritten (Go cannot name a channel's element type without receiving), nor can a
// var declaration (the interpreter refuses its var forms too): both are refused with an error
// that says what to write instead.
//
// Upstream: no upstream issue found.
var commaOK = Pass{
	Name:  "comma-ok",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		if u.Kind == Decl {
			return u.Text, p.commaOKVar(p.root)
		}
		return p.commaOKStmts(env)
	},
}

// commaOKTempPrefix starts the names of the temporaries of comma-ok.
const commaOKTempPrefix = "_gosbi_c"

// commaOKStmts rewrites the comma-ok definitions among the top-level statements of a unit
// (redeclare-via-temps may have made one statement two).
func (p *parsed) commaOKStmts(env Env) (string, error) {
	var b strings.Builder
	last := 0
	temps := 0
	for _, st := range p.body {
		if err := p.commaOKVar(st); err != nil {
			return "", err
		}
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 2 || len(as.Rhs) != 1 || commaOKKind(as.Rhs[0]) == "" {
			continue
		}
		text, err := p.commaOKDefine(env, as, &temps)
		if err != nil {
			return "", err
		}
		b.WriteString(p.Text[last:p.offset(as.Pos())])
		b.WriteString(text)
		last = p.offset(as.End())
	}
	if last == 0 {
		return p.Text, nil
	}
	b.WriteString(p.Text[last:])
	return b.String(), nil
}

// commaOKKind returns what a comma-ok expression is ("index", "assert" or "receive"), or ""
// when e is none.
func commaOKKind(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		return "index"
	case *ast.TypeAssertExpr:
		if e.Type != nil {
			return "assert"
		}
	case *ast.UnaryExpr:
		if e.Op == token.ARROW {
			return "receive"
		}
	}
	return ""
}

// commaOKDefine returns the text that replaces the comma-ok definition as, as commaOK
// describes. temps counts the temporaries of the unit.
func (p *parsed) commaOKDefine(env Env, as *ast.AssignStmt, temps *int) (string, error) {
	v, ok := blank(as.Lhs[0]), blank(as.Lhs[1])
	rhs := ast.Unparen(as.Rhs[0])
	src := p.position(rhs.Pos()) + p.src(rhs)
	switch {
	case v && ok:
		return p.src(as), nil // "_, _ := e" defines nothing: an error the interpreter reports
	case ok:
		if a, isAssert := rhs.(*ast.TypeAssertExpr); isAssert {
			// the comma-ok assertion does not panic where the single-value one would
			v := p.src(as.Lhs[0])
			return fmt.Sprintf("%s := *new(%s); %s, _ = %s", v, p.src(a.Type), v, src), nil
		}
		return p.src(as.Lhs[0]) + " := " + src, nil
	case v:
		// the interpreter assigns the value to the status in "_, ok = <-ch": name it
		return fmt.Sprintf("%s := func() bool { _gosbiV, _gosbiOK := %s; _ = _gosbiV; return _gosbiOK }()",
			p.src(as.Lhs[1]), src), nil
	}
	lhs := p.src(as.Lhs[0]) + ", " + p.src(as.Lhs[1])
	switch rhs := rhs.(type) {
	case *ast.TypeAssertExpr:
		typ := p.src(rhs.Type)
		return fmt.Sprintf("%s := *new(%s), false; %s = %s", lhs, typ, lhs, src), nil
	case *ast.IndexExpr:
		var pre strings.Builder
		operand := func(e ast.Expr) string {
			if pure(e) {
				return p.position(e.Pos()) + p.src(e)
			}
			*temps++
			// the unit's line and column: units that share a line have temporaries of their own
			tmp := fmt.Sprintf("%s%d_%d_%d", commaOKTempPrefix, p.Line, p.Col, *temps)
			fmt.Fprintf(&pre, "%s := %s%s; ", tmp, p.position(e.Pos()), p.src(e))
			return tmp
		}
		index := operand(rhs.X) + "[" + operand(rhs.Index) + "]"
		return fmt.Sprintf("%s%s := %s, false; %s = %s", pre.String(), lhs, index, lhs, index), nil
	}
	return "", p.receiveError(as.Pos(), rhs)
}

// receiveError is the error for a comma-ok receive that defines its value at the top level.
func (p *parsed) receiveError(pos token.Pos, recv ast.Expr) error {
	return fmt.Errorf("%s: the interpreter cannot define the variables of a comma-ok receive "+
		"(v, ok := %s) at the top level of a cell: declare them first and assign them "+
		"(var v T and var ok bool, with T the channel's element type, then v, ok = %s), "+
		"or receive inside a function", p.fset.Position(pos), p.src(recv), p.src(recv))
}

// commaOKVar returns an error for a var declaration of the top level whose values are a
// comma-ok expression ("var v, ok = m[k]"), which the interpreter cannot declare there.
func (p *parsed) commaOKVar(n ast.Node) error {
	if ds, ok := n.(*ast.DeclStmt); ok {
		n = ds.Decl
	}
	gd, ok := n.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return nil
	}
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Names) != 2 || len(vs.Values) != 1 {
			continue
		}
		switch commaOKKind(vs.Values[0]) {
		case "":
			continue
		case "receive":
			return p.receiveError(gd.Pos(), ast.Unparen(vs.Values[0]))
		}
		return fmt.Errorf("%s: %s: the interpreter cannot declare variables from a comma-ok "+
			"expression at the top level of a cell: write %s, %s := %s",
			p.fset.Position(gd.Pos()), p.src(gd), vs.Names[0].Name, vs.Names[1].Name, p.src(vs.Values[0]))
	}
	return nil
}

// blank reports whether e is the blank identifier.
func blank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// pure reports whether evaluating e twice has the effect and the value of evaluating it once:
// names, literals, selectors, and operators and indexes on such operands, without calls,
// receives or composite literals.
func pure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pure(e.X)
	case *ast.SelectorExpr:
		return pure(e.X)
	case *ast.StarExpr:
		return pure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && pure(e.X)
	case *ast.BinaryExpr:
		return pure(e.X) && pure(e.Y)
	case *ast.IndexExpr:
		return pure(e.X) && pure(e.Index)
	}
	return false
}
