package interp

import (
	"fmt"
	"go/scanner"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gosbi/gosbi/stdlib"
)

// byteOffset converts a cursor position in Unicode code points to a byte offset.
func byteOffset(code string, cursor int) int {
	if cursor < 0 {
		return 0
	}
	i := 0
	for n := 0; n < cursor && i < len(code); n++ {
		_, size := utf8.DecodeRuneInString(code[i:])
		i += size
	}
	return i
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// identBefore returns the start of the identifier that ends at byte offset end.
func identBefore(code string, end int) int {
	start := end
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !isIdentRune(r) {
			break
		}
		start -= size
	}
	return start
}

// Complete returns the completions of the word before the cursor (in code points), and the
// range (in code points) the chosen match replaces: session names, package names, package
// members after "pkg.", and fields and methods after "value.".
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	b := byteOffset(code, cursor)
	ps := identBefore(code, b)
	prefix := code[ps:b]
	start = utf8.RuneCountInString(code[:ps])
	end = utf8.RuneCountInString(code[:b])
	var cands []string
	lineStart := strings.LastIndexByte(code[:ps], '\n') + 1
	if m, ok := magicNames[code[lineStart:ps]]; ok { // "%he", "%%wr" at the start of a line
		cands = m
	} else if ps > 0 && code[ps-1] == '.' {
		xs := identBefore(code, ps-1)
		if t, defined := s.cellVarType(code[:xs], code[xs:ps-1]); !defined {
			cands = s.members(code[xs : ps-1])
		} else if t != nil {
			cands = typeMembers(t) // a variable of this cell, which has not run yet
		}
	} else if fields, ok := s.structFields(literalKeyType(code[:ps])); ok {
		cands = fields // a key of a struct literal: sbi.NPEConfig{Fl
	} else {
		cands = append(s.names(), cellNames(code[:ps])...)
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] && !strings.HasPrefix(c, "_") {
			seen[c] = true
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	return matches, start, end
}

// magicNames are the line magics (after "%") and the cell magics (after "%%") that
// completion offers; %help lists them with what they do.
var magicNames = map[string][]string{
	"%":  {"help", "time", "reset", "who", "env", "go"},
	"%%": {"time", "writefile", "compile"},
}

// cellNames returns the names that code, the part of a cell above the cursor, declares: the
// variables of "a, b :=" and of "var a, b", and the names after const, type and func. The cell
// has not run yet, so the session does not know them.
func cellNames(code string) []string {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), func(token.Position, string) {}, 0)
	var names, run []string // run: the list "a, b" just scanned
	declares := false       // the run follows var or const
	comma := false          // the run ends with a comma
	for {
		_, tok, lit := sc.Scan()
		switch tok {
		case token.EOF:
			return names
		case token.IDENT:
			if len(run) > 0 && !comma { // "var a, b T": the list ended before T
				if declares {
					names = append(names, run...)
				}
				run, declares = run[:0], false
			}
			run, comma = append(run, lit), false
			continue
		case token.COMMA:
			if len(run) > 0 {
				comma = true
				continue
			}
		case token.DEFINE:
			names = append(names, run...)
		}
		if declares {
			names = append(names, run...)
		}
		run, comma = run[:0], false
		declares = tok == token.VAR || tok == token.CONST
		if tok == token.TYPE || tok == token.FUNC {
			if _, next, lit := sc.Scan(); next == token.IDENT {
				names = append(names, lit)
			}
		}
	}
}

var goKeywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
	"return", "select", "struct", "switch", "type", "var"}

// names lists what a bare identifier can complete to.
func (s *Session) names() []string {
	res := append([]string(nil), goKeywords...)
	res = append(res, types.Universe.Names()...)
	res = append(res, "min", "max", "clear")
	for n, d := range s.decls {
		if d.kind != methodDecl {
			res = append(res, n)
		}
	}
	for n := range s.imports {
		res = append(res, n)
	}
	indexPackages()
	for n := range pkgIndex.byName {
		res = append(res, n)
	}
	return res
}

