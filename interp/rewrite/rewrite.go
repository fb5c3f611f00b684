// Package rewrite holds the source-to-source passes that a notebook session runs on each
// top-level item of a cell before the yaegi interpreter compiles it. Each pass works around
// one fault of the interpreter, named in the pass's documentation with the upstream issue
// where one exists, and each has a canary test that runs the bare construct through yaegi and
// fails once upstream fixes it: then the pass can go.
//
// Invariants of every pass:
//   - the rewritten source has the same effect in Go as the original (values are evaluated
//     once, in the same order where Go fixes the order);
//   - the rewritten source keeps the cell's positions: text that moves or follows inserted
//     text is preceded by a position comment /*line _.go:L:C*/ (see StripPositions) or a
//     line directive, so errors and panics name the user's own lines and columns;
//   - the result parses, as the unit did (hoist-method-values and reorder-defines check it
//     and drop a rewrite that does not).
//
// The passes, in the order of Pipeline and each in the file of its name (check-type-identity's
// keys of types in typekeys.go, its comparisons in check_comparisons.go): rename-main, loop-vars, empty-switch, check-embedded-compiled, assert-any, bind-switch-tag, check-type-identity, check-interface-assertions, bind-type-switch,
// guard-assertions, wrap-interfaces, wrap-fmt-args, wrap-errors, compare-interfaces, hoist-method-values, reorder-defines,
// parenthesize-tuples, parenthesize-returns, zero-named-results, copy-stores, fresh-wrappers, cell-defers, eval-defers, func-scope, detach-closures, redeclare-via-temps and comma-ok. Run applies them to the units of a cell, once, after the session has
// split it.
//
// One pass works around no fault and has no canary: recover-goroutines, last, runs the call of
// every go statement of a cell under a deferred recover, so that a panic in a goroutine that a
// cell started is reported instead of ending the process and the session with it.
package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Kind classifies a unit of a cell.
type Kind int

const (
	Import Kind = iota // an import declaration
	Decl               // a func, method, type, var or const declaration
	Stmt               // a statement (including an expression)
)

// Unit is one top-level import, declaration or statement of a cell.
type Unit struct {
	Kind Kind
	Text string
	// Line and Col are the interpreter's position of the first byte of Text, as a line
	// directive "//line _.go:Line:Col" gives it; position comments that passes insert are
	// computed from them.
	Line, Col int
	// Result says that the unit is the cell's trailing expression, whose value the session
	// shows as the cell's result.
	Result bool
}

// Env is what passes may ask of the session.
type Env struct {
	// IsPackage reports whether a name in the cell's code names a package (one the session
	// or the cell imports, or would import on its use), not a variable. Nil means never.
	IsPackage func(name string) bool
	// IsVar reports whether a name is a variable of the session before the cell runs. Run
	// adds the definitions of the units before the one it rewrites. Nil means never.
	IsVar func(name string) bool
	// Cell is the number of the cell, which names temporaries.
	Cell int
	// Compiled returns the compiled type that pkg.Name names in the cell, pkg being a name for
	// which IsPackage holds, and nil when pkg.Name is no type (a function, a variable, nothing).
	// Nil means that the cell names none.
	Compiled func(pkg, name string) reflect.Type
	// PackagePath returns the import path of the package a name in the cell's code names, ""
	// when it names none. Nil means that the cell names none.
	PackagePath func(name string) string
	// PrintMethods reports whether the session's types, the cell's included, have a method
	// String or Error (value) and whether one of them is declared on a pointer receiver
	// (pointer). Nil means neither.
	PrintMethods func() (value, pointer bool)
	// ErrorMethods reports whether the session's types, the cell's included, have a method
	// Error (errorType), declared or promoted from an embedded field, and whether they have a
	// method Unwrap, Is or As (chain). Nil means neither.
	ErrorMethods func() (errorType, chain bool)
	// ErrorType reports whether a type of the session or the cell declares a method Error.
	// Nil means none.
	ErrorType func(typeName string) bool
	// TypeDecls returns the sources of the session's type declarations before the cell, each
	// a type declaration (a group or one type). Nil means none.
	TypeDecls func() []string
	// CompiledOfUnderlying returns the name (as reflect writes it) of a compiled defined type
	// whose underlying type's UnderlyingKey is key, "" when there is none. Nil means none.
	CompiledOfUnderlying func(key string) string
	// HasMethods reports whether a type of the session or the cell has methods, declared or
	// promoted from an embedded field (struct{ error }). Nil means none.
	HasMethods func(typeName string) bool
	// Definition returns what defines the session's variable or function name: its declared
	// type as the source writes it ("" when the declaration writes none; a function's type),
	// and the source of the value that defines a variable without one ("any(T1{})" for
	// v := any(T1{}) or var v = any(T1{})), "" when there is none. Nil means none.
	Definition func(name string) (typ, value string)
	// MethodDecls returns the session's method declarations before the cell, each without its
	// body ("func (t *T) String() string"), from which the passes learn the names and
	// signatures of the methods of the session's types. Run adds the cell's own. Nil means none.
	MethodDecls func() []string

	// IsConst reports whether a name is a constant of the session before the cell runs. Nil
	// means never; Run adds the constants that the cell declares at its top.
	IsConst func(name string) bool
	// CompiledFunc returns the type of the compiled function that pkg.Name names in the cell,
	// pkg being a name for which IsPackage holds, and nil when pkg.Name is no function. Nil
	// means that the cell names none.
	CompiledFunc func(pkg, name string) reflect.Type

	// types is the table of the session's and the cell's types, which Run makes on first use.
	types func() *typeTable
}

