// Package extend builds extended workers: the gosbi worker program with more compiled
// packages linked in, so that notebook cells can import any Go package.
//
// A cell can import a package only if the worker process links it and holds its yaegi symbol
// table. For a package the running worker lacks, a Builder:
//
//  1. writes a build module for the notebook directory (one per directory, under the cache
//     directory, locked while in use) whose go.work uses the modules of the notebook's own
//     go.work, or the module of its go.mod, with their replace directives, so that local
//     modules and replacements resolve as they do for `go build` in that directory;
//  2. asks `go list` where each package comes from, and `go get` for a package no module
//     provides (the module cache, or the proxy when online);
//  3. hashes everything that determines the binary (the builder's format, the Go version,
//     GOOS/GOARCH, build tags, the packages, the module graph and the files of every module
//     that is not in the read-only module cache, gosbi's own included) into a key;
//  4. on a miss, generates the symbol tables with yaegi's extract package (in a helper
//     process run in the build module), writes a main package that registers them in
//     stdlib.Symbols and runs the worker, script runner or REPL, and builds it with
//     `go build`; the binary is stored atomically as CACHE/bin/KEY.
//
// Invariants: a failed build leaves the cache without a binary for its key and the caller's
// session untouched; a binary in the cache is complete (written to a temporary name, then
// renamed); the same inputs give the same key. Exported identifiers that yaegi cannot
// export (generic functions and types) are listed in Worker.Unavailable with the reason.
//
// The notebook's %%compile cells are one more package of the build module, CompiledPackage:
// one file per cell, whose //line directives keep the cell's own positions in compile errors,
// and a file that exports an alias of every name the cells declare, so that the session can
// bind them (Binding). MergeCells decides which declarations a cell run again replaces.
//
// A built program does not change the running one: the host of the session (package interp)
// replaces its process by it. Which packages and compiled cells a binary links is recorded in
// it (Linked, CompiledCells), so that the next extension builds on the same set. A gosbi
// built from a checkout builds workers from that checkout (or GOSBI_SRC); a released gosbi
// requires its own version in the build module.
//
// The package is public, like interp and stdlib, because the worker programs it generates are
// built in another module and import it.
package extend
