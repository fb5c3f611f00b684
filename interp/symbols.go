package interp

import (
	"reflect"
	"unsafe"

	yaegi "github.com/traefik/yaegi/interp"
)

// mainSymbols returns the interpreter's table of the symbols of package main (the session's
// variables, functions and types: map[string]*symbol), settable, or an invalid Value when the
// interpreter has no such table (a newer interpreter; TestMainSymbolsReachable tells).
//
// The interpreter gives a variable that a top-level statement defines a new symbol, with a new
// slot of its frame, when it compiles the statement; the old variable's slot keeps its value.
// Putting the old symbol back therefore undoes a definition that did not run, with the old
// value and type, and deleting the new one makes the name undefined again.
func mainSymbols(yi *yaegi.Interpreter) reflect.Value {
	f := reflect.ValueOf(yi).Elem().FieldByName("scopes")
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String {
		return reflect.Value{}
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	sc := f.MapIndex(reflect.ValueOf("main").Convert(f.Type().Key()))
	if !sc.IsValid() || sc.Kind() != reflect.Pointer || sc.IsNil() || sc.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	sym := sc.Elem().FieldByName("sym")
	if !sym.IsValid() || sym.Kind() != reflect.Map || sym.Type().Key().Kind() != reflect.String ||
		sym.Type().Elem().Kind() != reflect.Pointer || sym.IsNil() {
		return reflect.Value{}
	}
	return reflect.NewAt(sym.Type(), unsafe.Pointer(sym.UnsafeAddr())).Elem()
}

// symbolSnapshot holds the symbols of some names of package main: an invalid Value for a name
// that had none. The interpreter changes the symbol of a constant in place when a cell declares
// the constant anew, so the snapshot also keeps a copy of what each symbol held.
type symbolSnapshot struct {
	table reflect.Value // mainSymbols; invalid when unreachable
	syms  map[string]reflect.Value
	held  map[string]reflect.Value // a copy of *syms[name]
}

// symbolTable is mainSymbols; tests replace it to check the session without the table.
var symbolTable = mainSymbols

// snapshotSymbols records the current symbols of names.
func snapshotSymbols(yi *yaegi.Interpreter, names []string) symbolSnapshot {
	snap := symbolSnapshot{table: symbolTable(yi), syms: map[string]reflect.Value{}, held: map[string]reflect.Value{}}
	if !snap.table.IsValid() {
		return snap
	}
	for _, n := range names {
		sym := snap.table.MapIndex(reflect.ValueOf(n).Convert(snap.table.Type().Key()))
		snap.syms[n] = sym
		if sym.IsValid() && !sym.IsNil() {
			c := reflect.New(sym.Type().Elem())
			c.Elem().Set(sym.Elem())
			snap.held[n] = c
		}
	}
	return snap
}

// put sets the symbol of name back to the recorded one, or deletes it where there was none. It
// reports false when the table is unreachable or the name was not recorded.
func (snap symbolSnapshot) put(name string) bool {
	old, ok := snap.syms[name]
	if !snap.table.IsValid() || !ok {
		return false
	}
	if held, ok := snap.held[name]; ok {
		old.Elem().Set(held.Elem())
	}
	snap.table.SetMapIndex(reflect.ValueOf(name).Convert(snap.table.Type().Key()), old)
	return true
}
