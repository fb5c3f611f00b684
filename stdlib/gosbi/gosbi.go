// Package gosbi holds the yaegi symbol tables and documentation of gosbi's own packages meant
// for notebook cells (display, runenv, sbi and its subpackages, viz, study). Importing it adds
// them to stdlib.Symbols and stdlib.Docs: its tables are written into those maps.
//
// The tables are generated, apart from those of the standard library and gonum because they
// change with every edit of gosbi's exported API: run `go generate ./stdlib/gosbi` after such
// an edit (`go generate ./stdlib` regenerates all tables). The list of packages is in
// ../internal/gen/packages.go.
package gosbi

import (
	"reflect"

	"github.com/gosbi/gosbi/stdlib"
)

//go:generate go run -C .. ./internal/gen -set gosbi

// Symbols, Docs, PackageDocs and ModuleDeps are stdlib's maps, which the generated tables
// fill.
var (
	Symbols     map[string]map[string]reflect.Value = stdlib.Symbols
	Docs        map[string]map[string]string        = stdlib.Docs
	PackageDocs map[string]string                   = stdlib.PackageDocs
	ModuleDeps  map[string][]string                 = stdlib.ModuleDeps
)
