package nbtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/internal/text"
)

// ParametersTag marks the cell that holds a notebook's parameters and their defaults.
const ParametersTag = "parameters"

// InjectedTag marks the cell the runner inserts with the overriding values.
const InjectedTag = "injected-parameters"

// parameter is a variable declared at the top level of the cell tagged "parameters".
type parameter struct {
	// typ is its type where the cell tells it: a predeclared type named in its declaration, or
	// the type of a constant default such as true, 100, 0.5 or "text". nil: not told.
	typ *types.Basic
	// example is its default when that is a constant, as Go writes it ("" otherwise).
	example string
}

// parameterDefaults returns the parameters of the cell tagged "parameters": the variables it
// declares at its top level (with := or =, or var), not those declared inside a block of it
// (an if, a for, a function) nor its constants, which an injected assignment cannot set.
// inner holds the names declared elsewhere in the cell, for the message that refuses them.
func parameterDefaults(src string) (params map[string]parameter, inner map[string]bool, err error) {
	fset := token.NewFileSet()
	var top []ast.Node
	f, err := parser.ParseFile(fset, "parameters.go", "package p\nfunc _() {\n"+src+"\n}", 0)
	if err == nil {
		for _, s := range f.Decls[0].(*ast.FuncDecl).Body.List {
			top = append(top, s)
		}
	} else {
		// The parameters cell may hold declarations (functions, imports): try it as a file.
		f, err = parser.ParseFile(fset, "parameters.go", "package p\n"+src, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("the cell tagged %q is not valid Go: %w", ParametersTag, err)
		}
		for _, d := range f.Decls {
			top = append(top, d)
		}
	}
	params = map[string]parameter{}
	for _, n := range top {
		topLevelVars(n, params)
	}
	inner = map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE {
					inner[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				inner[id.Name] = true
			}
		}
		return true
	})
	for name := range params {
		delete(inner, name)
	}
	return params, inner, nil
}

// topLevelVars adds to params the variables that n, a statement or declaration at the top
// level of the parameters cell, declares or assigns; the first declaration of a name counts.
func topLevelVars(n ast.Node, params map[string]parameter) {
	add := func(id *ast.Ident, p parameter) {
		if _, seen := params[id.Name]; !seen && id.Name != "_" {
			params[id.Name] = p
		}
	}
	if d, ok := n.(*ast.DeclStmt); ok {
		n = d.Decl
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE && n.Tok != token.ASSIGN {
			return
		}
		for i, l := range n.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				var p parameter
				if len(n.Rhs) == len(n.Lhs) {
					p = constantParameter(n.Rhs[i], nil)
				}
				add(id, p)
			}
		}
	case *ast.GenDecl:
		if n.Tok != token.VAR {
			return
		}
		for _, spec := range n.Specs {
			vs := spec.(*ast.ValueSpec)
			typ := basicType(vs.Type)
			for i, id := range vs.Names {
				p := parameter{typ: typ}
				if len(vs.Values) == len(vs.Names) && (typ != nil || vs.Type == nil) {
					p = constantParameter(vs.Values[i], typ)
				}
				add(id, p)
			}
		}
	}
}

// basicType returns the predeclared type e names (bool, int, float64, string...), or nil.
func basicType(e ast.Expr) *types.Basic {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	tn, ok := types.Universe.Lookup(id.Name).(*types.TypeName)
	if !ok {
		return nil
	}
	b, ok := tn.Type().(*types.Basic)
	if !ok || b.Info()&types.IsUntyped != 0 {
		return nil
	}
	return b
}

// constantParameter returns the parameter whose default is e, of type typ (nil: the type of
// e). It knows the type of e only when e is a constant expression that needs no name of the
// notebook, such as 100, -0.5, "text", true or float64(3).
func constantParameter(e ast.Expr, typ *types.Basic) parameter {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(token.NewFileSet(), nil, token.NoPos, e, info); err != nil {
		return parameter{typ: typ}
	}
	tv := info.Types[e]
	if tv.Value == nil {
		return parameter{typ: typ}
	}
	if typ == nil {
		b, ok := types.Default(tv.Type).(*types.Basic)
		if !ok {
			return parameter{}
		}
		typ = b
	}
	return parameter{typ: typ, example: tv.Value.String()}
}

