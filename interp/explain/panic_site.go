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
		f.Frames[0].At = panicPlace(env, f.Frames[0], siteKind(f.Msg))
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
				return callOut(n)
			}
			return false
		}
	case msg == "runtime error: integer divide by zero":
		return func(n ast.Node, _ bool) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				return callOut(n)
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
			case *ast.StarExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.SliceExpr:
				return true
			case *ast.CallExpr:
				return callOut(n)
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
	return func(n ast.Node, _ bool) bool { return callOut(n) }
}

// callOut reports whether n is a call of a function other than a literal called at once,
// whose body runs in a frame of its own: a panic in the frame of n may come from such a call.
func callOut(n ast.Node) bool {
	c, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	_, lit := c.Fun.(*ast.FuncLit)
	return !lit
}

// panicPlace is the position, as shown, of the one expression of kind in the code of frame
// fr: a function or method of the session, "main" for the cell's own code, or the code of a
// function literal that closure-frame found. Without one, it names the lines of that code, or
// only the cell.
func panicPlace(env Env, fr Frame, kind func(ast.Node, bool) bool) string {
	if fr.code != nil {
		return codePlace(env, fr.code, kind)
	}
	if fr.Func == "main" {
		if l, ok := oneLine(cellSites(env, kind)); ok {
			return place(env, env.Cell, l)
		}
		return cellPlace(env)
	}
	src, ok := frameSource(env, fr.Func)
	if !ok {
		return cellPlace(env)
	}
	if l, ok := oneLine(siteLines(src.Text, false, kind)); ok {
		return place(env, src.Cell, src.Line+l-1)
	}
	last := src.Line + strings.Count(strings.TrimRight(src.Text, "\n"), "\n")
	return linesPlace(env, src.Cell, src.Line, last)
}

// linesPlace formats the lines first to last of a cell as positions are shown: one line when
// first is last.
func linesPlace(env Env, cell, first, last int) string {
	if first == last {
		return place(env, cell, first)
	}
	if env.File != "" {
		return env.File + ":" + strconv.Itoa(first) + "-" + strconv.Itoa(last)
	}
	return "cell [" + strconv.Itoa(cell) + "] lines " + strconv.Itoa(first) + "-" + strconv.Itoa(last)
}

// hasSite reports whether the code of frame fr, as panicPlace reads it, holds an expression
// of kind.
func hasSite(env Env, fr Frame, kind func(ast.Node, bool) bool) bool {
	if fr.code != nil {
		return len(codeSites(fr.code, kind)) > 0
	}
	if fr.Func == "main" {
		return len(cellSites(env, kind)) > 0
	}
	src, ok := frameSource(env, fr.Func)
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
	if env.Source == nil || isClosureName(fn) {
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
	return nodeSites(fset, f, kind, skip)
}

// nodeSites returns the lines in fset, less skip, of the expressions of kind in root, not in
// the function literals inside it.
func nodeSites(fset *token.FileSet, root ast.Node, kind func(ast.Node, bool) bool, skip int) []int {
	lhs := map[ast.Node]bool{}
	var lines []int
	ast.Inspect(root, func(n ast.Node) bool {
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
	if n != nil && kind(n, lhs[n]) {
		*lines = append(*lines, fset.Position(n.Pos()).Line-skip)
	}
	return true
}
