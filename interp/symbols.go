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
	f := settableField(reflect.ValueOf(yi).Elem(), "scopes")
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String {
		return reflect.Value{}
	}
	sc := f.MapIndex(reflect.ValueOf("main").Convert(f.Type().Key()))
	if !sc.IsValid() || sc.Kind() != reflect.Pointer || sc.IsNil() || sc.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	sym := settableField(sc.Elem(), "sym")
	if !sym.IsValid() || sym.Kind() != reflect.Map || sym.Type().Key().Kind() != reflect.String ||
		sym.Type().Elem().Kind() != reflect.Pointer || sym.IsNil() {
		return reflect.Value{}
	}
	return sym
}

// symbolSnapshot holds the symbols of some names of package main: an invalid Value for a name
// that had none. The interpreter changes the symbol of a constant in place when a cell declares
// the constant anew, so the snapshot also keeps a copy of what each symbol held.
type symbolSnapshot struct {
	table reflect.Value // mainSymbols; invalid when unreachable
	syms  map[string]reflect.Value
	held  map[string]reflect.Value // a copy of *syms[name]
	// methods, for declarations of methods, holds the numbers of methods of their receivers
	methods methodSnapshot
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

// The interpreter attaches a method to its receiver's type (and to the type's pointer type)
// before it compiles the method, and a call finds a type's first method of a name: a method
// whose declaration did not compile stays attached, half-compiled, and calling it fails inside
// the interpreter ("index out of range"), even after the cell is fixed and run again. The
// session therefore records how many methods the receivers' types have before it evaluates
// method declarations, and detaches the ones added when the evaluation does not compile.

// methodSnapshot holds the number of methods of some types of package main and of their
// pointer types.
type methodSnapshot struct {
	types []reflect.Value // the types (itype structs), settable
	n, np []int           // their numbers of methods and their pointer types'
}

// snapshotMethods records the numbers of methods of the types named types in table (see
// mainSymbols); types it cannot reach are left out.
func snapshotMethods(table reflect.Value, types []string) methodSnapshot {
	var snap methodSnapshot
	if !table.IsValid() {
		return snap
	}
	for _, name := range types {
		sym := table.MapIndex(reflect.ValueOf(name).Convert(table.Type().Key()))
		if !sym.IsValid() || sym.IsNil() {
			continue
		}
		t := settableField(sym.Elem(), "typ")
		if !t.IsValid() || t.Kind() != reflect.Pointer || t.IsNil() {
			continue
		}
		methods := settableField(t.Elem(), "method")
		if !methods.IsValid() || methods.Kind() != reflect.Slice {
			continue
		}
		np := 0
		if m := ptrMethodsValue(t.Elem()); m.IsValid() {
			np = m.Len()
		}
		snap.types = append(snap.types, t.Elem())
		snap.n = append(snap.n, methods.Len())
		snap.np = append(snap.np, np)
	}
	return snap
}

// detach removes the methods added to the recorded types since the snapshot.
func (snap methodSnapshot) detach() {
	for i, t := range snap.types {
		if m := settableField(t, "method"); m.Len() > snap.n[i] {
			m.Set(m.Slice(0, snap.n[i]))
		}
		if m := ptrMethodsValue(t); m.IsValid() && m.Len() > snap.np[i] {
			m.Set(m.Slice(0, snap.np[i]))
		}
	}
}

// ptrMethodsValue returns the settable method list of the pointer type of t (an itype
// struct), or an invalid Value when t has no pointer type.
func ptrMethodsValue(t reflect.Value) reflect.Value {
	p := settableField(t, "ptr")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
		return reflect.Value{}
	}
	m := settableField(p.Elem(), "method")
	if !m.IsValid() || m.Kind() != reflect.Slice {
		return reflect.Value{}
	}
	return m
}

// settableField returns the field name of the addressable struct v, settable, or an invalid
// Value when v has no such field.
func settableField(v reflect.Value, name string) reflect.Value {
	if v.Kind() != reflect.Struct || !v.CanAddr() {
		return reflect.Value{}
	}
	f := v.FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
