// Package explain turns what the yaegi interpreter reports for a failed cell into the one error
// a notebook user reads: positions in the cell's own lines ("cell [3] line 2:5"), the frames of
// the user's functions for a panic, and an explanation where the interpreter's message
// misleads or says too little.
//
// A session hands a failure to Compile (the interpreter refused the cell), Panic (the cell
// panicked, or the interpreter's compiler did) or Located (the session's own error at a
// position), with an Env: what the explainers may ask of the session about the cell and its
// declarations. Each returns a Report.
//
// # Explainers
//
// An Explainer covers one behaviour of the interpreter, named in its Upstream field with the
// upstream issue where one exists, and each has a canary test that runs the bare construct
// through yaegi and fails once upstream changes that behaviour: then the explainer can go, or
// must follow. They run in the order of Pipeline on a Failure, which holds the message in the
// interpreter's positions; the positions are translated last. The explainers, each in the file
// of its name: compiler-panic, undefined-name, index-define, missing-generic,
// undefined-selector, call-arity, closure-frame, reflect-index, reflect-slice, reflect-nil,
// bare-value, method-value, call-site and panic-site.
//
// Two helpers explain messages that come from elsewhere: CompiledUndefined (the go command's
// "undefined: x" for a %%compile cell, which sees no session variable) and Unusable (the
// exported generic identifiers of a linked package, which no symbol table can hold).
//
// Stderr is the writer a session gives the interpreter as its standard error: it keeps the
// interpreter's panic frame lines for Panic and forwards the rest.
//
// Invariants: a Report's Value is never empty and names the cell (or the script's file); an
// explanation only adds to or replaces a message when the cell's source confirms its cause,
// and otherwise leaves the interpreter's message as it is.
package explain
