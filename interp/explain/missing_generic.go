package explain

import (
	"regexp"
)

// missingGeneric: the standard library's generic functions are missing from the interpreter's
// symbol tables, since a symbol table holds compiled values and Go cannot take the value of an
// uninstantiated generic function; the interpreter's own partial versions of slices and maps
// lack these. The message "undefined selector: slices.Sort" gets what to use instead.
var missingGeneric = Explainer{
	Name:     "missing-generic",
	Upstream: "yaegi has no slices.Sort, slices.Max, slices.Min, slices.BinarySearch, maps.Keys, maps.Values, sync.OnceValue or sync.OnceValues (\"undefined selector\", \"has no symbol\"); no upstream issue found",
	Explain: func(env Env, f *Failure) {
		if !f.Compile {
			return
		}
		if hint, ok := missingHints[missingMember(f.Msg)]; ok {
			f.Msg += " (" + hint + ")"
		}
	},
}

// The interpreter's messages for a missing member of a package: "undefined selector" for its
// own generic packages (slices, maps), with a colon where the member is called, without one
// where its value is taken; "has no symbol" for a package of the symbol tables.
var (
	undefinedSelectorRE = regexp.MustCompile(`undefined selector:? (\w+\.\w+)`)
	noSymbolRE          = regexp.MustCompile(`package (\w+) "([^"]*)" has no symbol (\w+)`)
)

// missingMember returns the missing member that msg names, as "pkg.Name", or "". A package of
// another path than the standard one of its name (golang.org/x/exp/slices) is not one the
// hints are about: it gives "".
func missingMember(msg string) string {
	if m := undefinedSelectorRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := noSymbolRE.FindStringSubmatch(msg); m != nil && m[2] == m[1] {
		return m[1] + "." + m[3]
	}
	return ""
}

// missingHints say what to use instead of the standard functions the interpreter lacks.
var missingHints = map[string]string{
	"slices.Sort":         "the interpreter's slices package has no sorting: use sort.Float64s, sort.Ints, sort.Strings or sort.Slice",
	"slices.Max":          "the interpreter's slices package lacks it: use floats.Max from gonum.org/v1/gonum/floats, or a loop",
	"slices.Min":          "the interpreter's slices package lacks it: use floats.Min from gonum.org/v1/gonum/floats, or a loop",
	"slices.BinarySearch": "the interpreter's slices package lacks it: use sort.SearchFloat64s, sort.SearchInts or sort.Search",
	"maps.Keys":           "iterators are not supported by the interpreter: loop over the map with for k := range m",
	"maps.Values":         "iterators are not supported by the interpreter: loop over the map with for _, v := range m",
	"sync.OnceValue":      "the interpreter lacks it: use a sync.Once",
	"sync.OnceValues":     "the interpreter lacks it: use a sync.Once",
}
