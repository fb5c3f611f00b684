package explain

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// The helpers of this file explain messages that do not come from the interpreter.

// Kinds of the session's declarations, for CompiledUndefined.
const (
	KindVar   = "var"
	KindConst = "const"
	KindFunc  = "func"
	KindType  = "type"
)

var undefinedRE = regexp.MustCompile(`undefined: ([\pL_][\pL\pN_]*)`)

// CompiledUndefined explains the go command's "undefined: xs" in the errors of a %%compile
// cell when xs is a declaration of an interpreted cell: the go command compiles the %%compile
// cells as a package of their own, which sees only its own declarations and the packages it
// imports, never the session's variables. decl returns the kind (KindVar, …) and cell of a
// declaration of the session; ok is false when there is none. The result is msg with one
// note per such name, which says how to pass the value in.
func CompiledUndefined(msg string, decl func(name string) (kind string, cell int, ok bool)) string {
	if decl == nil {
		return msg
	}
	seen := map[string]bool{}
	var notes []string
	for _, m := range undefinedRE.FindAllStringSubmatch(msg, -1) {
		name := m[1]
		if seen[name] {
			continue
		}
		seen[name] = true
		kind, cell, ok := decl(name)
		if !ok {
			continue
		}
		notes = append(notes, compiledNote(name, kind, cell))
	}
	if len(notes) == 0 {
		return msg
	}
	return msg + "\n" + strings.Join(notes, "\n")
}

func compiledNote(name, kind string, cell int) string {
	what, how := "", ""
	switch kind {
	case KindVar:
		what = "a variable"
		how = fmt.Sprintf("pass its value in as a function argument: give the compiled function a parameter "+
			"(func f(%s T) …) and call f(%s) from an ordinary cell", name, name)
	case KindConst:
		what = "a constant"
		how = fmt.Sprintf("declare %s in the %%%%compile cell instead (ordinary cells see it too), or pass it in as a function argument", name)
	case KindFunc:
		what = "a function"
		how = fmt.Sprintf("move %s into a %%%%compile cell (ordinary cells can still call it), or pass it in as an argument of function type", name)
	case KindType:
		what = "a type"
		how = fmt.Sprintf("declare %s in a %%%%compile cell instead (ordinary cells can use it)", name)
	default:
		what = "a declaration"
		how = "declare it in a %%compile cell, or pass its value in as a function argument"
	}
	return fmt.Sprintf("note: %s is %s of the interpreted cell [%d]: a %%%%compile cell sees only its own declarations, "+
		"those of the other %%%%compile cells and the packages it imports, not the session's; %s", name, what, cell, how)
}

// Unusable returns why an error message about a missing symbol of a linked package names an
// identifier that cells cannot use, or "". Go's message names the package by the last element
// of its path ("undefined: sim.Map"), which is the name a cell imports it as. unusable lists them as "path.Name: why": the
// exported generic functions and types of the packages a worker links, which no symbol table
// can hold (Go cannot take the value of an uninstantiated generic function).
func Unusable(msg string, unusable []string) string {
	for _, u := range unusable {
		full, why, _ := strings.Cut(u, ": ")
		i := strings.LastIndexByte(full, '.')
		if i < 0 {
			continue
		}
		pkg, name := full[:i], full[i+1:]
		// the interpreter's messages, and Go's as the undefined-selector explainer gives it
		if strings.Contains(msg, fmt.Sprintf("%q has no symbol %s", pkg, name)) || strings.Contains(msg, "undefined selector "+full) ||
			regexp.MustCompile(`undefined: `+regexp.QuoteMeta(path.Base(pkg)+"."+name)+`\b`).MatchString(msg) {
			return fmt.Sprintf("%s cannot be used in cells: %s", full, why)
		}
	}
	return ""
}
