package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/interp/rewrite"
)

// The interpreter reports each frame of a panic at the first statement of its function
// instead of at the statement that was running (its runCfg reads a variable that a loop
// shadows), so a caller frame would name the wrong line. callSite finds the line from the
// source instead: the call of the callee in the caller's body, when there is only one.

// callSite returns the position, as the session shows it, of the only call of callee in the
// body of caller: a function or method of the session, or "main" for the cell that runs.
func (s *Session) callSite(caller, callee string) (string, bool) {
	callee = callee[strings.LastIndexByte(callee, '.')+1:]
	if callee == "" || callee == "func" {
		return "", false
	}
	type source struct {
		text       string
		cell, line int
		stmt       bool
	}
	var srcs []source
	switch caller {
	case "main":
		for _, it := range s.items {
			srcs = append(srcs, source{it.text, s.cell, it.line, it.kind == stmtItem})
		}
	case "func":
		return "", false
	default:
		d := s.decls[caller]
		if caller == rewrite.MainName {
			d = s.decls["main"]
		}
		if d == nil {
			// a method: its frame names it without the type
			for name, m := range s.decls {
				if m.kind == methodDecl && strings.HasSuffix(name, "."+caller) {
					if d != nil {
						return "", false
					}
					d = m
				}
			}
		}
		if d == nil || (d.kind != funcDecl && d.kind != methodDecl) {
			return "", false
		}
		srcs = append(srcs, source{d.text, d.cell, d.line, false})
	}
	found := ""
	for _, src := range srcs {
		for _, line := range callLines(src.text, callee, src.stmt) {
			at := s.place(src.cell, src.line+line-1)
			if found != "" && found != at {
				return "", false
			}
			found = at
		}
	}
	return found, found != ""
}

// callLines returns the lines (1 for the first line of text) of the calls of callee in text,
// a declaration or, when stmt is set, a statement; calls inside function literals are not
// counted, as they run in frames of their own.
func callLines(text, callee string, stmt bool) []int {
	prefix := "package p\n"
	if stmt {
		prefix += "func _() {\n"
	}
	src := prefix + text
	if stmt {
		src += "\n}"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return nil
	}
	skip := strings.Count(prefix, "\n")
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			name := ""
			switch fun := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				name = fun.Name
			case *ast.SelectorExpr:
				name = fun.Sel.Name
			}
			if name == callee {
				lines = append(lines, fset.Position(n.Pos()).Line-skip)
			}
		}
		return true
	})
	return lines
}

// place formats line of cell as the session shows positions.
func (s *Session) place(cell, line int) string {
	if s.fileName != "" {
		return s.fileName + ":" + strconv.Itoa(line)
	}
	return "cell [" + strconv.Itoa(cell) + "] line " + strconv.Itoa(line)
}
