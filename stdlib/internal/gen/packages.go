package main

import "github.com/gosbi/gosbi/stdlib/internal/omit"

// A tableSet is one generated package of tables: the directory it is written to (relative to
// package stdlib's directory) and its package name. The standard library and the other
// modules' packages change only with the Go version and go.mod; gosbi's own packages change
// with every edit of their API, so their tables live in a package of their own, which
// `go generate ./stdlib/gosbi` regenerates alone.
type tableSet struct {
	name string   // the value of -set that selects it
	dir  string   // its directory, relative to package stdlib's
	pkg  string   // its package name
	std  bool     // whether it holds the standard library besides packages
	pkgs []string // the packages besides the standard library whose tables it holds
}

// sets lists the generated packages. Add a package meant for notebook cells to the packages
// of its set and run `go generate ./stdlib`; a listed package that does not exist in the tree
// (yet) is skipped with a note.
var sets = []tableSet{
	{name: "std", dir: ".", pkg: "stdlib", std: true, pkgs: []string{
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
	}},
	{name: "gosbi", dir: "gosbi", pkg: "gosbi", pkgs: []string{
		"github.com/gosbi/gosbi/display",
		"github.com/gosbi/gosbi/runenv",
		"github.com/gosbi/gosbi/sbi",
		"github.com/gosbi/gosbi/sbi/dist",
		"github.com/gosbi/gosbi/sbi/task",
		"github.com/gosbi/gosbi/sbi/diag",
		"github.com/gosbi/gosbi/sbi/calib",
		"github.com/gosbi/gosbi/sbi/certify",
		"github.com/gosbi/gosbi/sbi/variational",
		"github.com/gosbi/gosbi/sbi/npy",
		"github.com/gosbi/gosbi/sbi/simstore",
		"github.com/gosbi/gosbi/viz",
		"github.com/gosbi/gosbi/study",
	}},
}

// stdOmitted reports whether the standard-library package path is left out of the tables
// (the list and the reasons are in package omit).
func stdOmitted(path string) bool { return omit.Why(path) != "" }
