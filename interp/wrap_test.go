package interp

import (
	"strings"
	"testing"
)

// wrapSetup declares types of the session that implement compiled interfaces: half an
// sbi.Embedding (with the extra methods of sbi.TrialCounter and fmt.Stringer), mtx a
// mat.Matrix whose values sum to 4, and chk, which builds an embedding's network.
const wrapSetup = "import (\n\t\"errors\"\n\t\"fmt\"\n\t\"math/rand/v2\"\n\t\"sort\"\n" +
	"\t\"github.com/gosbi/gosbi/sbi\"\n\t\"gonum.org/v1/gonum/mat\"\n)\n" +
	"type half struct{ n int }\n" +
	"func (h half) Build(rng *rand.Rand, in int) (sbi.EmbeddingNet, error) { return sbi.MLPEmbedding{Out: 2}.Build(rng, in) }\n" +
	"func (h half) TrialCount(row []float64) (int, bool) { return 7, true }\n" +
	"func (h half) String() string { return \"half\" }\n" +
	"type mtx struct{}\n" +
	"func (mtx) Dims() (int, int) { return 2, 2 }\n" +
	"func (mtx) At(i, j int) float64 { return float64(i + j) }\n" +
	"func (m mtx) T() mat.Matrix { return mat.Transpose{m} }\n" +
	"type myErr struct{}\n" +
	"func (myErr) Error() string { return \"mine\" }\n" +
	"type byLen []string\n" +
	"func (b byLen) less(i, j int) bool { return len(b[i]) < len(b[j]) }\n" +
	"func chk(e sbi.Embedding) string { n, err := e.Build(rand.New(rand.NewPCG(1, 2)), 4); return fmt.Sprint(n.Out(), err) }\n" +
	"var _, _ = errors.New, sort.Slice"

// TestInterfaceValueForms passes values of types declared in cells to compiled interfaces
// (sbi.Embedding, mat.Matrix) in every form a cell may write it, and checks that compiled
// code can use them. Composite literals of compiled struct types and conversions to compiled
// interfaces stored the bare value and panicked ("reflect.Set: value of type struct { Xn int }
// is not assignable to type sbi.Embedding") before the pass wrap-interfaces.
func TestInterfaceValueForms(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, wrapSetup)
	for _, c := range []struct{ name, code, want string }{
		// composite literals of a compiled struct type
		{"keyed field", "chk(sbi.NPEConfig{Embedding: half{}}.Embedding)", `"2 <nil>"`},
		{"keyed field, variable", "h := half{}\nchk(sbi.NPEConfig{Hidden: 3, Embedding: h}.Embedding)", `"2 <nil>"`},
		{"keyed field, pointer", "chk(sbi.NPEConfig{Embedding: (&half{})}.Embedding)", `"2 <nil>"`},
		{"pointer literal", "pc := &sbi.NPEConfig{\n\tHidden:    3,\n\tEmbedding: half{n: 1},\n}\nchk(pc.Embedding)", `"2 <nil>"`},
		{"positional", "mat.Sum(mat.Transpose{mtx{}})", "4"},
		{"in a method", "mat.Sum(mtx{}.T())", "4"},
		{"in a function", "func mk(h half) sbi.NPEConfig { return sbi.NPEConfig{Embedding: h} }\nchk(mk(half{}).Embedding)", `"2 <nil>"`},
		{"top-level var", "var vc = sbi.NPEConfig{Embedding: half{}}\nchk(vc.Embedding)", `"2 <nil>"`},
		{"elided in a slice", "cs := []sbi.NPEConfig{{Embedding: half{}}}\nchk(cs[0].Embedding)", `"2 <nil>"`},
		{"elided in a slice of pointers", "cs := []*sbi.NPEConfig{{Embedding: half{}}}\nchk(cs[0].Embedding)", `"2 <nil>"`},
		{"elided in a map", "cm := map[string]sbi.NPEConfig{\"a\": {Embedding: half{}}}\nchk(cm[\"a\"].Embedding)", `"2 <nil>"`},
		{"elided in an array", "ca := [1]sbi.NPEConfig{{Embedding: half{}}}\nchk(ca[0].Embedding)", `"2 <nil>"`},
		{"nested", "cn := []sbi.NPEConfig{{Embedding: half{}}, sbi.NPEConfig{Embedding: half{}}}\nchk(cn[1].Embedding)", `"2 <nil>"`},
		// conversions
		{"conversion", "chk(sbi.Embedding(half{}))", `"2 <nil>"`},
		{"conversion in a literal", "chk(sbi.NPEConfig{Embedding: sbi.Embedding(half{})}.Embedding)", `"2 <nil>"`},
		{"conversion defines", "ce := sbi.Embedding(half{})\nchk(ce)", `"2 <nil>"`},
		// what the interpreter wraps itself
		{"field assignment", "var fc sbi.NPEConfig\nfc.Embedding = half{}\nchk(fc.Embedding)", `"2 <nil>"`},
		{"slice literal", "chk([]sbi.Embedding{half{}}[0])", `"2 <nil>"`},
		{"map literal", "chk(map[int]sbi.Embedding{1: half{}}[1])", `"2 <nil>"`},
		{"array literal", "chk([1]sbi.Embedding{half{}}[0])", `"2 <nil>"`},
		{"argument", "mat.Sum(mtx{})", "4"},
		{"return", "func mkE() sbi.Embedding { return half{} }\nchk(mkE())", `"2 <nil>"`},
		{"channel send", "ch := make(chan mat.Matrix, 1)\nch <- mtx{}\nmat.Sum(<-ch)", "4"},
		{"method value", "bl := byLen{\"ccc\", \"a\", \"bb\"}\nsort.Slice(bl, bl.less)\nbl[0] + bl[2]", `"accc"`},
		{"variadic, spread slice", "errors.Join([]error{myErr{}}...).Error()", `"mine"`},
		{"error, own-type variable", "eo := myErr{}\nfmt.Sprintf(\"%v %s\", errors.Is(eo, nil), errors.Join([]error{eo}...))", `"false mine"`},
		// values the pass must leave as they are
		{"nil", "sbi.NPEConfig{Embedding: nil}.Embedding == nil", "true"},
		{"compiled value", "fmt.Sprintf(\"%T\", sbi.NPEConfig{Embedding: sbi.MLPEmbedding{}}.Embedding)", `"sbi.MLPEmbedding"`},
		{"evaluation order", "var order []string\nfunc at(s string, n int) int { order = append(order, s); return n }\n" +
			"func emb(s string) sbi.Embedding { order = append(order, s); return half{} }\n" +
			"oc := sbi.NPEConfig{Hidden: at(\"a\", 1), Embedding: emb(\"b\"), Layers: at(\"c\", 2)}\nfmt.Sprint(order, oc.Hidden, oc.Layers)", `"[a b c] 1 2"`},
		// the wrapper has the methods of the interface it was made for, and only those
		{"stringer hidden", "var hs sbi.Embedding = half{}\nfmt.Sprint(hs) == \"half\"", "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.run(c.code)
			if res.Err != nil {
				t.Fatalf("%q: %s", c.code, res.Err.Value)
			}
			if got := text(res); got != c.want {
				t.Errorf("%q: got %s, want %s", c.code, got, c.want)
			}
		})
	}
	// A cell's assertion to an optional interface that the session's types have: the
	// interpreter answers no for the hidden one (Go: yes) and cannot be told from the declared
	// one, so check-interface-assertions fails both.
	for _, code := range []string{
		"var he sbi.Embedding = half{}\n_, ok := he.(sbi.TrialCounter)\nok",
		"var te sbi.TrialCounter = half{}\ntc := sbi.NPEConfig{Embedding: te}\n_, ok := tc.Embedding.(sbi.TrialCounter)\nok",
	} {
		if res := ts.run(code); res.Err == nil || !strings.Contains(res.Err.Value, "may answer wrongly") {
			t.Errorf("%q: got %s, %v; want the error of check-interface-assertions", code, text(res), res.Err)
		}
	}
}

