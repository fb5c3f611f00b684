package explain

import "regexp"

// reflectNil: the interpreter reaches pointers, interface values and functions through
// package reflect, so using a nil one panics with reflect's message ("reflect: call of
// reflect.Value.Set on zero Value" for *p with p nil), which names a package the user never
// called. Go's message for each of these is the nil pointer dereference; the interpreter's own
// message follows it, as its cause is read from the message alone.
var reflectNil = Explainer{
	Name:     "reflect-nil",
	Upstream: "yaegi panics with reflect's message (\"reflect: call of reflect.Value.Set on zero Value\", \"reflect: Method on nil interface value\", \"reflect.Value.Call: call of nil function\") where Go says \"runtime error: invalid memory address or nil pointer dereference\"; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.Compile && reflectNilRE.MatchString(f.Msg) {
			f.Note += "\n(the interpreter's message: " + f.Msg + ")"
			f.Msg = nilDeref
		}
	},
}

// nilDeref is Go's message for the use of a nil pointer, interface value or function.
const nilDeref = "runtime error: invalid memory address or nil pointer dereference"

// reflectNilRE matches reflect's messages for a nil pointer dereferenced (its zero Value, read,
// set or reached into), a method called on a nil interface value and a nil function called.
var reflectNilRE = regexp.MustCompile(`^(?:reflect: call of reflect\.Value\.(?:Set|Field) on zero Value|reflect: Method on nil interface value|reflect\.Value\.Call: call of nil function)$`)
