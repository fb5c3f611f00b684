package explain

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// panicSite: the interpreter reports the frame of a panic at the first node of its function
// (or of the cell's statements), not at the node that panicked (see callSite), so the line
// it names is wrong. The explainer finds the line from the source instead: the one line of
// the frame's code with expressions that can panic as the message says (an index for "index
// out of range", a slice expression for "slice bounds out of range", a division for "integer
// divide by zero", a call for a panic of the user's value). When there is not exactly one, the
// frame names the lines of its function, or only the cell.
var panicSite = Explainer{
	Name:     "panic-site",
	Upstream: "yaegi reports the frame of a panic at the first node of its function, not at the node that panicked; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile || len(f.Frames) == 0 || panicLocated(f.Msg) {
			return
		}
		f.Frames[0].At = panicPlace(env, f.Frames[0].Func, siteKind(f.Msg))
	},
}

// panicLocated reports whether msg names its own position, as the interpreter's own panics
// do ("_.go:1300002:5: interface conversion: …"): their frame is right.
func panicLocated(msg string) bool {
	m := posRE.FindStringIndex(msg)
	return m != nil && m[0] == 0
}

// siteKind is the kind of expression that panics with msg; nil when it is not known.
func siteKind(msg string) func(n ast.Node, lhs bool) bool {
	switch {
	case msg == "runtime error: index out of range":
		return func(n ast.Node, _ bool) bool { _, ok := n.(*ast.IndexExpr); return ok }
	// compiled code gives these two messages too: a call may be the site
	case msg == "assignment to entry in nil map":
		return func(n ast.Node, lhs bool) bool {
			switch n.(type) {
			case *ast.IndexExpr:
				return lhs
			case *ast.CallExpr:
				return true
			}
			return false
		}
	case msg == "runtime error: integer divide by zero":
		return func(n ast.Node, _ bool) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				return true
			case *ast.BinaryExpr:
				return n.Op == token.QUO || n.Op == token.REM
			case *ast.AssignStmt:
				return n.Tok == token.QUO_ASSIGN || n.Tok == token.REM_ASSIGN
			}
			return false
		}
	case msg == sliceBounds:
		return isSlice
	case msg == nilDeref:
		return func(n ast.Node, _ bool) bool {
			switch n := n.(type) {
			case *ast.StarExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.SliceExpr, *ast.CallExpr:
				return true
			case *ast.RangeStmt: // ranging with a value over a nil array pointer
				return n.Value != nil
			}
			return false
		}
	case strings.HasPrefix(msg, "runtime error") || strings.HasPrefix(msg, "reflect") || strings.Contains(msg, "interface conversion") ||
		msg == "send on closed channel": // a send, not a call
		return nil // the interpreter's or Go's own panic of a kind not told apart here
	}
	// a panic of the user's value: a call of panic, or of a function that panics
	return func(n ast.Node, _ bool) bool { _, ok := n.(*ast.CallExpr); return ok }
}

// panicPlace is the position, as shown, of the one expression of kind in the code of frame
// fn: a function or method of the session, or "main" for the cell's own code.
func panicPlace(env Env, fn string, kind func(ast.Node, bool) bool) string {
	if fn == "main" {
		if l, ok := oneLine(cellSites(env, kind)); ok {
			return place(env, env.Cell, l)
		}
		return cellPlace(env)
	}
	src, ok := frameSource(env, fn)
	if !ok {
		return cellPlace(env)
	}
	if l, ok := oneLine(siteLines(src.Text, false, kind)); ok {
		return place(env, src.Cell, src.Line+l-1)
	}
	last := src.Line + strings.Count(strings.TrimRight(src.Text, "\n"), "\n")
	if env.File != "" {
		return env.File + ":" + strconv.Itoa(src.Line) + "-" + strconv.Itoa(last)
	}
	return "cell [" + strconv.Itoa(src.Cell) + "] lines " + strconv.Itoa(src.Line) + "-" + strconv.Itoa(last)
}

// hasSite reports whether the code of frame fn, as panicPlace reads it, holds an expression
// of kind.
func hasSite(env Env, fn string, kind func(ast.Node, bool) bool) bool {
	if fn == "main" {
		return len(cellSites(env, kind)) > 0
	}
	src, ok := frameSource(env, fn)
	return ok && len(siteLines(src.Text, false, kind)) > 0
}

// cellSites returns the cell's lines of the expressions of kind in the cell's own code: its
// statements and the values of its declarations, not its functions.
func cellSites(env Env, kind func(ast.Node, bool) bool) []int {
	var lines []int
	for _, it := range env.Items {
		if _, ok := it.Node.(*ast.FuncDecl); ok {
			continue
		}
		for _, l := range siteLines(it.Text, it.Stmt, kind) {
			lines = append(lines, it.Line+l-1)
		}
	}
	return lines
}

// frameSource returns the declaration of the function of frame fn; a function literal's
// frame ("func") has none.
func frameSource(env Env, fn string) (Source, bool) {
	if env.Source == nil || fn == "func" {
		return Source{}, false
	}
	return env.Source(fn)
}

// oneLine returns the line of lines when they are all one.
func oneLine(lines []int) (int, bool) {
	if len(lines) == 0 {
		return 0, false
	}
	for _, l := range lines {
		if l != lines[0] {
			return 0, false
		}
	}
	return lines[0], true
}

// cellPlace names the failed cell without a line.
func cellPlace(env Env) string {
	if env.File != "" {
		return env.File
	}
	return "cell [" + strconv.Itoa(env.Cell) + "]"
}

// siteLines returns the lines (1 for the first line of text) of the expressions of kind in
// text, a declaration or, when stmt is set, a statement; nil when kind is nil. Function
// literals run in frames of their own, and types do not run: neither is searched.
func siteLines(text string, stmt bool, kind func(ast.Node, bool) bool) []int {
	if kind == nil {
		return nil
	}
	fset, f, skip, ok := parseSnippet(text, stmt)
	if !ok {
		return nil
	}
	lhs := map[ast.Node]bool{}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.FuncType, *ast.TypeSpec, *ast.FieldList: // a receiver's *T is no dereference
			return false
		case *ast.ValueSpec:
			for _, v := range n.Values {
				ast.Inspect(v, func(m ast.Node) bool { return visitSite(fset, m, lhs, kind, skip, &lines) })
			}
			return false
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				lhs[ast.Unparen(e)] = true
			}
		case *ast.IncDecStmt:
			lhs[ast.Unparen(n.X)] = true
		}
		return visitSite(fset, n, lhs, kind, skip, &lines)
	})
	return lines
}

// visitSite adds the line of n to lines when n is of kind.
func visitSite(fset *token.FileSet, n ast.Node, lhs map[ast.Node]bool, kind func(ast.Node, bool) bool, skip int, lines *[]int) bool {
	if _, ok := n.(*ast.FuncLit); ok {
		return false
	}
	if c, ok := n.(*ast.CallExpr); ok {
		if _, ok := c.Fun.(*ast.FuncLit); ok {
			return true // a function literal called at once: its body runs in a frame of its own
		}
	}
	if n != nil && kind(n, lhs[n]) {
		*lines = append(*lines, fset.Position(n.Pos()).Line-skip)
	}
	return true
}
