package interp

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A key of a struct literal completes to the fields of the literal's type, and Shift-Tab on
// it shows that field, not a type of another package that has the same name.
func TestCompleteStructLiteralKeys(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"github.com/gosbi/gosbi/sbi\"\ntype Point struct{ X, Y float64; label string }\nquickRun := true")
	cases := []struct {
		code string
		want []string // exactly the matches
	}{
		{code: "cfg := sbi.NPEConfig{Fl", want: []string{"Flow"}},
		{code: "sbi.NPEConfig{", want: []string{"Activation", "Bins", "Embedding", "Flow", "Hidden", "Layers", "Transforms"}},
		{code: "sbi.NewNPE(prior, sbi.NPEConfig{Flow: \"nsf\", Hid", want: []string{"Hidden"}},
		{code: "sbi.TrainConfig{\n\tEpochs: 10,\n\tBatch", want: []string{"BatchSize"}},
		{code: "p := &Point{X: 1, la", want: []string{"label"}},
		// a value after the colon, and a block, complete as names
		{code: "sbi.TrainConfig{Resume: quickR", want: []string{"quickRun"}},
		{code: "if quickRun {\n\tquickR", want: []string{"quickRun"}},
		{code: "for _, v := range []int{1, 2} {\n\tfmt.Println(v)\n}\nsbi.NPEConfig{Flow: \"maf\"}\nquickR", want: []string{"quickRun"}},
	}
	for _, c := range cases {
		m, _, _ := ts.Complete(c.code, utf8.RuneCountInString(c.code))
		if !slices.Equal(m, c.want) {
			t.Errorf("Complete(%q) = %v, want %v", c.code, m, c.want)
		}
	}
}

func TestInspectFields(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"github.com/gosbi/gosbi/sbi\"\ntype Point struct{ X, Y float64; label string }\n"+
		"pt := Point{X: 1.5, Y: 2}\ncfg := sbi.TrainConfig{Epochs: 7}")
	cases := []struct {
		code   string
		cursor int // -1: the end
		want   []string
	}{
		{"sbi.NPEConfig{Flow", -1, []string{"Flow       flow.Kind", "nsf", "a field of sbi.NPEConfig"}},
		{"sbi.NPEConfig{Flow: \"maf\"}", 16, []string{"Flow       flow.Kind", "a field of sbi.NPEConfig"}},
		{"sbi.TrainConfig{Epochs: 3, Resume", -1, []string{"// Resume continues from the current weights", "Resume bool"}},
		{"Point{X: 1, label", -1, []string{"field label string", "a field of Point"}},
		{"cfg.Epochs", -1, []string{"Epochs             int", "value of cfg.Epochs: 7"}},
		{"pt.X", -1, []string{"field X float64 of pt", "value of pt.X: 1.5"}},
		{"sbi.TrainConfig.Patience", -1, []string{"Patience           int", "a field of sbi.TrainConfig"}},
		// one of two fields declared on one line
		{"sbi.TrainConfig{ValX", -1, []string{"ValTheta, ValX *mat.Dense"}},
	}
	for _, c := range cases {
		cursor := c.cursor
		if cursor < 0 {
			cursor = utf8.RuneCountInString(c.code)
		}
		text, found := ts.Inspect(c.code, cursor)
		if !found {
			t.Errorf("Inspect(%q, %d): not found", c.code, cursor)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("Inspect(%q, %d) = %q, lacks %q", c.code, cursor, text, w)
			}
		}
	}
}

// A member of a variable that the cell being typed redefines above the cursor is documented
// from that definition, not from the session's variable of the same name; its value is not
// shown, as the cell has not run.
func TestInspectCellRedefinedVariable(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"github.com/gosbi/gosbi/sbi\"\ncfg := sbi.TrainConfig{Epochs: 7}")
	cases := []struct {
		code    string
		found   bool
		want    []string
		notWant []string
	}{
		{"cfg := sbi.TrainResult{}\ncfg.Epochs", true, []string{"a field of sbi.TrainResult"}, []string{"sbi.TrainConfig", "value of"}},
		{"cfg := &sbi.TrainResult{}\ncfg.Epochs", true, []string{"a field of sbi.TrainResult"}, []string{"sbi.TrainConfig", "value of"}},
		{"func f(x int) {\n\tvar cfg int\n\tcfg.Epochs", false, nil, nil},
		// a definition in a block that has ended leaves the session's variable
		{"func() {\n\tcfg := 3\n}()\ncfg.Epochs", true, []string{"a field of sbi.TrainConfig", "value of cfg.Epochs: 7"}, nil},
	}
	for _, c := range cases {
		text, found := ts.Inspect(c.code, utf8.RuneCountInString(c.code))
		if found != c.found {
			t.Errorf("Inspect(%q): found %v, want %v: %q", c.code, found, c.found, text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("Inspect(%q) = %q, lacks %q", c.code, text, w)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(text, w) {
				t.Errorf("Inspect(%q) = %q, should not hold %q", c.code, text, w)
			}
		}
	}
}

