package explain

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
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
	argCountRE   = regexp.MustCompile(`(not enough|too many) arguments in call to (\S+)`)
	tooManyRE    = regexp.MustCompile(`too many arguments$`)
	assignMissRE = regexp.MustCompile(`assignment mismatch: (\d+) variables? but +(\S*) *returns (\d+) values?`)
)

func explainCall(env Env, msg string) string {
	if m := argCountRE.FindStringSubmatchIndex(msg); m != nil {
		fn := msg[m[4]:m[5]]
		extra := ""
		if sig := signature(env, fn); sig != "" {
			if call := findCall(env, fn, -1); call != nil {
				extra = fmt.Sprintf(": have %s", plural(len(call.Args), "argument"))
			}
			extra += fmt.Sprintf("; want %s", sig)
		}
		return msg[:m[1]] + extra + msg[m[1]:]
	}
	if m := tooManyRE.FindStringIndex(msg); m != nil {
		// the interpreter names no function here: find a call with more arguments than its
		// function has parameters
		if call, sig := overfullCall(env); call != nil {
			return msg[:m[1]] + fmt.Sprintf(" in call to %s: have %s; want %s", types.ExprString(call.Fun), plural(len(call.Args), "argument"), sig)
		}
		return msg
	}
	if m := assignMissRE.FindStringSubmatchIndex(msg); m != nil {
		nvars, _ := strconv.Atoi(msg[m[2]:m[3]])
		nres, _ := strconv.Atoi(msg[m[6]:m[7]])
		fn := msg[m[4]:m[5]]
		if call := findCall(env, fn, nvars); call != nil && fn == "" {
			fn = types.ExprString(call.Fun)
		}
		if fn == "" {
			fn = "the call"
		}
		text := fmt.Sprintf("assignment mismatch: %s but %s returns %s", plural(nvars, "variable"), fn, plural(nres, "value"))
		if sig := signature(env, fn); sig != "" {
			text += ": " + sig
		}
		return msg[:m[0]] + text + msg[m[1]:]
	}
	return msg
}

func signature(env Env, fn string) string {
	if env.Signature == nil {
		return ""
	}
	return env.Signature(fn)
}

// findCall returns the first call of fn in the cell (any function when fn is ""); with
// nvars ≥ 0, only a call that is the one value assigned to nvars variables.
func findCall(env Env, fn string, nvars int) *ast.CallExpr {
	var found *ast.CallExpr
	match := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if ok && (fn == "" || types.ExprString(call.Fun) == fn) {
			found = call
		}
		return found != nil
	}
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			switch n := n.(type) {
			case *ast.AssignStmt:
				if nvars >= 0 && len(n.Lhs) == nvars && len(n.Rhs) == 1 {
					match(n.Rhs[0])
				}
			case *ast.ValueSpec:
				if nvars >= 0 && len(n.Names) == nvars && len(n.Values) == 1 {
					match(n.Values[0])
				}
			case *ast.CallExpr:
				if nvars < 0 {
					match(n)
				}
			}
			return found == nil
		})
	}
	return found
}

// overfullCall returns the first call of the cell with more arguments than its function's
// signature has parameters (not variadic), and that signature.
func overfullCall(env Env) (*ast.CallExpr, string) {
	var found *ast.CallExpr
	var sig string
	for _, it := range env.Items {
		ast.Inspect(it.Node, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if found != nil || !ok {
				return found == nil
			}
			fsig := signature(env, types.ExprString(call.Fun))
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
