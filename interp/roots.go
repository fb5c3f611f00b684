package interp

import (
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
)

// dropRoots empties the interpreter's list of the root nodes of every program it compiled.
// The interpreter appends to it at each evaluation and reads it only for its debugger, which
// the session does not use, so a long session kept every cell's syntax tree (about 5 KB per
// cell) for nothing. The nodes that declarations still use stay reachable from the
// interpreter's scopes. When the field is missing or of another type (a newer interpreter),
// nothing is done.
func dropRoots(yi *yaegi.Interpreter) {
	f := settableField(reflect.ValueOf(yi).Elem(), "roots")
	if !f.IsValid() || f.Kind() != reflect.Slice {
		return
	}
	f.Set(reflect.Zero(f.Type()))
}