// The members of a variable that the cell being typed defines above the cursor complete
// before the cell has run, when its definition shows its type.
func TestCompleteCellVariableMembers(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\"math/rand/v2\"; \"strings\"; \"github.com/gosbi/gosbi/sbi\"; \"github.com/gosbi/gosbi/sbi/dist\")\nrng := rand.New(rand.NewPCG(1, 2))\nnpe0 := sbi.NewNPE(dist.NewUniformCube(-1, 1, 2), sbi.NPEConfig{})\n"+
		"res := sbi.TrainResult{}\ntype T struct{ Alpha int }\nfunc (T) Beta() {}\ntype E struct{ T; Delta int }\nev := E{}\nvar sb strings.Builder")
	cases := []struct {
		code    string
		want    []string // among the matches
		notWant []string
	}{
		// the cell redefines a session variable above the cursor: its type there counts
		{code: "res := sbi.TrainConfig{}\nres.", want: []string{"Patience"}, notWant: []string{"TrainLoss"}},
		{code: "var res int\nres.", notWant: []string{"TrainLoss"}},
		{code: "if res := 3; res > 0 {\n\tres.", notWant: []string{"TrainLoss"}},
		{code: "func() {\n\tres := sbi.TrainConfig{}\n\tres.", want: []string{"Patience"}, notWant: []string{"TrainLoss"}},
		// a definition in a block that has ended does not
		{code: "for _, res := range []int{1} {\n}\nres.", want: []string{"TrainLoss"}},
		{code: "func() {\n\tres := sbi.TrainConfig{}\n}()\nres.", want: []string{"TrainLoss"}},
		// promoted members count; a compiled type's unexported fields do not
		{code: "ev.", want: []string{"Alpha", "Beta", "Delta", "T"}},
		{code: "sb.", want: []string{"String"}, notWant: []string{"buf", "addr"}},
		{code: "npe := sbi.NewNPE(nil, sbi.NPEConfig{})\nnpe.Mu", want: []string{"MustTrain"}},
		{code: "cfg := sbi.TrainConfig{Epochs: 3}\ncfg.Ep", want: []string{"Epochs"}},
		{code: "cfg := &sbi.TrainConfig{}\ncfg.Pat", want: []string{"Patience"}},
		{code: "var tc sbi.TrainConfig\ntc.See", want: []string{"Seed"}},
		{code: "var tc, tc2 sbi.TrainConfig\ntc.See", want: []string{"Seed"}},
		{code: "u := rng.Perm(3)\nv, err := sbi.NewNPE(nil, sbi.NPEConfig{}).Train(nil, nil, sbi.TrainConfig{})\nn := rng.IntN(2)\nnpe, err := sbi.NewNPE(nil, sbi.NPEConfig{}), error(nil)\nnpe.Pos", want: []string{"PosteriorAt"}},
		{code: "post := npe0.PosteriorAt([]float64{1})\npost.Samp", want: []string{"Sample"}}, // a method of a session variable
		// the last definition counts; one whose type needs running gives nothing
		{code: "npe := sbi.NewNPE(nil, sbi.NPEConfig{})\nnpe := 3\nnpe.", notWant: []string{"MustTrain"}},
		{code: "f := func() *sbi.NPE { return nil }()\nf.", notWant: []string{"MustTrain"}},
	}
	for _, c := range cases {
		m, _, _ := ts.Complete(c.code, utf8.RuneCountInString(c.code))
		checkMatches(t, c.code, m, c.want, c.notWant)
	}
}
