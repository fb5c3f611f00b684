package interp

import (
	"fmt"
	"go/token"
	"reflect"
	"strings"
)

// mirrorFields makes the mirror of a value of a cell's struct type that the rewrite
// wrap-fmt-args passes to fmt (rewrite.FieldsName): a value of a struct type whose fields
// have the names in names (separated by spaces) and the type any, and hold values. fmt prints
// it with %v and %+v as it prints a struct of those fields; an unexported field (whose methods
// fmt does not call) holds its value as it is, which fmt prints by its fields, as Go does.
func mirrorFields(names string, values ...any) any {
	fs := strings.Fields(names)
	if len(fs) != len(values) {
		panic(fmt.Sprintf("mirrorFields: %d names for %d values", len(fs), len(values)))
	}
	anyType := reflect.TypeFor[any]()
	sf := make([]reflect.StructField, len(fs))
	for i, name := range fs {
		sf[i] = reflect.StructField{Name: name, Type: anyType}
		if !token.IsExported(name) {
			sf[i].PkgPath = "main"
		}
	}
	v := reflect.New(reflect.StructOf(sf)).Elem()
	for i, x := range values {
		if x == nil {
			continue
		}
		f := v.Field(i)
		if !f.CanSet() {
			f = settableField(v, fs[i])
		}
		f.Set(reflect.ValueOf(unwrap(x)))
	}
	return v.Interface()
}

// mirrorAddr returns a pointer to a copy of x, the mirror of the value a pointer points to
// (rewrite.AddrName), which fmt prints with a leading &.
func mirrorAddr(x any) any {
	p := reflect.New(reflect.TypeOf(x))
	p.Elem().Set(reflect.ValueOf(x))
	return p.Interface()
}

// mirrorLazy returns a value that fmt prints as it prints the mirror that build makes
// (rewrite.LazyName): it builds the mirror when fmt formats the value, after every operand of
// the call was evaluated, so that fmt reads the elements of a slice, map or pointer when it
// prints them, as it reads them in Go, and prints the mirror with the verb, flags, width and
// precision that it formats the value with.
func mirrorLazy(build func() any) any { return lazyMirror{build} }

// lazyMirror is the value of mirrorLazy.
type lazyMirror struct{ build func() any }

// Format prints the mirror with the directive that fmt formats m with.
func (m lazyMirror) Format(s fmt.State, verb rune) {
	fmt.Fprintf(s, fmt.FormatString(s, verb), m.build())
}
