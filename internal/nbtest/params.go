package nbtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ParametersTag marks the cell that holds a notebook's parameters and their defaults.
const ParametersTag = "parameters"

// InjectedTag marks the cell the runner inserts with the overriding values.
const InjectedTag = "injected-parameters"

// parameterDefaults returns the variables the parameters cell declares, with the kind of their
// default value (token.STRING for a string literal, token.ILLEGAL otherwise).
func parameterDefaults(src string) (map[string]token.Token, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "parameters.go", "package p\nfunc _() {\n"+src+"\n}", 0)
	if err != nil {
		// The parameters cell may hold declarations (var blocks): try it as a file.
		f, err = parser.ParseFile(fset, "parameters.go", "package p\n"+src, 0)
		if err != nil {
			return nil, fmt.Errorf("the cell tagged %q is not valid Go: %w", ParametersTag, err)
		}
	}
	out := map[string]token.Token{}
	kind := func(e ast.Expr) token.Token {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			return token.STRING
		}
		return token.ILLEGAL
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && i < len(n.Rhs) {
					out[id.Name] = kind(n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				k := token.ILLEGAL
				if i < len(n.Values) {
					k = kind(n.Values[i])
				}
				if t, ok := n.Type.(*ast.Ident); ok && t.Name == "string" {
					k = token.STRING
				}
				out[id.Name] = k
			}
		}
		return true
	})
	return out, nil
}

var identRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{Nd}_]*$`)

// injectedSource returns the Go statements that set the parameters, an assignment each. A value
// for a string parameter that is not a quoted Go string is quoted.
func injectedSource(params map[string]string, defaults map[string]token.Token) (string, error) {
	var b strings.Builder
	b.WriteString("// Parameters set by gosbi run.\n")
	for _, name := range sortedNames(params) {
		value := params[name]
		if defaults[name] == token.STRING {
			if _, err := strconv.Unquote(value); err != nil {
				value = strconv.Quote(value)
			}
		}
		if _, err := parser.ParseExpr(value); err != nil {
			return "", fmt.Errorf("value %q of parameter %s is not a Go expression (quote strings: %s='\"text\"'): %v", value, name, name, err)
		}
		b.WriteString(name + " = " + value + "\n")
	}
	return b.String(), nil
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// parametersCell returns the index of the cell tagged "parameters" (-1 when there is none) and
// the parameters it declares.
func parametersCell(nb *Notebook) (int, map[string]token.Token, error) {
	for i, c := range nb.Cells {
		if c.CellType == "code" && c.HasTag(ParametersTag) {
			defaults, err := parameterDefaults(c.Source)
			return i, defaults, err
		}
	}
	return -1, nil, nil
}

// resolveParameters returns the values to inject into nb: params, and in full mode quick =
// false (GOSBI_FULL=1 is --param quick=false). Every name must be a parameter the notebook
// declares in its cell tagged "parameters": a mistyped name is an error that lists them.
func resolveParameters(nb *Notebook, params map[string]string, full bool) (map[string]string, map[string]token.Token, error) {
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
	at, defaults, err := parametersCell(nb)
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
	for _, name := range sortedNames(params) {
		if _, ok := defaults[name]; ok {
			continue
		}
		msg := fmt.Sprintf("%s: the notebook has no parameter %q", what(name), name)
		if near := closest(name, defaults); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		if len(defaults) == 0 {
			return nil, nil, fmt.Errorf("%s; its cell tagged %q declares none", msg, ParametersTag)
		}
		return nil, nil, fmt.Errorf("%s; its parameters (the cell tagged %q) are: %s", msg, ParametersTag, strings.Join(sortedNames(defaults), ", "))
	}
	return params, defaults, nil
}

// closest returns the declared name nearest to name when it is a likely typo (at most two
// edits away), else "".
func closest(name string, declared map[string]token.Token) string {
	best, bestD := "", 3
	for _, d := range sortedNames(declared) {
		if e := editDistance(name, d); e < bestD {
			best, bestD = d, e
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// applyParameters drops a cell injected by an earlier run, even when no parameter is given
// now (the run then has the defaults, as it would have before that earlier run), and inserts a
// cell with the parameter values after the cell tagged "parameters" (see resolveParameters for
// the checks).
func applyParameters(nb *Notebook, params map[string]string, full bool) ([]string, error) {
	params, defaults, err := resolveParameters(nb, params, full)
	if err != nil {
		return nil, err
	}
	src := ""
	if len(params) > 0 {
		if src, err = injectedSource(params, defaults); err != nil {
			return nil, err
		}
	}
	kept := nb.Cells[:0]
	for _, c := range nb.Cells {
		if !c.HasTag(InjectedTag) {
			kept = append(kept, c)
		}
	}
	clear(nb.Cells[len(kept):])
	nb.Cells = kept
	if len(params) == 0 {
		return nil, nil
	}
	at, _, _ := parametersCell(nb)
	cell := &Cell{ID: newCellID(), CellType: "code", Source: src, Metadata: map[string]any{"tags": []any{InjectedTag}}}
	nb.Cells = append(nb.Cells[:at+1], append([]*Cell{cell}, nb.Cells[at+1:]...)...)
	return nil, nil
}

func copyParams(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
