package explain

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"

	"github.com/gosbi/gosbi/internal/text"
)

// undefinedSelector: the interpreter reports a field or method that a value's type lacks as
// "undefined method: Foo" or "undefined selector: Foo" (without the colon where the value is
// assigned), at the column of the value, or at a line of the cell that defined the variable,
// and names neither the value nor its type; a package's missing member is "package sbi
// "github.com/gosbi/gosbi/sbi" has no symbol Foo". The explainer gives Go's own message at the
// selected name, "res.Foo undefined (type sbi.TrainResult has no field or method Foo)" or
// "undefined: sbi.Foo", with the name that differs in case only or by at most two edits: "did
// you mean TrainLoss?". It changes the message only when the cell selects that name.
var undefinedSelector = Explainer{
	Name:     "undefined-selector",
	Upstream: "yaegi reports a missing field or method as \"undefined method: Foo\" or \"undefined selector: Foo\" at the value's column, naming neither the value nor its type; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.Compile {
			return
		}
		pkg, name, rest, ok := missingSelector(f.Msg)
		if !ok {
			return
		}
		sel, fset := selectorOf(env, f.Msg, pkg, name)
		if sel == nil {
			return
		}
		p := fset.Position(sel.Sel.Pos())
		f.Msg = fmt.Sprintf("_.go:%d:%d: %s%s", p.Line, p.Column, missingMessage(env, sel, pkg), rest)
	},
}

// missingSelectorRE matches the interpreter's messages for a missing field, method or member
// of a package, after its position: "undefined method: Foo", "undefined selector: Foo",
// "undefined selector Foo", "undefined selector: slices.Sort" (submatches 1 and 2) and
// `package sbi "…" has no symbol Foo` (submatches 3 and 4).
var missingSelectorRE = regexp.MustCompile(`^(?:undefined (?:method|selector):? ([\pL_][\pL\pN_]*)(?:\.([\pL_][\pL\pN_]*))?|package ([\pL_][\pL\pN_]*) "[^"]*" has no symbol ([\pL_][\pL\pN_]*))`)

// missingSelector parses msg, the interpreter's message for a missing field, method or
// package member: the package (or ""), the name, and what follows the message (a hint of
// another explainer). ok is false for any other message, and for a name followed by "/" or
// "." (a path, not a selected name).
func missingSelector(msg string) (pkg, name, rest string, ok bool) {
	if p := posRE.FindStringIndex(msg); p != nil && p[0] == 0 {
		msg = msg[p[1]:]
	}
	m := missingSelectorRE.FindStringSubmatchIndex(msg)
	if m == nil || m[1] < len(msg) && (msg[m[1]] == '/' || msg[m[1]] == '.') {
		return "", "", "", false
	}
	switch {
	case m[6] >= 0:
		pkg, name = msg[m[6]:m[7]], msg[m[8]:m[9]]
	case m[4] >= 0:
		pkg, name = msg[m[2]:m[3]], msg[m[4]:m[5]]
	default:
		name = msg[m[2]:m[3]]
	}
	return pkg, name, msg[m[1]:], true
}

// selectorOf returns the selector of the cell that the message msg is about: x.name (pkg.name
// for a package's member, when pkg is not ""), the one at the message's position when there
// is one there, else the first whose value's type is not known to have name; nil when the cell
// selects no such name.
func selectorOf(env Env, msg, pkg, name string) (*ast.SelectorExpr, *token.FileSet) {
	line, col := msgPosition(msg)
	var first *ast.SelectorExpr
	var firstSet *token.FileSet
	for _, it := range env.Items {
		if it.Node == nil || it.Fset == nil {
			continue
		}
		var at *ast.SelectorExpr
		ast.Inspect(it.Node, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if at != nil || !ok || sel.Sel.Name != name {
				return at == nil
			}
			x, isIdent := sel.X.(*ast.Ident)
			if pkg != "" && (!isIdent || x.Name != pkg) || pkg == "" && isIdent && env.Package != nil && env.Package(x.Name) {
				return true
			}
			if p := it.Fset.Position(sel.Pos()); p.Line == line && p.Column == col {
				at = sel
				return false
			}
			if first == nil && !hasMember(env, sel.X, name) {
				first, firstSet = sel, it.Fset
			}
			return true
		})
		if at != nil {
			return at, it.Fset
		}
	}
	return first, firstSet
}

// msgPosition returns the interpreter's line and column at the start of msg, or zeros.
func msgPosition(msg string) (line, col int) {
	m := posRE.FindStringSubmatchIndex(msg)
	if m == nil || m[0] != 0 || m[4] < 0 {
		return 0, 0
	}
	line, _ = strconv.Atoi(msg[m[2]:m[3]])
	col, _ = strconv.Atoi(msg[m[4]:m[5]])
	return line, col
}

// hasMember reports whether x is a variable of the session whose type is known to have a
// field or method name.
func hasMember(env Env, x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	if !ok || env.VarType == nil {
		return false
	}
	_, members, _ := env.VarType(id.Name)
	for _, m := range members {
		if m == name {
			return true
		}
	}
	return false
}

// missingMessage is Go's message for the selector sel whose name its value lacks (a package's
// member when pkg is not ""), with the name it likely meant.
func missingMessage(env Env, sel *ast.SelectorExpr, pkg string) string {
	name := sel.Sel.Name
	if pkg != "" {
		var symbols []string
		if env.Symbols != nil {
			symbols = env.Symbols(pkg)
		}
		return "undefined: " + pkg + "." + name + didYouMean(name, symbols)
	}
	x := printNode(sel.X)
	typ, members := "", []string(nil)
	if id, ok := sel.X.(*ast.Ident); ok && env.VarType != nil {
		typ, members, _ = env.VarType(id.Name)
	}
	if typ == "" {
		return fmt.Sprintf("%s.%s undefined (%s has no field or method %s)%s", x, name, x, name, didYouMean(name, members))
	}
	return fmt.Sprintf("%s.%s undefined (type %s has no field or method %s)%s", x, name, typ, name, didYouMean(name, members))
}

// didYouMean is "; did you mean Name?" for the candidate name most likely misspells, or "".
func didYouMean(name string, candidates []string) string {
	if near := text.Nearest(name, candidates); near != "" {
		return "; did you mean " + near + "?"
	}
	return ""
}