// members lists the members of x: a package's exported names, or the fields and methods of a
// session value's type.
func (s *Session) members(x string) []string {
	if x == "" {
		return nil
	}
	if _, isDecl := s.decls[x]; !isDecl {
		path := s.imports[x]
		if path == "" {
			indexPackages()
			path = pkgIndex.byName[x]
		}
		if path != "" {
			var res []string
			for n := range packageSymbols(path) {
				res = append(res, n)
			}
			return res
		}
	}
	d, ok := s.decls[x]
	if !ok || d.kind != varDecl && d.kind != constDecl {
		return nil
	}
	var res []string
	if v, ok := s.global(x); ok {
		res = append(res, typeMembers(v.Type())...)
	}
	if t := strings.TrimPrefix(d.typeExpr, "*"); t != "" {
		res = append(res, s.methodNames(t)...)
		res = append(res, s.promotedMembers(t)...)
	}
	return res
}

// global returns the value of a session variable. It lists all the interpreter's globals to
// find one: a caller that needs many reads globalValues once and looks each up with globalIn.
func (s *Session) global(name string) (v reflect.Value, ok bool) {
	return globalIn(s.globalValues(), name)
}

// globalIn returns the value of the session variable name among globals, the dynamic value
// of one of interface type.
func globalIn(globals map[string]reflect.Value, name string) (reflect.Value, bool) {
	v, ok := globals[name]
	if ok && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v, ok && v.IsValid()
}

// globalValues returns the interpreter's global variables as it holds them, read without
// running code, or nil when it cannot list them: it panics when asked for the variables of a
// program that did not compile until it next runs code (see globals). It builds a new map at
// each call.
func (s *Session) globalValues() (g map[string]reflect.Value) {
	defer func() {
		if recover() != nil {
			g = nil
		}
	}()
	return s.yi.Globals()
}

// typeMembers lists the fields and methods of a type (through pointers) that a cell can
// select: the fields promoted from embedded structs too, none of a compiled type's
// unexported fields.
func typeMembers(t reflect.Type) []string {
	var res []string
	for _, tt := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := 0; i < tt.NumMethod(); i++ {
			res = append(res, tt.Method(i).Name)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		for i := 0; i < t.NumMethod(); i++ {
			res = append(res, t.Method(i).Name)
		}
	}
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() {
				continue // a compiled type's unexported field, which a cell cannot use
			}
			name := f.Name
			// the interpreter stores a field f of an interpreted struct as Xf
			if r, _ := utf8.DecodeRuneInString(name[min(1, len(name)):]); t.PkgPath() == "" && strings.HasPrefix(name, "X") && unicode.IsLower(r) {
				name = name[1:]
			}
			res = append(res, name)
		}
	}
	return res
}

// Inspect returns the documentation of the name at the cursor: signature and doc comment of
// package members and of the session's declarations, the type and value of variables. For a
// name that gosbi does not define but Python's sbi does (pairplot, SNPE_C, sbi.SNPE_C), it
// returns a line naming gosbi's counterpart, so that a newcomer's Shift-Tab and ?NAME say the
// same; not for a member of the session's own declarations (res.NPE), which is the user's.
func (s *Session) Inspect(code string, cursor int) (string, bool) {
	b := byteOffset(code, cursor)
	e := b
	for e < len(code) {
		r, size := utf8.DecodeRuneInString(code[e:])
		if !isIdentRune(r) {
			break
		}
		e += size
	}
	st := identBefore(code, b)
	if st == e { // no name at the cursor: inspect the call whose arguments it is among, as IPython does
		for p := openCall(code[:b]); p >= 0; p = openCall(code[:p]) {
			if st, e = identBefore(code, p), p; st < e {
				break
			}
		}
	}
	name := code[st:e]
	if name == "" {
		return "", false
	}
	if st > 0 && code[st-1] == '.' {
		xs := chainBefore(code, st-1)
		x := code[xs : st-1]
		if t, defined := s.cellVarType(code[:xs], x); defined {
			return cellMemberDoc(t, name) // the cell redefines x: the session's x is not this one
		}
		if text, found := s.inspectMember(x, name); found {
			return text, true
		}
		if root, _, _ := strings.Cut(x, "."); s.decls[root] != nil {
			return "", false // a member of the session's own value, not a name of Python's sbi
		}
		return pythonSBIPage(x + "." + name)
	}
	if typ := literalKeyType(code[:st]); typ != "" {
		if text, found := s.literalFieldDoc(typ, name); found {
			return text, true // a key of a struct literal, not a name of its own
		}
	}
	if text, found := s.inspectName(name); found {
		return text, true
	}
	return pythonSBIPage(name)
}

