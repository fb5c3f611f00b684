package explain

import (
	"fmt"
	"strings"
)

// compilerPanic: a panic without frames of the user's code comes from the interpreter's
// compiler, which panics on some constructs it lacks (range over a function: "nil type")
// instead of refusing them, and on some errors of the cell that Go would report (append(),
// new() or make() without arguments, range over a float, a map keyed by a slice). The
// explainer says that the compiler failed, and both causes, since the panic tells neither.
var compilerPanic = Explainer{
	Name:     "compiler-panic",
	Upstream: "yaegi's compiler panics on constructs it does not support (range over a function panics with \"nil type\"); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.CompilerPanic || strings.Contains(f.Msg, "CFG") || posRE.MatchString(f.Msg) {
			return
		}
		f.Msg = fmt.Sprintf("the interpreter's compiler failed on this cell (%s) without saying where: "+
			"the cell may have an error that Go would report (such as append, new or make without their "+
			"arguments, or an invalid type), or use a Go feature the interpreter lacks (range over functions, "+
			"iterators, some generic types): check the cell, or rewrite that part", f.Msg)
	},
}
