package explain

import (
	"go/ast"
	"regexp"
)

// reflectSlice: the interpreter slices slices, arrays and strings through package reflect, so
// a slice expression with bounds out of range panics with reflect's message
// ("reflect.Value.Slice: slice index out of bounds"), which names a package the user never
// called. Go's message is "runtime error: slice bounds out of range" followed by the bounds and
// the length or capacity, which reflect's message does not carry: the translation gives Go's
// message without them, then the interpreter's own message and a note that says what is
// missing. It translates only when
// the code of the panic's innermost frame holds a slice expression, as reflect's message may
// also come from a call of reflect's Slice.
var reflectSlice = Explainer{
	Name:     "reflect-slice",
	Upstream: "yaegi panics with reflect's message (\"reflect.Value.Slice: slice index out of bounds\", \"reflect.Value.Slice: string slice index out of bounds\", \"reflect.Value.Slice3: slice index out of bounds\") where Go says \"runtime error: slice bounds out of range [:5] with capacity 3\"; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if f.Compile || len(f.Frames) == 0 || !reflectSliceRE.MatchString(f.Msg) {
			return
		}
		if !hasSite(env, f.Frames[0], isSlice) {
			return
		}
		f.Note += "\n(the interpreter's message: " + f.Msg + ")\n" + boundsUnknown
		f.Msg = sliceBounds
	},
}

// sliceBounds is Go's message for a slice expression with bounds out of range, without the
// bounds and the length or capacity that Go adds.
const sliceBounds = "runtime error: slice bounds out of range"

// boundsUnknown says what Go's message for a slice expression out of range has that the report
// lacks.
const boundsUnknown = "(the interpreter reports neither the bounds nor the length or capacity, which Go's message adds)"

// reflectSliceRE matches reflect's messages for bounds out of range of a slice, an array or a
// string sliced with two indices, and of a slice or an array sliced with three.
var reflectSliceRE = regexp.MustCompile(`^reflect\.Value\.(?:Slice: (?:string )?|Slice3: )slice index out of bounds$`)

// isSlice reports whether n is a slice expression.
func isSlice(n ast.Node, _ bool) bool {
	_, ok := n.(*ast.SliceExpr)
	return ok
}
