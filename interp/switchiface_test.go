package interp

import (
	"strings"
	"testing"
)

// TestSwitchOnInterface runs switches with case values on a tag of an interface type, which
// the interpreter failed with an error of reflect ("value of type interface {} cannot be
// converted to type int") even for a plain int; bind-switch-tag now makes them switches
// without a tag whose cases compare, as Go does. The outputs are what compiled Go prints; a
// case that check-type-identity cannot tell from the tag's value fails the cell as a
// comparison does.
func TestSwitchOnInterface(t *testing.T) {
	for _, c := range []struct{ name, code, want, err string }{
		{"int", "var v any = 1\nswitch v {\ncase 1:\n\tfmt.Println(\"one\")\ndefault:\n\tfmt.Println(\"other\")\n}", "one\n", ""},
		{"other type", "var v any = int64(1)\nswitch v {\ncase 1:\n\tfmt.Println(\"one\")\ndefault:\n\tfmt.Println(\"other\")\n}", "other\n", ""},
		{"several values", "var v any = \"b\"\nswitch v {\ncase \"a\", \"b\":\n\tfmt.Println(\"ab\")\ncase \"c\":\n\tfmt.Println(\"c\")\n}", "ab\n", ""},
		{"fallthrough", "var v any = 2.5\nswitch v {\ncase 2.5:\n\tfmt.Println(\"x\")\n\tfallthrough\ncase 1:\n\tfmt.Println(\"y\")\ncase 3:\n\tfmt.Println(\"z\")\n}", "x\ny\n", ""},
		{"init", "switch v := any(3); v {\ncase 3:\n\tfmt.Println(\"three\")\n}", "three\n", ""},
		{"call", "func f() any { return nil }\nswitch f() {\ncase nil:\n\tfmt.Println(\"nil\")\ncase 1:\n\tfmt.Println(\"one\")\n}", "nil\n", ""},
		{"order of cases", "n := 0\nnext := func() int { n++; return n }\nvar v any = 2\nswitch v {\ncase next(), next(), next():\n\tfmt.Println(\"at\", n)\n}", "at 2\n", ""},
		{"break in a loop", "var v any = 1\nfor i := range 2 {\n\tswitch v {\n\tcase 1:\n\t\tif i == 0 {\n\t\t\tbreak\n\t\t}\n\t\tfmt.Println(\"one\", i)\n\t}\n}", "one 1\n", ""},
		{"labeled", "var v any = 1\nL:\n\tswitch v {\n\tcase 1:\n\t\tbreak L\n\t}\nfmt.Println(\"after\")", "after\n", ""},
		{"in a function", "func name(v any) string {\n\tswitch v {\n\tcase 1:\n\t\treturn \"one\"\n\tcase \"x\":\n\t\treturn \"ex\"\n\t}\n\treturn \"?\"\n}\nfmt.Println(name(1), name(\"x\"), name(2.0))", "one ex ?\n", ""},
		{"error", "err := error(io.EOF)\nswitch err {\ncase nil:\n\tfmt.Println(\"nil\")\ncase io.EOF:\n\tfmt.Println(\"eof\")\n}", "eof\n", ""},
		{"not an interface", "v := 2\nswitch v {\ncase 1, 2:\n\tfmt.Println(\"small\")\n}", "small\n", ""},
		{"parenthesized", "var v any = 1\nswitch (v) {\ncase (1):\n\tfmt.Println(\"one\")\n}", "one\n", ""},
		{"a comparison as value", "var v any = true\nswitch v {\ncase 1 > 2:\n\tfmt.Println(\"no\")\ncase 1 < 2:\n\tfmt.Println(\"yes\")\n}", "yes\n", ""},
		{"types it cannot tell apart", "type T1 struct{ A int }\ntype T2 struct{ A int }\nvar v any = T1{}\nswitch v {\ncase T2{}:\n\tfmt.Println(\"T2\")\n}",
			"", "the switch's case T2{} cannot tell T2 from T1"},
		{"types it cannot tell apart, init", "type T1 struct{ A int }\ntype T2 struct{ A int }\nswitch v := any(T1{}); v {\ncase T2{}:\n\tfmt.Println(\"T2\")\n}",
			"", "the switch's case T2{} cannot tell T2 from T1"},
		{"types it cannot tell apart, second value", "type T1 struct{ A int }\ntype T2 struct{ A int }\nvar v any = T1{}\nswitch v {\ncase 1, T2{}:\n\tfmt.Println(\"T2\")\n}",
			"", "the switch's case T2{} cannot tell T2 from T1"},
		{"types it cannot tell apart, a comparison", "type T1 struct{ A int }\ntype T2 struct{ A int }\nvar v any = T1{}\nswitch {\ncase v == T2{}:\n\tfmt.Println(\"T2\")\n}",
			"", "the comparison v == T2{} cannot tell T2 from T1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, "import (\n\t\"fmt\"\n\t\"io\"\n)\nvar _, _ = fmt.Sprint, io.EOF")
			ts.out.Reset()
			if c.err != "" {
				if res := ts.run(c.code); res.Err == nil || !strings.Contains(res.Err.Value, c.err) || strings.Contains(res.Err.Value, "/*line") {
					t.Errorf("%q: error %v, want one with %q, without the rewrites' position comments", c.code, res.Err, c.err)
				}
				return
			}
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}
