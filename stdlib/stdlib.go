// Package stdlib holds the yaegi symbol tables of every compiled package a notebook cell can
// import: the Go standard library of the installed Go version, gonum, gonum/plot and the
// packages of this repository meant for cells. It also holds their documentation (signature
// and doc comment of each exported name) for inspection in the notebook.
//
// The tables are generated: run `go generate ./stdlib` after changing the Go version, a
// dependency or the exported API of a package in the list (internal/gen/packages.go).
package stdlib

import "reflect"

//go:generate go run ./internal/gen

// Symbols maps "importpath/pkgname" to the exported symbols of that package, in the form
// yaegi's interp.Use expects.
var Symbols = map[string]map[string]reflect.Value{}

// Docs maps an import path to the documentation of its exported names: "Name" for functions,
// types, variables and constants, "Type.Method" for methods. Each entry is the declaration's
// signature, a blank line, and its doc comment.
var Docs = map[string]map[string]string{}
