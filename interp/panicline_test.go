package interp

import (
	"strings"
	"testing"
)

// TestPanicLines checks the line that a panic's innermost frame names: the failing line, not
// the first statement of the cell or of the function, and the message Go gives.
func TestPanicLines(t *testing.T) {
	for _, c := range []struct{ code, msg, frame string }{
		{"var arr [3]int\ni := 5\narr[i] = 1", "runtime error: index out of range", "at cell [1] line 3"},
		{"func h() {\n\ts := []int{1}\n\tk := 3\n\t_ = s[k]\n}\nh()", "runtime error: index out of range", "in h, cell [1] line 4"},
		{"func g() int {\n\tvar p *int\n\treturn *p\n}\ng()", "runtime error: invalid memory address or nil pointer dereference", "in g, cell [1] line 3"},
		{"type T struct{ A int }\nvar pt *T\nz := pt.A\n_ = z", "runtime error: invalid memory address or nil pointer dereference", "at cell [1] line 3"},
		{"x := 1\nvar m map[string]int\nm[\"a\"] = x", "assignment to entry in nil map", "at cell [1] line 3"},
		{"func d(a, b int) int {\n\tx := 1\n\treturn a/b + x\n}\nd(1, 0)", "runtime error: integer divide by zero", "in d, cell [1] line 3"},
		{"func e() {\n\tx := 1\n\t_ = x\n\tpanic(\"boom\")\n}\ne()", "boom", "in e, cell [1] line 4"},
		{"s := []int{1, 2, 3}\nn := 5\nt := s[1:n]", sliceBounds("Slice: "), "at cell [1] line 3"},
		{"a := [3]int{1, 2, 3}\nn := 5\nt := a[1:n]", sliceBounds("Slice: "), "at cell [1] line 3"},
		{"s := \"abc\"\nn := 5\nt := s[n:]", sliceBounds("Slice: string "), "at cell [1] line 3"},
		{"s := []int{1, 2, 3}\nn := 5\nt := s[0:1:n]", sliceBounds("Slice3: "), "at cell [1] line 3"},
		{"func f() {\n\ts := []int{1, 2, 3}\n\tn := 5\n\t_ = s[1:n]\n}\nf()", sliceBounds("Slice: "), "in f, cell [1] line 4"},
		{"func f() {\n\ta := [3]int{1, 2, 3}\n\tn := 5\n\t_ = a[1:n]\n}\nf()", sliceBounds("Slice: "), "in f, cell [1] line 4"},
		{"func f() {\n\ts := \"abc\"\n\tn := 5\n\t_ = s[1:n]\n}\nf()", sliceBounds("Slice: string "), "in f, cell [1] line 4"},
		{"func f() {\n\ts := []int{1, 2, 3}\n\tn := 5\n\t_ = s[0:1:n]\n}\nf()", sliceBounds("Slice3: "), "in f, cell [1] line 4"},
		// a send on a closed channel is no call: its line is not told, rather than a call's
		{"ch := make(chan int, 1)\nclose(ch)\nch <- 1", "send on closed channel", "at cell [1]"},
		// compiled code called on line 2 may write to a nil map: not the map write of line 3
		{"var h http.Header\nh.Set(\"a\", \"b\")\nvar m map[string]int\nm[\"x\"] = 1", "assignment to entry in nil map", "at cell [1]"},
		// the receiver's *T is no dereference: the method's failing line is named
		{"type T struct{ A int }\nfunc (t *T) get() int {\n\tx := 1\n\treturn t.A + x\n}\nvar pt *T\npt.get()", "runtime error: invalid memory address or nil pointer dereference", "in get, cell [1] line 4"},
		// two lines that can panic: the function's lines, not a line that may be wrong
		{"func two(s []int, i int) int {\n\ta := s[i]\n\treturn a + s[i+1]\n}\ntwo([]int{1}, 0)", "runtime error: index out of range", "in two, cell [1] lines 1-4"},
	} {
		ts := newTestSession(t)
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no panic", c.code)
			continue
		}
		if len(res.Err.Traceback) < 2 || !strings.HasPrefix(res.Err.Value, c.msg) || strings.TrimSpace(res.Err.Traceback[1]) != c.frame {
			t.Errorf("%q:\n%s\nwant %q, then the frame %q", c.code, strings.Join(res.Err.Traceback, "\n"), c.msg, c.frame)
		}
	}
}

// sliceBounds is the report's message for reflect's slice panic of kind ("Slice: ",
// "Slice: string ", "Slice3: "): Go's message, then the interpreter's.
func sliceBounds(kind string) string {
	return "runtime error: slice bounds out of range\n(the interpreter's message: reflect.Value." + kind + "slice index out of bounds)"
}