// checkValue checks that value is a Go expression and, where the type of the parameter p is
// known, that it can be assigned to it as the injected cell will assign it: a constant of
// another type, or a name the check does not know (--param quick=maybe), is refused before
// anything runs. A value of a known type must be a constant: one that uses a name declared in
// the parameters cell (--param n=m*2), a variable, constant or local of a function there,
// which cellNames holds, is refused with a message that says so.
// what names the setting in the message.
func checkValue(what, name, value string, p parameter, cellNames map[string]bool) error {
	fset := token.NewFileSet()
	e, err := parser.ParseExprFrom(fset, "value", value, 0)
	if err != nil {
		return fmt.Errorf("%s: value %q is not a Go expression (quote strings: %s='\"text\"'): %v", what, value, name, err)
	}
	if p.typ == nil || p.typ.Info()&types.IsString != 0 {
		return nil
	}
	f := &ast.File{Name: ast.NewIdent("p"), Decls: []ast.Decl{&ast.GenDecl{Tok: token.VAR, Specs: []ast.Spec{
		&ast.ValueSpec{Names: []*ast.Ident{ast.NewIdent("_")}, Type: ast.NewIdent(p.typ.Name()), Values: []ast.Expr{e}}}}}}
	if _, err := new(types.Config).Check("p", fset, []*ast.File{f}, nil); err != nil {
		if v := cellName(e, cellNames); v != "" {
			return fmt.Errorf("%s: %s is %s in the cell tagged %q, and %q uses %s, but %s is a name declared in the cell tagged %q, which a value cannot use: "+
				"a value is a literal of the parameter's type or an expression of literals; give %s",
				what, name, article(p.typ.Name()), ParametersTag, value, v, v, ParametersTag, example(name, p))
		}
		msg := err.Error()
		if te, ok := err.(types.Error); ok {
			msg = te.Msg
		}
		return fmt.Errorf("%s: %s is %s in the cell tagged %q, and %q is not %s constant (%s); give %s",
			what, name, article(p.typ.Name()), ParametersTag, value, article(p.typ.Name()), msg, example(name, p))
	}
	return nil
}

// cellName returns the first name in e that cellNames holds, or "".
func cellName(e ast.Expr, cellNames map[string]bool) string {
	var found string
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && found == "" && cellNames[id.Name] {
			found = id.Name
		}
		return found == ""
	})
	return found
}

// article returns the type name after its indefinite article: "an int", "a bool".
func article(typ string) string {
	if strings.HasPrefix(typ, "int") {
		return "an " + typ
	}
	return "a " + typ
}

// example says what a valid value of the parameter p named name looks like.
func example(name string, p parameter) string {
	info, v := p.typ.Info(), p.example
	switch {
	case info&types.IsBoolean != 0:
		if v != "true" {
			v = "false"
		}
		return fmt.Sprintf("true or false, e.g. --param %s=%s", name, map[string]string{"true": "false", "false": "true"}[v])
	case v != "":
	case info&types.IsInteger != 0:
		v = "10"
	case info&types.IsFloat != 0:
		v = "0.5"
	case info&types.IsComplex != 0:
		v = "1+2i"
	}
	return fmt.Sprintf("one such as --param %s=%s", name, v)
}

var identRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{Nd}_]*$`)

// injectedSource returns the Go statements that set the parameters to values (checked and
// quoted by resolveParameters), an assignment each.
func injectedSource(values map[string]string) string {
	var b strings.Builder
	b.WriteString("// Parameters set by gosbi run.\n")
	for _, name := range sortedNames(values) {
		b.WriteString(name + " = " + values[name] + "\n")
	}
	return b.String()
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// parametersCell returns the index of the cell tagged "parameters" (-1 when there is none),
// the parameters it declares and the other names it declares (see parameterDefaults).
func parametersCell(nb *Notebook) (int, map[string]parameter, map[string]bool, error) {
	for i, c := range nb.Cells {
		if c.CellType == "code" && c.HasTag(ParametersTag) {
			params, inner, err := parameterDefaults(c.Source)
			return i, params, inner, err
		}
	}
	return -1, nil, nil, nil
}

// resolveParameters returns the values to inject into nb: params, and in full mode quick =
// false (GOSBI_FULL=1 is --param quick=false), a string parameter's value quoted unless it is
// a quoted Go string. Every name must be a top-level variable of the notebook's cell tagged
// "parameters": another name is an error that lists them. Every value must be a Go expression
// of the parameter's type where the cell tells the type; where it does not, a warning says
// that the value is checked only when the injected cell runs.
func resolveParameters(nb *Notebook, params map[string]string, full bool) (values map[string]string, warnings []string, err error) {
	params = copyParams(params)
	_, userQuick := params["quick"]
	if full {
		if v, set := params["quick"]; set && strings.TrimSpace(v) != "false" {
			return nil, nil, fmt.Errorf("GOSBI_FULL=1 sets quick to false, but --param quick=%s is given: drop one of them", v)
		}
		params["quick"] = "false"
	}
	if len(params) == 0 {
		return params, nil, nil
	}
	for name := range params {
		if !identRE.MatchString(name) {
			return nil, nil, fmt.Errorf("parameter name %q is not a Go identifier", name)
		}
	}
	at, declared, inner, err := parametersCell(nb)
	if err != nil {
		return nil, nil, err
	}
	what := func(name string) string {
		if full && !userQuick && name == "quick" {
			return "GOSBI_FULL=1 (which is --param quick=false)"
		}
		return "--param " + name
	}
	if at < 0 {
		name := sortedNames(params)[0]
		return nil, nil, fmt.Errorf("%s has nothing to set: no cell is tagged %q (tag the cell that holds the parameters' defaults)", what(name), ParametersTag)
	}
	cellNames := maps.Clone(inner)
	for name := range declared {
		cellNames[name] = true
	}
	for _, name := range sortedNames(params) {
		p, ok := declared[name]
		if !ok {
			return nil, nil, unknownParameter(what(name), name, declared, inner)
		}
		value := params[name]
		if p.typ != nil && p.typ.Info()&types.IsString != 0 {
			if _, err := strconv.Unquote(value); err != nil {
				value = strconv.Quote(value)
			}
		}
		if err := checkValue(what(name)+"="+params[name], name, value, p, cellNames); err != nil {
			return nil, nil, err
		}
		if p.typ == nil {
			warnings = append(warnings, fmt.Sprintf("%s=%s is not checked before the run: the cell tagged %q gives %s neither a type nor a constant default, "+
				"so a wrong value fails only when the injected cell runs", what(name), params[name], ParametersTag, name))
		}
		params[name] = value
	}
	return params, warnings, nil
}

// unknownParameter is the error for a name that is not a parameter of the notebook: it lists
// those that are, names the likely one, and says why a name the cell declares elsewhere is
// not one.
func unknownParameter(what, name string, declared map[string]parameter, inner map[string]bool) error {
	msg := fmt.Sprintf("%s: the notebook has no parameter %q", what, name)
	switch near := closest(name, declared); {
	case inner[name]:
		msg += fmt.Sprintf(" (its cell tagged %q declares %s inside a block or as a constant, and only the variables of its top level are parameters)", ParametersTag, name)
	case near != "":
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	if len(declared) == 0 {
		return fmt.Errorf("%s; its cell tagged %q declares none", msg, ParametersTag)
	}
	return fmt.Errorf("%s; its parameters (the cell tagged %q) are: %s", msg, ParametersTag, strings.Join(sortedNames(declared), ", "))
}

// closest returns the declared name nearest to name when it is a likely typo (a difference of
// case, or at most two edits away), else "".
func closest(name string, declared map[string]parameter) string {
	return text.Nearest(name, sortedNames(declared))
}

// applyParameters drops a cell injected by an earlier run, even when no parameter is given
// now (the run then has the defaults, as it would have before that earlier run), and inserts a
// cell with the parameter values after the cell tagged "parameters" (see resolveParameters for
// the checks and the warnings).
func applyParameters(nb *Notebook, params map[string]string, full bool) ([]string, error) {
	values, warnings, err := resolveParameters(nb, params, full)
	if err != nil {
		return nil, err
	}
	kept := nb.Cells[:0]
	for _, c := range nb.Cells {
		if !c.HasTag(InjectedTag) {
			kept = append(kept, c)
		}
	}
	clear(nb.Cells[len(kept):])
	nb.Cells = kept
	if len(values) == 0 {
		return warnings, nil
	}
	at, _, _, _ := parametersCell(nb)
	cell := &Cell{ID: newCellID(), CellType: "code", Source: injectedSource(values), Metadata: map[string]any{"tags": []any{InjectedTag}}}
	nb.Cells = append(nb.Cells[:at+1], append([]*Cell{cell}, nb.Cells[at+1:]...)...)
	return warnings, nil
}

func copyParams(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
