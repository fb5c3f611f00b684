package explain

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// closureFrame: the interpreter names a panic's frame after the function of the first node it
// runs, at that node's position. A function literal's frame is named "func" ("h.func" for one
// inside h), which the session's declarations cannot give the code of; a function whose first
// node is a literal (g := func() {…} as its first statement) gets the literal's name; and the
// statements that the session runs inside literals of its own (see the rewrite package's
// func-scope and comma-ok) get a frame "func" of their own, called by the cell's. The
// explainer finds the code of each frame named so from its position, in the source of the
// failed cell or of the session (Env.SourceAt), and names the frame as Go would:
//   - a position at a literal's "func" is the first node of the code around the literal: the
//     frame is that code's (the function's name, T.M for a method, or the cell's "main");
//   - a position inside a literal's body is the frame of that literal, whose code is then
//     searched by panic-site, call-site and reflect-slice;
//   - a position in a top-level statement of the cell, in no literal of the user's, is a
//     literal of the session around that statement when the next frame is the cell's own and
//     the outermost: the two are one frame of the cell, at that statement;
//   - elsewhere (a function's first node inserted by the session) the frame is the function's.
//
// A frame whose position lies in no source stays as the interpreter named it, without a line.
var closureFrame = Explainer{
	Name:     "closure-frame",
	Upstream: "yaegi names a frame after the function of its first node (\"main.func\" for a function literal's, and for a function whose first statement defines one); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile {
			return
		}
		f.Frames = resolveFrames(env, f.Frames)
	},
}

// frameCode is the code of a frame that the interpreter names after a function literal.
type frameCode struct {
	fset *token.FileSet // positions in the interpreter's lines
	node ast.Node       // the code searched: a literal's body, or one statement of the cell
	span ast.Node       // the lines named when no one line is: the literal, or the statement
	it   Item           // the source holding it
}

// isClosureName reports whether fn is the interpreter's name of a function literal's frame.
func isClosureName(fn string) bool {
	return fn == "func" || strings.HasSuffix(fn, ".func")
}

// resolveFrames returns frames with those named after function literals resolved (see
// closureFrame).
func resolveFrames(env Env, frames []Frame) []Frame {
	var res []Frame
	for i := 0; i < len(frames); i++ {
		fr := frames[i]
		if !isClosureName(fr.Func) || fr.code != nil {
			res = append(res, fr)
			continue
		}
		it, fset, root, ok := codeAt(env, fr.Line, fr.Col)
		if !ok {
			res = append(res, fr)
			continue
		}
		p := position{fr.Line, fr.Col}
		lit, depth, atLit := literalAt(fset, root, p)
		name := ""
		if d, ok := root.(*ast.FuncDecl); ok {
			name = funcName(d)
		}
		switch {
		case lit != nil:
			fr.Func = strings.TrimPrefix(name+strings.Repeat(".func", depth), ".")
			fr.code = &frameCode{fset: fset, node: lit.Body, span: lit, it: it}
		case name != "":
			fr.Func = name
		case it.Base != currentBase(env):
			// the cell's own code of an earlier cell cannot be running: unknown
		case i == len(frames)-1:
			// the outermost frame is the cell's own
			fr.Func = "main"
		case !atLit && i == len(frames)-2 && (frames[i+1].Func == "main" || isClosureName(frames[i+1].Func)):
			// a literal of the session around a top-level statement, called by the cell
			fr.Func = "main"
			fr.code = &frameCode{fset: fset, node: root, span: root, it: it}
			i++
		}
		res = append(res, fr)
	}
	return res
}

// funcName is the name the session gives the function or method d: "f", or "T.M".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	return RecvTypeName(d.Recv.List[0].Type) + "." + d.Name.Name
}

// RecvTypeName is the name of the type of a method's receiver e ("T" for *T and for T[P]), or
// "" when e names no type.
func RecvTypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return RecvTypeName(e.X)
	case *ast.IndexExpr:
		return RecvTypeName(e.X)
	case *ast.IndexListExpr:
		return RecvTypeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// position is an interpreter's position, its line and column.
type position struct{ line, col int }

