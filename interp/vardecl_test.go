package interp

import (
	"strings"
	"testing"
	"time"
)

// TestFailedVarDeclUndone runs cells whose var (or const) declarations fail, by a panic or
// by not compiling, and checks that they are undone as a failed c := xs[3] is: a variable of
// the session keeps its earlier value and type, and one the cell would have made is
// undefined. Declarations of the cell evaluated before the failing one are kept, and the
// functions of a cell that compiled and then panicked are defined.
func TestFailedVarDeclUndone(t *testing.T) {
	const setup = "xs := []int{1, 2}\nc := 5\nconst k = 7\nfunc boom() int { panic(\"boom\") }\nfunc f() int { return 1 }\nfunc g() int { return f() * 10 }\nfunc useC() int { return c + f() }"
	type check struct{ code, want string }
	cases := []struct {
		name, cell, err string
		checks          []check
	}{
		{"index of a session variable", "var c = xs[3]", "index out of range",
			[]check{{"c", "5"}}},
		{"index, new variable", "var d = xs[3]", "index out of range",
			[]check{{"d", "undefined: d"}}},
		{"with a type", "var c float64 = float64(xs[3])", "index out of range",
			[]check{{"c", "5"}, {"c + 1", "6"}}},
		{"another type", "var c = \"s\" + fmt.Sprint(xs[3])", "index out of range",
			[]check{{"c", "5"}}},
		{"two names", "var c, d = 1, xs[3]", "index out of range",
			[]check{{"c", "5"}, {"d", "undefined: d"}}},
		{"panicking call", "var c = boom()", "boom",
			[]check{{"c", "5"}}},
		{"does not compile", "var c string = xs[0]", "cannot use type int as type string",
			[]check{{"c", "5"}}},
		{"does not compile, with others", "var c = \"s\"\nvar e = nope", "undefined: nope",
			[]check{{"c", "5"}, {"e", "undefined: e"}}},
		{"constant, does not compile", "const k = 6\nconst j = nope", "undefined: nope",
			[]check{{"k", "7"}, {"j", "undefined: j"}}},
		{"earlier declaration kept", "var a = 3\nvar c = xs[3]", "index out of range",
			[]check{{"c", "5"}, {"a", "3"}, {"var b = a + 1\nb", "4"}}},
		{"function of the cell kept", "func h() int { return 2 }\nvar c = xs[3]", "index out of range",
			[]check{{"c", "5"}, {"h()", "2"}}},
		{"function of the cell, declared together", "func h() int { return 2 }\nvar c = boom()", "boom",
			[]check{{"c", "5"}, {"h()", "2"}}},
		{"declared together", "var a = 1\nvar c = boom()", "(a, c: declared together by this cell, and the interpreter sets them at once",
			[]check{{"c", "5"}, {"a", "undefined: a"}}},
		{"function of the cell redefined, declared together", "func f() int { return 2 }\nvar c = boom()", "boom",
			[]check{{"c", "5"}, {"f()", "2"}, {"g()", "20"}, {"useC()", "7"}}},
		{"function of the cell redefined", "func f() int { return 2 }\nvar c = xs[3]", "index out of range",
			[]check{{"c", "5"}, {"f()", "2"}, {"g()", "20"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, setup)
			res := ts.run(c.cell)
			if res.Err == nil || !strings.Contains(res.Err.Value, c.err) {
				t.Fatalf("%q: got %+v, want an error containing %q", c.cell, res.Err, c.err)
			}
			for _, ch := range c.checks {
				res := ts.run(ch.code)
				switch {
				case strings.HasPrefix(ch.want, "undefined: "):
					if res.Err == nil || !strings.Contains(res.Err.Value, ch.want) {
						t.Errorf("after %q: %q gives %s (error %+v), want the error %q", c.cell, ch.code, text(res), res.Err, ch.want)
					}
				case res.Err != nil:
					t.Errorf("after %q: %q failed: %s; want %s", c.cell, ch.code, res.Err.Value, ch.want)
				case text(res) != ch.want:
					t.Errorf("after %q: %q = %s, want %s", c.cell, ch.code, text(res), ch.want)
				}
			}
		})
	}
}

// TestInterruptedVarDeclUndone interrupts a cell while a var declaration computes its value:
// a variable of the session keeps its old value, and a new one is undefined.
func TestInterruptedVarDeclUndone(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "model := 7\nfunc train() int {\n\tfmt.Println(\"training\")\n\tfor {\n\t}\n}")
	for _, c := range []struct{ cell, check, want string }{
		{"var model = train()", "model", "7"},
		{"var fresh = train()", "fresh", "undefined: fresh"},
		{"var model, other = 1, model + train()", "model", "7"},
	} {
		ts.out.Reset()
		go func() {
			// interrupt once the cell runs: an interrupt before it starts would be lost
			for !strings.Contains(ts.out.String(), "training") {
				time.Sleep(5 * time.Millisecond)
			}
			ts.Interrupt()
		}()
		if res := ts.run(c.cell); res.Err == nil || res.Err.Name != "Interrupted" {
			t.Fatalf("%q: want Interrupted, got %+v", c.cell, res.Err)
		}
		res := ts.run(c.check)
		switch {
		case strings.HasPrefix(c.want, "undefined: "):
			if res.Err == nil || !strings.Contains(res.Err.Value, c.want) {
				t.Errorf("after %q: %s gives %s (error %+v), want the error %q", c.cell, c.check, text(res), res.Err, c.want)
			}
		case res.Err != nil:
			t.Errorf("after %q: %s failed: %s", c.cell, c.check, res.Err.Value)
		case text(res) != c.want:
			t.Errorf("after %q: %s = %s, want %s", c.cell, c.check, text(res), c.want)
		}
	}
}

// TestFailedMethodDeclDetached runs a cell whose method declaration does not compile and then
// the fixed cell: the fixed method works (the interpreter kept the half-compiled method
// attached to its type, and calls failed with "index out of range" until %reset), and the
// type's other methods go on working.
func TestFailedMethodDeclDetached(t *testing.T) {
	const setup = "type U struct{ A int }\nfunc (u U) Old() int { return u.A * 10 }\nu := U{3}"
	cases := []struct{ name, failing, fixed, call, want string }{
		{"value receiver", "func (u U) Get() int { return u.A + nope }", "func (u U) Get() int { return u.A }", "u.Get() + u.Old()", "33"},
		{"with another declaration", "func (u U) Get() int { return u.A }\nvar e = nope", "func (u U) Get() int { return u.A }\nvar e = 1", "u.Get() + e", "4"},
		{"pointer receiver", "func (u *U) Set(v int) { u.A = v + nope }", "func (u *U) Set(v int) { u.A = v }", "u.Set(5)\nu.A + u.Old()", "55"},
		{"new type", "type V struct{ A int }\nfunc (v V) Get() int { return v.A }\nvar v = V{nope}",
			"type V struct{ A int }\nfunc (v V) Get() int { return v.A }\nvar v = V{2}", "v.Get()", "2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, setup)
			if res := ts.run(c.failing); res.Err == nil || !strings.Contains(res.Err.Value, "undefined: nope") {
				t.Fatalf("%q: got %+v, want undefined: nope", c.failing, res.Err)
			}
			ts.mustRun(t, c.fixed)
			if got := text(ts.mustRun(t, c.call)); got != c.want {
				t.Errorf("%q after the fixed cell = %s, want %s", c.call, got, c.want)
			}
		})
	}
}
