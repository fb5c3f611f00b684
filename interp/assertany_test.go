package interp

import "testing"

// TestAssertionToAny runs type assertions to the empty interface. The interpreter answered
// ok == false and v == nil for every value in the comma-ok form (v, ok := x.(any)) and
// panicked for every value in the other (x.(any)); the rows of those forms failed before
// assert-any, the last ones answered as Go does already.
func TestAssertionToAny(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\nvar _ = fmt.Sprint\ntype Shape interface{ Area() float64 }\ntype Sq struct{ S float64 }\n"+
		"func (q Sq) Area() float64 { return q.S * q.S }\nvar x any = 3\nvar none any\nvar sh Shape = Sq{2}\nvar noShape Shape")
	for _, c := range []struct{ name, code, want string }{
		{"status only", "_, ok := x.(any)\nok", "true"},
		{"value and status", "v, ok := x.(any)\nfmt.Sprint(v, ok)", `"3 true"`},
		{"nil", "v, ok := none.(any)\nfmt.Sprint(v, ok)", `"<nil> false"`},
		{"interface{}", "_, ok := x.(interface{})\nok", "true"},
		{"parenthesized", "_, ok := (x.(any))\nok", "true"},
		{"assignment", "var ok bool\n_, ok = x.(any)\nok", "true"},
		{"var declaration", "var v, ok = x.(any)\nfmt.Sprint(v, ok)", `"3 true"`},
		{"in a function", "func isAny(y any) bool { _, ok := y.(any); return ok }\nfmt.Sprint(isAny(2.5), isAny(nil))", `"true false"`},
		{"in an if", "s := \"no\"\nif _, ok := x.(any); ok {\n\ts = \"yes\"\n}\ns", `"yes"`},
		{"a cell's interface", "v, ok := sh.(any)\nfmt.Sprint(v.(Sq).S, ok)", `"2 true"`},
		{"a nil cell's interface", "_, ok := noShape.(any)\nok", "false"},
		{"a cell's struct", "_, ok := any(Sq{1}).(any)\nok", "true"},
		{"panicking form", "fmt.Sprint(x.(any))", `"3"`},
		{"panicking form in a function", "func asAny(y any) any { return y.(any) }\nfmt.Sprint(asAny(4))", `"4"`},
		{"panicking form in a comma-ok form", "m := map[any]int{3: 1}\n_, ok := m[x.(any)]\nok", "true"},
		{"panicking form of nil", "func asAny2(y any) (s string) {\n\tdefer func() { s = fmt.Sprint(recover()) }()\n\t_ = y.(any)\n\treturn\n}\nasAny2(nil)",
			`"interface conversion: interface is nil, not interface {}"`},
		// forms the interpreter answers as Go does
		{"switch", "s := \"none\"\nswitch x.(type) {\ncase any:\n\ts = \"any\"\n}\ns", `"any"`},
		{"other interface", "_, ok := x.(fmt.Stringer)\nok", "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := text(ts.mustRun(t, c.code)); got != c.want {
				t.Errorf("%q = %s, want %s", c.code, got, c.want)
			}
		})
	}
}
