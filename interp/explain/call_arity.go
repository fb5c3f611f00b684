package explain

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/internal/text"
)

// callArity: the interpreter's messages for a call with the wrong number of arguments or
// results say neither what the function expects nor, for a package's function, which one it
// is:
//
//	not enough arguments in call to diag.C2ST
//	too many arguments
//	assignment mismatch: 2 variables but  returns 1 values
//
// The explainer completes them from the cell's source and the function's documentation:
//
//	not enough arguments in call to diag.C2ST: have 1 argument; want func C2ST(x, y *mat.Dense, seed uint64) float64
//	assignment mismatch: 2 variables but diag.C2ST returns 1 value: func C2ST(x, y *mat.Dense, seed uint64) float64
var callArity = Explainer{
	Name: "call-arity",
	Upstream: "yaegi's messages for a call with the wrong number of arguments or results give no signature, " +
		"\"too many arguments\" names no function and \"assignment mismatch\" leaves a package function's name blank; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile {
			f.Msg = explainCall(env, f.Msg)
		}
	},
}

var (
	argCountRE   = regexp.MustCompile(`(not enough|too many) arguments in call to (\S*)`)
	tooManyRE    = regexp.MustCompile(`too many arguments$`)
	assignMissRE = regexp.MustCompile(`assignment mismatch: (\d+) variables? but +(\S*) *returns (\d+) values?`)
)

// explainCall completes msg from the call at its position: the interpreter's positions are the
// call (not enough arguments), its extra argument (too many) or the assignment (mismatch). A
// cell may call the same function elsewhere correctly, and name a function of the session for
// a variable of its own: only the call at the position is described, and the session's
// signature is not given for a name the cell defines.
func explainCall(env Env, msg string) string {
	at, hasPos := msgPos(msg)
	if m := argCountRE.FindStringSubmatchIndex(msg); m != nil {
		fn := msg[m[4]:m[5]]
		var call *ast.CallExpr
		if hasPos {
			call = callAt(env, fn, at)
		}
		if fn == "" {
			if call == nil {
				return msg
			}
			fn = types.ExprString(call.Fun)
		}
		extra := ""
		if sig := sessionSignature(env, fn); sig != "" {
			if call != nil && !multiValueArg(call) {
				extra = fmt.Sprintf(": have %s", text.Count(len(call.Args), "argument"))
			}
			extra += fmt.Sprintf("; want %s", sig)
		}
		return msg[:m[4]] + fn + extra + msg[m[5]:]
	}
	if m := tooManyRE.FindStringIndex(msg); m != nil {
		// the interpreter names no function here: find the call at the position with more
		// arguments than its function has parameters
		if call, sig := overfullCall(env, at, hasPos); call != nil {
			return msg[:m[1]] + fmt.Sprintf(" in call to %s: have %s; want %s", types.ExprString(call.Fun), text.Count(len(call.Args), "argument"), sig)
		}
		return msg
	}
	if m := assignMissRE.FindStringSubmatchIndex(msg); m != nil {
		nvars, _ := strconv.Atoi(msg[m[2]:m[3]])
		nres, _ := strconv.Atoi(msg[m[6]:m[7]])
		fn := msg[m[4]:m[5]]
		if fn == "" && hasPos {
			if call := assignedCall(env, nvars, at); call != nil {
				fn = types.ExprString(call.Fun)
			}
		}
		if fn == "" {
			fn = "the call"
		}
		mismatch := fmt.Sprintf("assignment mismatch: %s but %s returns %s", text.Count(nvars, "variable"), fn, text.Count(nres, "value"))
		if sig := sessionSignature(env, fn); sig != "" {
			mismatch += ": " + sig
		}
		return msg[:m[0]] + mismatch + msg[m[1]:]
	}
	return msg
}

func signature(env Env, fn string) string {
	if env.Signature == nil {
		return ""
	}
	return env.Signature(fn)
}

// sessionSignature is the signature of fn, or "" when the cell itself defines the name fn
// starts with (a variable, parameter or function literal of its own shadows the session's).
func sessionSignature(env Env, fn string) string {
	root, _, _ := strings.Cut(fn, ".")
	if definesLocally(env, root) {
		return ""
	}
	return signature(env, fn)
}

