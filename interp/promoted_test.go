package interp

import (
	"bytes"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"
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
		{"a compiled value, by the names of *bytes.Buffer's methods", "type B struct {\n\tbytes.Buffer\n\tn int\n}",
			"var x any = time.Second\n_, ok := x.(fmt.Stringer)\nfmt.Println(ok)", "", refused},
		{"a value without the pointer methods", "type B struct {\n\tbytes.Buffer\n\tn int\n}",
			"var x any = B{}\n_, ok := x.(io.Writer)\nfmt.Println(ok)", "", refused},
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

// The compiled counterparts of the cells' types of TestPromotedCompiledPrint, whose fmt output
// is Go's answer for the cells.
type (
	promDur struct {
		time.Duration
		n int
	}
	promB   struct{ bytes.Buffer }
	promOut struct {
		promDur
		m int
	}
	promErr struct {
		*os.PathError
		n int
	}
	promOwn struct {
		time.Duration
		n int
	}
	promPtr struct {
		*promDur
		k int
	}
	promFmt struct {
		*big.Int
		n int
	}
	promTwo struct {
		time.Duration
		time.Month
	}
	promHid struct {
		time.Duration
		String string
	}
)

func (promOwn) String() string { return "mine" }

// TestPromotedCompiledPrint prints values of types that get String or Error from an embedded
// compiled type with fmt, and compares the output with fmt's on compiled types of the same
// declarations. The interpreter hands fmt the value without the promoted methods, so it
// printed the fields ({1s 2}, &{{[104 105] 0 0}}) where Go calls the method; wrap-fmt-args now
// passes fmt the embedded field that has the method, for the operands whose type the cell
// shows.
func TestPromotedCompiledPrint(t *testing.T) {
	decls := "type Dur struct {\n\ttime.Duration\n\tn int\n}\ntype B struct{ bytes.Buffer }\ntype Out struct {\n\tDur\n\tm int\n}\n" +
		"type Err struct {\n\t*os.PathError\n\tn int\n}\ntype Own struct {\n\ttime.Duration\n\tn int\n}\n" +
		"func (Own) String() string { return \"mine\" }\ntype Ptr struct {\n\t*Dur\n\tk int\n}\n" +
		"type Fmt struct {\n\t*big.Int\n\tn int\n}\ntype Two struct {\n\ttime.Duration\n\ttime.Month\n}\n" +
		"type Hid struct {\n\ttime.Duration\n\tString string\n}"
	d := promDur{time.Second, 2}
	var b promB
	b.WriteString("hi")
	pe := &os.PathError{Op: "open", Path: "x", Err: io.EOF}
	for _, c := range []struct{ name, code, want string }{
		{"Println", "d := Dur{time.Second, 2}\nfmt.Println(d)", fmt.Sprintln(d)},
		{"Printf verbs", "d := Dur{time.Second, 2}\nfmt.Printf(\"%v|%s|%q|%x|%d|%5.1v|%+v\\n\", d, d, d, d, d, d, d)",
			fmt.Sprintf("%v|%s|%q|%x|%d|%5.1v|%+v\n", d, d, d, d, d, d, d)},
		{"Sprint of a literal", "fmt.Print(fmt.Sprint(Dur{time.Second, 2}, 1))", fmt.Sprint(promDur{time.Second, 2}, 1)},
		{"address of a variable", "d := Dur{time.Second, 2}\nfmt.Println(&d)", fmt.Sprintln(&d)},
		{"pointer variable", "d := Dur{time.Second, 2}\np := &d\nfmt.Println(p)", fmt.Sprintln(&d)},
		{"nil pointer variable", "var p *Dur\nvar q *B\nfmt.Println(p, q)", fmt.Sprintln((*promDur)(nil), (*promB)(nil))},
		{"pointer result", "func mk() *B { b := &B{}; b.WriteString(\"made\"); return b }\nfmt.Println(mk(), 1)",
			fmt.Sprintln(func() *promB { b := &promB{}; b.WriteString("made"); return b }(), 1)},
		{"pointer method, address", "var b B\nb.WriteString(\"hi\")\nfmt.Println(&b)", fmt.Sprintln(&b)},
		{"pointer method, value", "var b B\nb.WriteString(\"hi\")\nfmt.Println(b)", fmt.Sprintln(b)},
		{"pointer method, literal", "fmt.Printf(\"[%s]\\n\", &B{})", fmt.Sprintf("[%s]\n", &promB{})},
		{"through a cell type", "o := Out{Dur{time.Second, 2}, 3}\nfmt.Println(o, &o)",
			fmt.Sprintln(promOut{d, 3}, &promOut{d, 3})},
		{"through a pointer field", "p := Ptr{&Dur{time.Second, 2}, 3}\nfmt.Println(p)", fmt.Sprintln(promPtr{&d, 3})},
		{"Error", "e := Err{&os.PathError{Op: \"open\", Path: \"x\", Err: io.EOF}, 1}\nfmt.Println(e)\nfmt.Printf(\"%v\\n\", e)",
			fmt.Sprintln(promErr{pe, 1}) + fmt.Sprintf("%v\n", promErr{pe, 1})},
		{"in a function", "func show(d Dur) string { return fmt.Sprint(d) }\nfmt.Println(show(Dur{time.Minute, 1}))",
			fmt.Sprintln(fmt.Sprint(promDur{time.Minute, 1}))},
		{"Format", "f := Fmt{big.NewInt(255), 1}\nfmt.Printf(\"%d|%x|%v|%6d\\n\", f, f, f, f)\nfmt.Println(f)",
			fmt.Sprintf("%d|%x|%v|%6d\n", promFmt{big.NewInt(255), 1}, promFmt{big.NewInt(255), 1}, promFmt{big.NewInt(255), 1},
				promFmt{big.NewInt(255), 1}) + fmt.Sprintln(promFmt{big.NewInt(255), 1})},
		// Go's answers without the rewrite
		{"two at one depth", "fmt.Println(Two{time.Second, time.March})", fmt.Sprintln(promTwo{time.Second, time.March})},
		{"hidden by a field", "fmt.Println(Hid{time.Second, \"s\"})", fmt.Sprintln(promHid{time.Second, "s"})},
		{"declared String", "fmt.Println(Own{time.Second, 2})", fmt.Sprintln(promOwn{time.Second, 2})},
		{"field of the type", "d := Dur{time.Second, 2}\nfmt.Println(d.n, d.Duration)", fmt.Sprintln(d.n, d.Duration)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup+"\nimport (\n\t\"math/big\"\n\t\"os\"\n)\nvar _, _ = os.Exit, big.NewInt")
			ts.mustRun(t, decls)
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}

// The compiled counterparts of the cells' types of TestPromotedPrintBySignature.
type (
	promEv struct {
		time.Time
		N int
	}
	promInner struct {
		time.Duration
		k int
	}
	promIface struct {
		fmt.Stringer
		promInner
	}
	promIfaceTwo struct {
		fmt.Stringer
		time.Duration
	}
	promErrIface struct {
		error
		time.Duration
	}
	promFmtField struct {
		time.Duration
		Format int
	}
	promBufInner struct {
		bytes.Buffer
		promInner
	}
)

// TestPromotedPrintBySignature prints values of types whose embedded fields have methods
// named like fmt's (Format, Error, String) that fmt does not call: time.Time's Format(layout)
// is no fmt.Formatter, so %d prints an Ev's fields, N included; and an embedded interface
// gives the method at its depth, which Go calls (or, with a method of the name at the same
// depth, promotes neither). wrap-fmt-args found the methods by name and skipped the
// interfaces, so it passed fmt e.Time for %d (N vanished), and Duration's String where Go
// calls the interface's or prints the fields; now it decides by the signatures, and passes fmt
// the result of an embedded interface's Error or String, as Go calls it. A nil interface fails
// the cell where Go prints fmt's %!v(PANIC=…).
func TestPromotedPrintBySignature(t *testing.T) {
	decls := "type Ev struct {\n\ttime.Time\n\tN int\n}\ntype Inner struct {\n\ttime.Duration\n\tk int\n}\n" +
		"type Iface struct {\n\tfmt.Stringer\n\tInner\n}\ntype IfaceTwo struct {\n\tfmt.Stringer\n\ttime.Duration\n}\n" +
		"type ErrIface struct {\n\terror\n\ttime.Duration\n}\ntype Str interface{ String() string }\n" +
		"type Own struct {\n\tStr\n\tInner\n}\ntype FmtField struct {\n\ttime.Duration\n\tFormat int\n}\n" +
		"type BufInner struct {\n\tbytes.Buffer\n\tInner\n}"
	ev := promEv{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}
	verbs, others := "%d|%v|%s\n", "%t|%o|%x\n" // variables, as vet rejects %d of a struct of a Stringer
	iface := promIface{time.Minute, promInner{time.Second, 1}}
	for _, c := range []struct{ name, code, want, err string }{
		{"Time's Format is no Formatter", "e := Ev{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}\nfmt.Printf(\"%d|%v|%s\\n\", e, e, e)",
			fmt.Sprintf(verbs, ev, ev, ev), ""},
		{"Time's Format, other verbs", "e := Ev{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 7}\nfmt.Printf(\"%t|%o|%x\\n\", e, e, e)",
			fmt.Sprintf(others, ev, ev, ev), ""},
		{"field named Format", "fmt.Println(FmtField{time.Second, 3})", fmt.Sprintln(promFmtField{time.Second, 3}), ""},
		{"compiled interface above", "fmt.Println(Iface{time.Minute, Inner{time.Second, 1}})",
			fmt.Sprintln(promIface{time.Minute, promInner{time.Second, 1}}), ""},
		{"session interface above", "fmt.Println(Own{time.Minute, Inner{time.Second, 1}})",
			fmt.Sprintln(promIface{time.Minute, promInner{time.Second, 1}}), ""},
		{"interface beside", "fmt.Println(IfaceTwo{time.Minute, time.Second})", fmt.Sprintln(promIfaceTwo{time.Minute, time.Second}), ""},
		{"error beside", "fmt.Println(ErrIface{io.EOF, time.Second})", fmt.Sprintln(promErrIface{io.EOF, time.Second}), ""},
		{"interface, verbs", "x := Iface{time.Minute, Inner{time.Second, 1}}\np := &x\nfmt.Printf(\"%x|%8s|%q|%d\\n\", x, &x, p, x.k)",
			fmt.Sprintf("%x|%8s|%q|%d\n", iface, &iface, &iface, iface.k), ""},
		{"interface, Print spaces", "fmt.Print(Iface{time.Minute, Inner{time.Second, 1}}, 1, \"\\n\")", fmt.Sprint(iface, 1, "\n"), ""},
		{"nil pointer to a type with an interface", "var p *Iface\nfmt.Println(p)", fmt.Sprintln((*promIface)(nil)), ""},
		{"nil interface", "fmt.Println(Iface{nil, Inner{time.Second, 1}})", "", "nil pointer dereference"},
		{"pointer method hides a deeper one", "fmt.Println(BufInner{Inner: Inner{time.Second, 1}})",
			fmt.Sprintln(promBufInner{promInner: promInner{time.Second, 1}}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, promotedSetup)
			ts.mustRun(t, decls)
			ts.out.Reset()
			res := ts.run(c.code)
			switch got := ts.out.String(); {
			case c.err != "" && (res.Err == nil || !strings.Contains(res.Err.Value, c.err)):
				t.Errorf("%q: error %v, output %q; want an error with %q", c.code, res.Err, got, c.err)
			case c.err == "" && res.Err != nil:
				t.Errorf("%q: error %v, want the output %q", c.code, res.Err.Value, c.want)
			case got != c.want:
				t.Errorf("%q: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}
