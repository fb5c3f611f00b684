package interp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/gosbi/gosbi/stdlib"
)

// This file answers completion and inspection of struct fields: the keys of a composite
// literal being typed (sbi.NPEConfig{Fl|) and the fields of a value (res.TrainLoss). The
// fields of a compiled type come from reflection, their comments from the type's declaration
// in the documentation tables of package stdlib; the fields of a type a cell declared come
// from that declaration.

// literalKeyType returns the type written before the composite literal whose key code, the
// part of a cell before a name being typed, ends in: "sbi.NPEConfig" for "sbi.NPEConfig{" and
// for "x := sbi.NPEConfig{Flow: "maf", ". It returns "" when the name is not in a key
// position (a value after a colon, a statement in a block), or when the literal's type is not
// written as a name or pkg.Name.
func literalKeyType(code string) string {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), func(token.Position, string) {}, 0)
	type open struct {
		tok  token.Token
		typ  string // for a brace: the type name written just before it
		last token.Token
	}
	var stack []open
	var prev []string // the tokens of the type expression just scanned: IDENT, ".", IDENT
	last := token.ILLEGAL
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			last = tok
			prev = prev[:0]
			continue
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			o := open{tok: tok}
			if tok == token.LBRACE {
				o.typ = strings.Join(prev, "")
			}
			stack = append(stack, o)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		switch {
		case tok == token.IDENT && (len(prev) == 0 || len(prev) == 2 && prev[1] == "."):
			prev = append(prev, lit)
		case tok == token.PERIOD && len(prev) == 1:
			prev = append(prev, ".")
		default:
			prev = prev[:0]
		}
		last = tok
	}
	if len(stack) == 0 || stack[len(stack)-1].tok != token.LBRACE {
		return ""
	}
	if last != token.LBRACE && last != token.COMMA {
		return ""
	}
	return stack[len(stack)-1].typ
}

// structFields returns the names of the fields of the struct type typ, written as a cell
// writes it ("sbi.NPEConfig", or "Point" for a type a cell declared), those a cell may set:
// the exported ones of a compiled type, all of a cell's own. ok is false when typ names no
// struct type the session knows.
func (s *Session) structFields(typ string) (names []string, ok bool) {
	if pkg, name, qualified := strings.Cut(typ, "."); qualified {
		path := s.packagePath(pkg)
		if path == "" {
			return nil, false
		}
		t, isType := typeSymbol(path, name)
		if !isType || t.Kind() != reflect.Struct {
			return nil, false
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				names = append(names, f.Name)
			}
		}
		return names, true
	}
	st := s.sessionStruct(typ)
	if st == nil {
		return nil, false
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		if len(f.Names) == 0 { // an embedded field is named by its type
			names = append(names, embeddedName(f.Type))
		}
	}
	return names, true
}

// sessionStruct returns the struct type of the type a cell declared as typ, or nil.
func (s *Session) sessionStruct(typ string) *ast.StructType {
	st, _ := s.sessionTypeExpr(typ).(*ast.StructType)
	return st
}

// sessionTypeExpr returns the type expression of the type a cell declared as typ, or nil.
func (s *Session) sessionTypeExpr(typ string) ast.Expr {
	d, ok := s.decls[typ]
	if !ok || d.kind != typeDecl {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+d.signature, 0)
	if err != nil || len(f.Decls) == 0 {
		return nil
	}
	g, ok := f.Decls[0].(*ast.GenDecl)
	if !ok || len(g.Specs) == 0 {
		return nil
	}
	ts, ok := g.Specs[0].(*ast.TypeSpec)
	if !ok {
		return nil
	}
	return ts.Type
}

// promotedMembers lists the fields and methods that the struct type a cell declared as typ
// promotes from its embedded fields (T, *T, pkg.T, *pkg.T), at any depth; the interpreter's
// reflect types do not mark a field as embedded.
func (s *Session) promotedMembers(typ string) []string {
	var res []string
	seen := map[string]bool{typ: true}
	queue := []string{typ}
	for len(queue) > 0 {
		st := s.sessionStruct(queue[0])
		queue = queue[1:]
		if st == nil {
			continue
		}
		for _, f := range st.Fields.List {
			if len(f.Names) > 0 {
				continue
			}
			if t, ok := s.compiledType(embeddedType(f.Type)); ok {
				res = append(res, typeMembers(t)...)
				continue
			}
			id, ok := embeddedType(f.Type).(*ast.Ident)
			if !ok || seen[id.Name] {
				continue
			}
			seen[id.Name] = true
			queue = append(queue, id.Name)
			if fields, ok := s.structFields(id.Name); ok {
				res = append(res, fields...)
			}
			res = append(res, s.methodNames(id.Name)...)
		}
	}
	return res
}

