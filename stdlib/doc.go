// Package stdlib holds the yaegi symbol tables of the compiled packages a notebook cell can
// import from the Go standard library of the installed Go version, gonum and gonum/plot; the
// tables of gosbi's own packages meant for cells are in package stdlib/gosbi, which adds them
// to Symbols and Docs when imported. It also holds the documentation (signature and doc
// comment of each exported name) for inspection in the notebook.
//
// The standard library's packages for tools, servers and cryptography (debug/..., go/...,
// crypto/tls and the ciphers, net/http/pprof, testing/..., ...) have no table; internal/omit
// lists them with the reason, which Omitted returns for the error of a cell importing one.
//
// The tables are generated: run `go generate ./stdlib` after changing the Go version or a
// dependency, and `go generate ./stdlib/gosbi` after changing the exported API of one of
// gosbi's packages (the lists are in internal/gen/packages.go).
//
// The package is public, like interp and interp/extend, because the extended workers built in
// another module import it.
package stdlib