// TestInterfaceValueRewriteKeepsPositions checks that errors in and after a wrapped value
// name the cell's own lines and columns, not the inserted function literal.
func TestInterfaceValueRewriteKeepsPositions(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, wrapSetup)
	for _, c := range []struct{ code, want string }{
		{"x := sbi.NPEConfig{Embedding: nope}", "line 1:31: undefined: nope"},
		{"x := sbi.NPEConfig{Embedding: half{}, Hidden: nope}", "line 1:47: undefined: nope"},
		{"x := sbi.NPEConfig{Embedding: half{}}\nnope", "line 2:1: undefined: nope"},
		{"x := sbi.Embedding(nope)", "line 1:20: undefined: nope"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) || strings.Contains(res.Err.Value, "_gosbi_") {
			t.Errorf("%q: error %q, want it to contain %q", c.code, res.Err.Value, c.want)
		}
	}
}

// TestBareValueExplained checks that the forms in which the interpreter still passes a
// cell's value bare to a compiled interface fail with a message that says what works: a
// variable of type error holds it bare where the cell does not show the value's type (a
// value received from a channel; fresh-wrappers wraps var e error = myErr{}).
func TestBareValueExplained(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, wrapSetup)
	for _, c := range []struct{ code, want string }{
		{"errors.Join(myErr{})", "pass a slice literal, f([]error{value}...)"},
		{"ch := make(chan myErr, 1)\nch <- myErr{}\nvar je error = <-ch\nerrors.Join(je)", "reached the compiled interface error without the wrapper"},
		{"ch := make(chan myErr, 1)\nch <- myErr{}\nvar ie error\nie = <-ch\nvar es []error\nes = append(es, ie)", "keep it in a variable of its own type, e := T{…}, not var e error = value"},
	} {
		res := ts.run(c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if !strings.Contains(res.Err.Value, c.want) {
			t.Errorf("%q: error %q, want it to contain %q", c.code, res.Err.Value, c.want)
		}
	}
}
