package stdlib

import (
	"strings"

	"github.com/gosbi/gosbi/stdlib/internal/omit"
)

// Omitted returns why the standard-library package path has no table, for the error of a
// cell that imports it, or "" when it has one or is not a package of the standard library.
func Omitted(path string) string {
	if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
		return "" // a module's package: the standard library's paths have no dot in their first element
	}
	return omit.Why(path)
}
