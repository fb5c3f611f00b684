package display

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
)

type card struct{ title string }

func (c card) MIMEBundle() map[string]any { return map[string]any{MIMEHTML: "<b>" + c.title + "</b>"} }

func TestRender(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	long := make([]float64, 100)
	for i := range long {
		long[i] = float64(i)
	}
	cases := []struct {
		name string
		v    any
		want map[string]string // MIME type → substring of the member
	}{
		{"string is quoted", "hi", map[string]string{MIMEText: `"hi"`}},
		{"multi-line string in backquotes", "a\nb", map[string]string{MIMEText: "`a\nb`"}},
		{"integer", 42, map[string]string{MIMEText: "42"}},
		{"struct with field names", struct{ A, B int }{1, 2}, map[string]string{MIMEText: "{A:1 B:2}"}},
		{"error", errors.New("no data"), map[string]string{MIMEText: "error: no data"}},
		{"nil", nil, map[string]string{MIMEText: "<nil>"}},
		{"MIMEBundle gets text/plain", card{"x"}, map[string]string{MIMEHTML: "<b>x</b>", MIMEText: "<display.card>"}},
		{"matrix as text and table", mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6.5}),
			map[string]string{MIMEText: "2×3 matrix", MIMEHTML: "<td>6.5</td>"}},
		{"large matrix elided", mat.NewDense(100, 100, nil), map[string]string{MIMEText: "100×100 matrix", MIMEHTML: "<td>…</td>"}},
		{"short slice", []float64{1.5, 2}, map[string]string{MIMEText: "[]float64 (len 2)\n[1.5 2]"}},
		{"long slice elided", long, map[string]string{MIMEText: "(len 100)\n[0 1 2"}},
		{"int slice", []int{3, 4}, map[string]string{MIMEText: "[]int (len 2)\n[3 4]"}},
		{"image as PNG", img, map[string]string{MIMEText: "<image 3×2>"}},
		{"HTML value", HTMLValue("<p>"), map[string]string{MIMEHTML: "<p>"}},
		{"SVG as image and HTML", SVGValue("<svg/>"), map[string]string{MIMESVG: "<svg/>", MIMEHTML: "<div><svg/></div>"}},
		{"LaTeX", LaTeXValue(`$x^2$`), map[string]string{MIMELaTeX: `$x^2$`}},
		{"Markdown", MarkdownValue("# T"), map[string]string{MIMEMarkdown: "# T"}},
		{"JSON", JSONValue{map[string]int{"a": 1}}, map[string]string{MIMEText: `"a": 1`}},
		{"JSON error", JSONValue{func() {}}, map[string]string{MIMEText: "cannot show as JSON"}},
		{"huge value cut", map[int]string{1: strings.Repeat("é", 20000)}, map[string]string{MIMEText: "é… (cut: longer than 20000 bytes)"}},
	}
	for _, c := range cases {
		got := Render(c.v)
		for mime, want := range c.want {
			s, _ := got[mime].(string)
			if !strings.Contains(s, want) {
				t.Errorf("%s: Render(%T)[%s] = %q, want it to contain %q", c.name, c.v, mime, s, want)
			}
		}
		if _, ok := got[MIMEText]; !ok {
			t.Errorf("%s: no text/plain member", c.name)
		}
	}
	if _, ok := Render(long)[MIMEText].(string); !ok || strings.Count(Render(long)[MIMEText].(string), " ") > 45 {
		t.Errorf("long slice not elided: %v", Render(long))
	}
}

func TestImagePNGDecodes(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 2, color.RGBA{R: 255, A: 255})
	b, ok := Render(img)[MIMEPNG].([]byte)
	if !ok {
		t.Fatal("no PNG")
	}
	back, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := back.At(1, 2).RGBA(); r != 0xffff {
		t.Errorf("pixel not preserved: %v", back.At(1, 2))
	}
}

func TestSinkAndUpdates(t *testing.T) {
	var got []runenv.Output
	runenv.SetDisplay(func(o runenv.Output) { got = append(got, o) })
	defer runenv.SetDisplay(nil)
	HTML("<i>a</i>")
	Markdown("*b*")
	LaTeX(`$c$`)
	Text("d")
	PNG([]byte{1})
	SVG("<svg/>")
	JSON([]int{1})
	Image(image.NewGray(image.Rect(0, 0, 1, 1)))
	Show(3)
	ShowBundle(card{"c"})
	Bundle(map[string]any{"text/x-custom": "e"})
	d := New()
	d.Text("1")
	d.HTML("<b>2</b>")
	d.UpdateBundle(card{"3"})
	ClearOutput(true)
	if len(got) == 0 {
		t.Fatal("no output reached the display sink the host set with runenv.SetDisplay")
	}
	if c := got[len(got)-1]; !c.Clear || !c.Wait {
		t.Errorf("ClearOutput sent %+v", c)
	}
	got = got[:len(got)-1]
	wantMIME := []string{MIMEHTML, MIMEMarkdown, MIMELaTeX, MIMEText, MIMEPNG, MIMESVG, MIMEJSON, MIMEPNG, MIMEText, MIMEHTML, "text/x-custom", MIMEText, MIMEHTML, MIMEHTML}
	if len(got) != len(wantMIME) {
		t.Fatalf("%d outputs, want %d", len(got), len(wantMIME))
	}
	for i, m := range wantMIME {
		if _, ok := got[i].Data[m]; !ok {
			t.Errorf("output %d lacks %s: %v", i, m, got[i].Data)
		}
	}
	first, second, third := got[len(got)-3], got[len(got)-2], got[len(got)-1]
	if first.DisplayID == "" || first.DisplayID != second.DisplayID || second.DisplayID != third.DisplayID ||
		first.Update || !second.Update || !third.Update {
		t.Errorf("updatable display: %+v then %+v then %+v", first, second, third)
	}
	if other := New(); other.ID() == d.ID() {
		t.Error("two displays share an id")
	}
}

func TestCheck(t *testing.T) {
	Check(true, "fine") // must not panic
	defer func() {
		r := recover()
		msg, ok := IsCheckError(r)
		if !ok || msg != "coverage within 0.05" {
			t.Errorf("recovered %v", r)
		}
	}()
	Check(false, "coverage within 0.05")
	t.Error("Check(false) returned")
}

func ExampleRender() {
	fmt.Println(PlainText(Render([]float64{0.25, 0.5})))
	Show([]float64{0.25, 0.5}) // without a notebook, shows the text form
	// Output:
	// []float64 (len 2)
	// [0.25 0.5]
	// []float64 (len 2)
	// [0.25 0.5]
}

func ExampleNew() {
	d := New()
	for i := range 3 {
		d.Text(strings.Repeat("#", i+1)) // in a notebook: one output, replaced in place
	}
	// Output:
	// #
	// ##
	// ###
}

func ExampleCheck() {
	Check(len("abc") == 3, "three letters")
	Markdown("all checks passed")
	// Output:
	// all checks passed
}
