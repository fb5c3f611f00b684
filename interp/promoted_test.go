package interp

import (
	"strings"
	"testing"
)

// promotedSetup imports the packages of the tests of methods promoted from an embedded
// compiled type.
const promotedSetup = "import (\n\t\"bytes\"\n\t\"fmt\"\n\t\"image\"\n\t\"io\"\n\t\"strings\"\n\t\"time\"\n)\n" +
	"var _, _, _, _, _, _ = bytes.MinRead, fmt.Sprint, image.Pt, io.EOF, strings.NewReader, time.Second"

// TestPromotedCompiledAssertions runs type assertions and type switches to interfaces of
// values whose types get methods from an embedded compiled type. The interpreter does not
// hand such a value to an interface by those methods, so it answered no (x.(fmt.Stringer) of a
// Dur, any(&b).(fmt.Stringer) of a B) where Go answers yes; check-interface-assertions now
// counts the promoted methods and fails the cell. An interface whose methods no type of the
// session has keeps Go's answer.
func TestPromotedCompiledAssertions(t *testing.T) {
	const refused = "may answer wrongly"
	for _, c := range []struct{ name, decl, code, out, err string }{
		{"Dur in an any", "type Dur struct {\n\ttime.Duration\n\tn int\n}",
			"var x any = Dur{time.Second, 2}\n_, ok := x.(fmt.Stringer)\nfmt.Println(ok)", "", refused},
		{"pointer to B", "type B struct{ bytes.Buffer }",
			"var b B\n_, ok := any(&b).(fmt.Stringer)\nfmt.Println(ok)", "", refused},
		{"type switch", "type R struct {\n\t*strings.Reader\n\tn int\n}",
			"var x any = R{strings.NewReader(\"a\"), 1}\nswitch x.(type) {\ncase io.ByteReader:\n\tfmt.Println(\"byte reader\")\ndefault:\n\tfmt.Println(\"other\")\n}", "", refused},
		{"promoted through a cell type", "type In struct {\n\ttime.Duration\n\tn int\n}\ntype Out struct {\n\tIn\n\tm int\n}",
			"var x any = Out{}\n_, ok := x.(fmt.Stringer)\nfmt.Println(ok)", "", refused},
		// Go's answers
		{"interface of other methods", "type Dur struct {\n\ttime.Duration\n\tn int\n}",
			"var x any = Dur{time.Second, 2}\n_, ok := x.(io.Reader)\nfmt.Println(ok)", "false\n", ""},
		{"assertion to the type itself", "type Dur struct {\n\ttime.Duration\n\tn int\n}",
			"var x any = Dur{time.Second, 2}\nd, ok := x.(Dur)\nfmt.Println(d.n, d.Seconds(), ok)", "2 1 true\n", ""},
		{"embedded type without methods", "type C struct {\n\timage.Config\n\tn int\n}",
			"var x any = C{}\n_, ok := x.(fmt.Stringer)\nfmt.Println(ok)", "false\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup)
			ts.mustRun(t, c.decl)
			ts.out.Reset()
			res := ts.run(c.code)
			switch {
			case c.err != "" && (res.Err == nil || !strings.Contains(res.Err.Value, c.err)):
				t.Errorf("%q: error %v, output %q; want an error with %q", c.code, res.Err, ts.out.String(), c.err)
			case c.err == "" && res.Err != nil:
				t.Errorf("%q: error %v, want the output %q", c.code, res.Err.Value, c.out)
			case c.err == "" && ts.out.String() != c.out:
				t.Errorf("%q: printed %q, want %q", c.code, ts.out.String(), c.out)
			}
		})
	}
}
