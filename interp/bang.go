package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goBang returns the judge that splitMagics asks about the lines "!rest" of one cell that do
// not continue an expression: such a line is Go when "!rest" parses as a Go expression whose
// first ! applies to an operand of type bool (a bool variable or constant of the session or of
// the cell above the line, a field or element of type bool, a call of a function whose result
// is a bool, or a bool expression in parentheses) and whose other names are only those of the
// session or the cell above, packages and Go's predeclared names. So "!done" negates a bool
// variable done, while "!ls -la", "!echo hi", "!(true)", and "!date" after date := time.Now(),
// run the shell. The judge reads the session's globals once for the cell, and parses the cell
// above a line only when the line names something the cell may declare.
func (s *Session) goBang() func(rest string, above func() string) bool {
	b := &bangScope{s: s, cellLen: -1}
	return b.isGo
}

// bangScope answers what the names of a line "!rest" are, for one cell.
type bangScope struct {
	s       *Session
	globals map[string]reflect.Value // the session's variables and constants, once read
	read    bool                     // whether globals was read
	above   func() string            // the cell's Go source above the line being judged
	cell    map[string]cellName      // what the cell above declares, parsed from cellLen bytes
	cellLen int
}

// cellName is what a name declared at the top level of a cell is, as far as a ! cares.
type cellName int

const (
	cellOther    cellName = iota + 1 // anything else (a type, a variable of another type)
	cellBool                         // a variable or constant of type bool
	cellBoolFunc                     // a function whose one result is a bool
)

// isGo reports whether the line "!rest" is Go (see goBang).
func (b *bangScope) isGo(rest string, above func() string) bool {
	e, err := parser.ParseExpr("!" + rest)
	if err != nil {
		return false
	}
	b.above = above
	op := bangOperand(e)
	// "!true" runs the command true, and "!(true)" the subshell (true)
	if id, ok := ast.Unparen(op).(*ast.Ident); ok && b.cellDecl(id.Name) == 0 && b.s.decls[id.Name] == nil {
		return false
	}
	return op != nil && b.isBool(op) && b.namesKnown(e)
}

// bangOperand returns the operand of the leftmost ! of e, the expression "!rest" (nil when
// e does not start with a unary !).
func bangOperand(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.BinaryExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op == token.NOT {
				return x.X
			}
			return nil
		default:
			return nil
		}
	}
}

// isBool reports whether e is known to be of type bool.
func (b *bangScope) isBool(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		if b.cellDecl(e.Name) == 0 && b.s.decls[e.Name] == nil {
			return e.Name == "true" || e.Name == "false"
		}
		return b.nameIs(e.Name, cellBool)
	case *ast.ParenExpr:
		return b.isBool(e.X)
	case *ast.UnaryExpr:
		return e.Op == token.NOT && b.isBool(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR, token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return true
		}
		return false
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && b.nameIs(id.Name, cellBoolFunc) {
			return true
		}
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && b.methodReturnsBool(sel) {
			return true
		}
		t := b.typeOf(e.Fun)
		return t != nil && t.Kind() == reflect.Func && t.NumOut() == 1 && t.Out(0).Kind() == reflect.Bool
	}
	t := b.typeOf(e)
	return t != nil && t.Kind() == reflect.Bool
}

// nameIs reports whether name, as the cell above the line or else the session declares it,
// is what want says.
func (b *bangScope) nameIs(name string, want cellName) bool {
	if c := b.cellDecl(name); c != 0 {
		return c == want
	}
	d := b.s.decls[name]
	switch {
	case d == nil:
		return false
	case d.kind == funcDecl:
		return want == cellBoolFunc && signatureReturnsBool(d.signature)
	case d.kind != varDecl && d.kind != constDecl:
		return false
	}
	if t := b.globalType(name); t != nil {
		return want == cellBool && t.Kind() == reflect.Bool ||
			want == cellBoolFunc && t.Kind() == reflect.Func && t.NumOut() == 1 && t.Out(0).Kind() == reflect.Bool
	}
	return want == cellBool && d.typeExpr == "bool"
}

// methodReturnsBool reports whether sel, x.M, is a method of the session's type of the session
// variable x that returns one bool.
func (b *bangScope) methodReturnsBool(sel *ast.SelectorExpr) bool {
	x, ok := sel.X.(*ast.Ident)
	if !ok || b.cellDecl(x.Name) != 0 {
		return false
	}
	d := b.s.decls[x.Name]
	if d == nil || d.kind != varDecl {
		return false
	}
	m := b.s.decls[strings.TrimPrefix(d.typeExpr, "*")+"."+sel.Sel.Name]
	return m != nil && m.kind == methodDecl && signatureReturnsBool(m.signature)
}

// typeOf returns the type of e when e is a session variable or constant, a member of a
// package, or a field or element of one of these; nil otherwise.
func (b *bangScope) typeOf(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.Ident:
		if b.cellDecl(e.Name) != 0 {
			return nil
		}
		if d := b.s.decls[e.Name]; d == nil || d.kind != varDecl && d.kind != constDecl {
			return nil
		}
		return b.globalType(e.Name)
	case *ast.ParenExpr:
		return b.typeOf(e.X)
	case *ast.IndexExpr:
		if t := derefType(b.typeOf(e.X)); t != nil && (t.Kind() == reflect.Map || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			return t.Elem()
		}
	case *ast.SelectorExpr:
		return b.selectedType(e)
	}
	return nil
}