// cellMemberDoc documents member name of a variable of type t that a cell being typed
// defines, the type of a compiled package its definition shows (nil when it does not).
func cellMemberDoc(t reflect.Type, name string) (string, bool) {
	if t == nil {
		return "", false
	}
	named := derefType(t)
	if named.PkgPath() == "" || named.Name() == "" {
		return "", false
	}
	pkg := packageName(named.PkgPath())
	if doc, ok := methodDoc(named.PkgPath(), pkg, named.Name(), name); ok {
		return doc, true
	}
	return compiledFieldDoc(named, pkg+"."+named.Name(), name)
}

// openCall returns the byte offset of the innermost parenthesis that code opens and does not
// close, or -1. Strings and comments are skipped; code may end anywhere (a cell being typed).
func openCall(code string) int {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), func(token.Position, string) {}, 0)
	var open []int
	for {
		pos, tok, _ := sc.Scan()
		switch tok {
		case token.EOF:
			if len(open) == 0 {
				return -1
			}
			return open[len(open)-1]
		case token.LPAREN:
			open = append(open, fset.Position(pos).Offset)
		case token.RPAREN:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
}

// inspectName returns the documentation of name, an identifier without a package or type.
func (s *Session) inspectName(name string) (string, bool) {
	if d, ok := s.decls[name]; ok {
		return s.describe(d), true
	}
	if path, ok := s.imports[name]; ok {
		return packageDoc(name, path, ""), true
	}
	indexPackages()
	if path, ok := pkgIndex.byName[name]; ok {
		return packageDoc(name, path, " (imported automatically when used)"), true
	}
	if doc, ok := builtinDocs[name]; ok {
		return doc, true
	}
	if paths, pkgs := s.typeNamed(name); len(paths) == 1 {
		// a type of a compiled package, named without its package
		doc, _ := typeDoc(paths[0], pkgs[0], name)
		return doc + fmt.Sprintf("\n\n(type %s.%s)", pkgs[0], name), true
	}
	return "", false
}

// chainBefore returns the start of the chain of identifiers joined by dots ("sbi.NPE") that
// ends at byte offset end.
func chainBefore(code string, end int) int {
	start := identBefore(code, end)
	for start > 1 && code[start-1] == '.' {
		next := identBefore(code, start-1)
		if next == start-1 {
			break
		}
		start = next
	}
	return start
}

var builtinDocs = map[string]string{
	"min":     "func min[T cmp.Ordered](x T, y ...T) T\n\nmin returns the smallest of its arguments.",
	"max":     "func max[T cmp.Ordered](x T, y ...T) T\n\nmax returns the largest of its arguments.",
	"clear":   "func clear(x any)\n\nclear deletes all entries of a map or zeroes all elements of a slice.",
	"len":     "func len(v Type) int\n\nlen returns the length of v: string, slice, array, map or channel.",
	"append":  "func append(slice []Type, elems ...Type) []Type\n\nappend appends elements to the end of a slice.",
	"make":    "func make(t Type, size ...IntegerType) Type\n\nmake allocates and initializes a slice, map or channel.",
	"println": "func println(args ...Type)\n\nprintln writes its arguments to standard error.",
}

func (s *Session) describe(d *decl) string {
	var b strings.Builder
	switch d.kind {
	case varDecl, constDecl:
		if v, ok := s.global(d.name); ok {
			fmt.Fprintf(&b, "%s %s %s\n\n", d.kind, d.name, v.Type())
			fmt.Fprintf(&b, "value: %s\n", shortValue(v))
		} else {
			fmt.Fprintf(&b, "%s %s\n", d.kind, d.name)
		}
	default:
		b.WriteString(d.signature)
		b.WriteString("\n")
		if d.doc != "" {
			b.WriteString("\n" + d.doc)
		}
		if d.kind == typeDecl {
			b.WriteString(s.sessionMethods(d.name))
		}
	}
	fmt.Fprintf(&b, "\n(defined in cell [%d] line %d)", d.cell, d.line)
	return b.String()
}

// shortValue formats v for an inspection: %+v, cut after 500 bytes.
func shortValue(v reflect.Value) string {
	val := "<unavailable>"
	if v.CanInterface() {
		val = fmt.Sprintf("%+v", v.Interface())
	}
	if len(val) > 500 {
		val = val[:500] + " …"
	}
	return val
}

// inspectMember documents member name of x: a package ("strings"), a type of a package
// ("sbi.NPE", or "NPE" when one package has such a type), a session variable or a session
// type.
func (s *Session) inspectMember(x, name string) (string, bool) {
	if pkg, typ, ok := strings.Cut(x, "."); ok {
		if path := s.packagePath(pkg); path != "" && !strings.Contains(typ, ".") {
			if doc, ok := methodDoc(path, pkg, typ, name); ok {
				return doc, true
			}
			if t, isType := typeSymbol(path, typ); isType {
				return compiledFieldDoc(t, x, name)
			}
			return "", false
		}
		return "", false
	}
	if path := s.packagePath(x); path != "" {
		if _, isType := typeSymbol(path, name); isType {
			return typeDoc(path, x, name)
		}
		if doc, ok := stdlib.Docs[path][name]; ok {
			return doc, true
		}
		if v, ok := packageSymbols(path)[name]; ok {
			return fmt.Sprintf("%s.%s %s", x, name, v.Type()), true
		}
		return "", false
	}
	if d, ok := s.decls[x]; ok {
		t := strings.TrimPrefix(d.typeExpr, "*")
		if m, ok := s.decls[t+"."+name]; ok {
			return s.describe(m), true
		}
		if v, ok := s.global(x); ok {
			rt := v.Type()
			for rt.Kind() == reflect.Pointer {
				rt = rt.Elem()
			}
			if rt.PkgPath() != "" {
				if doc, ok := methodDoc(rt.PkgPath(), packageName(rt.PkgPath()), rt.Name(), name); ok {
					return doc, true
				}
			}
			if doc, ok := s.valueFieldDoc(x, v, name); ok {
				return doc, true
			}
		}
	}
	if d, ok := s.decls[x+"."+name]; ok {
		return s.describe(d), true
	}
	if _, isDecl := s.decls[x]; !isDecl {
		return s.inspectTypeMember(x, name)
	}
	return "", false
}

// packagePath returns the import path of the package a cell names x (imported, or imported
// on its use), or "" when x names something else.
func (s *Session) packagePath(x string) string {
	if _, isDecl := s.decls[x]; isDecl {
		return ""
	}
	if path := s.imports[x]; path != "" {
		return path
	}
	indexPackages()
	return pkgIndex.byName[x]
}

// IsComplete tells a console whether code is a complete cell ("complete"), needs more lines
// ("incomplete", with the indent for the next line) or cannot become valid ("invalid").
func IsComplete(code string) (status, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	if _, ok := helpRequest(code); ok {
		return "complete", ""
	}
	if segs, ok := splitMagics(code, nil); ok {
		var goLines []string
		for _, sg := range segs {
			if sg.magic != "" {
				if name, _, _ := strings.Cut(sg.magic, " "); name == "%%compile" || name == "%%time" {
					return IsComplete(sg.code) // the body is Go
				}
				if strings.HasPrefix(sg.magic, "%%") {
					return "complete", ""
				}
				continue
			}
			goLines = append(goLines, sg.code)
		}
		code = strings.Join(goLines, "\n")
		if strings.TrimSpace(code) == "" {
			return "complete", ""
		}
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(code))
	var sc scanner.Scanner
	unterminated := false
	sc.Init(file, []byte(code), func(pos token.Position, msg string) {
		if strings.Contains(msg, "not terminated") {
			unterminated = true
		}
	}, 0)
	depth := 0
	var last token.Token
	for {
		_, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		switch t {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		if t != token.SEMICOLON || lit != "\n" {
			last = t
		}
	}
	switch {
	case unterminated:
		return "incomplete", ""
	case depth < 0:
		return "invalid", ""
	case depth > 0:
		return "incomplete", strings.Repeat("    ", depth)
	}
	if last.IsOperator() && last != token.RPAREN && last != token.RBRACE && last != token.RBRACK &&
		last != token.INC && last != token.DEC && last != token.SEMICOLON {
		return "incomplete", ""
	}
	if _, err := splitCell(code, 0); err != nil {
		return "invalid", ""
	}
	return "complete", ""
}