func (p position) before(q position) bool {
	return p.line < q.line || p.line == q.line && p.col < q.col
}

// posOf is the interpreter's position of pos in fset.
func posOf(fset *token.FileSet, pos token.Pos) position {
	q := fset.Position(pos)
	return position{q.Line, q.Column}
}

// holds reports whether the source of n holds p.
func holds(fset *token.FileSet, n ast.Node, p position) bool {
	return !p.before(posOf(fset, n.Pos())) && p.before(posOf(fset, n.End()))
}

// literalAt returns the innermost function literal of root whose body holds p, the number of
// literals whose bodies hold p, and whether p is the position of a literal's "func" (that
// literal lies in the code of the one returned, or of root when none is).
func literalAt(fset *token.FileSet, root ast.Node, p position) (lit *ast.FuncLit, depth int, atLit bool) {
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil || atLit || !holds(fset, n, p) {
			return false
		}
		if l, ok := n.(*ast.FuncLit); ok {
			if posOf(fset, l.Pos()) == p {
				atLit = true
				return false
			}
			if holds(fset, l.Body, p) {
				lit = l
				depth++
			}
		}
		return true
	})
	return lit, depth, atLit
}

// currentBase is the interpreter's line of line 0 of the failed cell, or -1 when unknown.
func currentBase(env Env) int {
	for _, it := range env.Items {
		if it.Base > 0 {
			return it.Base
		}
	}
	return -1
}

// codeAt returns the source that holds the interpreter's position (line, col), with its tree
// in the interpreter's positions: an item of the failed cell (its Node), or a declaration of
// the session (parsed from its Text).
func codeAt(env Env, line, col int) (Item, *token.FileSet, ast.Node, bool) {
	p := position{line, col}
	for _, it := range env.Items {
		if it.Node != nil && it.Fset != nil && it.Base > 0 && holds(it.Fset, it.Node, p) {
			return it, it.Fset, it.Node, true
		}
	}
	if env.SourceAt == nil {
		return Item{}, nil, nil, false
	}
	it, ok := env.SourceAt(line)
	if !ok {
		return Item{}, nil, nil, false
	}
	if fset, n, ok := parseItem(it); ok && holds(fset, n, p) {
		return it, fset, n, true
	}
	return Item{}, nil, nil, false
}

// parseItem parses the source of it, a declaration of the session that Env.SourceAt gives
// without a tree, in the interpreter's positions; ok is false when its positions are not
// known (Base is 0) or it does not parse.
func parseItem(it Item) (*token.FileSet, ast.Node, bool) {
	if it.Base <= 0 {
		return nil, nil, false
	}
	col := max(it.Col, 1)
	dir := fmt.Sprintf("\n//line _.go:%d:%d\n", it.Base+it.Line, col)
	prefix, suffix := "package p;"+dir, ""
	if it.Stmt {
		prefix, suffix = "package p; func _() {"+dir, "\n}"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+it.Text+suffix, 0)
	if err != nil || len(f.Decls) == 0 {
		return nil, nil, false
	}
	last := f.Decls[len(f.Decls)-1]
	if !it.Stmt {
		return fset, last, true
	}
	body := last.(*ast.FuncDecl).Body.List
	if len(body) != 1 {
		return nil, nil, false
	}
	return fset, body[0], true
}

// codeSites returns the interpreter's lines of the expressions of kind in the code of c, not
// in the function literals inside it.
func codeSites(c *frameCode, kind func(ast.Node, bool) bool) []int {
	if kind == nil {
		return nil
	}
	return nodeSites(c.fset, c.node, kind, 0)
}

// codePlace is the position, as shown, of the one line of c's code with an expression of
// kind; when there is not one, c's lines.
func codePlace(env Env, c *frameCode, kind func(ast.Node, bool) bool) string {
	cell := c.it.Cell
	if l, ok := oneLine(codeSites(c, kind)); ok {
		return place(env, cell, l-c.it.Base)
	}
	first, last := posOf(c.fset, c.span.Pos()).line, posOf(c.fset, c.span.End()).line
	return linesPlace(env, cell, first-c.it.Base, last-c.it.Base)
}
