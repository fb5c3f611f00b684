package explain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/stdlib"
)

// cellWhere formats positions as a session whose cells all lie in the slot of cell 3.
func cellWhere(line, col int) string {
	if col > 0 {
		return fmt.Sprintf("cell [3] line %d:%d", line%100000, col)
	}
	return fmt.Sprintf("cell [3] line %d", line%100000)
}

func TestPositions(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_.go:1300002:5: undefined: foo", "cell [3] line 2:5: undefined: foo"},
		{"1300002:5: panic", "cell [3] line 2:5: panic"},
		{"at (1300007)", "at (cell [3] line 7)"},
		// digits inside versions and paths stay
		{"go: downloading github.com/gosbi/gosbi v0.0.0-20261125091747-a8276b04c371", ""},
		{"reading /tmp/TestRun1234567890/001/x.go", ""},
		// a constant's digits are no position, however many they are
		{"_.go:1300001:11: constant 107150860718626732094842504906000181056140481170553360744375038837035105112493612249319837881569585812759467291755314682518714528569231404359845775746985748039345677748242309854210746050623711418779541821530464749835819412673987675591655439460770629145711964776865421676604298316526243868372056680693760 overflows int",
			"cell [3] line 1:11: constant 107150860718626732094842504906000181056140481170553360744375038837035105112493612249319837881569585812759467291755314682518714528569231404359845775746985748039345677748242309854210746050623711418779541821530464749835819412673987675591655439460770629145711964776865421676604298316526243868372056680693760 overflows int"},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := Positions(c.in, cellWhere, nil); got != want {
			t.Errorf("Positions(%q) = %q, want %q", c.in, got, want)
		}
	}
}

// TestReportNamesTheCell: a message without a position gets the cell's number; the restart note
// follows an undefined name in a restarted session only.
func TestReportNamesTheCell(t *testing.T) {
	r := Compile(Env{Cell: 4, Where: cellWhere}, "import cycle not allowed")
	if r.Name != "error" || r.Value != "cell [4]: import cycle not allowed" {
		t.Errorf("Compile = %+v", r)
	}
	env := Env{Cell: 3, Where: cellWhere, Restarted: true}
	r = Compile(env, "_.go:1300001:1: undefined: x")
	if len(r.Traceback) != 2 || !strings.Contains(r.Traceback[1], "restarted") {
		t.Errorf("restarted session: traceback %q lacks the restart note", r.Traceback)
	}
	env.Restarted = false
	if r := Compile(env, "_.go:1300001:1: undefined: x"); len(r.Traceback) != 1 {
		t.Errorf("traceback %q has a note", r.Traceback)
	}
}

// TestPanicReports: a check failure, an exit and a panic of the cell's code, each with the
// cell's frame; a panic without frames is a compile error.
func TestPanicReports(t *testing.T) {
	env := Env{Cell: 3, Where: cellWhere, Items: []Item{
		{Text: "x := 1", Line: 1, Stmt: true},
		{Text: "y := s[i] + *p + f(x)", Line: 2, Stmt: true},
	}}
	// the interpreter names the cell's first statement; the one line that can panic is line 2
	frames := []string{"_.go:1300001:1: panic: main(...)"}
	check := func() (v any) {
		defer func() { v = recover() }()
		display.Check(false, "x is positive")
		return nil
	}()
	for _, c := range []struct {
		value            any
		frames           []string
		name, value0, tb string
	}{
		{check, frames, "CheckFailed", "check failed: x is positive", "    at cell [3] line 2"},
		{stdlib.Exit{Code: 2}, frames, "Exit", "os.Exit(2) called: a notebook cell cannot end the session", "    at cell [3] line 2"},
		{"boom", frames, "panic", "boom", "    at cell [3] line 2"},
		{"reflect: slice index out of range", frames, "panic", "runtime error: index out of range", "    at cell [3] line 2"},
		{"reflect: call of reflect.Value.Set on zero Value", frames, "panic", nilDeref + "\n(the interpreter's message: reflect: call of reflect.Value.Set on zero Value)", "    at cell [3] line 2"},
		{"reflect: call of reflect.Value.Field on zero Value", frames, "panic", nilDeref + "\n(the interpreter's message: reflect: call of reflect.Value.Field on zero Value)", "    at cell [3] line 2"},
		{"reflect: Method on nil interface value", frames, "panic", nilDeref + "\n(the interpreter's message: reflect: Method on nil interface value)", "    at cell [3] line 2"},
		{"reflect.Value.Call: call of nil function", frames, "panic", nilDeref + "\n(the interpreter's message: reflect.Value.Call: call of nil function)", "    at cell [3] line 2"},
		{"reflect: call of reflect.Value.Set on zero Value, said f", frames, "panic", "reflect: call of reflect.Value.Set on zero Value, said f", "    at cell [3]"},
		{"nil type", nil, "error", "cell [3]: the interpreter's compiler failed on this cell (nil type)", ""},
	} {
		r := Panic(env, c.value, c.frames)
		if r.Name != c.name || !strings.HasPrefix(r.Value, c.value0) {
			t.Errorf("Panic(%v) = %+v, want %s %q", c.value, r, c.name, c.value0)
		}
		if c.tb != "" && (len(r.Traceback) != 2 || r.Traceback[1] != c.tb) {
			t.Errorf("Panic(%v): traceback %q, want the frame %q", c.value, r.Traceback, c.tb)
		}
	}
}