// definesLocally reports whether the cell declares name as a variable or parameter anywhere.
func definesLocally(env Env, name string) bool {
	found := false
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					for _, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Name == name {
							found = true
						}
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE && id.Name == name {
						found = true
					}
				}
			case *ast.ValueSpec:
				for _, id := range n.Names {
					found = found || id.Name == name
				}
			case *ast.Field:
				for _, id := range n.Names {
					found = found || id.Name == name
				}
			}
			return !found
		})
	}
	return found
}

// multiValueArg reports whether a call's only argument is a call, whose results may be
// several arguments.
func multiValueArg(call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	_, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
	return ok
}

// msgPos returns the interpreter's position at the start of msg ("_.go:1300002:5: …").
func msgPos(msg string) (token.Position, bool) {
	m := posRE.FindStringSubmatchIndex(msg)
	if m == nil || m[0] != 0 || m[4] < 0 {
		return token.Position{}, false
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	col, _ := strconv.Atoi(msg[m[4]:m[5]])
	return token.Position{Line: line, Column: col}, true
}

// covers reports whether the node of an item spans the position at.
func covers(it Item, n ast.Node, at token.Position) bool {
	start, end := it.Fset.Position(n.Pos()), it.Fset.Position(n.End())
	after := func(a, b token.Position) bool { return a.Line > b.Line || a.Line == b.Line && a.Column >= b.Column }
	return after(at, start) && after(end, at)
}

// callAt returns the innermost call of the cell that spans at and calls fn (any function when
// fn is "").
func callAt(env Env, fn string, at token.Position) *ast.CallExpr {
	var found *ast.CallExpr
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			if n == nil || !covers(it, n, at) {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok && (fn == "" || types.ExprString(call.Fun) == fn) {
				found = call
			}
			return true
		})
	}
	return found
}

// assignedCall returns the call that is the one value assigned to nvars variables by the
// assignment or variable declaration that starts at at.
func assignedCall(env Env, nvars int, at token.Position) *ast.CallExpr {
	var found *ast.CallExpr
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			if n == nil || found != nil || !covers(it, n, at) {
				return false
			}
			var lhs int
			var rhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs, rhs = len(n.Lhs), n.Rhs
			case *ast.ValueSpec:
				lhs, rhs = len(n.Names), n.Values
			default:
				return true
			}
			if call, ok := ast.Unparen(firstOf(rhs)).(*ast.CallExpr); ok && lhs == nvars && len(rhs) == 1 {
				found = call
			}
			return found == nil
		})
	}
	return found
}

func firstOf(es []ast.Expr) ast.Expr {
	if len(es) == 0 {
		return nil
	}
	return es[0]
}

// overfullCall returns the call of the cell that spans at (any call when hasPos is false)
// with more arguments than its function's signature has parameters (not variadic), and that
// signature.
func overfullCall(env Env, at token.Position, hasPos bool) (*ast.CallExpr, string) {
	var found *ast.CallExpr
	var sig string
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			if n == nil || found != nil || hasPos && !covers(it, n, at) {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fsig := sessionSignature(env, types.ExprString(call.Fun))
			if np, variadic := paramCount(fsig); np >= 0 && !variadic && len(call.Args) > np && call.Ellipsis == 0 {
				found, sig = call, fsig
			}
			return found == nil
		})
	}
	return found, sig
}

// paramCount returns the number of parameters of a declaration "func Name(…) …" or
// "func (r T) Name(…) …", and whether the last is variadic; -1 if sig does not parse.
func paramCount(sig string) (int, bool) {
	if sig == "" {
		return -1, false
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+sig, 0)
	if err != nil || len(f.Decls) != 1 {
		return -1, false
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok {
		return -1, false
	}
	n, variadic := 0, false
	for _, p := range fd.Type.Params.List {
		n += max(1, len(p.Names))
		_, variadic = p.Type.(*ast.Ellipsis)
	}
	return n, variadic
}
