package explain

import (
	"fmt"
	"strings"
)

// compilerPanic: a panic without frames of the user's code comes from the interpreter's
// compiler, which panics on some constructs it lacks (range over a function: "nil type")
// instead of refusing them. The cell did not run; the explainer says so and what to do.
var compilerPanic = Explainer{
	Name:     "compiler-panic",
	Upstream: "yaegi's compiler panics on constructs it does not support (range over a function panics with \"nil type\"); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.CompilerPanic || strings.Contains(f.Msg, "CFG") || posRE.MatchString(f.Msg) {
			return
		}
		f.Msg = fmt.Sprintf("the interpreter cannot compile this cell (%s); it lacks a few Go features "+
			"(range over functions, iterators, some generic types): rewrite that part", f.Msg)
	},
}
