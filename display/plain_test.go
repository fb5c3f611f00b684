package display

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestPlainBounded: the text of a value far longer than maxText is formatted only as far as it
// is shown: showing a value whose %v text is about 19 MB allocates well under 1 MB, instead of
// formatting all of it and then cutting it; what is shown is the start of fmt's text and a
// note that it was cut.
func TestPlainBounded(t *testing.T) {
	words := make([]string, 1<<21)
	for i := range words {
		words[i] = "abcdefgh"
	}
	type holder struct {
		Name  string
		Words []string
	}
	squares := make(map[int]int, 1<<17)
	for i := range 1 << 17 {
		squares[i] = i * i
	}
	for _, c := range []struct {
		name   string
		v      any
		prefix string
	}{
		{"slice of strings", words, "[abcdefgh abcdefgh "},
		{"struct holding it", &holder{"w", words}, "&{Name:w Words:[abcdefgh abcdefgh "},
		{"map", squares, "map[0:0 1:1 2:4 3:9 "},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, _ := Render(c.v)[MIMEText].(string)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: showing it allocated %d bytes, want under 1 MB", c.name, got)
		}
		if !strings.HasPrefix(s, c.prefix) || len(s) > maxText+100 || !strings.HasSuffix(s, cutNote) {
			t.Errorf("%s: shown as %d bytes %.40q…%q, want at most %d starting %q and ending %q", c.name, len(s), s, s[max(0, len(s)-40):], maxText+100, c.prefix, cutNote)
		}
	}
}

type stringer struct{ n int }

func (s stringer) String() string { return fmt.Sprintf("S%d", s.n) }

type ptrStringer struct{ n int }

func (s *ptrStringer) String() string { return fmt.Sprintf("P%d", s.n) }

type panicker struct{}

func (panicker) String() string { panic("boom") }

type formatter struct{}

func (formatter) Format(f fmt.State, verb rune) { fmt.Fprintf(f, "F%c%v", verb, f.Flag('+')) }

type key struct {
	A int
	B string
}

type inner struct {
	X float64
	y float32
}

type hiddenMap struct {
	m  map[stringer]*ptrStringer
	M  map[stringer]*ptrStringer
	in map[any]any
}

type outer struct {
	Name     string
	In       inner
	Ptr      *inner
	NilPtr   *inner
	Any      any
	NilAny   any
	Str      stringer
	hidden   stringer
	PStr     *ptrStringer
	Err      error
	Dur      time.Duration
	Bytes    []byte
	Arr      [3]int8
	C        complex64
	M        map[key][]int
	Ch       chan int
	Fn       func()
	U        uintptr
	Unsafe   unsafe.Pointer
	RV       reflect.Value
	Panic    panicker
	Fmt      formatter
	Embedded inner
	inner
}

// TestPlainAsFmt: a value whose text fits in maxText is shown exactly as fmt shows it (%v, or
// %+v for a struct or a pointer to one), nested values, methods, pointers and map order
// included.
func TestPlainAsFmt(t *testing.T) {
	in := &inner{X: 1.5, y: 2}
	o := outer{Name: "o", In: inner{math.Inf(1), float32(math.NaN())}, Ptr: in, Any: in, Str: stringer{1}, hidden: stringer{2},
		PStr: &ptrStringer{3}, Err: errors.New("e"), Dur: 1500 * time.Millisecond, Bytes: []byte("ab"), Arr: [3]int8{-1, 0, 1},
		C: complex(1, -2), M: map[key][]int{{2, "a"}: {1}, {1, "b"}: nil, {1, "a"}: {}}, Ch: make(chan int), Fn: func() {},
		U: 7, Unsafe: unsafe.Pointer(in), RV: reflect.ValueOf(3), inner: inner{X: -0.0}}
	var nilPtr *outer
	values := []any{
		o, &o, []outer{o}, map[string]outer{"k": o},
		[]any{1, "a", nil, in, stringer{4}, []any{nil}, map[any]int{2: 1, "x": 2, 1.5: 3, nil: 4, 1: 5, true: 6}},
		map[float64]string{math.NaN(): "nan", math.Inf(-1): "-inf", 0: "0", 2: "2", math.Inf(1): "inf"},
		map[bool]int{true: 1, false: 0}, map[complex128]int{complex(1, 2): 1, complex(1, 1): 2, complex(0, 5): 3},
		map[[2]int]string{{2, 1}: "b", {1, 2}: "a"}, map[*inner]int{in: 1, nil: 0},
		map[uint8]int8{200: -1, 3: 1}, map[string]int(nil), []int(nil), nilPtr, &[]int{1}, &map[int]int{1: 2}, &[2]bool{true},
		time.Second, stringer{5}, &ptrStringer{6}, (*ptrStringer)(nil), panicker{}, formatter{}, &formatter{},
		struct{}{}, [0]int{}, true, uintptr(9), int8(-3), float32(0.1), complex(0, 1), reflect.ValueOf("rv"),
		make(chan string), strings.Repeat("x", maxText),
		hiddenMap{m: map[stringer]*ptrStringer{{2}: {1}, {1}: nil}, M: map[stringer]*ptrStringer{{2}: {1}, {1}: nil},
			in: map[any]any{stringer{1}: errors.New("x"), 2: []any{stringer{3}}}}, []string{strings.Repeat("y", maxText-2)}, inner{},
	}
	for i, v := range values {
		format := "%v"
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Struct || rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Struct {
			format = "%+v"
		}
		want := fmt.Sprintf(format, v)
		if len(want) > maxText {
			t.Fatalf("value %d (%T): its text is %d bytes, over maxText", i, v, len(want))
		}
		if got := plain(v); got != want {
			t.Errorf("value %d (%T): plain gives\n%q\nfmt gives\n%q", i, v, got, want)
		}
	}
}
