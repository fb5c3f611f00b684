package interp

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The session's errors.Is, errors.As and errors.Unwrap (see the rewrite wrap-errors). The
// interpreter hands compiled code a value of a cell's error type in a wrapper with the method
// Error and no other (an interpreted value in its field IValue): compiled code sees neither
// the value's type (two cell types with the same fields look alike to it) nor its methods
// Unwrap, Is and As, and the wrapper is not comparable, so the functions of package errors
// answer false where Go answers true. These functions give the answer of package errors where
// it is Go's, and otherwise panic with an explanation, which fails the cell: a wrong branch
// taken silently is worse.

// errorsIs is errors.Is for a session whose types have a method Error; chain reports whether
// one of them also has a method Unwrap, Is or As.
func errorsIs(err, target error, chain bool) bool {
	if errors.Is(err, target) {
		return true // found through compiled values and methods only: Go finds it too
	}
	c := firstCellError(err)
	if c == "" {
		return false // no cell's error in the chain: the compiled answer is Go's
	}
	if t := cellValueError(target); t != "" {
		panic(errorsLimit("errors.Is", "cannot compare a value of a cell's error type ("+t+") with the errors of the chain, which hold one ("+c+")"))
	}
	if chain {
		panic(errorsLimit("errors.Is", "cannot call the methods Unwrap, Is or As of a cell's error type ("+c+") in the chain"))
	}
	return false
}

// errorsAs is errors.As for a session whose types have a method Error; chain as for
// errorsIs, and types lists the session's error types declared as a named type, one a line,
// each with that type ("Code int").
func errorsAs(err error, target any, chain bool, types string) bool {
	v := reflect.ValueOf(target)
	if target == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		panic(errorsLimit("errors.As", fmt.Sprintf("needs a non-nil pointer to a variable as its target, got %T", target)))
	}
	et := v.Type().Elem()
	if !wrapperType(et) && et.Name() != "" && et.Kind() != reflect.Interface && !et.Implements(reflect.TypeFor[error]()) {
		// a predeclared or compiled type, or a cell's type declared as one (type A int is int here)
		panic(notErrorTarget(et.String(), types))
	}
	if wrapperType(et) || et.Kind() != reflect.Interface && !et.Implements(reflect.TypeFor[error]()) {
		panic(errorsLimit("errors.As", "cannot find a value of a cell's type: the interpreter gives compiled code its values without their type"))
	}
	if et.Kind() == reflect.Interface && et != reflect.TypeFor[error]() && et.NumMethod() > 0 {
		if c := firstCellError(err); c != "" {
			panic(errorsLimit("errors.As", "cannot tell whether a value of a cell's error type ("+c+") in the chain has the methods of "+et.String()))
		}
	}
	if errors.As(err, target) {
		return true
	}
	if c := firstCellError(err); chain && c != "" {
		panic(errorsLimit("errors.As", "cannot call the methods Unwrap or As of a cell's error type ("+c+") in the chain"))
	}
	return false
}

// goNotErrorTarget is the message of Go's errors.As for a target that points to a type that
// is neither an interface nor implements error.
const goNotErrorTarget = "errors: *target must be interface or implement error"

