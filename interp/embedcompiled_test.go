package interp

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/ipc"
)

// TestEmbeddedCompiledTypes declares struct types that embed compiled types and prints their
// values in a worker process, which a fatal error of the Go runtime ends. Before
// check-embedded-compiled, a struct whose only field embeds a compiled type with unexported
// methods (time.Time, *bytes.Buffer, time.Duration) declared fine and ended the worker when
// fmt printed a value of it; now its declaration fails with an explanation. tar.Header, whose
// methods are all unexported, passed the check that counted exported methods and ended the
// worker too. A struct that embeds image.Point alone prints as in Go, but a pointer to it
// does not (&p prints &(1,2)), so it is refused with that reason. The other rows keep Go's
// answer: with a field beside image.Point, fmt prints the promoted String (wrap-fmt-args).
func TestEmbeddedCompiledTypes(t *testing.T) {
	const refused = "cannot hand a value of"
	for _, c := range []struct{ name, decl, use, want, err string }{
		{"time.Time", "type Ev struct{ time.Time }", "fmt.Sprint(Ev{time.Unix(0, 0).UTC()})", "", refused},
		{"*bytes.Buffer", "type Buf struct{ *bytes.Buffer }", "fmt.Sprint(Buf{new(bytes.Buffer)})", "", refused},
		{"time.Duration", "type Dur struct{ time.Duration }", "fmt.Sprint(Dur{time.Second})", "", refused},
		{"tar.Header", "type H struct{ tar.Header }", "fmt.Sprint(H{})", "", refused},
		{"image.Point alone", "type P struct{ image.Point }", "fmt.Sprint(&P{})", "", "gives a pointer to it none of the methods"},
		{"in a group", "type (\n\tA int\n\tEv struct {\n\t\ttime.Time\n\t}\n)", "fmt.Sprint(Ev{})", "", refused},
		{"in a function", "func f() string {\n\ttype ev struct{ time.Time }\n\treturn fmt.Sprint(ev{})\n}", "f()", "", refused},
		{"in a statement", "s := func() string {\n\ttype ev struct{ *bytes.Buffer }\n\treturn fmt.Sprint(ev{})\n}()", "s", "", refused},
		// Go's answers
		{"named field", "type Ev struct{ T time.Time }", "fmt.Sprint(Ev{time.Unix(0, 0).UTC()}.T.Unix())", `"0"`, ""},
		{"two fields", "type Ev struct {\n\ttime.Time\n\tName string\n}", "fmt.Sprint(Ev{time.Unix(7, 0), \"a\"}.Unix())", `"7"`, ""},
		{"sync.Mutex", "type M struct{ sync.Mutex }", "var m M\nm.Lock()\nm.Unlock()\nfmt.Sprint(m)", `"{{{} {0 0}}}"`, ""},
		{"bytes.Buffer value", "type B struct{ bytes.Buffer }", "var b B\nb.WriteString(\"x\")\nfmt.Sprint(b.Len())", `"1"`, ""},
		{"image.Point and a field", "type P struct {\n\timage.Point\n\tZ int\n}", "p := P{image.Pt(1, 2), 3}\nfmt.Sprint(p, p.X, p.Add(image.Pt(1, 1)))", `"(1,2) 1 (2,3)"`, ""},
		{"embedded interface", "type S struct{ fmt.Stringer }", "fmt.Sprint(S{time.Second}.String())", `"1s"`, ""},
		{"embedded cell type", "type In struct{ A int }\ntype Out struct{ In }", "fmt.Sprint(Out{In{3}})", `"{{3}}"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := startWorker(t)
			w.execute("import (\n\t\"archive/tar\"\n\t\"bytes\"\n\t\"fmt\"\n\t\"image\"\n\t\"sync\"\n\t\"time\"\n)\n"+
				"var _ tar.Header\nvar _, _, _, _ = bytes.MinRead, fmt.Sprint, image.Pt, time.Second\nvar _ sync.Mutex", 1)
			evs := w.execute(c.decl, 2)
			if errs := ofType(evs, ipc.Error); len(errs) > 0 || c.err != "" {
				if c.err == "" || len(errs) != 1 || !strings.Contains(errs[0].Evalue, c.err) {
					t.Fatalf("declaration %q: errors %+v, want one with %q", c.decl, errs, c.err)
				}
				if !strings.Contains(errs[0].Evalue, "name the field") {
					t.Errorf("the error does not say what to write: %s", errs[0].Evalue)
				}
				return
			}
			evs = w.execute(c.use, 3)
			res := ofType(evs, ipc.ExecuteResult)
			if len(res) != 1 || res[0].Data["text/plain"] != c.want {
				t.Errorf("%q: %+v, want the result %s", c.use, evs, c.want)
			}
		})
	}
}
