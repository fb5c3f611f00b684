package interp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// itemKind classifies a top-level item of a cell.
type itemKind int

const (
	importItem itemKind = iota
	declItem            // func, method, type, var or const declaration
	stmtItem            // a statement (including a trailing expression)
)

// item is one top-level import, declaration or statement of a cell.
type item struct {
	kind       itemKind
	start, end int    // byte offsets in the cell source; start includes a leading doc comment
	line, col  int    // position of start in the cell (1-based)
	text       string // source[start:end], as the rewrites leave it
	src        string // source[start:end], as written
	fset       *token.FileSet
	base       int // offset of text in the file of fset
	decl       ast.Decl
	stmt       ast.Stmt
}

// cellError is an error located in a cell: "cell [3] line 2:5: undefined: foo".
type cellError struct {
	cell, line, col int
	msg             string
}

// Error gives the position in the interpreter's form "_.go:1300002:5: " (see cellLines); the
// session rewrites it for the user.
func (e *cellError) Error() string {
	if e.col == 0 {
		return fmt.Sprintf("_.go:%d: %s", lineBase(e.cell)+e.line, e.msg)
	}
	return fmt.Sprintf("_.go:%d:%d: %s", lineBase(e.cell)+e.line, e.col, e.msg)
}

// cellLines encodes a cell number in line numbers: line (slot+10)*cellLines+l of the
// interpreter's source "_.go" is line l of the cell in that slot (the offset keeps every such
// number at seven digits or more, which is how the session recognizes them in messages). The
// interpreter scopes imports by file name, so positions must keep its file name. Go's scanner
// accepts line numbers up to 1<<30, which leaves room for cellSlots slots: cell n uses slot n
// mod cellSlots, and a position names the latest cell of its slot (see Session.where), so a
// session runs any number of cells.
const (
	cellLines = 100000
	cellSlots = 1<<30/cellLines - 10
)

// lineBase is the interpreter's line number of line 0 of cell.
func lineBase(cell int) int {
	slot := (cell%cellSlots + cellSlots) % cellSlots
	return (slot + 10) * cellLines
}

// cellOfSlot returns the latest cell up to current whose slot is slot.
func cellOfSlot(slot, current int) int {
	return current - ((current-slot)%cellSlots+cellSlots)%cellSlots
}

// slotCell is the last cell run in a slot of line numbers (see cellLines) and its number of
// lines.
type slotCell struct{ cell, lines int }

// lineDirective makes positions of the following source read as the cell's own lines.
func lineDirective(cell, line, col int) string {
	return fmt.Sprintf("\n//line _.go:%d:%d\n", lineBase(cell)+line, col)
}