// selectedType returns the type of x.name: a member of the package x, or a field of the
// struct x (through pointers); nil when it is neither.
func (b *bangScope) selectedType(e *ast.SelectorExpr) reflect.Type {
	if x, ok := e.X.(*ast.Ident); ok && b.cellDecl(x.Name) == 0 {
		if path := b.s.packagePath(x.Name); path != "" {
			v, ok := packageSymbols(path)[e.Sel.Name]
			if !ok {
				return nil
			}
			if t := v.Type(); t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Func {
				return t.Elem() // a package's variable is held through its address
			}
			return v.Type()
		}
	}
	t := derefType(b.typeOf(e.X))
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if f, ok := t.FieldByName(e.Sel.Name); ok {
		return f.Type
	}
	// the interpreter stores a field f of an interpreted struct as Xf
	if r, _ := utf8.DecodeRuneInString(e.Sel.Name); unicode.IsLower(r) {
		if f, ok := t.FieldByName("X" + e.Sel.Name); ok {
			return f.Type
		}
	}
	return nil
}

// derefType returns t without its pointers (nil for nil).
func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// globalType returns the type of the session's variable or constant name (an interface type
// for a variable of one, whatever it holds); nil when the session cannot tell.
func (b *bangScope) globalType(name string) reflect.Type {
	if v, ok := b.globalValues()[name]; ok && v.IsValid() {
		return v.Type()
	}
	return nil
}

// globalValues returns the session's globals, read at the first call.
func (b *bangScope) globalValues() map[string]reflect.Value {
	if !b.read {
		b.globals, b.read = b.s.globalValues(), true
	}
	return b.globals
}

// namesKnown reports whether every name of e is a name of the session or of the cell above,
// a package (before a dot) or a predeclared name of Go.
func (b *bangScope) namesKnown(e ast.Expr) bool {
	known := true
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if b.cellDecl(n.Name) == 0 && b.s.decls[n.Name] == nil && types.Universe.Lookup(n.Name) == nil {
				known = false
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && b.cellDecl(id.Name) == 0 && b.s.packagePath(id.Name) != "" {
				return false
			}
			ast.Inspect(n.X, visit)
			return false // the selected name is a field, method or member
		case *ast.FuncLit, *ast.CompositeLit:
			known = false // names of their own: not worth telling apart from a command
		}
		return known
	}
	ast.Inspect(e, visit)
	return known
}

// cellDecl returns what the top level of the cell above the line declares name to be; 0 when
// it does not declare it (or does not parse, as when the line continues an expression, which
// splitMagics judges itself). It parses the cell above once for each text, and not at all
// when the text does not hold name.
func (b *bangScope) cellDecl(name string) cellName {
	src := b.above()
	if !strings.Contains(src, name) {
		return 0
	}
	if b.cellLen != len(src) { // the text above only grows within a cell
		b.cell, b.cellLen = map[string]cellName{}, len(src)
		b.declareCell(src)
	}
	return b.cell[name]
}

// declareCell fills b.cell with the names that the top level of src declares, in order, so
// that a declaration can use the names declared before it.
func (b *bangScope) declareCell(src string) {
	items, err := splitCell(src, 0)
	if err != nil {
		return
	}
	for _, it := range items {
		switch it.kind {
		case declItem:
			b.declare(it.decl)
		case stmtItem:
			if as, ok := it.stmt.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				b.define(as)
			}
		}
	}
}

// declare records the names of a top-level declaration of the cell.
func (b *bangScope) declare(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			b.cell[d.Name.Name] = cellOther
			if resultIsBool(d.Type) {
				b.cell[d.Name.Name] = cellBoolFunc
			}
		}
	case *ast.GenDecl:
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				b.cell[sp.Name.Name] = cellOther
			case *ast.ValueSpec:
				for i, n := range sp.Names {
					isBool := isBoolIdent(sp.Type) || sp.Type == nil && len(sp.Values) == len(sp.Names) && b.isBool(sp.Values[i])
					b.cell[n.Name] = boolOrOther(isBool)
				}
			}
		}
	}
}

// define records the names that a statement "a, b := x, y" of the cell defines.
func (b *bangScope) define(as *ast.AssignStmt) {
	kinds := make([]cellName, len(as.Lhs))
	for i := range as.Lhs {
		kinds[i] = cellOther
		if len(as.Rhs) == len(as.Lhs) {
			kinds[i] = boolOrOther(b.isBool(as.Rhs[i]))
		}
	}
	for i, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
			b.cell[id.Name] = kinds[i]
		}
	}
}

func boolOrOther(isBool bool) cellName {
	if isBool {
		return cellBool
	}
	return cellOther
}

// signatureReturnsBool reports whether sig, a function's or method's declaration without its
// body, has one result of type bool.
func signatureReturnsBool(sig string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+sig, 0)
	if err != nil || len(f.Decls) != 1 {
		return false
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	return ok && resultIsBool(fd.Type)
}

// resultIsBool reports whether ft has one result of type bool.
func resultIsBool(ft *ast.FuncType) bool {
	r := ft.Results
	return r != nil && len(r.List) == 1 && len(r.List[0].Names) <= 1 && isBoolIdent(r.List[0].Type)
}

func isBoolIdent(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "bool"
}