func TestCompiledUndefined(t *testing.T) {
	decls := map[string]struct {
		kind string
		cell int
	}{"xs": {KindVar, 1}, "scale": {KindConst, 2}, "f": {KindFunc, 3}, "T": {KindType, 4}}
	decl := func(name string) (string, int, bool) {
		d, ok := decls[name]
		return d.kind, d.cell, ok
	}
	const msg = "cell [5]: %%compile: the %%compile cells do not compile:\n"
	for _, c := range []struct {
		errs string
		want []string
	}{
		{"cell [5] line 2:29: undefined: xs", []string{"xs is a variable of the interpreted cell [1]", "sees only its own declarations",
			"pass its value in as a function argument", "func f(xs T)"}},
		{"cell [5] line 2:9: undefined: scale", []string{"scale is a constant of the interpreted cell [2]", "declare scale in the %%compile cell"}},
		{"cell [5] line 2:9: undefined: f", []string{"f is a function of the interpreted cell [3]", "move f into a %%compile cell"}},
		{"cell [5] line 2:9: undefined: T", []string{"T is a type of the interpreted cell [4]"}},
	} {
		got := CompiledUndefined(msg+c.errs, decl)
		if !strings.HasPrefix(got, msg+c.errs+"\nnote: ") {
			t.Errorf("%s: %q does not keep the message and add a note", c.errs, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not say %q", c.errs, got, w)
			}
		}
	}
	// a name no interpreted cell declares, and one named twice
	if got := CompiledUndefined(msg+"cell [5] line 2:9: undefined: nope", decl); got != msg+"cell [5] line 2:9: undefined: nope" {
		t.Errorf("undefined nope: %q, want the message unchanged", got)
	}
	got := CompiledUndefined(msg+"line 2: undefined: xs\nline 3: undefined: xs", decl)
	if strings.Count(got, "note: ") != 1 {
		t.Errorf("xs undefined twice: %q, want one note", got)
	}
}

func TestUnusable(t *testing.T) {
	unusable := []string{"example.com/sim.Map: func Map is generic"}
	for _, c := range []struct{ msg, want string }{
		{`_.go:1300001:1: package sim "example.com/sim" has no symbol Map`, "example.com/sim.Map cannot be used in cells: func Map is generic"},
		{"undefined selector example.com/sim.Map", "example.com/sim.Map cannot be used in cells: func Map is generic"},
		{`package sim "example.com/sim" has no symbol Other`, ""},
		// Go's message, as the undefined-selector explainer gives it
		{"_.go:1300001:5: undefined: sim.Map", "example.com/sim.Map cannot be used in cells: func Map is generic"},
		{"_.go:1300001:5: undefined: sim.MapAll", ""},
	} {
		if got := Unusable(c.msg, unusable); got != c.want {
			t.Errorf("Unusable(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// TestMissingGeneric: each form of the interpreter's message for a missing generic function
// gets the hint (sync.OnceValue is one of the symbol tables' packages, slices one of the
// interpreter's own), and a package of another path with the same name does not.
func TestMissingGeneric(t *testing.T) {
	env := Env{Cell: 3, Where: cellWhere}
	for _, c := range []struct{ msg, want string }{
		{"_.go:1300001:1: undefined selector: slices.Sort", "use sort.Float64s"},
		{"_.go:1300001:6: undefined selector slices.Sort", "use sort.Float64s"},
		{`_.go:1300001:1: package sync "sync" has no symbol OnceValue`, "use a sync.Once"},
		{"_.go:1300001:1: undefined selector: slices.Contains", ""},
		// another package of the same name, whose generic functions Unusable explains
		{`_.go:1300001:1: package slices "golang.org/x/exp/slices" has no symbol Sort`, ""},
	} {
		r := Compile(env, c.msg)
		if c.want != "" && !strings.Contains(r.Value, c.want) || c.want == "" && strings.Contains(r.Value, "(") {
			t.Errorf("%q: %q, want the hint %q", c.msg, r.Value, c.want)
		}
	}
}

// TestReflectSlice: reflect's slice messages become Go's, with the slice expression's line,
// only when the frame's code holds a slice expression; a call of reflect's Slice keeps them.
func TestReflectSlice(t *testing.T) {
	frames := []string{"_.go:1300001:6: panic: main(...)"}
	for _, c := range []struct {
		stmt, value, tb string
	}{
		{"t := s[1:n]", "runtime error: slice bounds out of range\n(the interpreter's message: reflect.Value.Slice: slice index out of bounds)\n" + boundsUnknown, "    at cell [3] line 2"},
		{"t := v.Slice(1, n)", "reflect.Value.Slice: slice index out of bounds", "    at cell [3]"},
	} {
		env := Env{Cell: 3, Where: cellWhere, Items: []Item{
			{Text: "n := 5", Line: 1, Stmt: true},
			{Text: c.stmt, Line: 2, Stmt: true},
		}}
		r := Panic(env, "reflect.Value.Slice: slice index out of bounds", frames)
		if r.Value != c.value || len(r.Traceback) != 2 || r.Traceback[1] != c.tb {
			t.Errorf("%s: %q, traceback %q; want %q, then %q", c.stmt, r.Value, r.Traceback, c.value, c.tb)
		}
	}
}

// TestReflectIndex: reflect's index messages become Go's, with the interpreter's message and
// what Go's message has that the interpreter does not report.
func TestReflectIndex(t *testing.T) {
	frames := []string{"_.go:1300001:6: panic: main(...)"}
	env := Env{Cell: 3, Where: cellWhere, Items: []Item{{Text: "x := s[i]", Line: 1, Stmt: true}}}
	for _, kind := range []string{"slice", "array", "string"} {
		msg := "reflect: " + kind + " index out of range"
		want := "runtime error: index out of range\n(the interpreter's message: " + msg + ")\n" +
			"(the interpreter reports neither the index nor the length, which Go's message adds)"
		if r := Panic(env, msg, frames); r.Value != want {
			t.Errorf("%s: %q, want %q", msg, r.Value, want)
		}
	}
}