// notErrorTarget returns the message of errorsAs for a target that points to the named type
// target, which does not implement error to the interpreter: an explanation first when the
// session declares error types as target (types as errorsAs has them), Go's message otherwise.
func notErrorTarget(target, types string) string {
	var names []string
	for _, line := range strings.Split(types, "\n") {
		if name, decl, ok := strings.Cut(line, " "); ok && decl == target {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return goNotErrorTarget
	}
	what := "a cell's error type"
	if len(names) > 1 {
		what = "the session's error types"
	}
	return fmt.Sprintf("errors.As cannot find a value of %s, %s declared as %s: the interpreter knows such a value only as %s, "+
		"which does not implement error, so errors.As fails as Go's does for a pointer to %s (%s). "+
		"Use a sentinel made by errors.New (var ErrBad = errors.New(\"bad\")), wrapped with fmt.Errorf(\"…: %%w\", ErrBad), and errors.Is",
		strings.Join(names, " or "), what, target, target, target, goNotErrorTarget)
}

// errorsUnwrap is errors.Unwrap for a session whose types have a method Error; chain as for
// errorsIs.
func errorsUnwrap(err error, chain bool) error {
	if c := cellValueError(err); chain && c != "" {
		panic(errorsLimit("errors.Unwrap", "cannot call the method Unwrap of a cell's error type ("+c+")"))
	}
	return errors.Unwrap(err)
}

// errorsLimit is the message of a panic of errorsIs, errorsAs and errorsUnwrap.
func errorsLimit(fn, why string) string {
	return fn + " " + why + ": the interpreter hands such a value to compiled code without its type and its other methods, " +
		"so the answer may be wrong. Use a sentinel made by errors.New (var ErrBad = errors.New(\"bad\")), wrapped with " +
		"fmt.Errorf(\"…: %w\", ErrBad), or call the cell type's methods yourself"
}

// firstCellError returns a description of the first value of a cell's type in the chain of
// err (err, then what its compiled Unwrap methods return, depth first), "" when there is none.
func firstCellError(err error) string {
	if err == nil {
		return ""
	}
	if c := cellValueError(err); c != "" {
		return c
	}
	if lostByErrorf(err) {
		return "an operand of %w that fmt.Errorf got without its methods: " + strconv.Quote(err.Error())
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return firstCellError(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if c := firstCellError(e); c != "" {
				return c
			}
		}
	}
	return ""
}

// lostByErrorf reports whether err is fmt.Errorf's error with an operand of %w that was no
// error to compiled code (fmt writes %!w): a value of a cell's type passed to Errorf bare, in
// a form the rewrite wrap-fmt-args leaves (a format that is no string literal, %[1]w).
func lostByErrorf(err error) bool {
	switch reflect.TypeOf(err).String() {
	case "*fmt.wrapError", "*fmt.wrapErrors":
		return strings.Contains(err.Error(), "%!w(")
	}
	return false
}

// cellValueError returns the error's text when err is a value of a cell's type in the
// interpreter's wrapper, "" otherwise.
func cellValueError(err error) string {
	if err == nil {
		return ""
	}
	if !wrapperType(reflect.TypeOf(err)) {
		return ""
	}
	return fmt.Sprintf("%q", err.Error())
}

// wrapperType reports whether t is the interpreter's wrapper of a cell's value for a compiled
// interface: a struct type whose name starts with _ and whose first field is IValue.
func wrapperType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "_") && t.NumField() > 0 &&
		t.Field(0).Name == "IValue" && t.Field(0).Type.Kind() == reflect.Interface
}

// equal is x == y for two interface values of which one has a compiled interface type with
// methods, for _gosbiEqual (the rewrite compare-interfaces). The interpreter hands compiled
// code a value of a cell's type in a wrapper: for a compiled interface (error, fmt.Stringer)
// one that keeps a pointer as it is but, of a struct, only its first field (see
// heldMessage), and for any other its own record of the value. So equal gives Go's answer
// where the operands show it: neither is such a wrapper (the compiled comparison, which panics
// for a dynamic type that is not comparable, as in Go); one is and the other is a value of a
// compiled type (false: their dynamic types differ); both hold pointers (the same pointer).
// Otherwise it panics with an explanation, as a wrong answer taken silently is worse.
func equal(x, y any) bool {
	wx, wy := isWrapper(x), isWrapper(y)
	switch {
	case !wx && !wy:
		return x == y
	case x == nil || y == nil:
		return false // a wrapper holds a value: an interface that is not nil
	case !wx && compiledType(reflect.TypeOf(x)), !wy && compiledType(reflect.TypeOf(y)):
		return false
	}
	hx, px := heldPointer(x)
	hy, py := heldPointer(y)
	if px && py {
		return hx == hy
	}
	panic("cannot compare these two values with == or != (" + describe(x) + ", " + describe(y) + "): a compiled " +
		"interface (error, fmt.Stringer) holds a value of a cell's type, and the interpreter keeps there only part of " +
		"such a value, so the answer could be wrong. Keep the values in variables of their own type and compare " +
		"those, or store pointers (&E{...}), which compare as in Go")
}

// isWrapper reports whether x is one of the interpreter's wrappers of a cell's value (see
// interpWrapper and wrapperType).
func isWrapper(x any) bool {
	if x == nil {
		return false
	}
	v := reflect.ValueOf(x)
	if wrapperType(v.Type()) {
		return true
	}
	_, ok := interpWrapper(v)
	return ok
}

// heldPointer returns the pointer that the interpreter's wrappers around x hold, or x itself
// when it is a pointer, and false when there is no pointer.
func heldPointer(x any) (any, bool) {
	for range 4 {
		if x == nil {
			return nil, false
		}
		v := reflect.ValueOf(x)
		switch {
		case v.Kind() == reflect.Pointer:
			return x, true
		case wrapperType(v.Type()):
			x = v.Field(0).Interface()
		default:
			in, ok := interpWrapper(v)
			if !ok || !in.IsValid() || !in.CanInterface() {
				return nil, false
			}
			x = in.Interface()
		}
	}
	return nil, false
}

// compiledType reports whether t is a type of compiled code: named and declared in a
// package, or a pointer to one. The interpreter makes a cell's type of other types.
func compiledType(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name() != "" && t.PkgPath() != "" && !wrapperType(t)
}

// describe names the kind of operand x is for equal's message.
func describe(x any) string {
	if isWrapper(x) {
		return "a value of a cell's type"
	}
	return fmt.Sprintf("%T", x)
}
