package interp

import (
	"context"
	"fmt"
	"go/ast"
	"reflect"
	"sort"
	"strings"
	"sync"

	yaegi "github.com/traefik/yaegi/interp"

	"github.com/gosbi/gosbi/stdlib"
	_ "github.com/gosbi/gosbi/stdlib/gosbi" // gosbi's own tables, added to stdlib.Symbols
)

// preferred resolves package names that several importable packages share, for auto-import.
var preferred = map[string]string{
	"rand":     "math/rand/v2",
	"template": "text/template",
	"scanner":  "text/scanner",
	"pprof":    "runtime/pprof",
	"interp":   "gonum.org/v1/gonum/interp",
	"quad":     "gonum.org/v1/gonum/integrate/quad",
	"draw":     "gonum.org/v1/plot/vg/draw",
	"plot":     "gonum.org/v1/plot",
	"palette":  "gonum.org/v1/plot/palette",
}

var pkgIndex struct {
	once   sync.Once
	name   map[string]string // import path → package name
	byName map[string]string // package name → import path, for auto-import
	names  []string          // sorted package names
}

func indexPackages() {
	pkgIndex.once.Do(func() {
		pkgIndex.name = map[string]string{}
		count := map[string][]string{}
		for k := range stdlib.Symbols {
			i := strings.LastIndexByte(k, '/')
			path, name := k[:i], k[i+1:]
			pkgIndex.name[path] = name
			count[name] = append(count[name], path)
		}
		pkgIndex.byName = map[string]string{}
		for name, paths := range count {
			switch {
			case preferred[name] != "":
				pkgIndex.byName[name] = preferred[name]
			case len(paths) == 1:
				pkgIndex.byName[name] = paths[0]
			}
			pkgIndex.names = append(pkgIndex.names, name)
		}
		sort.Strings(pkgIndex.names)
	})
}

// packageName returns the name of an importable package (the last path element otherwise).
func packageName(path string) string {
	indexPackages()
	if n, ok := pkgIndex.name[path]; ok {
		return n
	}
	return path[strings.LastIndexByte(path, '/')+1:]
}

func packageKnown(path string) bool {
	indexPackages()
	_, ok := pkgIndex.name[path]
	return ok
}

// packageSymbols returns the symbols of an importable package.
func packageSymbols(path string) map[string]reflect.Value {
	return stdlib.Symbols[path+"/"+packageName(path)]
}

// autoImport adds imports for package names a cell uses without importing them. It says
// nothing (a note on stderr is a warning box in Jupyter, one per package); %who lists them.
func (s *Session) autoImport(items []item) error {
	defined := map[string]bool{}
	for _, it := range items {
		definedNames(node(it), defined)
	}
	added := map[string]bool{}
	var adds []string
	for _, it := range items {
		if it.kind == importItem {
			if gd, ok := it.decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					is := sp.(*ast.ImportSpec)
					if is.Name != nil {
						defined[is.Name.Name] = true
					} else {
						defined[packageName(strings.Trim(is.Path.Value, `"`))] = true
					}
				}
			}
			continue
		}
		ast.Inspect(node(it), func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || defined[id.Name] || added[id.Name] || s.decls[id.Name] != nil || s.imports[id.Name] != "" {
				return true
			}
			indexPackages()
			if path, ok := pkgIndex.byName[id.Name]; ok {
				added[id.Name] = true
				adds = append(adds, path)
			}
			return true
		})
	}
	for _, path := range adds {
		if _, err := s.eval(context.Background(), fmt.Sprintf("import %q", path)); err != nil {
			return fmt.Errorf("auto-import %q: %w", path, err)
		}
		s.imports[packageName(path)] = path
		s.auto[path] = true
	}
	return nil
}

func node(it item) ast.Node {
	if it.decl != nil {
		return it.decl
	}
	if it.stmt != nil {
		return it.stmt
	}
	return &ast.EmptyStmt{}
}

