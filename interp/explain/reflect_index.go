package explain

import (
	"strings"
)

// reflectIndex: the interpreter indexes slices and arrays through package reflect, so an index
// out of range panics with reflect's message, which names a package the user never called.
var reflectIndex = Explainer{
	Name:     "reflect-index",
	Upstream: "yaegi panics with \"reflect: slice index out of range\" where Go says \"runtime error: index out of range\"; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile {
			return
		}
		if strings.HasPrefix(f.Msg, "reflect: slice index out of range") || strings.HasPrefix(f.Msg, "reflect: array index out of range") {
			f.Msg = "runtime error: index out of range"
		}
	},
}