// splitCell cuts a cell into top-level items with go/scanner and parses each with go/parser.
// Items are separated by semicolons (explicit or at line ends) outside brackets.
func splitCell(src string, cell int) ([]item, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, scanner.ScanComments)

	var items []item
	var toks []tok
	depth := 0
	commentStart := -1
	flush := func(end int) {
		if len(toks) == 0 {
			return
		}
		start := toks[0].off
		kind := classify(toks)
		if commentStart >= 0 && kind != stmtItem {
			start = commentStart // a declaration keeps its doc comment
		}
		items = append(items, item{kind: kind, start: start, end: end})
		toks = toks[:0]
		commentStart = -1
	}
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			flush(len(src))
			break
		}
		off := file.Offset(pos)
		switch t {
		case token.COMMENT:
			if len(toks) == 0 && commentStart < 0 {
				commentStart = off
			}
			continue
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.SEMICOLON:
			// the semicolons of "for i := 0; i < n; i++ {" and "if x := f(); x {" do not end it
			if depth <= 0 && !inHeader(toks) {
				end := off
				if lit == "\n" || off >= len(src) {
					end = min(off, len(src))
				}
				flush(end)
				continue
			}
		}
		if len(toks) == 0 && commentStart >= 0 && strings.Count(src[commentStart:off], "\n\n") > 0 {
			commentStart = -1 // a comment separated by a blank line is not a doc comment
		}
		toks = append(toks, tok{off, t, lit})
	}
	if len(errs) > 0 {
		e := errs[0]
		return nil, &cellError{cell, e.Pos.Line, e.Pos.Column, e.Msg}
	}
	for i := range items {
		it := &items[i]
		it.text = src[it.start:it.end]
		it.src = it.text
		it.line = 1 + strings.Count(src[:it.start], "\n")
		it.col = it.start - strings.LastIndexByte(src[:it.start], '\n')
		if err := it.parse(cell, follower(src, it.end)); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// inHeader reports whether a semicolon after toks belongs to the header of a for, if, switch
// or select statement: the last such keyword at bracket depth 0 (the statement's own, after
// its labels, or the if of an "else if") has not yet opened its block with a "{".
func inHeader(toks []tok) bool {
	depth := 0
	header := false
	for _, t := range toks {
		switch t.t {
		case token.FOR, token.IF, token.SWITCH, token.SELECT:
			header = header || depth == 0
		case token.LBRACE:
			header = header && depth != 0
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
	}
	return header
}

type tok struct {
	off int
	t   token.Token
	lit string
}

func classify(toks []tok) itemKind {
	switch toks[0].t {
	case token.IMPORT:
		return importItem
	case token.TYPE, token.VAR, token.CONST:
		return declItem
	case token.FUNC:
		if len(toks) > 1 && toks[1].t == token.IDENT {
			return declItem
		}
		// func (recv) Name(…) is a method; func(…) … { … } is a function literal.
		depth := 0
		for i := 1; i < len(toks); i++ {
			switch toks[i].t {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
				if depth == 0 {
					if i+1 < len(toks) && toks[i+1].t == token.IDENT {
						return declItem
					}
					return stmtItem
				}
			}
		}
	}
	return stmtItem
}

// follower names the token that follows an item ending at offset end of the cell src, as
// Go's parser names it in its messages: "'EOF'" at the end of the cell, "';'" at an explicit
// semicolon, else "newline".
func follower(src string, end int) string {
	switch {
	case end >= len(src):
		return "'EOF'"
	case src[end] == ';':
		return "';'"
	}
	return "newline"
}

// parse fills the item's AST; syntax errors are reported at the cell's own positions. next is
// what follows the item in the cell (see follower): a statement is parsed inside a function
// whose closing brace the user did not write, so an error found at that brace is reported as
// found at next, at the position right after the item.
func (it *item) parse(cell int, next string) error {
	fset := token.NewFileSet()
	dir := lineDirective(cell, it.line, it.col)
	prefix, suffix := "package p;"+dir, ""
	if it.kind == stmtItem {
		prefix, suffix = "package p; func _() {"+dir, "\n}"
	}
	src := prefix + it.text + suffix
	it.fset, it.base = fset, len(prefix)
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
			line, col, msg := el[0].Pos.Line-lineBase(cell), el[0].Pos.Column, el[0].Msg
			if el[0].Pos.Offset >= it.base+len(it.text) { // in the wrapper, after the item
				line, col = it.after()
				if el[0].Pos.Offset == len(prefix+it.text+strings.TrimSuffix(suffix, "}")) {
					msg = foundNext(msg, next)
				}
			}
			return &cellError{cell, line, col, msg}
		}
		return &cellError{cell, it.line, 0, err.Error()}
	}
	if it.kind == stmtItem {
		body := f.Decls[0].(*ast.FuncDecl).Body.List
		if len(body) > 0 {
			it.stmt = body[len(body)-1]
		}
		return nil
	}
	if len(f.Decls) > 0 {
		it.decl = f.Decls[len(f.Decls)-1]
	}
	return nil
}

// foundNext rewrites the parser's message for the end of an item's source, the end of the
// file or the closing brace of the wrapper ("expected operand, found '}'"), as found next.
func foundNext(msg, next string) string {
	for _, end := range []string{"found '}'", "found 'EOF'"} {
		if m, ok := strings.CutSuffix(msg, end); ok {
			return m + "found " + next
		}
	}
	return msg
}

// after returns the cell's line and column right after the item's text.
func (it *item) after() (line, col int) {
	nl := strings.LastIndexByte(it.text, '\n')
	if nl < 0 {
		return it.line, it.col + len(it.text)
	}
	return it.line + strings.Count(it.text, "\n"), len(it.text) - nl
}

// isLine reports whether encoded, a line of the interpreter's source in the form of
// cellLines, is a line of the cell last run in its slot: a run of digits in a message that is
// not is a number of the message, not a position.
func (s *Session) isLine(encoded int) bool {
	slot := encoded/cellLines - 10
	line := encoded % cellLines
	return s.slots[slot].lines >= line && line >= 1
}

// where formats a position of the interpreter (line in the form of cellLines, col 0 for none)
// as the user reads it: "cell [3] line 2:5", or "file.go:2:5" in a script.
func (s *Session) where(encoded, col int) string {
	slot := encoded/cellLines - 10
	c := cellOfSlot(slot, s.cell)
	if last, ok := s.slots[slot]; ok {
		c = last.cell
	}
	line := encoded % cellLines
	switch {
	case s.fileName != "" && col > 0:
		return fmt.Sprintf("%s:%d:%d", s.fileName, line, col)
	case s.fileName != "":
		return fmt.Sprintf("%s:%d", s.fileName, line)
	case col > 0:
		return fmt.Sprintf("cell [%d] line %d:%d", c, line, col)
	}
	return fmt.Sprintf("cell [%d] line %d", c, line)
}
