package interp

import (
	"strings"
	"testing"
)

// TestUndefinedFieldOrMethod: a field, method or package member that does not exist gets Go's
// message at the selected name's column, naming the value and its type, with the name it
// likely meant; for compiled types, pointers to them, the cell's own types, a package's
// members and interfaces, compiled and the cell's.
func TestUndefinedFieldOrMethod(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"github.com/gosbi/gosbi/sbi\"\n\t\"github.com/gosbi/gosbi/sbi/dist\"\n\t\"strings\"\n)\n"+
		"res := sbi.TrainResult{}\npres := &sbi.TrainResult{}\n"+
		"type T struct{ Alpha int }\nfunc (T) Beta() int { return 1 }\ntv := T{}\ntp := &T{}\n"+
		"var d dist.Distribution = dist.NewNormal([]float64{0}, []float64{1})\n"+
		"type I interface{ Beta() int }\nvar iv I = tv\n"+
		"sb := strings.Builder{}\ntype E struct{ T; Delta int }\nev := E{}\n"+
		"type J interface{ I; Delta() }\nvar jv J\nvar rd interface{ Beta() int } = tv\n"+
		"type W struct{ strings.Builder; n int }\nvar w W\n"+
		"type S struct{ Alpha int; h interface{ Beta() int } }\nvar sv S")
	for _, c := range []struct{ name, code, want string }{
		{"compiled type", "res.Foo", "line 1:5: res.Foo undefined (type sbi.TrainResult has no field or method Foo)"},
		{"case only", "res.trainLoss", "line 1:5: res.trainLoss undefined (type sbi.TrainResult has no field or method trainLoss); did you mean TrainLoss?"},
		{"one edit, in a call", "fmt.Println(res.TrainLos)", "line 1:17: res.TrainLos undefined (type sbi.TrainResult has no field or method TrainLos); did you mean TrainLoss?"},
		{"assigned", "x := res.Foo\nx", "line 1:10: res.Foo undefined (type sbi.TrainResult has no field or method Foo)"},
		{"pointer to a compiled type", "pres.Foo()", "line 1:6: pres.Foo undefined (type *sbi.TrainResult has no field or method Foo)"},
		{"cell type", "tv.Alpah", "line 1:4: tv.Alpah undefined (type T has no field or method Alpah); did you mean Alpha?"},
		{"pointer to a cell type", "tp.beta()", "line 1:4: tp.beta undefined (type *T has no field or method beta); did you mean Beta?"},
		{"in a function", "func f() int { return tv.Gamma }", "line 1:26: tv.Gamma undefined (type T has no field or method Gamma)"},
		{"package member", "sbi.Foo", "line 1:5: undefined: sbi.Foo"},
		{"package member, case only", "sbi.NewNpe", "line 1:5: undefined: sbi.NewNpe; did you mean NewNPE?"},
		{"compiled interface", "d.LogPrb", "line 1:3: d.LogPrb undefined (type dist.Distribution has no field or method LogPrb); did you mean LogProb?"},
		{"cell interface", "iv.Bta()", "line 1:4: iv.Bta undefined (type I has no field or method Bta); did you mean Beta?"},
		{"cell interface, a field of its value", "iv.Alpha", "line 1:4: iv.Alpha undefined (type I has no field or method Alpha)"},
		// an unexported field of a compiled type cannot be used: Go suggests no such name
		{"unexported field of a compiled type", "sb.bufx", "line 1:4: sb.bufx undefined (type strings.Builder has no field or method bufx)"},
		{"promoted field", "ev.Alpah", "line 1:4: ev.Alpah undefined (type E has no field or method Alpah); did you mean Alpha?"},
		{"promoted method", "ev.Bta()", "line 1:4: ev.Bta undefined (type E has no field or method Bta); did you mean Beta?"},
		{"method promoted from a compiled type", "w.Strng()", "line 1:3: w.Strng undefined (type W has no field or method Strng); did you mean String?"},
		{"method of an embedded interface", "jv.Bta()", "line 1:4: jv.Bta undefined (type J has no field or method Bta); did you mean Beta?"},
		{"struct with a field of an interface type", "sv.Bta", "line 1:4: sv.Bta undefined (type S has no field or method Bta)"},
		{"struct with a field of an interface type, a field", "sv.Alpah", "line 1:4: sv.Alpah undefined (type S has no field or method Alpah); did you mean Alpha?"},
		{"interface literal", "rd.Bta()", "line 1:4: rd.Bta undefined (type interface{ Beta() int } has no field or method Bta); did you mean Beta?"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%s: %q ran", c.name, c.code)
			continue
		}
		if got := res.Err.Value; !strings.HasPrefix(got, "cell [") || !strings.HasSuffix(got, "] "+c.want) {
			t.Errorf("%s: %q:\n got %q\nwant \"cell [N] %s\"", c.name, c.code, got, c.want)
		}
	}
}
