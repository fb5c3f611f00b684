package explain

import (
	"regexp"
)

// methodValue: the interpreter types a method value taken from an interface value (d.LogProb
// with d a dist.Distribution) as a function without the method's parameters, so assigning or
// passing it fails with a signature mismatch that names neither. The explainer gives the
// likely cause and the function literal that works.
var methodValue = Explainer{
	Name:     "method-value",
	Upstream: "yaegi gives a method value of an interface value the wrong function type (\"func(int) int is not assignable to type func() int\"); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if funcMismatchRE.MatchString(f.Msg) {
			f.Note += methodValueNote
		}
	},
}

// funcMismatchRE matches the interpreter's messages for a function value of one signature
// used as another, at compile time and at run time.
var funcMismatchRE = regexp.MustCompile(`(?:cannot use type func\(.*as type func\(|value of type func\(.*is not assignable to type func\()`)

const methodValueNote = " (if this is a method value of an interface value, such as d.LogProb with d a dist.Distribution, " +
	"the interpreter gets its type wrong: use a function literal, e.g. func(x *mat.Dense) []float64 { return d.LogProb(x) })"
