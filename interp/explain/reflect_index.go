package explain

import "regexp"

// reflectIndex: the interpreter indexes slices, arrays and strings through package reflect, so
// an index out of range panics with reflect's message, which names a package the user never
// called. Go's message is "runtime error: index out of range" followed by the index and the
// length, which reflect's message does not carry and the interpreter does not report: the
// translation gives Go's message without them, then the interpreter's own message and a note
// that says what is missing.
var reflectIndex = Explainer{
	Name:     "reflect-index",
	Upstream: "yaegi panics with \"reflect: slice index out of range\" (array, string) where Go says \"runtime error: index out of range [5] with length 3\"; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile || !reflectIndexRE.MatchString(f.Msg) {
			return
		}
		f.Note += "\n(the interpreter's message: " + f.Msg + ")\n" + indexUnknown
		f.Msg = "runtime error: index out of range"
	},
}

// reflectIndexRE matches reflect's messages for an index out of range of a slice, an array or
// a string.
var reflectIndexRE = regexp.MustCompile(`^reflect: (?:slice|array|string) index out of range$`)

// indexUnknown says what Go's message for an index out of range has that the report lacks.
const indexUnknown = "(the interpreter reports neither the index nor the length, which Go's message adds)"