// Pass is one named rewrite.
type Pass struct {
	Name string
	// Issue is the upstream yaegi issue the pass works around, or a sentence saying that no
	// upstream issue was found.
	Issue string
	// Rewrite returns the unit's text rewritten, or an error when the unit cannot be run
	// correctly by the interpreter and no rewrite fixes it.
	Rewrite func(env Env, u Unit) (string, error)
}

// Pipeline is the passes, in the order Run applies them. The order matters: loop-vars and
// empty-switch come first, so that the passes after them see loops and switches as they run; func-scope comes
// after hoist-method-values, whose block of definitions must run in a function literal at the
// top of a cell, and after copy-stores, whose block defines a temporary, detach-closures after
// func-scope, whose function literals it sees, cell-defers before func-scope, which would run a
// loop of the top level that holds a defer statement in a function literal of its own, fresh-wrappers after
// copy-stores, whose temporaries' types it reads, check-type-identity reads the cell's own source, and redeclare-via-temps and comma-ok last, as their results are several
// statements (comma-ok rewrites each statement of the unit); recover-goroutines, which works
// around no fault, comes after them all so that no pass rewrites what it makes.
var Pipeline = []Pass{renameMain, loopVars, emptySwitch, checkEmbeddedCompiled, assertAny, bindSwitchTag, checkTypeIdentity, checkInterfaceAssertions, bindTypeSwitch, guardAssertions, wrapInterfaces, wrapFmtArgs, wrapErrors, compareInterfaces, hoistMethodValues, reorderDefines, parenthesizeTuples, parenthesizeReturns, zeroNamedResults, copyStores, freshWrappers, cellDefers, evalDefers, funcScope, detachClosures, redeclareViaTemps, commaOK, recoverGoroutines}

// Run rewrites the units of a cell in place with the passes of Pipeline, in order. It
// returns the first error of a pass, whose message starts with the interpreter's position
// "_.go:L:C: ".
func Run(env Env, units []Unit) error {
	vars := map[string]bool{} // names the earlier units define: true for variables
	sessionVar := env.IsVar
	env.IsVar = func(name string) bool {
		if isVar, ok := vars[name]; ok {
			return isVar
		}
		return sessionVar != nil && sessionVar(name)
	}
	cell := slices.Clone(units)
	env.types = sync.OnceValue(func() *typeTable { return newTypeTable(env, cell) })
	cellConsts := sync.OnceValue(func() map[string]bool { return constants(cell) })
	sessionConst := env.IsConst
	env.IsConst = func(name string) bool {
		return cellConsts()[name] || sessionConst != nil && sessionConst(name)
	}
	for i := range units {
		defs := definitions(units[i])
		for _, p := range Pipeline {
			text, err := p.Rewrite(env, units[i])
			if err != nil {
				return err
			}
			units[i].Text = text
		}
		for name, isVar := range defs {
			vars[name] = isVar
		}
	}
	return nil
}

// definitions returns the names a unit defines at the top of the cell, true for variables.
func definitions(u Unit) map[string]bool {
	defs := map[string]bool{}
	p, err := parse(u)
	if err != nil {
		return defs
	}
	switch n := p.root.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					defs[id.Name] = true
				}
			}
		}
	case *ast.FuncDecl:
		if n.Recv == nil {
			defs[n.Name.Name] = false
		}
	case *ast.GenDecl:
		for _, sp := range n.Specs {
			switch sp := sp.(type) {
			case *ast.ValueSpec:
				for _, id := range sp.Names {
					defs[id.Name] = n.Tok == token.VAR
				}
			case *ast.TypeSpec:
				defs[sp.Name.Name] = false
			}
		}
	}
	return defs
}