// prelude gives cells what the interpreter lacks: the builtins min, max and clear, the
// marker of the statements that ran (_gosbiRan), and the
// renderers of trailing expressions. _gosbiBundle, _gosbiError and _gosbiString take a
// parameter of a compiled interface (display.MIMEBundler, error, fmt.Stringer) so that the
// interpreter converts interpreted types with such a method statically: its dynamic type
// assertions to compiled interfaces lose the methods, and a value of such a type passed as
// any reaches compiled code wrapped, without them. A nil pointer converted to a compiled
// interface becomes a nil interface, so its methods are called directly, with the result
// passed to _gosbiBundleOf, _gosbiErrorText or _gosbiText.
const prelude = `package main

import (
	"cmp"
	_gosbifmt "fmt"
	_gosbidisplay "github.com/gosbi/gosbi/display"
	_gosbibuiltin "github.com/gosbi/gosbi/interp/builtin"
)

func min[_gosbiT cmp.Ordered](x _gosbiT, y ..._gosbiT) _gosbiT {
	for _, v := range y {
		if v < x {
			x = v
		}
	}
	return x
}

func max[_gosbiT cmp.Ordered](x _gosbiT, y ..._gosbiT) _gosbiT {
	for _, v := range y {
		if v > x {
			x = v
		}
	}
	return x
}

func clear(x any) { _gosbibuiltin.Clear(x) }

// _gosbiRan marks the top-level statements that ran (see Session.stmtSource).
var _gosbiRan int64

func _gosbiRender(v any) map[string]any { return _gosbidisplay.Render(_gosbibuiltin.Unwrap(v)) }

func _gosbiRenderPlain(v any) map[string]any {
	if _gosbibuiltin.Wrapped(v) {
		return nil
	}
	return _gosbidisplay.Render(v)
}

func _gosbiBundle(b _gosbidisplay.MIMEBundler) map[string]any { return _gosbiBundleOf(b.MIMEBundle()) }

func _gosbiError(e error) map[string]any { return _gosbiErrorText(e.Error()) }

func _gosbiString(s _gosbifmt.Stringer) map[string]any { return _gosbiText(s.String()) }

// _gosbiFmtArg is the operand of fmt's print functions that the rewrite wrap-fmt-args makes
// of a value: instantiated with the value's own type, it converts a value with a method Error
// or String to a compiled interface, whose wrapper calls the method where fmt looks for it. A
// value of an interface type goes on as it is.
func _gosbiFmtArg[_gosbiX any](x _gosbiX) any {
	switch any(&x).(type) {
	case *error, *any:
		return x
	}
	var v any = x
	if v == nil {
		return nil
	}
	if e, ok := v.(error); ok {
		return e
	}
	if s, ok := v.(_gosbifmt.Stringer); ok {
		return s
	}
	return x
}

// _gosbiFmtPtr is the operand of fmt's print functions that the rewrite wrap-fmt-args makes of
// a pointer to a value of a cell's type. A pointer's method set has the methods of both
// receivers, and fmt prefers Error to String: it returns the pointer as _gosbiFmtArg makes it
// where the method is on a pointer receiver (its wrapper calls the method on the pointer
// itself, so a method that changes its receiver changes the variable, as in Go), the value as
// _gosbiFmtArg makes it where the method is on a value receiver (which gets a copy in Go too),
// and the pointer as it is otherwise: a nil pointer, which fmt prints as <nil>, and a pointer
// to an interface or to a pointer (Go prints its address).
func _gosbiFmtPtr[_gosbiE any](p *_gosbiE) any {
	if p == nil || _gosbibuiltin.PointsToInterface(p) || _gosbibuiltin.PointsToPointer(p) {
		return p
	}
	return _gosbibuiltin.FirstPrinter(p, _gosbiFmtArg(p), _gosbiFmtArg(*p))
}

// _gosbiFmtVal is the operand of fmt's print functions that the rewrite wrap-fmt-args makes of
// a value whose type the cell does not show, or of an interface type of the session, in a session where a method String or Error has a
// pointer receiver: a pointer as _gosbiFmtArg makes it (a pointer's method set has the methods
// of both receivers), and any other value as it is (the interpreter would find a method of *T
// for a value of type T, which Go does not).
func _gosbiFmtVal[_gosbiX any](x _gosbiX) any {
	if v := any(x); v == nil {
		return nil
	}
	if _gosbibuiltin.PointsToPointer(&x) {
		return _gosbiFmtArg(x)
	}
	return x
}

// _gosbiAnyOK is x.(any) in its comma-ok form, which the rewrite assert-any makes: every
// value but nil is an any.
func _gosbiAnyOK(x any) (any, bool) { return _gosbibuiltin.AnyOK(x) }

// _gosbiAnyMust is x.(any), which the rewrite assert-any makes: x, or Go's panic for nil.
func _gosbiAnyMust(x any) any {
	if _, ok := _gosbibuiltin.AnyOK(x); !ok {
		panic("interface conversion: interface is nil, not interface {}")
	}
	return x
}

// _gosbiAssertable is the operand of a type assertion or switch to a cell's struct type with
// fields and methods (named by types) that the rewrite guard-assertions makes: x, unless it
// holds the interpreter's wrapper for a compiled interface, which hides the value's type.
func _gosbiAssertable[_gosbiI any](x _gosbiI, types string) _gosbiI {
	if _gosbibuiltin.HeldByInterface(any(x)) {
		panic(_gosbibuiltin.HeldMessage(types))
	}
	return x
}

// _gosbiErrorsIs, _gosbiErrorsAs and _gosbiErrorsUnwrap are errors.Is, errors.As and
// errors.Unwrap in a session whose types have a method Error (the rewrite wrap-errors); chain
// says whether they have a method Unwrap, Is or As, and types (for errors.As) lists the
// session's error types declared as a named type, each with that type ("Code int").
func _gosbiErrorsIs(chain bool, err, target error) bool {
	return _gosbibuiltin.ErrorsIs(err, target, chain)
}

func _gosbiErrorsAs(chain bool, types string, err error, target any) bool {
	return _gosbibuiltin.ErrorsAs(err, target, chain, types)
}

func _gosbiErrorsUnwrap(chain bool, err error) error { return _gosbibuiltin.ErrorsUnwrap(err, chain) }

// _gosbiEqual is x == y for operands of which one has a compiled interface type (error,
// fmt.Stringer, any), which the rewrite compare-interfaces makes: it compares the values the
// interpreter's wrappers hold, as Go compares the operands.
func _gosbiEqual(x, y any) bool { return _gosbibuiltin.Equal(x, y) }

func _gosbiBundleOf(b map[string]any) map[string]any {
	data := map[string]any{}
	kinds := ""
	for k, x := range b {
		data[k] = x
		kinds += " " + k
	}
	if _, ok := data["text/plain"]; !ok {
		data["text/plain"] = _gosbifmt.Sprintf("<rich output:%s>", kinds)
	}
	return data
}

// _gosbiGoPanic is deferred by a goroutine that a cell's go statement started (the rewrite
// recover-goroutines): it reports the panic that recover gave, r, with the cell and the
// interpreter's line of the go statement, so that the panic ends the goroutine only.
func _gosbiGoPanic(cell, line int, r any) {
	if r != nil {
		_gosbibuiltin.GoPanic(cell, line, r)
	}
}

// _gosbiCellDefer keeps a deferred call of a cell's top level (the rewrite cell-defers), which
// the session runs when the cell's Go code ends.
func _gosbiCellDefer(f func()) { _gosbibuiltin.CellDefer(f) }

// _gosbiRunCellDefers runs the calls that the cell's top level deferred, the last first; one
// that panics does not stop those before it, as in a function.
func _gosbiRunCellDefers() { _gosbiRunDefers(_gosbibuiltin.TakeCellDefers()) }

func _gosbiRunDefers(fs []func()) {
	if len(fs) == 0 {
		return
	}
	defer fs[0]()
	_gosbiRunDefers(fs[1:])
}

func _gosbiErrorText(s string) map[string]any { return map[string]any{"text/plain": "error: " + s} }

func _gosbiText(s string) map[string]any { return map[string]any{"text/plain": s} }
`

