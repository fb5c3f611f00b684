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

// injectedSource returns the Go statements that set the parameters: an assignment for a
// parameter the parameters cell declares, a declaration for a new one. A value for a string
// parameter that is not a quoted Go string is quoted.
func injectedSource(params map[string]string, defaults map[string]token.Token) (string, error) {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// Parameters set by gosbi run.\n")
	for _, name := range names {
		if !identRE.MatchString(name) {
			return "", fmt.Errorf("parameter name %q is not a Go identifier", name)
		}
		value := params[name]
		kind, declared := defaults[name]
		if kind == token.STRING {
			if _, err := strconv.Unquote(value); err != nil {
				value = strconv.Quote(value)
			}
		}
		if _, err := parser.ParseExpr(value); err != nil {
			return "", fmt.Errorf("value %q of parameter %s is not a Go expression (quote strings: %s='\"text\"'): %v", value, name, name, err)
		}
		op := " = "
		if !declared {
			op = " := "
		}
		b.WriteString(name + op + value + "\n")
	}
	return b.String(), nil
}

// applyParameters inserts a cell with the parameter values after the cell tagged
// "parameters" (or at the top when there is none, with a warning) and returns the warnings.
// In full mode (GOSBI_FULL=1) quick is set to false unless params sets it.
func applyParameters(nb *Notebook, params map[string]string, full bool) ([]string, error) {
	params = copyParams(params)
	at := -1
	var defaults map[string]token.Token
	for i, c := range nb.Cells {
		if c.CellType == "code" && c.HasTag(ParametersTag) {
			at = i
			var err error
			if defaults, err = parameterDefaults(c.Source); err != nil {
				return nil, err
			}
			break
		}
	}
	var warnings []string
	if full {
		if _, set := params["quick"]; !set {
			if _, declared := defaults["quick"]; declared {
				params["quick"] = "false"
			} else {
				warnings = append(warnings, "GOSBI_FULL=1 has no effect: the notebook has no parameter \"quick\"")
			}
		}
	}
	if len(params) == 0 {
		return warnings, nil
	}
	src, err := injectedSource(params, defaults)
	if err != nil {
		return warnings, err
	}
	// Drop a cell injected by an earlier run.
	kept := nb.Cells[:0]
	for _, c := range nb.Cells {
		if !c.HasTag(InjectedTag) {
			kept = append(kept, c)
		}
	}
	nb.Cells = kept
	if at < 0 {
		warnings = append(warnings, fmt.Sprintf("no cell is tagged %q: the parameters are set in a new first cell", ParametersTag))
	} else {
		for i, c := range nb.Cells {
			if c.HasTag(ParametersTag) {
				at = i
				break
			}
		}
	}
	cell := &Cell{ID: newCellID(), CellType: "code", Source: src, Metadata: map[string]any{"tags": []any{InjectedTag}}}
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
