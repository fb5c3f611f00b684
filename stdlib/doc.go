// Package stdlib holds the yaegi symbol tables of every compiled package a notebook cell can
// import: the Go standard library of the installed Go version, gonum, gonum/plot and the
// packages of this repository meant for cells. It also holds their documentation (signature
// and doc comment of each exported name) for inspection in the notebook.
//
// The tables are generated: run `go generate ./stdlib` after changing the Go version, a
// dependency or the exported API of a package in the list (internal/gen/packages.go).
package stdlib