// builtinSymbols are compiled helpers of the prelude.
var builtinSymbols = yaegi.Exports{
	"github.com/gosbi/gosbi/interp/builtin/builtin": {
		"Clear":   reflect.ValueOf(clearValue),
		"Wrapped": reflect.ValueOf(wrapped),
		"Unwrap":  reflect.ValueOf(unwrap),

		"PointsToInterface": reflect.ValueOf(pointsToInterface),
		"PointsToPointer":   reflect.ValueOf(pointsToPointer),
		"FirstPrinter":      reflect.ValueOf(firstPrinter),
		"HeldByInterface":   reflect.ValueOf(heldByInterface),
		"HeldMessage":       reflect.ValueOf(heldMessage),
		"AnyOK":             reflect.ValueOf(anyOK),
		"Fields":            reflect.ValueOf(mirrorFields),
		"Addr":              reflect.ValueOf(mirrorAddr),
		"Lazy":              reflect.ValueOf(mirrorLazy),

		"ErrorsIs":     reflect.ValueOf(errorsIs),
		"ErrorsAs":     reflect.ValueOf(errorsAs),
		"ErrorsUnwrap": reflect.ValueOf(errorsUnwrap),
		"Equal":        reflect.ValueOf(equal),
	},
}

// interpWrapper reports whether v is how the interpreter hands compiled code a value of a
// type declared in a cell that has methods (its valueInterface: the value's node and the
// value), and returns the value it wraps. TestResultOfCellTypeWithMethods fails if a new
// version of the interpreter changes the shape.
func interpWrapper(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if t.Kind() != reflect.Struct || t.NumField() != 2 || t.Field(0).Name != "node" || t.Field(1).Name != "value" ||
		t.Field(1).Type != reflect.TypeFor[reflect.Value]() {
		return reflect.Value{}, false
	}
	c := reflect.New(t).Elem()
	c.Set(v)
	return settableField(c, "value").Interface().(reflect.Value), true
}

