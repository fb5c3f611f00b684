package main

// Packages besides the standard library whose symbols are generated. Add a package meant for
// notebook cells here and run `go generate ./stdlib`; a listed package that does not exist in
// the tree (yet) is skipped with a note.
var packages = []string{
	"gonum.org/v1/gonum/mat",
	"gonum.org/v1/gonum/stat",
	"gonum.org/v1/gonum/stat/distuv",
	"gonum.org/v1/gonum/stat/distmv",
	"gonum.org/v1/gonum/floats",
	"gonum.org/v1/gonum/optimize",
	"gonum.org/v1/gonum/integrate/quad",
	"gonum.org/v1/gonum/interp",
	"gonum.org/v1/plot",
	"gonum.org/v1/plot/plotter",
	"gonum.org/v1/plot/vg",
	"gonum.org/v1/plot/vg/vgimg",
	"gonum.org/v1/plot/vg/vgsvg",
	"gonum.org/v1/plot/vg/draw",
	"gonum.org/v1/plot/palette",

	"github.com/gosbi/gosbi/display",
	"github.com/gosbi/gosbi/sbi",
	"github.com/gosbi/gosbi/sbi/dist",
	"github.com/gosbi/gosbi/sbi/task",
	"github.com/gosbi/gosbi/sbi/diag",
	"github.com/gosbi/gosbi/sbi/calib",
	"github.com/gosbi/gosbi/viz",
	"github.com/gosbi/gosbi/study",
}

// stdExcluded matches standard-library packages that are not offered to cells: internals,
// packages that need unrestricted access or cgo, and tools' packages.
var stdExcluded = []string{
	`(^|/)internal(/|$)`, `(^|/)vendor/`, `^cmd/`, `^unsafe$`, `^syscall`, `^runtime/cgo$`,
	`^runtime/race$`, `^runtime/msan$`, `^runtime/asan$`, `^plugin$`, `^log/syslog$`,
	`^testing/synctest$`, `^simd`, `^crypto/fips140$`,
}
