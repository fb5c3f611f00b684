package interp

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestHostImportsNoLibrary checks the layering of the host seam: the interpreter sets the
// context, progress and display of library calls through package runenv, so it imports no
// package of the science library (sbi, its subpackages, viz) itself. The library reaches
// cells only through the generated symbol tables.
func TestHostImportsNoLibrary(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/gosbi/gosbi/"
	for _, path := range pkg.Imports {
		rel, ok := strings.CutPrefix(path, mod)
		if !ok {
			continue
		}
		if rel == "sbi" || strings.HasPrefix(rel, "sbi/") || rel == "viz" {
			t.Errorf("interp imports %s; it should set the library's settings through runenv", path)
		}
	}
	if !slices.Contains(pkg.Imports, mod+"runenv") {
		t.Errorf("interp does not import %srunenv, through which it sets context, progress and display", mod)
	}
}
