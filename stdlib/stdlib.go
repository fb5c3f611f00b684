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

// PackageDocs maps an import path to the opening of its package doc comment: its first
// paragraphs, at most 20 lines and 1500 bytes, ending in " …" when the doc goes on (go doc
// shows all of it). A package without a doc comment has no entry.
var PackageDocs = map[string]string{}

// ModuleDeps maps the import path of a package of gosbi's module with tables to the packages
// of that module it imports, directly or not, sorted: a cell that imports the package may get
// values of their types from its functions, in interfaces and fields of type any, without
// importing them. The generator writes it beside the tables, from the packages' imports.
var ModuleDeps = map[string][]string{}