// compiledType returns the type of a linked package that the type expression e (pkg.T)
// names.
func (s *Session) compiledType(e ast.Expr) (reflect.Type, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil, false
	}
	path := s.packagePath(pkg.Name)
	if path == "" {
		return nil, false
	}
	return typeSymbol(path, sel.Sel.Name)
}

// embeddedType returns the type that the type expression e of an embedded field names: T
// for T and *T.
func embeddedType(e ast.Expr) ast.Expr {
	if p, ok := e.(*ast.StarExpr); ok {
		return p.X
	}
	return e
}

// methodNames lists the names of the methods the session declared on its type typ.
func (s *Session) methodNames(typ string) []string {
	var res []string
	for n, d := range s.decls {
		if d.kind == methodDecl && strings.HasPrefix(n, typ+".") {
			res = append(res, strings.TrimPrefix(n, typ+"."))
		}
	}
	return res
}

// embeddedName returns the field name of an embedded field of type expression e.
func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// literalFieldDoc documents field name of the struct type typ, written as a cell writes it
// (the type of a composite literal whose key is being typed).
func (s *Session) literalFieldDoc(typ, name string) (string, bool) {
	if pkg, tname, qualified := strings.Cut(typ, "."); qualified {
		path := s.packagePath(pkg)
		if path == "" {
			return "", false
		}
		t, isType := typeSymbol(path, tname)
		if !isType {
			return "", false
		}
		return compiledFieldDoc(t, pkg+"."+tname, name)
	}
	st := s.sessionStruct(typ)
	if st == nil {
		return "", false
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				d := s.decls[typ]
				return fmt.Sprintf("field %s %s\n\n(a field of %s, defined in cell [%d] line %d)",
					name, printNode(f.Type), typ, d.cell, d.line), true
			}
		}
	}
	return "", false
}

// compiledFieldDoc documents field name of t, a type of a compiled package that a cell
// writes as typ ("sbi.TrainConfig"): the field's line of the type's declaration, with the
// comment above it, or its type when the declaration the tables hold leaves it out.
func compiledFieldDoc(t reflect.Type, typ, name string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", false
	}
	f, ok := t.FieldByName(name)
	if !ok || !f.IsExported() {
		return "", false
	}
	text := fmt.Sprintf("field %s %s", name, f.Type)
	if line, ok := declFieldLine(docOfType(t), name); ok {
		text = line
	}
	return fmt.Sprintf("%s\n\n(a field of %s; ?%s shows the type)", text, typ, typ), true
}

// docOfType returns the documentation the tables hold for the named type t, or "".
func docOfType(t reflect.Type) string {
	return stdlib.Docs[t.PkgPath()][t.Name()]
}

// declFieldLine finds field name in the declaration "type T struct {...}" that opens doc
// and returns its line, the comment lines right above it first, without their indentation.
func declFieldLine(doc, name string) (string, bool) {
	lines := strings.Split(doc, "\n")
	var comment []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "}" {
			break
		}
		if strings.HasPrefix(l, "//") {
			comment = append(comment, l)
			continue
		}
		if slices.Contains(fieldNamesOf(l), name) {
			return strings.Join(append(comment, l), "\n"), true
		}
		comment = comment[:0]
	}
	return "", false
}

// fieldNamesOf returns the names that a line of a struct declaration declares ("A, B int").
func fieldNamesOf(line string) []string {
	var names []string
	for {
		i := 0
		for i < len(line) && isIdentRune(rune(line[i])) {
			i++
		}
		if i == 0 {
			return nil
		}
		names = append(names, line[:i])
		rest := strings.TrimLeft(line[i:], " \t")
		if !strings.HasPrefix(rest, ",") {
			if rest == "" || rest[0] == '/' { // an embedded field
				return nil
			}
			return names
		}
		line = strings.TrimLeft(rest[1:], " \t")
	}
}

// valueFieldDoc documents field name of v, the value of session variable x: the field's
// documentation (for a compiled type) or its type, then its value.
func (s *Session) valueFieldDoc(x string, v reflect.Value, name string) (string, bool) {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	t := v.Type()
	fname := name
	if _, ok := t.FieldByName(fname); !ok && t.PkgPath() == "" {
		fname = "X" + name // the interpreter stores a field f of an interpreted struct as Xf
	}
	f, ok := t.FieldByName(fname)
	if !ok {
		return "", false
	}
	var doc string
	if t.PkgPath() != "" {
		if doc, ok = compiledFieldDoc(t, packageName(t.PkgPath())+"."+t.Name(), name); !ok {
			return "", false
		}
	} else {
		doc = fmt.Sprintf("field %s %s of %s", name, f.Type, x)
	}
	fv, err := v.FieldByIndexErr(f.Index)
	if err != nil { // the field of an embedded nil pointer
		return doc, true
	}
	return fmt.Sprintf("%s\n\nvalue of %s.%s: %s", doc, x, name, shortValue(fv)), true
}
