package display

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// capped keeps the first max+1 bytes written to it and drops the rest, so that the text of a
// value is formatted only as far as it is shown (one byte past max tells that it was cut).
type capped struct {
	buf []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max + 1 - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (c *capped) WriteString(s string) {
	if room := c.max + 1 - len(c.buf); room > 0 {
		c.buf = append(c.buf, s[:min(len(s), room)]...)
	}
}

// full reports whether more than max bytes came: what follows is not shown.
func (c *capped) full() bool { return len(c.buf) > c.max }

// printer writes a value as fmt's %v (%+v with fieldNames) does, into a capped buffer, and
// stops walking the value once the buffer is full. It follows fmt's rules: a value with a
// Format, Error or String method that can be called is formatted by fmt (whole); a pointer
// to an array, slice, struct or map is shown as & and its target only at the top level,
// elsewhere as its address; map entries are shown in fmt's key order.
type printer struct {
	w          *capped
	fieldNames bool
}

func (p *printer) format() string {
	if p.fieldNames {
		return "%+v"
	}
	return "%v"
}

var (
	formatterType = reflect.TypeFor[fmt.Formatter]()
	errorType     = reflect.TypeFor[error]()
	stringerType  = reflect.TypeFor[fmt.Stringer]()
)

// dynamicType is the type of the value v holds (for an interface, of the value in it), or nil
// for none.
func dynamicType(v reflect.Value) reflect.Type {
	switch {
	case !v.IsValid():
		return nil
	case v.Kind() == reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return v.Elem().Type()
	}
	return v.Type()
}

func (p *printer) value(v reflect.Value, depth int) {
	if p.w.full() {
		return
	}
	if t := dynamicType(v); t != nil && v.CanInterface() && (t.Implements(formatterType) || t.Implements(errorType) || t.Implements(stringerType)) {
		if x, ok := v.Interface().(reflect.Value); ok && depth > 0 {
			// fmt shows a reflect.Value it meets inside a value by its String method.
			p.w.WriteString(x.String())
			return
		}
		fmt.Fprintf(p.w, p.format(), v.Interface())
		return
	}
	switch v.Kind() {
	case reflect.Invalid:
		if depth == 0 {
			p.w.WriteString("<invalid reflect.Value>")
		} else {
			p.w.WriteString("<nil>")
		}
	case reflect.Bool:
		fmt.Fprint(p.w, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprint(p.w, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		fmt.Fprint(p.w, v.Uint())
	case reflect.Float32:
		fmt.Fprint(p.w, float32(v.Float()))
	case reflect.Float64:
		fmt.Fprint(p.w, v.Float())
	case reflect.Complex64:
		fmt.Fprint(p.w, complex64(v.Complex()))
	case reflect.Complex128:
		fmt.Fprint(p.w, v.Complex())
	case reflect.String:
		p.w.WriteString(v.String())
	case reflect.Map:
		p.w.WriteString("map[")
		// An entry takes at least 2 bytes (":" and a space): no more than max/2+1 can be shown.
		entries, slots := firstEntries(v, p.w.max/2+2)
		for i, slot := range slots {
			if p.w.full() {
				return
			}
			if i > 0 {
				p.w.WriteString(" ")
			}
			p.value(entries.key(slot), depth+1)
			p.w.WriteString(":")
			p.value(entries.val(slot), depth+1)
		}
		p.w.WriteString("]")
	case reflect.Struct:
		p.w.WriteString("{")
		for i := range v.NumField() {
			if p.w.full() {
				return
			}
			if i > 0 {
				p.w.WriteString(" ")
			}
			if name := v.Type().Field(i).Name; p.fieldNames && name != "" {
				p.w.WriteString(name + ":")
			}
			f := v.Field(i)
			if f.Kind() == reflect.Interface && !f.IsNil() {
				f = f.Elem()
			}
			p.value(f, depth+1)
		}
		p.w.WriteString("}")
	case reflect.Interface:
		if e := v.Elem(); e.IsValid() {
			p.value(e, depth+1)
		} else {
			p.w.WriteString("<nil>")
		}
	case reflect.Array, reflect.Slice:
		p.w.WriteString("[")
		for i := range v.Len() {
			if p.w.full() {
				return
			}
			if i > 0 {
				p.w.WriteString(" ")
			}
			p.value(v.Index(i), depth+1)
		}
		p.w.WriteString("]")
	case reflect.Pointer:
		if depth == 0 && !v.IsNil() {
			switch e := v.Elem(); e.Kind() {
			case reflect.Array, reflect.Slice, reflect.Struct, reflect.Map:
				p.w.WriteString("&")
				p.value(e, depth+1)
				return
			}
		}
		p.pointer(v)
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		p.pointer(v)
	}
}

// pointer writes the address v holds, as fmt does: <nil> or 0x and hexadecimal digits.
func (p *printer) pointer(v reflect.Value) {
	if u := uintptr(v.UnsafePointer()); u == 0 {
		p.w.WriteString("<nil>")
	} else {
		p.w.WriteString("0x" + strconv.FormatUint(uint64(u), 16))
	}
}

// mapSlots holds entries of a map being shown, each in a numbered slot.
type mapSlots struct {
	keys, vals reflect.Value   // the entries of an exported map: slices, copied into without allocating
	ks, vs     []reflect.Value // those of a map reached through an unexported field, which keep
	ro         bool            // its read-only mark, so that their methods are not called, as in fmt
}

func (s *mapSlots) key(slot int) reflect.Value {
	if s.ro {
		return s.ks[slot]
	}
	return s.keys.Index(slot)
}

func (s *mapSlots) val(slot int) reflect.Value {
	if s.ro {
		return s.vs[slot]
	}
	return s.vals.Index(slot)
}

// firstEntries returns the first n entries of map m in the order fmt prints them (by key, see
// compareKeys): entry k is in slot slots[k] of s. However large the map, it holds at most 2n
// entries: an entry is copied only while it may be among the first n.
func firstEntries(m reflect.Value, n int) (s *mapSlots, slots []int) {
	size := min(2*n, m.Len())
	s = &mapSlots{ro: !m.CanInterface()}
	if s.ro {
		s.ks, s.vs = make([]reflect.Value, size), make([]reflect.Value, size)
	} else {
		s.keys = reflect.MakeSlice(reflect.SliceOf(m.Type().Key()), size, size)
		s.vals = reflect.MakeSlice(reflect.SliceOf(m.Type().Elem()), size, size)
	}
	slots = make([]int, 0, size)
	free := make([]int, 0, n) // slots given up, to be used again
	used := 0                 // slots used at least once
	byKey := func(a, b int) int { return compareKeys(s.key(a), s.key(b)) }
	worst := -1 // the slot of the last of the first n entries so far, once 2n were seen
	scratch := reflect.New(m.Type().Key()).Elem()
	it := m.MapRange()
	for it.Next() {
		key := scratch
		if s.ro {
			key = it.Key()
		} else {
			key.SetIterKey(it)
		}
		if worst >= 0 && compareKeys(key, s.key(worst)) >= 0 {
			continue
		}
		var slot int
		if len(free) > 0 {
			slot, free = free[len(free)-1], free[:len(free)-1]
		} else {
			slot, used = used, used+1
		}
		if s.ro {
			s.ks[slot], s.vs[slot] = key, it.Value()
		} else {
			s.keys.Index(slot).Set(key)
			s.vals.Index(slot).SetIterValue(it)
		}
		slots = append(slots, slot)
		if len(slots) == 2*n {
			slices.SortStableFunc(slots, byKey)
			free = append(free, slots[n:]...)
			slots, worst = slots[:n], slots[n-1]
		}
	}
	slices.SortStableFunc(slots, byKey)
	return s, slots[:min(n, len(slots))]
}

// compareKeys orders map keys as fmt's documentation says it prints them: numbers, strings
// and bools by value (NaN first, false before true), complex numbers by real then imaginary
// part, pointers and channels by address (nil first), structs and arrays element by
// element, interfaces by the type they hold, then its value.
func compareKeys(a, b reflect.Value) int {
	if a.Type() != b.Type() {
		return -1
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		if c := cmp.Compare(real(x), real(y)); c != 0 {
			return c
		}
		return cmp.Compare(imag(x), imag(y))
	case reflect.Bool:
		switch x, y := a.Bool(), b.Bool(); {
		case x == y:
			return 0
		case x:
			return 1
		default:
			return -1
		}
	case reflect.Pointer, reflect.UnsafePointer, reflect.Chan:
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Struct:
		for i := range a.NumField() {
			if c := compareKeys(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Array:
		for i := range a.Len() {
			if c := compareKeys(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Interface:
		switch an, bn := a.IsNil(), b.IsNil(); {
		case an && bn:
			return 0
		case an:
			return -1
		case bn:
			return 1
		}
		if c := compareKeys(reflect.ValueOf(a.Elem().Type()), reflect.ValueOf(b.Elem().Type())); c != 0 {
			return c
		}
		return compareKeys(a.Elem(), b.Elem())
	}
	return 0
}