// constants returns the names that the const declarations at the top of units declare (a
// constant of a function's body is no name of the cell).
func constants(units []Unit) map[string]bool {
	names := map[string]bool{}
	for _, u := range units {
		if !strings.Contains(u.Text, "const") {
			continue
		}
		p, err := parse(u)
		if err != nil {
			continue
		}
		decls := p.decls
		for _, st := range p.body {
			if d, ok := st.(*ast.DeclStmt); ok {
				decls = append(decls, d.Decl)
			}
		}
		for _, d := range decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, sp := range g.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						names[id.Name] = true
					}
				}
			}
		}
	}
	return names
}

// positionComment matches the position comments the passes insert.
var positionComment = regexp.MustCompile(`/\*line _\.go:\d+:\d+\*/`)

// StripPositions returns text without the position comments of the passes, which name the
// cell the text was rewritten in: two rewritten texts are the same source when their
// stripped texts are equal.
func StripPositions(text string) string {
	return positionComment.ReplaceAllString(text, "")
}

// parsed is a unit with its syntax tree.
type parsed struct {
	Unit
	fset  *token.FileSet
	base  int        // offset of Text in the file of fset
	root  ast.Node   // the declaration or statement
	body  []ast.Stmt // the statements of a statement unit, root the last
	decls []ast.Decl // the declarations of a declaration unit, root the last
}

// parse parses a unit; statements are parsed in a function body.
func parse(u Unit) (*parsed, error) {
	dir := fmt.Sprintf("\n//line _.go:%d:%d\n", u.Line, u.Col)
	prefix, suffix := "package p;"+dir, ""
	if u.Kind == Stmt {
		prefix, suffix = "package p; func _() {"+dir, "\n}"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+u.Text+suffix, parser.ParseComments)
	if err != nil {
		if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
			return nil, el[0]
		}
		return nil, err
	}
	p := &parsed{Unit: u, fset: fset, base: len(prefix), root: &ast.EmptyStmt{}}
	if u.Kind == Stmt {
		p.body = f.Decls[0].(*ast.FuncDecl).Body.List
		if len(p.body) > 0 {
			p.root = p.body[len(p.body)-1]
		}
	} else if len(f.Decls) > 0 {
		p.decls = f.Decls
		p.root = f.Decls[len(f.Decls)-1]
	}
	return p, nil
}

// parses reports whether a unit's text parses.
func parses(u Unit) bool {
	_, err := parse(u)
	return err == nil
}

// offset returns the byte offset in the unit's text of a position of its syntax tree.
func (p *parsed) offset(pos token.Pos) int {
	return p.fset.File(pos).Offset(pos) - p.base
}

// src returns the unit's text of a node.
func (p *parsed) src(n ast.Node) string {
	return p.Text[p.offset(n.Pos()):p.offset(n.End())]
}

// position returns the comment that gives the source following it the cell position of pos.
// The position is the parser's, so it follows the comments of an earlier rewrite too.
func (p *parsed) position(pos token.Pos) string {
	q := p.fset.Position(pos)
	return fmt.Sprintf("/*line _.go:%d:%d*/", q.Line, q.Column)
}

// repeat applies a rewrite of one statement at a time until it finds nothing more to do, and
// returns the last text that parses. It fails when maxSteps steps leave a statement to
// rewrite, so that none is left as the interpreter would run it without a word.
func repeat(u Unit, step func(p *parsed) (string, bool)) (string, error) {
	return stepUntilDone(u, step, false)
}

// stepUntilDone applies step to the unit until it finds nothing more to do and returns the
// last text. A step whose text does not parse ends the steps, with the text before it, or with
// an error when strict. It fails when maxSteps steps leave something to rewrite.
func stepUntilDone(u Unit, step func(p *parsed) (string, bool), strict bool) (string, error) {
	cur := u
	for range maxSteps {
		p, err := parse(cur)
		if err != nil {
			return cur.Text, nil // the interpreter reports what does not parse
		}
		text, ok := step(p)
		if !ok {
			return cur.Text, nil
		}
		next := cur
		next.Text = text
		if !parses(next) {
			if strict {
				return "", fmt.Errorf("the session could not rewrite this cell (the rewritten text does not parse); split the statement that fails into simpler ones")
			}
			return cur.Text, nil
		}
		cur = next
	}
	if p, err := parse(cur); err == nil {
		if _, ok := step(p); ok {
			return "", tooManySteps()
		}
	}
	return cur.Text, nil
}

// tooManySteps is the error of a pass that maxSteps steps left with a statement to rewrite.
func tooManySteps() error {
	return fmt.Errorf("this part of the cell has more than %d statements that the session must rewrite for the interpreter; split it into smaller cells or functions", maxSteps)
}

// maxSteps bounds the statements of one unit that a pass rewrites one at a time (each step
// parses the unit again), and the depth of nested sites that rewriteAll rewrites. It is a
// variable so that tests can lower it.
var maxSteps = 300
