package nbtest

import (
	"strings"
	"testing"
)

// paramsNotebook returns a notebook whose cell tagged "parameters" holds src.
func paramsNotebook(src string) *Notebook {
	return &Notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{}, Cells: []*Cell{
		{ID: "p", CellType: "code", Source: src, Metadata: map[string]any{"tags": []any{ParametersTag}}},
		{ID: "b", CellType: "code", Source: "print ran", Metadata: map[string]any{}},
	}}
}

// scopedParameters declares parameters at the top level of the cell, and variables inside
// blocks and a constant, which are not parameters.
const scopedParameters = `quick := true
n := 10
if quick {
	inner := 3
	var nested = 4
	_, _ = inner, nested
}
for i := 0; i < 2; i++ {
}
func() {
	local := 1
	_ = local
}()
var (
	rate = 0.5
)
const k = 2`

// TestParameterScope refuses a --param whose name the cell tagged "parameters" declares only
// inside a block (an if, a for, a function literal) or as a constant: only its top-level
// variables are parameters, and the error lists them.
func TestParameterScope(t *testing.T) {
	nb := paramsNotebook(scopedParameters)
	for _, name := range []string{"inner", "nested", "i", "local", "k"} {
		_, _, err := resolveParameters(nb, map[string]string{name: "1"}, false)
		want := `its parameters (the cell tagged "parameters") are: n, quick, rate`
		if err == nil || !strings.Contains(err.Error(), `no parameter "`+name+`"`) || !strings.Contains(err.Error(), want) {
			t.Errorf("--param %s=1: error %v, want one saying it is no parameter and listing %q", name, err, want)
		}
	}
	for _, name := range []string{"quick", "n", "rate"} {
		value := map[string]string{"quick": "false", "n": "3", "rate": "0.25"}[name]
		if _, _, err := resolveParameters(nb, map[string]string{name: value}, false); err != nil {
			t.Errorf("--param %s=%s: %v", name, value, err)
		}
	}
	// In a cell that is a file's declarations (it declares a function), the top-level
	// variables are the package-level ones.
	file := paramsNotebook("var quick = true\nfunc helper() {\n\tdepth := 3\n\t_ = depth\n}")
	if _, _, err := resolveParameters(file, map[string]string{"depth": "4"}, false); err == nil || !strings.Contains(err.Error(), "are: quick") {
		t.Errorf("--param depth, declared in a function of the cell: error %v, want one listing quick", err)
	}
}

// TestParameterTypes checks a --param value against the type of the parameter (its declared
// type, or that of its literal default) before anything runs: a value of another type is an
// error that names the parameter, its type, the value and a valid example, and a value that
// uses a name declared in the parameters cell says so and that a literal is wanted; the syntaxes
// accepted before (constant expressions, quoted or unquoted strings) still are.
func TestParameterTypes(t *testing.T) {
	nb := paramsNotebook(`quick := true
n := 100
rate := 0.5
name := "fake"
var seed int64 = 7
var scale float64
count := int(3)
neg := -2
d := 5 * time.Second
const k = 3`)
	for _, tc := range []struct {
		name, value string
		want        []string // nil: accepted
	}{
		{"quick", "false", nil},
		{"quick", "!true", nil},
		{"n", "2*50", nil},
		{"n", "1e3", nil},
		{"n", "-7", nil},
		{"rate", "1", nil},
		{"rate", "1e-3", nil},
		{"name", "cli", nil},
		{"name", `"quoted"`, nil},
		{"name", "`raw`", nil},
		{"name", "two words", nil},
		{"seed", "42", nil},
		{"scale", "2.5", nil},
		{"count", "4", nil},
		{"neg", "3", nil},
		{"d", "time.Minute", nil}, // not a literal default: the cell checks it
		{"quick", "maybe", []string{"--param quick=maybe", "quick is a bool", `"maybe"`, "true or false"}},
		{"quick", "1", []string{"quick is a bool", `"1"`, "true or false"}},
		{"n", "abc", []string{"--param n=abc", "n is an int", `"abc"`, "100"}},
		{"n", "1.5", []string{"n is an int", `"1.5"`}},
		{"rate", "fast", []string{"rate is a float64", `"fast"`, "0.5"}},
		{"rate", `"0.5"`, []string{"rate is a float64"}},
		{"seed", "1.5", []string{"seed is an int64", `"1.5"`}},
		{"scale", "x", []string{"scale is a float64"}},
		{"count", "true", []string{"count is an int"}},
		{"neg", "abc", []string{"neg is an int"}},
		// An expression of the names of the parameters cell is no value: the message says
		// that it uses one of them and what is accepted instead.
		{"n", "neg*2", []string{"--param n=neg*2", "n is an int", `neg is a name declared in the cell tagged "parameters"`, "a literal", "--param n=100"}},
		{"rate", "n/2", []string{"rate is a float64", `n is a name declared in the cell tagged "parameters"`, "a literal", "--param rate=0.5"}},
		{"count", "len(name)", []string{"count is an int", `name is a name declared in the cell tagged "parameters"`}},
		{"quick", "!quick", []string{"quick is a bool", `quick is a name declared in the cell tagged "parameters"`, "true or false"}},
		// nor is one of its constants, which the message does not call a variable
		{"n", "k*2", []string{"n is an int", `k is a name declared in the cell tagged "parameters"`, "a literal", "--param n=100"}},
	} {
		_, _, err := resolveParameters(nb, map[string]string{tc.name: tc.value}, false)
		if tc.want == nil {
			if err != nil {
				t.Errorf("--param %s=%s: %v", tc.name, tc.value, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("--param %s=%s: error %v, want one saying %q", tc.name, tc.value, err, w)
			}
		}
	}
	// A parameter whose type cannot be told from its cell is checked only when the injected
	// cell runs, and the run says so.
	warnings, err := applyParameters(paramsNotebook("d := 5 * time.Second"), map[string]string{"d": "time.Minute"}, false)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "--param d") || !strings.Contains(warnings[0], "not checked") {
		t.Errorf("--param d=time.Minute: warnings %q, error %v, want a warning that its value is not checked", warnings, err)
	}
}