// wrapped reports whether x is a value of a cell's type with methods, wrapped (see
// interpWrapper): compiled code sees neither its methods nor its fields.
func wrapped(x any) bool {
	if x == nil {
		return false
	}
	_, ok := interpWrapper(reflect.ValueOf(x))
	return ok
}

// unwrap returns the value x wraps (see interpWrapper), or x.
func unwrap(x any) any {
	if x == nil {
		return nil
	}
	if in, ok := interpWrapper(reflect.ValueOf(x)); ok && in.IsValid() && in.CanInterface() {
		return in.Interface()
	}
	return x
}

// pointsToInterface reports whether p is a pointer to a variable of a compiled interface
// type (*error, *any), for _gosbiFmtPtr.
func pointsToInterface(p any) bool {
	t := reflect.TypeOf(p)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Interface
}

// pointsToPointer reports whether p is a pointer to a variable of a pointer type, for
// _gosbiFmtVal and _gosbiFmtPtr.
func pointsToPointer(p any) bool {
	t := reflect.TypeOf(p)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Pointer
}

// firstPrinter returns what fmt prints of a pointer p, for _gosbiFmtPtr: of ptr and val,
// p and *p as _gosbiFmtArg makes them, the first error, else the first fmt.Stringer, else p.
func firstPrinter(p, ptr, val any) any {
	for _, v := range []any{ptr, val} {
		if _, ok := v.(error); ok {
			return v
		}
	}
	for _, v := range []any{ptr, val} {
		if _, ok := v.(fmt.Stringer); ok {
			return v
		}
	}
	return p
}

// heldByInterface reports whether x is the interpreter's wrapper of a cell's value for a
// compiled interface with methods (see wrapperType), for _gosbiAssertable.
func heldByInterface(x any) bool { return x != nil && wrapperType(reflect.TypeOf(x)) }

// anyOK is x.(any) in its comma-ok form, for _gosbiAnyOK: x and whether it is not nil. A nil
// interface of a cell's type reaches it as the interpreter's wrapper of no value (see
// interpWrapper), which is nil too.
func anyOK(x any) (any, bool) {
	if x == nil {
		return nil, false
	}
	if in, ok := interpWrapper(reflect.ValueOf(x)); ok && (!in.IsValid() || in.Kind() == reflect.Interface && in.IsNil()) {
		return nil, false
	}
	return x, true
}

// heldMessage is the panic of _gosbiAssertable for a type assertion or switch to types.
func heldMessage(types string) string {
	return "a type assertion or type switch to " + types + " cannot tell the type of this value: a compiled interface " +
		"(an error or a fmt.Stringer that a function returned, or that errors.Unwrap gave back) held it, and the interpreter " +
		"keeps one of the fields of a value of a cell's struct type there, not the value, so the answer would be no. " +
		"Keep the value in a variable of its own type (or of type any) from where it is made, or tell it apart by its methods"
}

// clearValue implements the builtin clear for maps and slices.
func clearValue(x any) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		v.Clear()
	default:
		panic(fmt.Sprintf("invalid argument: clear(%T): argument must be a map or a slice", x))
	}
}
