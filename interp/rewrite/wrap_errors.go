package rewrite

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// wrapErrors works around the interpreter's handling of a value of a type declared in a cell
// that becomes an error: the interpreter hands it to compiled code in a wrapper that has the
// method Error and no other, is not comparable and hides the value's type (two cell types with
// the same fields look alike there). The compiled errors.Is then answers false where Go
// answers true (errors.Is(e, e) with e a cell's error, or an error whose Unwrap, Is or As
// method would find the target), errors.As with a pointer to a variable of a cell's type
// panics with a message about reflection, and errors.Unwrap returns nil for a value whose
// Unwrap method returns an error. The pass sends the calls of errors.Is, errors.As and
// errors.Unwrap to the session's helpers, which give the compiled answer where it is Go's and
// fail the cell with an explanation where it may not be:
//
//	errors.Is(err, ErrBad)
//
// runs as
//
//	_gosbiErrorsIs(true, err, ErrBad)
//
// whose first argument says whether the session's types have a method Unwrap, Is or As. A
// call of errors.As gets a second, the session's error types declared as another type than a
// struct or an interface, each with the type it is declared as ("Code int\nSub int", Sub being
// declared as Code): the interpreter knows a value of such a type as the type it is declared
// as, so the helper can explain a target of that type as a cell's type. A function value
// (f := errors.Is, g(errors.Unwrap)) becomes a function literal of the same type that calls
// the helper:
//
//	f := errors.Is
//
// runs as
//
//	f := func(err, target error) bool { return _gosbiErrorsIs(true, err, target) }
//
// The pass rewrites only when the session's types (or the cell's) have a method Error. The
// name errors must name the compiled package "errors" in the cell and not be shadowed where
// the call or the value stands.
//
// Upstream: no upstream issue found.
var wrapErrors = Pass{
	Name:  "wrap-errors",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.PackagePath == nil || env.ErrorMethods == nil {
			return u.Text, nil
		}
		errorType, chain := env.ErrorMethods()
		if !errorType {
			return u.Text, nil
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.wrapErrorsCall(env, chain) })
	},
}

// errorsFuncs are the functions of package errors that wrap-errors sends to the session's
// helpers, with the helpers' names.
var errorsFuncs = map[string]string{"Is": "_gosbiErrorsIs", "As": "_gosbiErrorsAs", "Unwrap": "_gosbiErrorsUnwrap"}

// wrapErrorsCall returns the unit's text with the first call of errors.Is, errors.As or
// errors.Unwrap sent to the session's helper, or the first use of one as a function value
// replaced by a function literal that calls the helper, and false when there is none.
func (p *parsed) wrapErrorsCall(env Env, chain bool) (string, bool) {
	var call *ast.CallExpr
	var value *ast.SelectorExpr
	var helper string
	ast.Inspect(p.root, func(n ast.Node) bool {
		if call != nil || value != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if name, ok := pkgFuncName(env, n, "errors"); ok && errorsFuncs[name] != "" {
				if len(n.Args) > 0 {
					call, helper = n, errorsFuncs[name]
				}
				return false // a call without arguments is left to the interpreter's error
			}
		case *ast.SelectorExpr:
			return !p.errorsValue(env, n, &value, &helper)
		}
		return true
	})
	args := strconv.FormatBool(chain) + ", "
	if helper == errorsFuncs["As"] {
		args += strconv.Quote(declaredErrorTypes(env)) + ", "
	}
	switch {
	case value != nil:
		return p.Text[:p.offset(value.Pos())] + p.position(value.Pos()) + errorsLiteral(helper, args) +
			p.position(value.End()) + p.Text[p.offset(value.End()):], true
	case call != nil:
		first := call.Args[0]
		return p.Text[:p.offset(call.Fun.Pos())] + p.position(call.Fun.Pos()) + helper + "(" + args +
			p.position(first.Pos()) + p.Text[p.offset(first.Pos()):], true
	}
	return "", false
}

// errorsValue reports whether sel is errors.Is, errors.As or errors.Unwrap of the compiled
// package errors, and then records it in value with its helper. The walk of wrapErrorsCall
// reaches a call before its function, so sel is not called here.
func (p *parsed) errorsValue(env Env, sel *ast.SelectorExpr, value **ast.SelectorExpr, helper *string) bool {
	name, ok := pkgSelName(env, sel, "errors")
	if !ok || errorsFuncs[name] == "" {
		return false
	}
	*value, *helper = sel, errorsFuncs[name]
	return true
}

// errorsLiteral returns the function literal that stands for a function value of package
// errors: of its type, calling the helper with the arguments args before the function's own.
func errorsLiteral(helper, args string) string {
	switch helper {
	case errorsFuncs["Is"]:
		return "func(err, target error) bool { return " + helper + "(" + args + "err, target) }"
	case errorsFuncs["As"]:
		return "func(err error, target any) bool { return " + helper + "(" + args + "err, target) }"
	}
	return "func(err error) error { return " + helper + "(" + args + "err) }"
}

// declaredErrorTypes returns the session's and the cell's types that declare a method Error and
// are declared as a named type, each with that type after the session's types it names are
// followed ("Code int"), one a line in the order of declaration.
func declaredErrorTypes(env Env) string {
	if env.types == nil || env.ErrorType == nil {
		return ""
	}
	tt := env.types()
	var lines []string
	for _, name := range tt.order {
		if !env.ErrorType(name) {
			continue
		}
		if decl := tt.declaredAs(name); decl != "" {
			lines = append(lines, name+" "+decl)
		}
	}
	return strings.Join(lines, "\n")
}

// declaredAs returns the named type that the session's type name is declared as, following the
// session's types it names, and "" for a type declared as a type literal (a struct, a slice),
// an alias or a cycle.
func (tt *typeTable) declaredAs(name string) string {
	seen := map[string]bool{}
	for !seen[name] {
		seen[name] = true
		ts := tt.specs[name]
		if ts == nil || ts.Assign.IsValid() || ts.TypeParams != nil {
			return ""
		}
		switch e := ts.Type.(type) {
		case *ast.Ident:
			if tt.specs[e.Name] == nil {
				return e.Name
			}
			name = e.Name
		case *ast.SelectorExpr:
			return types.ExprString(e)
		default:
			return ""
		}
	}
	return ""
}
