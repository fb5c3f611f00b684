package explain

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
)

// methodValue: the interpreter types a method value taken from an interface value (d.LogProb
// with d a dist.Distribution) as a function without the method's parameters, so assigning or
// passing it fails with a signature mismatch that names neither. The explainer gives the
// likely cause and the function literal that works, where the cell takes a method value or
// uses a variable of the session whose definition took one; any other mismatch of function
// types (var f func(float64) float64 = math.Max) is the cell's own.
var methodValue = Explainer{
	Name:     "method-value",
	Upstream: "yaegi gives a method value of an interface value the wrong function type (\"func(int) int is not assignable to type func() int\"); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if funcMismatchRE.MatchString(f.Msg) && usesMethodValue(env) {
			f.Note += methodValueNote
		}
	},
}

// funcMismatchRE matches the interpreter's messages for a function value of one signature
// used as another, at compile time and at run time.
var funcMismatchRE = regexp.MustCompile(`(?:cannot use type func\(.*as type func\(|value of type func\(.*is not assignable to type func\()`)

const methodValueNote = " (if this is a method value of an interface value, such as d.LogProb with d a dist.Distribution, " +
	"the interpreter gets its type wrong: use a function literal, e.g. func(x *mat.Dense) []float64 { return d.LogProb(x) })"

// usesMethodValue reports whether the cell takes a method value (x.M not called, x not a
// package), or uses a variable of the session whose definition took one.
func usesMethodValue(env Env) bool {
	for _, it := range env.Items {
		if takesMethodValue(env, it.Node) {
			return true
		}
	}
	if env.VarSource == nil {
		return false
	}
	seen := map[string]bool{}
	for _, it := range env.Items {
		found := false
		ast.Inspect(it.Node, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if found || !ok || seen[id.Name] {
				return !found
			}
			seen[id.Name] = true
			if src := env.VarSource(id.Name); src != "" {
				f, err := parser.ParseFile(token.NewFileSet(), "", "package p; func _() {\n"+src+"\n}", 0)
				found = err == nil && takesMethodValue(env, f)
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// takesMethodValue reports whether n has a selector x.M that is not called, where x is not a
// package of the session.
func takesMethodValue(env Env, n ast.Node) bool {
	found := false
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, visit)
			} else {
				ast.Inspect(n.Fun, visit)
			}
			for _, a := range n.Args {
				ast.Inspect(a, visit)
			}
			return false
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && env.Package != nil && env.Package(id.Name) {
				return false
			}
			found = true
			return false
		}
		return true
	}
	ast.Inspect(n, visit)
	return found
}
