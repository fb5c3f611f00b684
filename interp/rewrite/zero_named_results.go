package rewrite

import (
	"fmt"
	"go/ast"
	"sort"
	"strings"
)

// zeroNamedResults works around the interpreter's reuse of a function's frame between calls
// made in a loop: a function with two or more named results, called from a loop, starts the
// second and later calls with the values its named results had when the previous call
// returned, where Go starts every call with them at zero. A result accumulated in place
// ("g += x") then sums over the calls:
//
//	func gain(x float64) (g, se float64) { g += x; return g, 0 }
//	for _, x := range []float64{1, 2, 3} { g, _ := gain(x); fmt.Println(g) }   // 1 3 6, Go: 1 2 3
//
// Every function declaration and function literal with named results gets an assignment of
// their zero values as its first statement, which changes nothing in Go:
//
//	func gain(x float64) (g, se float64) { g, se = func() (_gosbi_z1 float64, _gosbi_z2 float64) { return }(); …
//
// The zero values come from a function literal's results, not from *new(T): the name new may
// be a result, a parameter or a variable ("func update(x float64) (old, new float64)").
//
// The text after the inserted assignment keeps its column by a position comment.
//
// Upstream: no upstream issue found.
var zeroNamedResults = Pass{
	Name:  "zero-named-results",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		p, err := parse(u)
		if err != nil || !strings.Contains(u.Text, "func") {
			return u.Text, nil
		}
		type insertion struct {
			at   int
			text string
		}
		var ins []insertion
		ast.Inspect(p.root, func(n ast.Node) bool {
			var typ *ast.FuncType
			var body *ast.BlockStmt
			switch f := n.(type) {
			case *ast.FuncDecl:
				typ, body = f.Type, f.Body
			case *ast.FuncLit:
				typ, body = f.Type, f.Body
			default:
				return true
			}
			if body == nil {
				return true
			}
			if zero := zeroResults(p, typ); zero != "" {
				ins = append(ins, insertion{p.offset(body.Lbrace) + 1, " " + zero + "; " + p.position(body.Lbrace+1)})
			}
			return true
		})
		if len(ins) == 0 {
			return u.Text, nil
		}
		sort.Slice(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
		text := u.Text
		for _, in := range ins {
			text = text[:in.at] + in.text + text[in.at:]
		}
		return text, nil
	},
}

// zeroResults returns the assignment of the zero value to every named result of a function
// type that has at least two ("g, se = func() (_gosbi_z1 float64, _gosbi_z2 float64) {
// return }()"), or "" for none.
func zeroResults(p *parsed, typ *ast.FuncType) string {
	if typ.Results == nil {
		return ""
	}
	var names, zeros []string
	count := 0
	for _, field := range typ.Results.List {
		for _, id := range field.Names {
			count++
			if id.Name == "_" {
				continue
			}
			names = append(names, id.Name)
			zeros = append(zeros, fmt.Sprintf("%s%d %s", zeroPrefix, len(zeros)+1, p.src(field.Type)))
		}
	}
	if count < 2 || len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ") + " = func() (" + strings.Join(zeros, ", ") + ") { return }()"
}

// zeroPrefix starts the names of the results of the function literal of zero-named-results.
const zeroPrefix = "_gosbi_z"
